"""Per-step harness time of a checkpointed tool loop: deepagents_rs vs deepagents 0.7.32.

One agent runs ``--steps`` model turns, each calling a trivial user tool ``echo``, then a
final answer, on a thread (``thread_id``) of a LangGraph saver, with both implementations in
this process, in two scenarios:

* ``scripted``: both driven by the same scripted LangChain chat model (no HTTP);
* ``native``: ``model="anthropic:claude-sonnet-4-5"`` for both (deepagents_rs' Rust client;
  deepagents' langchain-anthropic ``ChatAnthropic``) against one simulated Anthropic server
  on loopback (``tests/sim/anthropic.py``), the time the server spent in its request handler
  subtracted, as ``tool_loop.py``'s scenario A does;

and three savers:

* ``none``: no checkpointer (the baseline: what checkpointing adds is the difference);
* ``memory``: ``InMemorySaver()``;
* ``sqlite``: ``SqliteSaver`` on a file in a temporary directory (WAL, as LangGraph sets it).

The harness time of ``agent.invoke(...)`` is measured (building the agent and the saver is
not), once as a warm-up and then ``--repeat`` times, each on a fresh saver; the median is
reported as per-step milliseconds (total / steps), with the ratio deepagents /
deepagents_rs. Each run is checked: every scripted reply used, ``2 * steps + 2`` messages
(plus the history), and with a saver, the thread's state read back holds them all.

``--history N`` (0 by default) gives the thread ``N`` earlier messages first (user and
assistant turns of about 100 characters, and one answered turn, untimed): the timed run then
continues a thread the saver loads. Without a saver the history is the run's input instead.

``saver floor`` is the time the saver itself takes to store one run's checkpoints: the
``put`` and ``put_writes`` calls of a deepagents run (recorded on an ``InMemorySaver``; the
two implementations make the same calls) replayed one after another on a fresh saver.
``SqliteSaver`` commits each call (an fsync of the WAL), so its floor follows the disk.

Usage::

    python benches/threads.py [--steps 50] [--repeat 3] [--savers none,memory,sqlite]
                              [--scenarios scripted,native] [--history 0]

``deepagents_rs`` is imported from whatever environment runs the script. This is a benchmark
script, not a test; it never touches the network.
"""

from __future__ import annotations

import argparse
import copy
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tool_loop import MODEL_STRING, NO_CACHE_TOKENS, BenchError, build_info, echo, point_env_at

SAVERS = ("none", "memory", "sqlite")
SCENARIOS = ("scripted", "native")
THREAD = {"configurable": {"thread_id": "bench"}}
PROMPT = "Call echo once per step."


