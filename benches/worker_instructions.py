"""Instructions a step costs on the tokio worker threads: callgrind, exact, whatever the load.

Runs ``concurrency.py``'s agent (the full default stack, the Rust Anthropic client, the trivial
``echo`` tool) against ``sim_async.py`` (no latency, in its own process) under
``valgrind --tool=callgrind --separate-threads=yes`` twice: one warm-up conversation and then
``1`` and then ``1 + --extra`` conversations of ``--steps`` steps. The difference between the
two runs, divided by ``extra * steps``, is a step's cost with every one-time cost (start-up,
the client's build, the first request's connection) removed. Threads whose profile holds the
runtime's worker loop (``multi_thread::worker::run``) are the workers.

Prints the instructions a step on the workers, on the calling thread (the one that called
``invoke``; its Python counted too) and on the process' other threads, and with ``--top N`` the N
functions of most inclusive cost a step on the workers (``--thread calling``: on the calling
thread; ``--thread other``: on the others, where the core's Python calls run, its
``dars-python`` drainers: a tool job's whole cost, the C its Python calls included).
``--history N`` starts every conversation with ``N`` earlier messages (as ``concurrency.py
--history``); every run builds the same inputs before its first conversation, so their building
cancels out of the difference. Needs valgrind, and for function names (and to tell the workers
from the other threads) a build with symbols: the release ``.so`` is stripped, so
``strip = false`` in ``pyproject.toml``'s ``[tool.maturin]`` for such a build.

``--calls malloc,free`` counts the calls a step of the functions named (on ``--thread``'s
threads; the callers' ``calls=`` lines of the profiles, so it also needs symbols).

Usage: ``python benches/worker_instructions.py [--steps 20] [--extra 2] [--history 0] [--top 0]
[--thread workers|calling|other] [--calls malloc,free]``
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _drive(conversations: int) -> None:
    """The profiled process: a warm-up conversation, then ``conversations`` more."""
    sys.path.insert(0, HERE)
    import concurrency

    agent = concurrency._build("rs")
    steps = int(os.environ["WORKER_INSTRUCTIONS_STEPS"])
    history = int(os.environ["WORKER_INSTRUCTIONS_HISTORY"])
    # As many inputs built in every run, whatever it runs: the building cancels out.
    inputs = [concurrency._inputs(i, history) for i in range(-1, int(os.environ["WORKER_INSTRUCTIONS_MOST"]))]
    # The results kept to the end and the process left without Python's finalization: as in
    # `concurrency.py`, whose clock stops before a result is freed, their freeing is not counted.
    results = []
    for i in range(conversations + 1):
        results.append(agent.invoke(inputs[i]))
        problem = concurrency._check(results[-1], steps, history)
        if problem:
            raise SystemExit(problem)
    sys.stdout.flush()
    os._exit(0)


#: The groups of threads counted: the calling thread is the process' first (callgrind's ``-01``).
GROUPS = ("workers", "calling", "other")


def _group(path: str) -> str:
    with open(path) as f:
        if "multi_thread::worker::run" in f.read():
            return "workers"
    return "calling" if path.endswith("-01") else "other"


def _grouped(prefix: str) -> dict[str, list[str]]:
    """One run's files by group (each file read once to place it)."""
    groups: dict[str, list[str]] = {g: [] for g in GROUPS}
    for path in sorted(glob.glob(prefix + "-*")):
        groups[_group(path)].append(path)
    return groups


def _calls(paths: list[str]) -> collections.Counter[str]:
    counts: collections.Counter[str] = collections.Counter()
    for path in paths:
        # Callgrind writes a name once, after its number (``cfn=(12) malloc``), later the
        # number alone (``cfn=(12)``); function numbers are the file's own.
        names: dict[str, str] = {}
        callee = ""
        with open(path) as f:
            for line in f:
                if line.startswith(("fn=", "cfn=")):
                    m = re.match(r"c?fn=(\(\d+\))?\s*(.*)", line.rstrip("\n"))
                    assert m
                    number, name = m.groups()
                    if number and name:
                        names[number] = name
                    name = names.get(number, name) if number else name
                    if line.startswith("cfn="):
                        callee = name
                elif line.startswith("calls="):
                    counts[callee] += int(line[6:].split()[0])
    return counts


