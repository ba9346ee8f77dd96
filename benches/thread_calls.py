"""Main-thread Python calls per step of a checkpointed tool loop: deepagents_rs vs deepagents 0.7.32.

The same run as ``threads.py``'s ``scripted`` scenario (a scripted LangChain chat model, one
trivial ``echo`` call per step, then a final answer, on a fresh thread), with every Python
function call and builtin call on the calling thread counted (``sys.setprofile``), divided by
the steps. Unlike a time, the count does not move with the machine's load, so it shows what a
change to the thread writer saves. Calls on other threads (LangGraph's background saver
executor, the core's workers) are not counted.

Rows: no saver, ``InMemorySaver`` and ``SqliteSaver``; for deepagents_rs with the direct
thread writer (``_direct_writer``) and with LangGraph's own runner. Columns: ``first``, the
agent's first run (as ``threads.py`` times it: deepagents_rs builds its thread graph then),
and ``warm``, a second run of the same agent on another thread.

Usage::

    python benches/thread_calls.py [--steps 50]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from threads import Savers
from tool_loop import echo


def counted(run: Any) -> int:
    calls = 0

    def profile(_frame: Any, event: str, _arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls


def per_step(create: Any, kind: str, steps: int, savers: Savers) -> tuple[float, float]:
    """Calls per step of the agent's first run and of a second one on another thread."""
    from fake_models import ScriptedChatModel, ai_tool_calls

    replies = [*(ai_tool_calls(("echo", {"text": f"step {i}"})) for i in range(steps)), "done"]
    saver = savers.make(kind)
    agent = create(model=ScriptedChatModel(replies * 2), tools=[echo], checkpointer=saver)
    out = []
    for thread in ("first", "warm"):
        config = {"configurable": {"thread_id": thread}} if saver is not None else None
        result: dict = {}

        def run(config: Any = config, result: dict = result) -> None:
            result.update(agent.invoke({"messages": [{"role": "user", "content": "go"}]}, config))

        out.append(counted(run) / steps)
        if len(result["messages"]) != 2 * steps + 2:
            raise SystemExit(f"{len(result['messages'])} messages, expected {2 * steps + 2}")
    return out[0], out[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    import deepagents
    import deepagents_rs
    from deepagents_rs import _direct_writer

    print(f"main-thread Python calls per step, {args.steps} steps, scripted model, fresh thread")
    print(f"{'saver':8} {'implementation':24} {'first':>8} {'warm':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        savers = Savers(Path(tmp))
        for kind in ("none", "memory", "sqlite"):
            rows = [("deepagents", deepagents.create_deep_agent, None)]
            if kind == "none":
                rows.append(("deepagents_rs", deepagents_rs.create_deep_agent, True))
            else:
                rows.append(("deepagents_rs, runner", deepagents_rs.create_deep_agent, False))
                rows.append(("deepagents_rs, writer", deepagents_rs.create_deep_agent, True))
            for name, create, writer in rows:
                if writer is not None:
                    _direct_writer.ENABLED = writer
                first, warm = per_step(create, kind, args.steps, savers)
                print(f"{kind:8} {name:24} {first:8.0f} {warm:8.0f}")
    _direct_writer.ENABLED = True


if __name__ == "__main__":
    main()
