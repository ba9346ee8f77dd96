"""The core's threads' CPU and sleeps per run, by kind (deepagents_rs only).

``concurrency.py``'s agent (the full default stack, the Rust Anthropic client, one user tool
``echo``) runs ``--runs`` conversations of ``--steps`` model calls one after another on the
main thread, against ``sim_async.py`` answering at once. Around them each thread's
``/proc/self/task`` counters are read: its CPU (``schedstat``, nanoseconds), its user and
system time (``stat``, 10 ms clock ticks: use a few hundred runs) and its voluntary context
switches (``status``: each a sleep, a futex wait or an ``epoll_wait`` that blocked, and so
one wake-up by another thread or the kernel). Reported per run, summed by kind: the calling
thread, the tokio workers (``dars-worker``), the core's Python calls (``dars-python``) and
their watchdog. The system time and the sleeps are what the kernel side of a step costs,
which instruction counts (``worker_instructions.py``) leave out.

``TOKIO_WORKER_THREADS=N`` (tokio reads it when the runtime is built) sets the number of
workers, to compare.

Usage::

    python benches/worker_wakeups.py [--runs 300] [--steps 20] [--repeat 3] [--json]
    PYTHONPATH=/other/checkout/python python benches/worker_wakeups.py ...   # another state
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import concurrency

KINDS = {"dars-worker": "workers", "dars-python": "python calls", "dars-python-wat": "watchdog"}


def counters() -> dict[int, tuple[str, int, int, int, int]]:
    """Each thread: ``(kind, CPU ns, user ticks, system ticks, voluntary switches)``."""
    out = {}
    main = os.getpid()
    for task in Path("/proc/self/task").iterdir():
        try:
            comm = (task / "comm").read_text().strip()
            cpu_ns = int((task / "schedstat").read_text().split()[0])
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            status = (task / "status").read_text()
        except (OSError, ValueError):
            continue
        sleeps = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("voluntary_ctxt"))
        kind = "caller" if int(task.name) == main else KINDS.get(comm, "other (" + comm + ")")
        out[int(task.name)] = (kind, cpu_ns, int(fields[11]), int(fields[12]), sleeps)
    return out


def per_run(before: dict, after: dict, runs: int) -> dict[str, dict[str, float]]:
    """Per run, by kind: CPU, user and system milliseconds and sleeps."""
    rows: dict[str, dict[str, float]] = {}
    for tid, (kind, *now) in after.items():
        was = before.get(tid, (kind, 0, 0, 0, 0))[1:]
        row = rows.setdefault(kind, {"cpu_ms": 0.0, "user_ms": 0.0, "system_ms": 0.0, "sleeps": 0.0})
        row["cpu_ms"] += (now[0] - was[0]) / 1e6 / runs
        row["user_ms"] += (now[1] - was[1]) * 10 / runs
        row["system_ms"] += (now[2] - was[2]) * 10 / runs
        row["sleeps"] += (now[3] - was[3]) / runs
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    server, port = concurrency._start_server(0.0, args.steps)
    os.environ.update(ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}", ANTHROPIC_API_KEY="sk-ant-bench")
    try:
        agent = concurrency._build("rs", False)
        agent.invoke(concurrency._inputs(0, 0))
        repeats = []
        for _ in range(args.repeat):
            before = counters()
            for i in range(args.runs):
                agent.invoke(concurrency._inputs(i, 0))
            repeats.append(per_run(before, counters(), args.runs))
    finally:
        server.kill()
    kinds = sorted({k for r in repeats for k in r}, key=lambda k: (k.startswith("other"), k))
    median = {
        kind: {key: statistics.median(r.get(kind, {}).get(key, 0.0) for r in repeats) for key in repeats[0]["caller"]}
        for kind in kinds
    }
    if args.json:
        print(json.dumps({"runs": args.runs, "steps": args.steps, "load": os.getloadavg()[0], "per_run": median}))
        return
    print(f"{args.runs} runs of {args.steps} steps, median of {args.repeat}; load {os.getloadavg()[0]:.2f}")
    print(f"{'per run':<22}{'cpu ms':>9}{'user ms':>9}{'sys ms':>9}{'sleeps':>9}")
    for kind, row in median.items():
        print(f"{kind:<22}{row['cpu_ms']:>9.3f}{row['user_ms']:>9.2f}{row['system_ms']:>9.2f}{row['sleeps']:>9.1f}")


if __name__ == "__main__":
    main()
