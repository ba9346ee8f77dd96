"""Python bytecode instructions per model turn on the calling thread of a checkpointed
``invoke`` (deepagents_rs only): a count that does not move with the machine's load, for
telling two states of the thread graph's Python apart where ``threads.py``'s CPU times (the
side-by-side numbers, and the claims) drown a few percent in noise.

The run is ``threads.py``'s ``native`` scenario (the Rust Anthropic client over the simulated
API, a trivial ``echo`` tool each turn, ``--history`` earlier messages on the thread), timed
run only. Every Python frame on the calling thread is traced (``sys.settrace`` with
``f_trace_opcodes``): the count covers what the thread graph, the feed of the core's stream
and the saver calls' hand-over run there, not C code, not the core's threads. ``saver
jobs`` counts the same way the saver thread's calls during the timed run (each job
`_saver_thread` runs: the saver's own ``put`` / ``put_writes`` code, the same for any
state of ours given the same calls, and our hand-over around it). A run is about twenty
times slower traced; the count is the same from run to run within a few instructions per
turn.

Usage::

    python benches/thread_opcodes.py [--history 10] [--savers none,memory,sqlite] [--steps 50]
    PYTHONPATH=/other/checkout/python python benches/thread_opcodes.py ...   # another state
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import threads
from tool_loop import NO_CACHE_TOKENS, point_env_at


class Counter:
    """Counts the bytecode instructions and Python calls of the thread it is installed on."""

    def __init__(self) -> None:
        self.opcodes = 0
        self.calls = 0

    def _call(self, frame: Any, event: str, _arg: Any) -> Any:
        if event != "call":
            return None
        self.calls += 1
        frame.f_trace_opcodes = True
        return self._line

    def _line(self, _frame: Any, event: str, _arg: Any) -> Any:
        if event == "opcode":
            self.opcodes += 1
        return self._line

    def counting(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        sys.settrace(self._call)
        try:
            return fn(*args, **kwargs)
        finally:
            sys.settrace(None)


def counted_saver_jobs(counter: Counter, on: list[bool]) -> None:
    """Counts, into ``counter``, the saver thread's jobs run while ``on[0]``."""
    from deepagents_rs import _saver_thread

    run_job = _saver_thread._run_job

    def counted(*job: Any) -> Any:
        return counter.counting(run_job, *job) if on[0] else run_job(*job)

    _saver_thread._run_job = counted


def around_invokes(create: Any, around: Callable[..., Any]) -> Any:
    """``create`` whose agents' ``invoke`` is ``around(invoke, n, *args, **kwargs)``, ``n``
    counting the agent's invokes from 1."""

    def make(**kwargs: Any) -> Any:
        agent = create(**kwargs)
        invoke = agent.invoke
        seen = [0]

        def wrapped(*args: Any, **kw: Any) -> Any:
            seen[0] += 1
            return around(invoke, seen[0], *args, **kw)

        agent.invoke = wrapped
        return agent

    return make


def counted_agent(create: Any, counter: Counter, untimed: int, on: list[bool] | None = None) -> Any:
    """``create`` whose agents count their invokes after the first ``untimed`` (the thread's
    history, which `threads.one_run` writes first)."""

    def counted(invoke: Any, n: int, *args: Any, **kw: Any) -> Any:
        if n <= untimed:
            return invoke(*args, **kw)
        if on is not None:
            on[0] = True
        try:
            return counter.counting(invoke, *args, **kw)
        finally:
            if on is not None:
                on[0] = False

    return around_invokes(create, counted)


@contextlib.contextmanager
def native_savers(steps: int) -> Iterator[tuple[threads.Savers, threads.Native]]:
    """Fresh savers and ``threads.py``'s native scenario of ``steps`` turns, over a simulated
    Anthropic server the environment points at."""
    from sim.anthropic import SimAnthropic

    with (
        tempfile.TemporaryDirectory() as tmp,
        SimAnthropic(min_cache_tokens=NO_CACHE_TOKENS, merge_consecutive_roles=True) as sim,
    ):
        point_env_at(sim)
        yield threads.Savers(Path(tmp)), threads.Native(steps, sim)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--history", type=int, default=10)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--savers", default="none,memory,sqlite")
    args = parser.parse_args()
    import deepagents_rs

    print(f"deepagents_rs: {Path(deepagents_rs.__file__).parent}")
    print(f"{args.steps} model turns on a thread of {args.history} earlier messages; calling thread only")
    with native_savers(args.steps) as (savers, scenario):
        print(f"{'saver':<8} {'opcodes/turn':>13} {'calls/turn':>11} {'saver jobs':>11}")
        saver_jobs, on = Counter(), [False]
        counted_saver_jobs(saver_jobs, on)
        for kind in args.savers.split(","):
            # A warm-up run first: what the process does once (imports, caches) is not counted.
            threads.one_run(deepagents_rs.create_deep_agent, scenario, savers.make(kind), args.history)
            counter = Counter()
            saver_jobs.opcodes = 0
            untimed = 1 if kind != "none" and args.history > 0 else 0
            create = counted_agent(deepagents_rs.create_deep_agent, counter, untimed, on)
            threads.one_run(create, scenario, savers.make(kind), args.history)
            per_turn = (counter.opcodes / args.steps, counter.calls / args.steps, saver_jobs.opcodes / args.steps)
            print(f"{kind:<8} {per_turn[0]:>13,.0f} {per_turn[1]:>11,.0f} {per_turn[2]:>11,.0f}")


if __name__ == "__main__":
    main()
