"""What a checkpointed ``invoke`` costs more on a long thread, by part (deepagents_rs only):
the CPU of each part of the timed ``invoke`` of ``threads.py``'s ``native`` scenario (the
simulator in its own process, `sim_process`; ``--scenario scripted``: its scripted LangChain
model, no HTTP), at ``--history`` earlier messages and at none, and the difference, per run
and per step.

The calling thread's parts, each its CPU (``time.thread_time``) inside one call, summed over
the run (nested parts are inside their parent's, so the rows do not add up):

* ``load``: LangGraph's loop opening the thread (``SyncPregelLoop.__enter__``), and in it
  ``saver reads``: the saver's own ``get_tuple`` and ``get_delta_channel_history`` (its
  query and its serializer making the stored messages into objects again: the read that
  ``put`` is the write of), and ``replay``: the loaded writes reduced onto the snapshot by the
  channel's reducer (ours);
* ``core start``: the core's run started (`_thread_feed.Feed.begin`: the loaded state handed
  to the core);
* ``core reads``: the feed's reads of the core's stream (its ``next``, blocking, and
  ``try_next``): the wait for the core, its item made into Python;
* ``commits``, ``writes``, ``ticks``: the plain commit of each step (``after_tick``), its
  task's writes (``put_writes``) and the loop's ``tick``;
* ``result``: the result made at the end (`DeepAgent._result`);
* ``invoke``: the whole ``invoke``.

The process's other threads, by name (Linux: each thread's run time in
``/proc/self/task/*/schedstat``; 0 elsewhere):

* ``core workers``: the core's runtime (``dars-worker``, ``dars-blocking``): the model
  requests, their bodies and replies;
* ``core py calls``: the core's threads calling Python (``dars-python*``): the tools;
* ``other threads``: ``process`` less ``invoke`` and the two above: the saver thread's
  hand-over, LangGraph's executor;
* ``process``: the measure ``threads.py`` reports, the process's CPU in the timed run less
  the saver's own ``put`` / ``put_writes``.

Under the table, the growth (``process`` at ``--history`` over at none) as ``threads.py``
counts it, and with the ``saver reads`` taken out as well (counted as the saver's, as its
``put`` is).

``--caller thread`` runs the timed ``invoke`` on a thread of its own, not the main thread
(which waits for the core in limited parks, to see Ctrl-C).

``--savers none`` runs without a checkpointer, the history then being the run's input: what
grows with it in any run (the model requests, the input read, the result).

Usage::

    python benches/thread_growth.py [--history 2000] [--savers memory,sqlite] [--steps 50] [--repeat 3]
                                    [--scenario native] [--caller main]
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
    ("saver reads", "langgraph.checkpoint.memory", "InMemorySaver.get_tuple"),
    ("saver reads", "langgraph.checkpoint.memory", "InMemorySaver.get_delta_channel_history"),
    ("saver reads", "langgraph.checkpoint.sqlite", "SqliteSaver.get_tuple"),
    ("saver reads", "langgraph.checkpoint.sqlite", "SqliteSaver.get_delta_channel_history"),
    ("replay", "langgraph.pregel._checkpoint", "_replay"),
    ("core start", "deepagents_rs._thread_feed", "Feed.begin"),
    ("commits", "deepagents_rs._writer_loop", "_PlainCommits.after_tick"),
    ("writes", "deepagents_rs._writer_loop", "_PlainCommits.put_writes"),
    ("ticks", "deepagents_rs._writer_loop", "WriterLoop.tick"),
    ("result", "deepagents_rs._deep_agent", "DeepAgent._result"),
    ("invoke", "deepagents_rs._deep_agent", "DeepAgent.invoke"),
)


#: The rows of the core's threads, by the names they start with (see `thread_cpu`).
THREAD_ROWS = {"core workers": ("dars-worker", "dars-blocking"), "core py calls": ("dars-python",)}


def thread_cpu() -> dict[str, float]:
    """Seconds each of the process's threads has run, by thread id: the ``schedstat`` run
    time (nanoseconds, the clock ``time.process_time`` sums), with the thread's name; empty
    without ``/proc``."""
    out = {}
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return {}
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
        except OSError:
            # (A thread that ended meanwhile.)
            continue
        out[tid] = (name, ns / 1e9)
    return out


def core_threads(before: dict, after: dict) -> collections.Counter:
    """The CPU seconds of the core's threads between two `thread_cpu` readings, by
    `THREAD_ROWS` row (a thread started meanwhile counts from 0)."""
    rows: collections.Counter = collections.Counter()
    for tid, (name, seconds) in after.items():
        for row, prefixes in THREAD_ROWS.items():
            if name.startswith(prefixes):
                rows[row] += seconds - before.get(tid, (name, 0.0))[1]
    return rows


def on_thread(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` called on a thread of its own (``--caller thread``): the core's
    stream is then read without the main thread's slices (Ctrl-C), for comparing the two."""
    import threading

    out: list = []

    def call() -> None:
        try:
            out.append((True, fn(*args, **kwargs)))
        except BaseException as exc:  # noqa: BLE001 - raised again on the main thread
            out.append((False, exc))

    thread = threading.Thread(target=call)
    thread.start()
    thread.join()
    ok, value = out[0]
    if not ok:
        raise value
    return value


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
    parser.add_argument("--scenario", choices=("native", "scripted"), default="native")
    parser.add_argument("--caller", choices=("main", "thread"), default="main")
    args = parser.parse_args()
    import deepagents_rs

    clock = Clock()
    clock.install()
    # Which invoke of a run is the timed one: `threads.one_run` writes a history first.
    timed = [1]

    def measured(invoke: Any, n: int, *a: Any, **kw: Any) -> Any:
        clock.on = n == timed[0]
        before = thread_cpu() if clock.on else {}
        try:
            return invoke(*a, **kw) if args.caller == "main" else on_thread(invoke, *a, **kw)
        finally:
            if clock.on:
                clock.seconds.update(core_threads(before, thread_cpu()))
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
        scenario = threads.Native(args.steps, sim) if args.scenario == "native" else threads.Scripted(args.steps)
        for kind in args.savers.split(","):
            parts: dict[int, list[collections.Counter]] = {0: [], args.history: []}
            for round_ in range(args.repeat + 1):
                for history, seen in parts.items():
                    clock.seconds = collections.Counter()
                    # Without a saver the history is the input of the run's one invoke.
                    timed[0] = 2 if history and kind != "none" else 1
                    run = threads.one_run(create, scenario, savers.make(kind), history)
                    if round_:
                        # The measure `threads.py` reports (and `all.py` holds flat): the whole
                        # process's CPU in the timed run less the saver's own calls, and of
                        # it what other threads than the caller's ran (the core's workers,
                        # the saver thread's hand-over).
                        clock.seconds["process"] = run.cpu
                        others = run.cpu - clock.seconds["invoke"]
                        for row in THREAD_ROWS:
                            others -= clock.seconds[row]
                        clock.seconds["other threads"] = others
                        seen.append(clock.seconds)
            print(f"\n{kind:<8} {'part':<13} {'none':>8} {args.history:>8} {'more':>8} {'more/step':>10}")
            names = list(dict.fromkeys(part for part, _, _ in PARTS))
            rows = (*names[:4], "core reads", *names[4:], *THREAD_ROWS, "other threads", "process")
            medians = {}
            for part in rows:
                a, b = medians[part] = [statistics.median(c[part] for c in parts[h]) * 1000 for h in (0, args.history)]
                print(f"{'':<8} {part:<13} {a:>8.2f} {b:>8.2f} {b - a:>8.2f} {(b - a) / args.steps:>10.3f}")
            (a, b), (ra, rb) = medians["process"], medians["saver reads"]
            print(f"{'':<8} growth {b / a:.2f}x; with the saver reads taken out too, {(b - rb) / (a - ra):.2f}x")


if __name__ == "__main__":
    main()