def _costs(paths: list[str]) -> tuple[int, collections.Counter[str]]:
    total, by_function = 0, collections.Counter()
    for path in paths:
        out = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for line in out.splitlines():
            m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*?)(?: \[[^\]]*\])?$", line)
            if not m:
                continue
            n, name = int(m.group(1).replace(",", "")), m.group(2)
            if name == "PROGRAM TOTALS":
                total += n
            else:
                by_function[name.split(":", 1)[-1] if name.startswith(("???:", "/", ".")) else name] += n
    return total, by_function


def _run(
    conversations: int, steps: int, history: int, most: int, out_dir: str, count_calls: bool
) -> tuple[dict[str, tuple[int, collections.Counter[str]]], dict[str, collections.Counter[str]]]:
    sys.path.insert(0, HERE)
    import concurrency

    server, port = concurrency._start_server(0, steps)
    try:
        env = dict(
            concurrency.server_env(port),
            WORKER_INSTRUCTIONS_STEPS=str(steps),
            # The calling thread counts its imports too: the same hashes make them the same work.
            PYTHONHASHSEED="0",
            WORKER_INSTRUCTIONS_HISTORY=str(history),
            WORKER_INSTRUCTIONS_MOST=str(most),
        )
        prefix = os.path.join(out_dir, f"run{conversations}")
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--separate-threads=yes",
                f"--callgrind-out-file={prefix}",
                sys.executable,
                __file__,
                "--drive",
                str(conversations),
            ],
            env=env,
            check=True,
            capture_output=True,
        )
    finally:
        server.terminate()
        server.wait(timeout=30)
    groups = _grouped(prefix)
    costs = {g: _costs(paths) for g, paths in groups.items()}
    # The ``calls=`` lines are read only when calls are asked for.
    calls = {g: _calls(paths) for g, paths in groups.items()} if count_calls else {}
    return costs, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--extra", type=int, default=2, help="conversations the second run adds")
    parser.add_argument("--history", type=int, default=0, help="earlier messages in every conversation")
    parser.add_argument("--top", type=int, default=0, help="list the N costliest functions a step")
    parser.add_argument("--thread", choices=GROUPS, default="workers", help="whose functions --top lists")
    parser.add_argument("--calls", default="", help="count calls a step of these functions (malloc,free)")
    parser.add_argument("--drive", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive is not None:
        _drive(args.drive)
        return
    with tempfile.TemporaryDirectory() as out_dir:
        counted = bool(args.calls)
        base_run, base_calls = _run(1, args.steps, args.history, 1 + args.extra, out_dir, counted)
        more_run, more_calls = _run(1 + args.extra, args.steps, args.history, 1 + args.extra, out_dir, counted)
    n = args.extra * args.steps
    print(f"worker instructions a step: {(more_run['workers'][0] - base_run['workers'][0]) / n:,.0f}")
    for group in GROUPS[1:]:
        print(f"{group} thread instructions a step: {(more_run[group][0] - base_run[group][0]) / n:,.0f}")
    for callee in filter(None, args.calls.split(",")):
        calls = (more_calls[args.thread][callee] - base_calls[args.thread][callee]) / n
        print(f"{callee} calls a step ({args.thread}): {calls:,.1f}")
    base, more = base_run[args.thread][1], more_run[args.thread][1]
    # The thread's and the runtime's own frames hold every step whole: left out of the list.
    scaffolding = ("std::", "core::ops::function::", "tokio::runtime::", "start_thread", "clone")
    per_step = {k: (more[k] - base[k]) / n for k in set(base) | set(more) if not k.startswith(scaffolding)}
    for name, cost in sorted(per_step.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{cost:>10,.0f}  {name[:160]}")


if __name__ == "__main__":
    main()