class Savers:
    """Fresh savers, the SQLite ones each on a new file of one temporary directory."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.made = 0

    def make(self, kind: str) -> Any:
        if kind == "none":
            return None
        if kind == "memory":
            from langgraph.checkpoint.memory import InMemorySaver

            return InMemorySaver()
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.made += 1
        return SqliteSaver(sqlite3.connect(self.tmp / f"run{self.made}.sqlite", check_same_thread=False))


class Scripted:
    """Scenario ``scripted``: a scripted LangChain chat model, no HTTP."""

    name = "scripted: ScriptedChatModel (no HTTP)"

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.model: Any = None

    def model_arg(self, turns: int = 0) -> Any:
        """The model for one run; ``turns`` plain answers first (the history's own turn)."""
        from fake_models import ScriptedChatModel, ai_tool_calls

        replies = [*(ai_tool_calls(("echo", {"text": f"step {i}"})) for i in range(self.steps)), "done"]
        self.model = ScriptedChatModel(["earlier answer"] * turns + replies)
        return self.model

    def server_seconds(self) -> float:
        if self.model.remaining:
            raise BenchError(f"{self.model.remaining} scripted responses left unused")
        return 0.0


class Native:
    """Scenario ``native``: each implementation's Anthropic client against the simulator."""

    name = f"native: model={MODEL_STRING!r} over the simulated API (server handler time subtracted)"

    def __init__(self, steps: int, sim: Any) -> None:
        self.steps = steps
        self.sim = sim

    def model_arg(self, turns: int = 0) -> str:
        from sim.anthropic import text, tool_use

        self.sim.reset()
        earlier = [text("earlier answer")] * turns
        self.sim.script(*earlier, *(tool_use(("echo", {"text": f"step {i}"})) for i in range(self.steps)), text("done"))
        self.turns = turns
        return MODEL_STRING

    def server_seconds(self) -> float:
        sim = self.sim
        bad = [(r.seq, r.status) for r in sim.requests if r.status != 200]
        if bad:
            raise BenchError(f"the simulator answered non-200: {bad[:2]}")
        if sim.pending:
            raise BenchError(f"{sim.pending} scripted replies left unused")
        expected = self.steps + 1 + getattr(self, "turns", 0)
        if len(sim.requests) != expected:
            raise BenchError(f"{len(sim.requests)} requests for {expected} replies")
        return sim.handler_seconds


def earlier_messages(history: int) -> list[dict]:
    """``history`` earlier messages: user and assistant turns of about 100 characters."""
    turns = [("user", "assistant")[i % 2] for i in range(history)]
    return [{"role": role, "content": f"earlier {role} message {i} " * 4} for i, role in enumerate(turns)]


def one_run(create: Callable[..., Any], scenario: Any, saver: Any, history: int = 0) -> float:
    """One checked run's harness time (wall time minus the model server's), on a thread of
    ``history`` earlier messages (loaded by the saver; the run's input without one)."""
    steps = scenario.steps
    threaded = saver is not None and history > 0
    agent = create(model=scenario.model_arg(1 if threaded else 0), tools=[echo], checkpointer=saver)
    config = THREAD if saver is not None else None
    prompt = {"role": "user", "content": PROMPT}
    earlier = earlier_messages(history)
    held = history + (2 if threaded else 0)
    if threaded:
        # The thread's history, with the answered turn a real thread ends with (untimed).
        agent.invoke({"messages": [*earlier, {"role": "user", "content": "earlier question"}]}, config)
    # The model server's time so far (the untimed turn's) is not the run's.
    before = scenario.sim.handler_seconds if isinstance(scenario, Native) else 0.0
    t0 = time.perf_counter()
    out = agent.invoke({"messages": [prompt] if threaded else [*earlier, prompt]}, config)
    wall = time.perf_counter() - t0
    harness = wall - (scenario.server_seconds() - before)
    expected = held + 2 * steps + 2
    if len(out["messages"]) != expected:
        raise BenchError(f"{len(out['messages'])} messages, expected {expected}")
    if saver is not None and len(agent.get_state(THREAD).values["messages"]) != expected:
        raise BenchError("the thread read back does not hold the run's messages")
    return harness


def saver_floor(create: Callable[..., Any], steps: int, savers: Savers, kinds: list[str]) -> dict[str, float]:
    """Per-step time of the saver's own ``put``/``put_writes`` for one run's checkpoints."""
    from langgraph.checkpoint.memory import InMemorySaver

    calls: list[tuple[str, tuple]] = []

    class Recording(InMemorySaver):
        def put(self, *args: Any) -> Any:
            calls.append(("put", copy.deepcopy(args)))
            return super().put(*args)

        def put_writes(self, *args: Any) -> Any:
            calls.append(("put_writes", copy.deepcopy(args)))
            return super().put_writes(*args)

    one_run(create, Scripted(steps), Recording())
    out: dict[str, float] = {}
    for kind in kinds:
        saver = savers.make(kind)
        if saver is None:
            continue
        saver.get_tuple(THREAD)  # SqliteSaver creates its tables on first use
        t0 = time.perf_counter()
        for method, args in calls:
            getattr(saver, method)(*args)
        out[kind] = (time.perf_counter() - t0) / steps * 1000
    return out


@contextmanager
def scenarios(names: list[str], steps: int) -> Iterator[list[Any]]:
    if "native" not in names:
        yield [Scripted(steps)]
        return
    from sim.anthropic import SimAnthropic

    with SimAnthropic(min_cache_tokens=NO_CACHE_TOKENS, merge_consecutive_roles=True) as sim:
        point_env_at(sim)
        yield [Scripted(steps) if n == "scripted" else Native(steps, sim) for n in names]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--savers", default=",".join(SAVERS))
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--history", type=int, default=0, help="earlier messages on the thread (see above)")
    args = parser.parse_args(argv)
    kinds = [k for k in args.savers.split(",") if k]
    names = [n for n in args.scenarios.split(",") if n]
    for given, allowed in ((kinds, SAVERS), (names, SCENARIOS)):
        for k in given:
            if k not in allowed:
                parser.error(f"unknown {k!r}; expected some of {allowed}")

    import deepagents
    import deepagents_rs

    impls = {"deepagents_rs": deepagents_rs.create_deep_agent, "deepagents": deepagents.create_deep_agent}
    print(f"deepagents_rs: {build_info()}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (other work on the machine skews the numbers)")
    print(
        f"{args.steps} steps on a thread of {args.history} earlier messages, median of {args.repeat} runs"
        " after a warm-up; harness ms per step"
    )
    ok = True
    with tempfile.TemporaryDirectory() as tmp, scenarios(names, args.steps) as runs:
        savers = Savers(Path(tmp))
        for scenario in runs:
            print(f"\n== {scenario.name}")
            print(f"{'saver':<8} {'deepagents_rs':>14} {'deepagents':>11} {'ratio':>7}")
            for kind in kinds:
                per_step: dict[str, float] = {}
                for name, create in impls.items():
                    try:
                        times = [
                            one_run(create, scenario, savers.make(kind), args.history) for _ in range(args.repeat + 1)
                        ]
                        per_step[name] = statistics.median(times[1:]) / args.steps * 1000
                    except Exception as e:  # noqa: BLE001 - reported, and the exit status says so
                        print(f"{kind}: {name} FAILED: {type(e).__name__}: {e}")
                        ok = False
                if len(per_step) == 2:
                    ratio = per_step["deepagents"] / per_step["deepagents_rs"]
                    print(
                        f"{kind:<8} {per_step['deepagents_rs']:>14.3f} {per_step['deepagents']:>11.3f} {ratio:>6.1f}x"
                    )
        floor = saver_floor(deepagents.create_deep_agent, args.steps, savers, kinds)
        if floor:
            shown = ", ".join(f"{k} {v:.3f}" for k, v in floor.items())
            print(f"\nsaver floor (its own put/put_writes for one run, replayed serially), ms per step: {shown}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
