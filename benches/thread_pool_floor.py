"""What ``concurrency.py``'s ``invoke`` mode costs before deepagents_rs does anything: its
``ThreadPoolExecutor`` of one thread per conversation, each thread's start and end, the
objects they make and the cyclic collector's passes over them.

``--what floor`` maps a function that only sleeps ``--hold`` seconds (about a run's length)
over the pool, as the bench maps ``agent.invoke``; ``--what invoke`` and ``--what ainvoke``
run the bench's 1,000 x 20 conversations in this process (deepagents_rs, the simulated API in
its own process, after a warm-up run). Each prints the wall time, the process' CPU time, when
the last conversation started (``ramp``: the pool's threads start one after another, each
waiting for the GIL), and the collector's passes by generation with their CPU time
(``gc.callbacks``, on whichever thread ran them). The ``invoke`` row less the ``floor`` row
is the harness' part of the invoke run's extra cost over ``ainvoke``.

Usage::

    python benches/thread_pool_floor.py [--what floor,invoke,ainvoke] [--threads 1000] [--hold 2]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import concurrency
import memory


def measure(what: str, threads: int, hold: float) -> dict[str, Any]:
    """One row: ``what`` run over ``threads`` conversations in this process."""
    agent = None if what == "floor" else concurrency._build("rs")
    if agent is not None:
        first = concurrency._inputs(-1, 0)
        agent.invoke(first) if what == "invoke" else asyncio.run(agent.ainvoke(first))
    inputs = [concurrency._inputs(i, 0) for i in range(threads)]
    starts: list[float] = []

    def one(given: dict) -> Any:
        starts.append(time.perf_counter())
        if agent is None:
            time.sleep(hold)
            return given
        return agent.invoke(given)

    passes = memory.Passes()
    usage0 = resource.getrusage(resource.RUSAGE_SELF)
    gc.callbacks.append(passes.note)
    start = time.perf_counter()
    try:
        if what == "ainvoke":

            async def all_threads() -> list[Any]:
                async def timed(given: dict) -> Any:
                    starts.append(time.perf_counter())
                    return await agent.ainvoke(given)

                return await asyncio.gather(*(timed(given) for given in inputs))

            asyncio.run(all_threads())
            wall = time.perf_counter() - start
            usage1 = resource.getrusage(resource.RUSAGE_SELF)
        else:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                list(pool.map(one, inputs))
                wall = time.perf_counter() - start
                usage1 = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        gc.callbacks.remove(passes.note)
    cpu = (usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)
    return {
        "what": what,
        "wall": round(wall, 3),
        "cpu": round(cpu, 3),
        "ramp": round(max(starts) - start, 3),
        "gc": {g: [n, round(s, 3)] for g, (n, s) in enumerate(zip(passes.count, passes.cpu_by_generation))},
        "load": round(os.getloadavg()[0], 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--what", default="floor,invoke,ainvoke")
    parser.add_argument("--threads", type=int, default=1000)
    parser.add_argument("--hold", type=float, default=2.0)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--row", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.row:
        print(json.dumps(measure(args.row, args.threads, args.hold)))
        return 0
    print(f"{'what':8} {'wall s':>7} {'CPU s':>6} {'ramp s':>7}  collector passes (CPU s) young / middle / full")
    for what in args.what.split(","):
        # Each row in a process of its own, against a fresh server (as `concurrency.run_one`).
        server, port = concurrency._start_server(args.latency, args.steps)
        env = concurrency.server_env(port)
        try:
            out = subprocess.run(
                [sys.executable, __file__, "--row", what, "--threads", str(args.threads), "--hold", str(args.hold)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        finally:
            server.send_signal(signal.SIGTERM)
            server.communicate(timeout=30)
        row = json.loads(out.strip().splitlines()[-1])
        passes = " / ".join(f"{n} ({s:.3f})" for n, s in row["gc"].values())
        print(f"{what:8} {row['wall']:7.2f} {row['cpu']:6.2f} {row['ramp']:7.2f}  {passes}   load {row['load']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
