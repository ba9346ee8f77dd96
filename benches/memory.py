"""Memory of many live conversations: deepagents_rs vs deepagents 0.7.32, per conversation.

``benches/concurrency.py`` reports the peak RSS of a whole run; this splits it. Each
implementation runs in a process of its own against a fresh simulated Anthropic API
(``benches/sim_async.py``, in a process of its own, started by the measured one), once per step count in ``--steps`` (default
2 and 20) and mode in ``--modes`` (default ``ainvoke``): ``--threads`` conversations (default 1,000) at once, under
``ainvoke`` (``asyncio.gather``) or ``invoke`` (a thread pool with a worker per conversation, as
``concurrency.py`` runs it), the same agent as the concurrency bench (the full default stack and
a trivial ``echo`` tool).

Reported per run: the process' RSS once the package is imported, once the agent is built
and one conversation has run alone (the base every run starts from), and its peak during
the run (sampled every 50 ms, and ``ru_maxrss``, whichever is higher), with when in the run
the sampled peak came and the RSS when the first conversation's result was back (the
conversations go in step: every one is then at its last step, and the peak's excess over it is
what was made as the results were); then the memory per
conversation, ``(peak - base) / threads``, and, from the two smallest and largest step
counts, the memory per conversation per live step (the slope). ``--reference-threads`` runs
deepagents with fewer conversations (it is much slower per step): its per-conversation
numbers stay comparable. Also per run: the cyclic collector's passes during it by generation
(young / middle / full) and their CPU time (``gc.callbacks``, on whichever thread ran them):
a full pass walks every tracked object, so the objects a result holds cost again at each one;
and the tracked objects per conversation once the run is done (``gc.get_objects()``, the
results held, less the base). Every run's results are checked as the concurrency bench checks
them (``2 * steps`` messages ending in ``"done"``).

Usage::

    python benches/memory.py [--threads 1000] [--steps 2,20] [--modes ainvoke,invoke]
        [--impls rs,reference] [--reference-threads 100]

This is a benchmark, not a test; it never touches the network.
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
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import concurrency


def _rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def worker(impl: str, threads: int, steps: int, latency: float, mode: str = "ainvoke") -> dict[str, Any]:
    """One implementation and step count, in this process, against a fresh simulated API in
    a process of its own; returns the measurements."""
    server, port = concurrency._start_server(latency, steps)
    try:
        os.environ.pop("ANTHROPIC_API_URL", None)
        os.environ.update(ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}", ANTHROPIC_API_KEY="sk-ant-bench")
        return _measure(impl, threads, steps, mode)
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)


def _measure(impl: str, threads: int, steps: int, mode: str = "ainvoke") -> dict[str, Any]:
    start = _rss_mib()
    if impl == "rs":
        import deepagents_rs  # noqa: F401
    else:
        import deepagents  # noqa: F401
    imported = _rss_mib()
    agent = concurrency._build(impl)
    first = concurrency._inputs(-1, 0)
    warm = asyncio.run(agent.ainvoke(first)) if mode == "ainvoke" else agent.invoke(first)
    problems = [p for p in [concurrency._check(warm, steps, 0)] if p]
    base = _rss_mib()
    peak = [base]
    done = threading.Event()
    run_start = time.perf_counter()
    peak_at = [0.0]

    def sample() -> None:
        # RSS only grows during the run (the allocator keeps what it freed), so a coarse
        # sample misses little; ru_maxrss below catches the rest.
        while not done.wait(0.05):
            now = _rss_mib()
            if now > peak[0]:
                peak[0] = now
                peak_at[0] = time.perf_counter() - run_start

    sampler = threading.Thread(target=sample, daemon=True)
    tracked_base = len(gc.get_objects())
    passes = Passes()
    gc.callbacks.append(passes.note)
    sampler.start()

    inputs = [concurrency._inputs(i, 0) for i in range(threads)]
    # The RSS when the first conversation's result is back: the conversations go in step, so
    # then every one is at its last step and few results are made. What the peak holds above
    # it was made as the results were (the in-flight state against the results held).
    first_done: list[float] = []

    def noted(result: Any) -> Any:
        if not first_done:
            first_done.append(_rss_mib())
        return result

    if mode == "ainvoke":

        async def one(given: dict[str, Any]) -> Any:
            return noted(await agent.ainvoke(given))

        async def all_threads() -> list[Any]:
            return await asyncio.gather(*(one(given) for given in inputs))

        results = asyncio.run(all_threads())
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            results = list(pool.map(lambda given: noted(agent.invoke(given)), inputs))
    run_s = time.perf_counter() - run_start
    gc.callbacks.remove(passes.note)
    done.set()
    sampler.join()
    problems += [p for p in (concurrency._check(r, steps, 0) for r in results) if p]
    peak_mib = max(peak[0], _rss_mib(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return {
        "start_mib": start,
        "imported_mib": imported,
        "base_mib": base,
        "peak_mib": peak_mib,
        "first_done_mib": first_done[0],
        # The sampler runs on until told to stop, after the run's end was taken.
        "peak_at": min(peak_at[0], run_s) / run_s,
        "gc_passes": passes.count,
        "gc_cpu_s": passes.cpu,
        "tracked_per_conversation": (len(gc.get_objects()) - tracked_base) / threads,
        "problems": problems[:5],
        "failed": len(problems),
    }


class Passes:
    """The cyclic collector's passes by generation, and their CPU time by generation (the
    thread's that ran each)."""

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.cpu_by_generation = [0.0, 0.0, 0.0]
        self._started: dict[int, float] = {}

    @property
    def cpu(self) -> float:
        return sum(self.cpu_by_generation)

    def note(self, phase: str, info: dict[str, int]) -> None:
        me = threading.get_ident()
        if phase == "start":
            self._started[me] = time.thread_time()
            return
        started = self._started.pop(me, None)
        if started is not None:
            self.count[info["generation"]] += 1
            self.cpu_by_generation[info["generation"]] += time.thread_time() - started


