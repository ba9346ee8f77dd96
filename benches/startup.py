"""Start-up: how long ``import deepagents`` and ``import deepagents_rs`` take.

Each measurement is one fresh interpreter (``sys.executable -c ...``), so nothing is cached
in ``sys.modules``. Two numbers per statement:

* ``import ms``: the time of the statement itself, measured inside the interpreter
  (``time.perf_counter()`` around it);
* ``cpu ms``: the CPU time of the same statement (``time.process_time()``), which other
  processes on a busy machine disturb less;
* ``process ms``: the whole interpreter's wall time, start-up and exit included, as a user
  running a script feels it.

Reported: the median over ``--repeat`` interpreters (after one warm-up, which fills the OS
file cache), for ``import <pkg>`` and ``from <pkg> import create_deep_agent``, with the
number of ``langchain*``/``langgraph*`` modules the statement loaded. ``ratio`` is
deepagents / deepagents_rs (higher is better for deepagents_rs). A bare interpreter's
process time is printed as the floor.

Usage::

    python benches/startup.py [--repeat 21]

``deepagents_rs`` is imported from whatever environment runs the script. This is a
benchmark script, not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

PROBE = """
import json, sys, time
start, cpu = time.perf_counter(), time.process_time()
{statement}
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
loaded = [m for m in sys.modules if m.startswith(("langchain", "langgraph"))]
print(json.dumps({{"seconds": elapsed, "cpu": cpu, "langchain_modules": len(loaded)}}))
"""

STATEMENTS = ("import {pkg}", "from {pkg} import create_deep_agent")
PACKAGES = ("deepagents", "deepagents_rs")


def measure(statement: str, repeat: int) -> tuple[float, float, float, int]:
    """Median import seconds, CPU seconds and process seconds, and LangChain modules loaded."""
    code = PROBE.format(statement=statement)
    inside, cpu, whole, loaded = [], [], [], 0
    for i in range(repeat + 1):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"{statement!r} failed in {sys.executable}:\n{proc.stderr}")
        out = json.loads(proc.stdout)
        if i == 0:  # the warm-up
            continue
        inside.append(out["seconds"])
        cpu.append(out["cpu"])
        whole.append(wall)
        loaded = out["langchain_modules"]
    return statistics.median(inside), statistics.median(cpu), statistics.median(whole), loaded


def bare_interpreter(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=21, help="fresh interpreters per measurement")
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]}; median of {args.repeat} fresh interpreters")
    print(f"bare interpreter (python -c pass): {bare_interpreter(args.repeat) * 1000:.0f} ms process\n")
    header = (
        f"{'statement':<38} {'deepagents ms':>14} {'deepagents_rs ms':>17} {'ratio':>6}  "
        f"{'cpu ms (da / rs)':>16}  {'process ms (da / rs)':>20}  {'LangChain modules (da / rs)':>27}"
    )
    print(header, "-" * len(header), sep="\n")
    for template in STATEMENTS:
        (ref, ref_cpu, ref_wall, ref_loaded), (ours, ours_cpu, ours_wall, ours_loaded) = (
            measure(template.format(pkg=pkg), args.repeat) for pkg in PACKAGES
        )
        print(
            f"{template.format(pkg='<pkg>'):<38} {ref * 1000:>14.1f} {ours * 1000:>17.1f} {ref / ours:>5.1f}x  "
            f"{f'{ref_cpu * 1000:.0f} / {ours_cpu * 1000:.0f}':>16}  "
            f"{f'{ref_wall * 1000:.0f} / {ours_wall * 1000:.0f}':>20}  {f'{ref_loaded} / {ours_loaded}':>27}"
        )


if __name__ == "__main__":
    main()
