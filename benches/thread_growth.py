"""What a checkpointed ``invoke`` costs more on a long thread, by part (deepagents_rs only):
the calling thread's CPU in each part of the timed ``invoke`` of ``threads.py``'s ``native``
scenario (the simulator in its own process, `sim_process`), at ``--history`` earlier
messages and at none, and the difference, per run and per step.

The parts, each the calling thread's CPU (``time.thread_time``) inside one call, summed over
the run (nested parts are inside their parent's, so the rows do not add up):

* ``load``: LangGraph's loop opening the thread (``SyncPregelLoop.__enter__``: the saver's
  ``get_tuple``, the delta channels' writes read back and deserialized into message objects);
* ``core start``: the core's run started (`_thread_feed.Feed.begin`: the loaded state handed
  to the core);
* ``core reads``: the feed's reads of the core's stream (its ``next``, blocking, and
  ``try_next``): the wait for the core, its item made into Python;
* ``commits``, ``writes``, ``ticks``: the plain commit of each step (``after_tick``), its
  task's writes (``put_writes``) and the loop's ``tick``;
* ``result``: the result made at the end (`DeepAgent._result`);
* ``invoke``: the whole ``invoke``;
* ``other threads``: ``process`` less ``invoke``: the CPU of the run's other threads (the
  core's workers, the saver thread's hand-over);
* ``process``: the measure ``threads.py`` reports, the process's CPU in the timed run less
  the saver's own ``put`` / ``put_writes``.

Usage::

    python benches/thread_growth.py [--history 2000] [--savers memory,sqlite] [--steps 50] [--repeat 3]
"""

from __future__ import annotations

import argparse
import collections
import functools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import threads
from sim_process import SimProcess
from thread_opcodes import around_invokes
from tool_loop import NO_CACHE_TOKENS, point_env_at

#: (part, module, attribute path) of each timed call.
PARTS = (
    ("load", "langgraph.pregel._loop", "SyncPregelLoop.__enter__"),
    ("core start", "deepagents_rs._thread_feed", "Feed.begin"),
    ("commits", "deepagents_rs._writer_loop", "_PlainCommits.after_tick"),
    ("writes", "deepagents_rs._writer_loop", "_PlainCommits.put_writes"),
    ("ticks", "deepagents_rs._writer_loop", "WriterLoop.tick"),
    ("result", "deepagents_rs._deep_agent", "DeepAgent._result"),
    ("invoke", "deepagents_rs._deep_agent", "DeepAgent.invoke"),
)


class Clock:
    """The calling thread's CPU in each part while `on`."""

    def __init__(self) -> None:
        self.seconds: collections.Counter = collections.Counter()
        self.on = False

    def timed(self, part: str, fn: Any) -> Any:
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            if not self.on:
                return fn(*args, **kwargs)
            t = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[part] += time.thread_time() - t

        return call

    def install(self) -> None:
        import importlib

        for part, module, path in PARTS:
            owner: Any = importlib.import_module(module)
            *outer, name = path.split(".")
            for attr in outer:
                owner = getattr(owner, attr)
            setattr(owner, name, self.timed(part, getattr(owner, name)))
        feed = importlib.import_module("deepagents_rs._thread_feed").Feed
        begin = feed.begin

        @functools.wraps(begin)
        def begin_timed(*args: Any, **kwargs: Any) -> Any:
            return _TimedEvents(begin(*args, **kwargs), self)

        feed.begin = begin_timed


class _TimedEvents:
    """The core's stream with its reads timed as ``core reads``."""

    def __init__(self, events: Any, clock: Clock) -> None:
        self._events = events
        # Made once: a wrapper made at each read would be timed with the reads.
        self._next = clock.timed("core reads", events.__next__)
        if hasattr(events, "try_next"):
            self.try_next = clock.timed("core reads", events.try_next)

    def __iter__(self) -> _TimedEvents:
        return self

    def __next__(self) -> Any:
        return self._next()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._events, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--history", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--savers", default="memory,sqlite")
    args = parser.parse_args()
    import deepagents_rs

    clock = Clock()
    clock.install()
    # Which invoke of a run is the timed one: `threads.one_run` writes a history first.
    timed = [1]

    def measured(invoke: Any, n: int, *a: Any, **kw: Any) -> Any:
        clock.on = n == timed[0]
        try:
            return invoke(*a, **kw)
        finally:
            clock.on = False

    create = around_invokes(deepagents_rs.create_deep_agent, measured)
    print(f"deepagents_rs: {Path(deepagents_rs.__file__).parent}; load average {os.getloadavg()[0]:.2f}")
    print(
        f"{args.steps} steps, median of {args.repeat} runs (alternated); CPU ms per run (the calling thread's; the last two rows: see above)"
    )
    kw = {"min_cache_tokens": NO_CACHE_TOKENS, "merge_consecutive_roles": True}
    with tempfile.TemporaryDirectory() as tmp, SimProcess(**kw) as sim:
        point_env_at(sim)
        savers = threads.Savers(Path(tmp))
        scenario = threads.Native(args.steps, sim)
        for kind in args.savers.split(","):
            parts: dict[int, list[collections.Counter]] = {0: [], args.history: []}
            for round_ in range(args.repeat + 1):
                for history, seen in parts.items():
                    clock.seconds = collections.Counter()
                    timed[0] = 2 if history else 1
                    run = threads.one_run(create, scenario, savers.make(kind), history)
                    if round_:
                        # The measure `threads.py` reports (and `all.py` holds flat): the whole
                        # process's CPU in the timed run less the saver's own calls, and of
                        # it what other threads than the caller's ran (the core's workers,
                        # the saver thread's hand-over).
                        clock.seconds["process"] = run.cpu
                        clock.seconds["other threads"] = run.cpu - clock.seconds["invoke"]
                        seen.append(clock.seconds)
            print(f"\n{kind:<8} {'part':<12} {'none':>8} {args.history:>8} {'more':>8} {'more/step':>10}")
            rows = (*PARTS[:2], ("core reads", "", ""), *PARTS[2:], ("other threads", "", ""), ("process", "", ""))
            for part, _, _ in rows:
                a, b = (statistics.median(c[part] for c in parts[h]) * 1000 for h in (0, args.history))
                print(f"{'':<8} {part:<12} {a:>8.2f} {b:>8.2f} {b - a:>8.2f} {(b - a) / args.steps:>10.3f}")


if __name__ == "__main__":
    main()