def run_one(impl: str, threads: int, steps: int, latency: float, mode: str = "ainvoke") -> dict[str, Any]:
    """``worker`` in a fresh process (which starts its own server)."""
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", impl, "--threads", str(threads), "--steps", str(steps)]
        + ["--latency", str(latency), "--modes", mode],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{impl} at {steps} steps failed (status {proc.returncode}):\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result.update(impl=impl, threads=threads, steps=steps, mode=mode)
    result["kib_per_conversation"] = (result["peak_mib"] - result["base_mib"]) * 1024 / threads
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1000)
    parser.add_argument("--reference-threads", type=int, default=None)
    parser.add_argument("--steps", default="2,20", help="step counts, comma-separated")
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--impls", default="rs,reference")
    parser.add_argument("--modes", default="ainvoke", help="ainvoke, invoke or both, comma-separated")
    parser.add_argument("--worker", choices=["rs", "reference"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.threads, int(args.steps), args.latency, args.modes)))
        return 0
    started = time.strftime("%H:%M:%S")
    load = os.getloadavg()
    results = []
    for impl in args.impls.split(","):
        threads = args.reference_threads if impl == "reference" and args.reference_threads else args.threads
        for mode in args.modes.split(","):
            for steps in sorted(int(s) for s in args.steps.split(",")):
                results.append(run_one(impl, threads, steps, args.latency, mode))
    print(f"started {started}, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(table(results))
    bad = [r for r in results if r["failed"]]
    for r in bad:
        print(
            f"FAILED {r['impl']} {r['mode']} {r['steps']} steps: {r['failed']} problems, e.g. {r['problems']}",
            file=sys.stderr,
        )
    return 1 if bad else 0


#: The table's columns: a header and how a run's cell is written.
COLUMNS: list[tuple[str, Any]] = [
    ("implementation", lambda r: concurrency.NAMES[r["impl"]]),
    ("mode", lambda r: r["mode"]),
    ("threads x steps", lambda r: f"{r['threads']} x {r['steps']}"),
    ("imported MiB", lambda r: f"{r['imported_mib']:.0f}"),
    ("base MiB", lambda r: f"{r['base_mib']:.0f}"),
    ("at first result MiB", lambda r: f"{r['first_done_mib']:.0f}"),
    ("peak MiB", lambda r: f"{r['peak_mib']:.0f}"),
    ("peak at (of the run)", lambda r: f"{r['peak_at']:.0%}"),
    ("KiB / conversation", lambda r: f"{r['kib_per_conversation']:.0f}"),
    ("tracked objects / conversation", lambda r: f"{r['tracked_per_conversation']:.0f}"),
    ("GC passes young / middle / full", lambda r: " / ".join(str(n) for n in r["gc_passes"])),
    ("GC CPU s", lambda r: f"{r['gc_cpu_s']:.2f}"),
]


def table(results: list[dict[str, Any]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(cells) + " |"

    rows = [line([h for h, _ in COLUMNS]), line(["---"] * len(COLUMNS))]
    rows += [line([cell(r) for _, cell in COLUMNS]) for r in results]
    for impl, mode in dict.fromkeys((r["impl"], r["mode"]) for r in results):
        runs = sorted((r for r in results if (r["impl"], r["mode"]) == (impl, mode)), key=lambda r: r["steps"])
        low, high = runs[0], runs[-1]
        if high["steps"] > low["steps"]:
            slope = (high["kib_per_conversation"] - low["kib_per_conversation"]) / (high["steps"] - low["steps"])
            rows.append(f"\n{concurrency.NAMES[impl]} ({mode}): {slope:.1f} KiB per conversation per live step")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
