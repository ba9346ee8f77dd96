"""Per-step harness time of a checkpointed tool loop: deepagents_rs vs deepagents 0.7.32.

One agent runs ``--steps`` model turns, each calling a trivial user tool ``echo``, then a
final answer, on a thread (``thread_id``) of a LangGraph saver, with both implementations in
this process, driven by the same scripted LangChain chat model (no HTTP):

* ``none``: no checkpointer (the baseline: what checkpointing adds is the difference);
* ``memory``: ``InMemorySaver()``;
* ``sqlite``: ``SqliteSaver`` on a file in a temporary directory (WAL, as LangGraph sets it).

The wall time of ``agent.invoke(...)`` is measured (building the agent and the saver is not),
once as a warm-up and then ``--repeat`` times, each on a fresh saver; the median is reported
as per-step milliseconds (total / steps), with the ratio deepagents / deepagents_rs. Each run
is checked: every scripted reply used, ``2 * steps + 2`` messages, and with a saver, the
thread's state read back holds them all.

Usage::

    python benches/threads.py [--steps 50] [--repeat 3] [--savers none,memory,sqlite]

``deepagents_rs`` is imported from whatever environment runs the script. This is a benchmark
script, not a test; it never touches the network.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tool_loop import BenchError, build_info, echo

SAVERS = ("none", "memory", "sqlite")
THREAD = {"configurable": {"thread_id": "bench"}}


def make_saver(kind: str, tmp: Path, n: int) -> Any:
    if kind == "none":
        return None
    if kind == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        return InMemorySaver()
    from langgraph.checkpoint.sqlite import SqliteSaver

    return SqliteSaver(sqlite3.connect(tmp / f"run{n}.sqlite", check_same_thread=False))


def one_run(create: Callable[..., Any], kind: str, steps: int, tmp: Path, n: int) -> float:
    from fake_models import ScriptedChatModel, ai_tool_calls

    model = ScriptedChatModel([*(ai_tool_calls(("echo", {"text": f"step {i}"})) for i in range(steps)), "done"])
    saver = make_saver(kind, tmp, n)
    agent = create(model=model, tools=[echo], checkpointer=saver)
    config = THREAD if saver is not None else None
    t0 = time.perf_counter()
    out = agent.invoke({"messages": [("user", "Call echo once per step.")]}, config)
    wall = time.perf_counter() - t0
    if model.remaining:
        raise BenchError(f"{model.remaining} scripted responses left unused")
    if len(out["messages"]) != 2 * steps + 2:
        raise BenchError(f"{len(out['messages'])} messages, expected {2 * steps + 2}")
    if saver is not None and len(agent.get_state(THREAD).values["messages"]) != 2 * steps + 2:
        raise BenchError("the thread read back does not hold the run's messages")
    return wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--savers", default=",".join(SAVERS))
    args = parser.parse_args(argv)
    kinds = [k for k in args.savers.split(",") if k]
    for k in kinds:
        if k not in SAVERS:
            parser.error(f"unknown saver {k!r}; expected some of {SAVERS}")

    import deepagents
    import deepagents_rs

    impls = {"deepagents_rs": deepagents_rs.create_deep_agent, "deepagents": deepagents.create_deep_agent}
    print(f"deepagents_rs: {build_info()}")
    print(f"{args.steps} steps, median of {args.repeat} runs after a warm-up\n")
    print(f"{'saver':<8} {'deepagents_rs ms/step':>22} {'deepagents ms/step':>19} {'ratio':>7}")
    ok = True
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            per_step: dict[str, float] = {}
            for name, create in impls.items():
                try:
                    walls = []
                    for i in range(args.repeat + 1):
                        n += 1
                        wall = one_run(create, kind, args.steps, Path(tmp), n)
                        if i:
                            walls.append(wall)
                    per_step[name] = statistics.median(walls) / args.steps * 1000
                except Exception as e:  # noqa: BLE001 - reported, and the exit status says so
                    print(f"{kind}: {name} FAILED: {type(e).__name__}: {e}")
                    ok = False
            if len(per_step) == 2:
                ratio = per_step["deepagents"] / per_step["deepagents_rs"]
                print(f"{kind:<8} {per_step['deepagents_rs']:>22.3f} {per_step['deepagents']:>19.3f} {ratio:>6.1f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
