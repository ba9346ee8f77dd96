"""Where a checkpointed ``invoke``'s CPU goes, by thread (deepagents_rs only): each thread's
CPU time during the timed ``invoke`` of ``threads.py``'s ``native`` scenario, per step.

``threads.py``'s ``cpu`` is one number for the whole process; `thread_opcodes.py` counts the
calling thread's bytecodes only. This splits the process's CPU by thread (``utime + stime``
of ``/proc/self/task/*/stat``, read before and after the timed ``invoke``): the calling
thread (the thread graph's Python), the saver's (``deepagents-rs-saver``: the saver's own
``put`` / ``put_writes`` and our hand-over around them), the core's (``dars-worker``,
``dars-python``) and the simulated server's (``Thread-N``, not ours). ``saver calls`` is
the CPU inside the saver's own calls (``threads.py`` subtracts it): the saver thread's CPU
less that is our hand-over. The clock ticks are 10 ms, so use a few hundred steps; the
numbers move with the machine's load as ``threads.py``'s do (report ``uptime``).

Usage::

    python benches/thread_cpu.py [--savers none,memory,sqlite] [--steps 200] [--repeat 3]
    PYTHONPATH=/other/checkout/python python benches/thread_cpu.py ...   # another state
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import threads
from thread_opcodes import around_invokes, native_savers


def ticks_by_thread() -> dict[int, tuple[str, int]]:
    """Each thread of the process: its name (``comm``) and CPU clock ticks so far."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            stat = Path(f"/proc/self/task/{tid}/stat").read_text()
            comm = Path(f"/proc/self/task/{tid}/comm").read_text().strip()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        out[int(tid)] = (comm, int(fields[11]) + int(fields[12]))
    return out


def measured_agent(create: Any, spans: list) -> Any:
    """``create`` whose agents record the threads' ticks around each ``invoke``; the last
    span is the timed one (`threads.one_run` times its last invoke)."""

    def measured(invoke: Any, _n: int, *args: Any, **kw: Any) -> Any:
        before = ticks_by_thread()
        try:
            return invoke(*args, **kw)
        finally:
            spans.append((before, ticks_by_thread()))

    return around_invokes(create, measured)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--history", type=int, default=0)
    parser.add_argument("--savers", default="none,memory,sqlite")
    args = parser.parse_args()
    import deepagents_rs

    hz = os.sysconf("SC_CLK_TCK")
    print(f"deepagents_rs: {Path(deepagents_rs.__file__).parent}")
    print(f"load average {os.getloadavg()[0]:.2f}; {args.steps} steps x {args.repeat} runs; CPU ms per step by thread")
    with native_savers(args.steps) as (savers, scenario):
        for kind in args.savers.split(","):
            threads.one_run(deepagents_rs.create_deep_agent, scenario, savers.make(kind), args.history)
            by_name: Counter = Counter()
            cpu = 0.0
            for _ in range(args.repeat):
                spans: list = []
                names = {t.native_id: t.name for t in threading.enumerate()}
                run = threads.one_run(
                    measured_agent(deepagents_rs.create_deep_agent, spans), scenario, savers.make(kind), args.history
                )
                cpu += run.cpu
                before, after = spans[-1]
                names.update({t.native_id: t.name for t in threading.enumerate()})
                for tid, (comm, ticks) in after.items():
                    name = "calling" if tid == threading.get_native_id() else names.get(tid, comm)
                    # The simulated server's threads (one per connection): not ours.
                    by_name["server" if name.startswith(("Thread-", "sim")) else name] += (
                        ticks - before.get(tid, (comm, 0))[1]
                    )
            per_step = 1000 / (hz * args.repeat * args.steps)
            ours = sum(v for k, v in by_name.items() if k != "server")
            saver_calls = ours / (hz * args.repeat * args.steps) * 1000 - cpu / (args.repeat * args.steps) * 1000
            rows = ", ".join(f"{k} {v * per_step:.2f}" for k, v in by_name.most_common() if v and k != "server")
            print(
                f"{kind:<7} threads.py cpu {cpu / (args.repeat * args.steps) * 1000:.2f}; {rows}; saver calls {saver_calls:.2f}"
            )


if __name__ == "__main__":
    main()
