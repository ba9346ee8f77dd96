"""Many concurrent threads: deepagents_rs vs deepagents 0.7.32 under load.

``--threads`` conversations (default 1,000) run at once, each ``--steps`` model calls long
(default 20: 19 calls of a trivial user tool ``echo``, then a final answer), against a
simulated Anthropic API (``benches/sim_async.py``) in its own process that answers every
request after ``--latency`` seconds (default 20 ms). Both implementations build the same
agent, ``create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[echo])``: the full
default stack, deepagents_rs' Rust client and deepagents' ``ChatAnthropic``.

Each implementation and mode runs in a process of its own (so peak RSS is its own), against a
fresh server:

* ``ainvoke``: ``asyncio.gather`` of one ``agent.ainvoke`` per thread;
* ``invoke``: one ``agent.invoke`` per thread on a ``ThreadPoolExecutor`` with a worker per
  thread.

Before the timed run, one conversation runs alone as a warm-up. Reported: the wall time of the
timed run against the ideal (``steps * latency``: every thread waiting on the model only), the
process' CPU time during it, the simulated server's CPU time (its whole life: with two cores, a
server busy for most of the wall time is what caps the run), its peak RSS (the whole process,
start-up included) of the client process, and model steps per second (``threads * steps / wall``). Each run is checked: every thread returns
``2 * steps`` messages ending in ``"done"``, and the server saw exactly
``(threads + 1) * steps`` requests, one final answer per thread, and no bad request. A failed
check prints what went wrong and exits with status 1. Requests beyond those (an SDK retrying
a request under load) are not a failure: the table shows them as ``retries``.

``--history N`` starts every conversation with ``N`` earlier messages (alternating user and
assistant turns of a few hundred characters, no tool calls) so the cost of a step on a long
conversation shows; ``--history-objects`` gives them as LangChain message objects (with ids)
instead of dicts, as a caller holding a conversation does (the result then holds the caller's
objects, and reading them is the run's input cost). Two per-step harness times are reported (JSON and the history table):

* ``cpu_per_step_ms``: the client process' CPU time during the timed run (every thread, user
  and system, the kernel's sending of the request bodies included), per step. This is the
  harness' own work, whatever the machine's load: the number the step rows of ``all.py`` hold
  to their targets.
* ``harness_per_step_ms``: the wall time less the server's own handling time (exact only with
  one thread and no latency), per step. It also holds what is neither side's work: the
  loopback's and the scheduler's wake-ups between the two processes and, on a loaded machine,
  the time either process waited for a core, which at a few hundred microseconds a step is
  most of a fast harness' step (a 2,000-message request is about 0.4 MB each way through the
  kernel).

The inputs (``N`` message dicts per conversation) are built before the clock starts: making
them is the caller's work, not the harness'.

Usage::

    python benches/concurrency.py [--threads 1000] [--steps 20] [--latency 0.02]
        [--impls rs,reference] [--modes ainvoke,invoke] [--reference-threads N]
        [--history N [--history-objects]] [--async-tool] [--python-on-workers] [--json]

``--async-tool`` makes ``echo`` a coroutine function: under ``ainvoke`` each tool call is then
a coroutine awaited on the caller's loop (under ``invoke``, deepagents raises for a tool with
no sync function; deepagents_rs awaits it on a private loop).

``--python-on-workers`` checks that no Python runs on the tokio runtime's worker threads (the
threads that drive every run's steps; ``src/python/runtime_threads.rs`` names them
``dars-worker``, the blocking pool's ``dars-blocking``, and ``src/python/python_calls.rs``'s
threads that run the core's Python calls ``dars-python``): in deepagents_rs' timed runs,
``perf record -g`` samples the process (``perf`` must be installed and allowed to sample it),
and the table counts the samples per thread kind and those with an interpreter frame
(``libpython``, or a CPython extension module) on the stack. Always reported for
deepagents_rs: the binding's own record of the call sites that took the GIL on a worker
(``_core._gil_on_workers()``, exact, not sampled), and how many Python-calling threads it
started and how many of them it replaced as stuck in a call (``_core._python_calls_stats()``).

Also reported for deepagents_rs: where its calls into Python spent the timed run
(``_core._call_timing(True)``: counting is off unless a bench switches it on; see
``timing_rows``). Every Python call the core makes (a sync tool
call, under both modes) runs on a ``dars-python`` thread holding the GIL, one after another
(a second thread only while one is stuck in a call), so that table's "GIL held by calls" per
step, times the steps, is about the wall time the run's calls take in a row; its CPU in
brackets is what they cost, the rest the time they held their turn without running
(preempted, or waiting for the GIL back from another thread).

Reported for both implementations: the timed run's threads by kind (``thread_sched``, from
``/proc/self/task``): their CPU time, their time runnable but waiting for a core (the
scheduler's ``schedstat``), and per step how often they went to sleep and how often they were
preempted. The ``dars-python`` row is the GIL holder's: its run-queue wait is time every run's
Python work stood still.

``--reference-threads`` runs deepagents with fewer threads (it is much slower per step); its
steps per second are then comparable, its wall time is not. This is a benchmark, not a test;
it never touches the network.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def echo(text: str) -> str:
    """Echo the text back."""
    return text


async def _async_echo(text: str) -> str:
    """Echo the text back."""
    return text


# The same tool as a coroutine function, for `--async-tool` (the simulated API calls `echo`).
_async_echo.__name__ = "echo"


def _build(impl: str, async_tool: bool = False) -> Any:
    if impl == "rs":
        from deepagents_rs import create_deep_agent
    else:
        from deepagents import create_deep_agent
    return create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[_async_echo if async_tool else echo])


def _check(result: dict[str, Any], steps: int, history: int) -> str | None:
    messages = result["messages"]
    if len(messages) != 2 * steps + history:
        return f"{len(messages)} messages, expected {2 * steps + history}"
    if messages[-1].content != "done":
        return f"last message {messages[-1].content!r}, expected 'done'"
    return None


_EARLIER = (
    "Earlier in this session we looked at module {k}: it parses the configuration, checks each "
    "field against the schema, and reports the first error with its line number. "
)


def _inputs(i: int, history: int, objects: bool = False) -> dict[str, Any]:
    earlier: list[Any] = [
        {"role": "user" if k % 2 == 0 else "assistant", "content": _EARLIER.format(k=k)} for k in range(history)
    ]
    if objects:
        from langchain_core.messages import AIMessage, HumanMessage

        earlier = [
            (HumanMessage if m["role"] == "user" else AIMessage)(content=m["content"], id=f"earlier-{i}-{k}")
            for k, m in enumerate(earlier)
        ]
    return {"messages": [*earlier, {"role": "user", "content": f"Thread {i}: echo until told to stop."}]}


#: What the process' threads are named (`/proc`'s `comm`, which perf records per sample).
_THREAD_KINDS = {
    "dars-worker": "tokio worker",
    "dars-blocking": "blocking pool",
    "dars-python": "core's Python calls",
    "python": "Python threads",
}


def _is_python(dso: str) -> bool:
    """Whether a frame's binary is the interpreter (``libpython``, or a static ``python``)
    or a CPython extension module."""
    name = dso.rsplit("/", 1)[-1]
    return name.startswith(("libpython", "python")) or ".cpython-" in name


def thread_samples(script: str) -> dict[str, dict[str, int]]:
    """Samples of ``perf script -F comm,tid,ip,sym,dso`` output by thread kind: how many, and
    how many with an interpreter frame anywhere on the stack."""
    out: dict[str, dict[str, int]] = {}
    kind, python = None, False

    def flush() -> None:
        if kind is not None:
            counts = out.setdefault(kind, {"samples": 0, "python": 0})
            counts["samples"] += 1
            counts["python"] += python

    for line in script.splitlines():
        if not line.strip():
            continue
        if not line.startswith("\t"):
            flush()
            comm = line.rsplit(None, 1)[0].strip()
            kind, python = _THREAD_KINDS.get(comm, "other (" + comm + ")"), False
        elif not python and line.rstrip().endswith(")"):
            python = _is_python(line.rstrip()[:-1].rsplit("(", 1)[-1])
    flush()
    return out


def thread_sched() -> dict[int, tuple[str, int, int, int, int]]:
    """This process' threads by id: ``(name, CPU ns, run-queue wait ns, voluntary switches,
    involuntary switches)`` from ``/proc/self/task`` (``schedstat``: the scheduler's own
    nanosecond counts; a switch is voluntary when the thread went to sleep, involuntary when it
    was preempted while runnable). Empty where ``/proc`` lacks them."""
    out = {}
    tasks = Path("/proc/self/task")
    for task in tasks.iterdir() if tasks.is_dir() else ():
        try:
            comm = (task / "comm").read_text().strip()
            run_ns, wait_ns, _slices = (int(x) for x in (task / "schedstat").read_text().split())
            status = (task / "status").read_text()
        except (OSError, ValueError):
            continue  # the thread ended meanwhile, or no schedstat
        switches = dict(re.findall(r"^(\w+_ctxt_switches):\s+(\d+)$", status, re.MULTILINE))
        out[int(task.name)] = (
            comm,
            run_ns,
            wait_ns,
            int(switches.get("voluntary_ctxt_switches", 0)),
            int(switches.get("nonvoluntary_ctxt_switches", 0)),
        )
    return out


def sched_by_kind(
    before: dict[int, tuple[str, int, int, int, int]], after: dict[int, tuple[str, int, int, int, int]]
) -> dict[str, dict[str, float]]:
    """``thread_sched`` differences summed by thread kind (``_THREAD_KINDS``): threads alive at
    the end (one born meanwhile counts from zero; one that ended is left out)."""
    out: dict[str, dict[str, float]] = {}
    for tid, (comm, *now) in after.items():
        was = before.get(tid, (comm, 0, 0, 0, 0))[1:]
        kind = _THREAD_KINDS.get(comm, "other (" + comm + ")")
        row = out.setdefault(kind, {"threads": 0, "cpu_s": 0.0, "wait_s": 0.0, "asleep": 0, "preempted": 0})
        row["threads"] += 1
        row["cpu_s"] += (now[0] - was[0]) / 1e9
        row["wait_s"] += (now[1] - was[1]) / 1e9
        row["asleep"] += now[2] - was[2]
        row["preempted"] += now[3] - was[3]
    return out


class _Sampler:
    """``perf record -g`` of this process while the timed run goes."""

    def __init__(self) -> None:
        import tempfile

        self.path = tempfile.mktemp(suffix=".perf.data")
        self.proc = subprocess.Popen(
            ["perf", "record", "-g", "-F", "499", "-p", str(os.getpid()), "-o", self.path],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        # perf attaches to every thread before it samples; a run started sooner goes unseen.
        time.sleep(1.0)
        if self.proc.poll() is not None:
            raise SystemExit(f"perf record failed: {self.proc.stderr.read().decode()[-500:]}")  # type: ignore[union-attr]

    def stop(self) -> dict[str, dict[str, int]]:
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait()
        script = subprocess.run(
            ["perf", "script", "-i", self.path, "-F", "comm,tid,ip,sym,dso"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        os.unlink(self.path)
        return thread_samples(script)


#: Set in a worker's environment by ``--python-on-workers``: sample its timed run with perf.
_SAMPLE_ENV = "DEEPAGENTS_RS_BENCH_PERF"


def worker(
    impl: str, mode: str, threads: int, steps: int, history: int = 0, async_tool: bool = False, objects: bool = False
) -> dict[str, Any]:
    """One implementation in one mode, in this process; returns the measurements."""
    agent = _build(impl, async_tool)
    # The warm-up runs in the timed run's mode (deepagents cannot `invoke` an async-only tool).
    first = _inputs(-1, history, objects)
    warm = asyncio.run(agent.ainvoke(first)) if mode == "ainvoke" else agent.invoke(first)
    problems = [p for p in [_check(warm, steps, history)] if p]
    # The caller's work, outside the clock (with `--history` it is thousands of dicts).
    inputs = [_inputs(i, history, objects) for i in range(threads)]
    sampler = _Sampler() if os.environ.get(_SAMPLE_ENV) and impl == "rs" else None
    timing0 = _call_timing(impl)
    # The bench's own readings outside the CPU clock's interval: reading `/proc` for every
    # thread (`thread_sched`) costs about 0.65 ms of this process' CPU, twice a run, some
    # 0.07 ms a step of a 20-step conversation where deepagents_rs spends under 0.7.
    sched0 = thread_sched()
    usage0 = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    if mode == "ainvoke":

        async def all_threads() -> list[Any]:
            return await asyncio.gather(*(agent.ainvoke(given) for given in inputs))

        results = asyncio.run(all_threads())
        wall = time.perf_counter() - start
        usage1 = resource.getrusage(resource.RUSAGE_SELF)
        sched1 = thread_sched()
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            results = list(pool.map(agent.invoke, inputs))
            wall = time.perf_counter() - start
            usage1 = resource.getrusage(resource.RUSAGE_SELF)
            # Before the pool's threads end (an ended thread's counts are gone).
            sched1 = thread_sched()
    timing1 = _call_timing(impl)
    problems += [p for p in (_check(r, steps, history) for r in results) if p]
    cpu = (usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)
    out = {
        "wall": wall,
        "cpu": cpu,
        "peak_rss_mib": usage1.ru_maxrss / 1024,
        "problems": problems[:5],
        "failed": len(problems),
        "threads_sched": sched_by_kind(sched0, sched1),
    }
    if impl == "rs":
        from deepagents_rs import _core

        # Since start-up: the warm-up's and the timed run's.
        out["gil_on_workers"] = _core._gil_on_workers()
        # Absent from builds before the queue of Python calls (kept runnable for A/B runs).
        stats = getattr(_core, "_python_calls_stats", None)
        if stats is not None:
            started, replaced, _alive = stats()
            out["python_threads"] = {"started": started, "replaced": replaced}
        if timing0 is not None and timing1 is not None:
            out["call_timing"] = {k: timing1[k] - timing0[k] for k in timing1}
    if sampler is not None:
        out["thread_samples"] = sampler.stop()
    return out


def _call_timing(impl: str) -> dict[str, int] | None:
    """The binding's counts of its Python calls (``_core._call_timing``), or ``None`` (deepagents,
    or a build before them)."""
    if impl != "rs":
        return None
    from deepagents_rs import _core

    timing = getattr(_core, "_call_timing", None)
    if timing is None:
        return None
    try:
        # Counting is off unless switched on (builds before that count always, and take no
        # argument).
        return timing(True)
    except TypeError:
        return timing()


def _start_server(latency: float, steps: int) -> tuple[subprocess.Popen[str], int]:
    server = subprocess.Popen(
        [sys.executable, str(HERE / "sim_async.py"), "--port", "0", "--latency", str(latency), "--steps", str(steps)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line.startswith("PORT "):
        server.kill()
        raise SystemExit(f"the simulated API did not start: {line!r}")
    return server, int(line.split()[1])


def server_env(port: int) -> dict[str, str]:
    """This process's environment pointed at the simulated API on ``port`` (for a worker
    process); ``ANTHROPIC_API_URL``, read before the base URL by both packages, dropped."""
    env = dict(os.environ, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}", ANTHROPIC_API_KEY="sk-ant-bench")
    env.pop("ANTHROPIC_API_URL", None)
    return env


def run_one(
    impl: str,
    mode: str,
    threads: int,
    steps: int,
    latency: float,
    history: int = 0,
    async_tool: bool = False,
    python_on_workers: bool = False,
    history_objects: bool = False,
) -> dict[str, Any]:
    """Runs ``worker`` in a fresh process against a fresh server and checks the server's counts."""
    server, port = _start_server(latency, steps)
    env = server_env(port)
    if python_on_workers:
        env[_SAMPLE_ENV] = "1"
    try:
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--worker",
                impl,
                "--mode",
                mode,
                "--threads",
                str(threads),
                "--steps",
                str(steps),
                "--history",
                str(history),
                *(["--async-tool"] if async_tool else []),
                *(["--history-objects"] if history_objects else []),
            ],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        server.send_signal(signal.SIGTERM)
        out, _ = server.communicate(timeout=30)
    if proc.returncode != 0:
        raise SystemExit(f"{impl} {mode} failed (status {proc.returncode}):\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    counts = json.loads(out.strip().splitlines()[-1])
    expected = (threads + 1) * steps
    # An SDK's retry (deepagents' ChatAnthropic retries a request whose connection failed under
    # load) shows as extra requests, and maybe an extra final: reported, not a failure. Too few
    # of either means a thread skipped a step.
    if counts["requests"] < expected or counts["finals"] < threads + 1 or counts["errors"]:
        result["problems"].append(f"server saw {counts}, expected {expected} requests and {threads + 1} finals")
        result["failed"] += 1
    result["retries"] = max(0, counts["requests"] - expected)
    result.update(impl=impl, mode=mode, threads=threads, steps=steps, latency=latency, history=history)
    result.update(async_tool=async_tool, history_objects=history_objects)
    # The warm-up conversation's requests are in the server's time too; its share is removed.
    server_s = counts["handler_seconds"] * threads / (threads + 1)
    result["harness_per_step_ms"] = (result["wall"] - server_s) / (threads * steps) * 1000
    result["cpu_per_step_ms"] = result["cpu"] / (threads * steps) * 1000
    result["server_cpu"] = counts["cpu_seconds"]
    result["ideal"] = steps * latency
    result["steps_per_s"] = threads * steps / result["wall"]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1000)
    parser.add_argument("--reference-threads", type=int, default=None)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--impls", default="rs,reference")
    parser.add_argument("--modes", default="ainvoke,invoke")
    parser.add_argument("--history", type=int, default=0, help="earlier messages in every conversation")
    parser.add_argument(
        "--history-objects", action="store_true", help="the earlier messages as LangChain message objects"
    )
    parser.add_argument("--async-tool", action="store_true", help="the tool as a coroutine function")
    parser.add_argument(
        "--python-on-workers", action="store_true", help="sample deepagents_rs' runs with perf, by thread kind"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON lines")
    parser.add_argument("--worker", choices=["rs", "reference"], help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=["ainvoke", "invoke"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        out = worker(
            args.worker, args.mode, args.threads, args.steps, args.history, args.async_tool, args.history_objects
        )
        print(json.dumps(out))
        return 0
    results = []
    for impl in args.impls.split(","):
        threads = args.reference_threads if impl == "reference" and args.reference_threads else args.threads
        for mode in args.modes.split(","):
            results.append(
                run_one(
                    impl,
                    mode,
                    threads,
                    args.steps,
                    args.latency,
                    args.history,
                    args.async_tool,
                    args.python_on_workers,
                    args.history_objects,
                )
            )
    if args.json:
        for r in results:
            print(json.dumps(r))
    else:
        print(table(results))
    # Python on a tokio worker is a failure: it stalls every run scheduled on that worker.
    for r in results:
        on_workers = r.get("thread_samples", {}).get(_THREAD_KINDS["dars-worker"], {}).get("python", 0)
        if r.get("gil_on_workers") or on_workers:
            r["problems"].append(f"Python on tokio workers: {r.get('gil_on_workers')}, {on_workers} samples")
            r["failed"] += 1
    bad = [r for r in results if r["failed"]]
    for r in bad:
        print(f"FAILED {r['impl']} {r['mode']}: {r['failed']} problems, e.g. {r['problems']}", file=sys.stderr)
    return 1 if bad else 0


NAMES = {"rs": "deepagents_rs", "reference": "deepagents 0.7.32"}


def threads_of(r: dict[str, Any]) -> str:
    t = r.get("python_threads")
    return f"{t['started']} / {t['replaced']}" if t else "-"


def _avg_ms(ns: int, n: int) -> str:
    return f"{ns / n / 1e6:.3f}" if n else "-"


def timing_rows(results: list[dict[str, Any]]) -> list[str]:
    """Where deepagents_rs' calls into Python spent the timed run (``_core._call_timing``): the
    core's Python calls (``dars-python`` threads) hold the GIL for ``job`` per step, wait in
    their queue for ``queued`` per call; a drainer given a turn waits ``attach`` for the GIL;
    a thread blocked in ``invoke`` waits ``reattach`` for it once its run ended; under
    ``ainvoke`` the loop's inbox runs ``inbox jobs`` per drain, each waiting ``queued``."""
    timed = [r for r in results if "call_timing" in r]
    if not timed:
        return []
    rows = [
        "",
        (
            "| implementation | mode | Python calls / step | GIL held by calls ms / step (CPU) | queued ms / call "
            "| drainer GIL wait ms (count) | caller GIL wait ms (count) | inbox jobs / drain "
            "| inbox queued ms / job | inbox ms / step |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in timed:
        t, steps = r["call_timing"], r["threads"] * r["steps"]
        rows.append(
            f"| {NAMES[r['impl']]} | {r['mode']} | {t['jobs'] / steps:.2f} | {t['job_ns'] / steps / 1e6:.3f} ({t.get('job_cpu_ns', 0) / steps / 1e6:.3f}) "
            f"| {_avg_ms(t['queued_ns'], t['jobs'])} "
            f"| {_avg_ms(t['drainer_attach_ns'], t['drainer_attaches'])} ({t['drainer_attaches']}) "
            f"| {_avg_ms(t['caller_reattach_ns'], t['caller_reattaches'])} ({t['caller_reattaches']}) "
            f"| {t['inbox_jobs'] / t['inbox_drains'] if t['inbox_drains'] else 0:.1f} "
            f"| {_avg_ms(t['inbox_queued_ns'], t['inbox_jobs'])} | {t['inbox_job_ns'] / steps / 1e6:.3f} |"
        )
    return rows


def sched_rows(results: list[dict[str, Any]]) -> list[str]:
    """The timed run's threads by kind (``thread_sched``): CPU time, time runnable but waiting
    for a core, and how often each kind went to sleep or was preempted; per step, as the
    critical path of the core's Python calls (``dars-python``) is what bounds the wall time."""
    timed = [r for r in results if r.get("threads_sched")]
    if not timed:
        return []
    rows = [
        "",
        "| implementation | mode | thread kind | threads | CPU s | run-queue wait s | asleep / step | preempted / step |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in timed:
        steps = r["threads"] * r["steps"]
        for kind, k in sorted(r["threads_sched"].items(), key=lambda kv: -kv[1]["cpu_s"]):
            rows.append(
                f"| {NAMES[r['impl']]} | {r['mode']} | {kind} | {k['threads']} | {k['cpu_s']:.2f} | {k['wait_s']:.2f} "
                f"| {k['asleep'] / steps:.3f} | {k['preempted'] / steps:.3f} |"
            )
    return rows


def table(results: list[dict[str, Any]]) -> str:
    rows = [
        "| implementation | mode | threads x steps | wall s (ideal) | CPU s | CPU ms / step | server CPU s | peak RSS MiB | model steps/s | retries |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        rows.append(
            f"| {NAMES[r['impl']]} | {r['mode']} | {r['threads']} x {r['steps']} | {r['wall']:.2f} ({r['ideal']:.2f}) "
            f"| {r['cpu']:.1f} | {r['cpu'] / (r['threads'] * r['steps']) * 1000:.2f} | {r['server_cpu']:.1f} "
            f"| {r['peak_rss_mib']:.0f} "
            f"| {r['steps_per_s']:.0f} | {r['retries']} |"
        )
    sampled = [r for r in results if "gil_on_workers" in r]
    if sampled:
        rows += [
            "",
            "| implementation | mode | GIL taken on a tokio worker (call sites) | Python-calling threads started / replaced | perf samples: thread kind: all / with Python |",
            "|---|---|---|---|---|",
        ]
        for r in sampled:
            samples = "; ".join(
                f"{kind}: {c['samples']} / {c['python']}" for kind, c in sorted(r.get("thread_samples", {}).items())
            )
            rows.append(
                f"| {NAMES[r['impl']]} | {r['mode']} | {len(r['gil_on_workers'])} "
                f"| {threads_of(r)} | {samples or 'not sampled'} |"
            )
    rows += timing_rows(results)
    rows += sched_rows(results)
    by = {(r["impl"], r["mode"]): r for r in results}
    for mode in ("ainvoke", "invoke"):
        rs, ref = by.get(("rs", mode)), by.get(("reference", mode))
        if rs and ref:
            rows.append(
                f"\n{mode}: steps/s ratio deepagents_rs / deepagents = {rs['steps_per_s'] / ref['steps_per_s']:.1f}"
            )
    if any(r["history"] for r in results):
        rows.append(f"\nper-step harness time, {results[0]['history']} earlier messages (see the docstring):")
        for r in results:
            rows.append(
                f"{NAMES[r['impl']]} {r['mode']}: CPU {r['cpu_per_step_ms']:.3f} ms/step, "
                f"wall less server {r['harness_per_step_ms']:.3f} ms/step"
            )
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
