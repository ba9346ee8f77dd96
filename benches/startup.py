"""Start-up: how long ``import deepagents`` and ``import deepagents_rs`` take, and the memory
an agent starts from.

Each measurement is one fresh interpreter (``sys.executable -c ...``), so nothing is cached
in ``sys.modules``. Per statement:

* ``wall ms``: the time of the statement itself, measured inside the interpreter
  (``time.perf_counter()`` around it);
* ``cpu ms``: the CPU time of the same statement (``time.process_time()``): the work the
  import does. Other processes on a busy machine inflate the wall time (the import waits for
  a core) far more than this; on an idle machine the two nearly agree, an import being
  single-threaded work on cached files. ``benches/all.py`` holds the import target to it;
* ``process ms``: the whole interpreter's wall time, start-up and exit included, as a user
  running a script feels it;
* ``RSS MiB``: the process' resident memory once the statement has run (``VmRSS``);
* how many ``langchain*``/``langgraph*`` modules the statement loaded, and how many modules
  in all the process then has.

Statements: ``import <pkg>``, ``from <pkg> import create_deep_agent``, the latter
followed by ``create_deep_agent(model="anthropic:claude-sonnet-4-5")`` (the agent built,
not run: no network; a placeholder API key is set so that both build their Anthropic
client): what every program pays before its first model call, and the memory it starts from;
and that agent's first ``invoke`` (one model turn answered by ``tests/sim``'s simulated
Anthropic API, in a process of its own: ``sim_process.py``), what a run adds.

Bytecode: both packages run from compiled bytecode, as installed wheels do (pip compiles
them at install). The interpreters get a fresh ``PYTHONPYCACHEPREFIX`` (and never
``PYTHONDONTWRITEBYTECODE``), so the warm-up interpreter of each measurement writes the
bytecode of whatever it imports there and the measured ones read it: the same for both
packages and the standard library, whatever the environment says or wherever the packages
are installed (an editable checkout of deepagents_rs has no bytecode of its own; when
``PYTHONDONTWRITEBYTECODE`` is set, as in some CI environments, it would compile every
module on every import, about 100 ms).

Reported: the median over ``--repeat`` interpreters (after one warm-up, which also fills
the OS file cache). ``ratio`` is deepagents / deepagents_rs (higher is better for
deepagents_rs). A bare interpreter's process time is printed as the floor.

Usage::

    python benches/startup.py [--repeat 21]

``deepagents_rs`` is imported from whatever environment runs the script. This is a
benchmark script, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

BENCHES = Path(__file__).resolve().parent

PROBE = """
import json, os, sys, time
os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-startup-bench")
start, cpu = time.perf_counter(), time.process_time()
{statement}
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
with open("/proc/self/status") as status:
    rss = next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))
loaded = [m for m in sys.modules if m.startswith(("langchain", "langgraph"))]
out = {{"seconds": elapsed, "cpu": cpu, "rss": rss, "langchain_modules": len(loaded), "modules": len(sys.modules)}}
print(json.dumps(out))
"""

STATEMENTS = (
    ("import <pkg>", "import {pkg}"),
    ("from <pkg> import create_deep_agent", "from {pkg} import create_deep_agent"),
    (
        "... + create_deep_agent(model=anthropic)",
        'from {pkg} import create_deep_agent\ncreate_deep_agent(model="anthropic:claude-sonnet-4-5")',
    ),
    (
        "... + a first invoke (simulated API)",
        (
            'from {pkg} import create_deep_agent\nagent = create_deep_agent(model="anthropic:claude-sonnet-4-5")\n'
            'agent.invoke({{"messages": [{{"role": "user", "content": "hi"}}]}})'
        ),
    ),
)
PACKAGES = ("deepagents", "deepagents_rs")


class Measured(NamedTuple):
    """Medians over the interpreters of one statement."""

    seconds: float
    cpu: float
    process: float
    rss_mib: float
    langchain_modules: int
    modules: int


def _env(pycache: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def measure(statement: str, repeat: int, sim: Any = None, reply: Any = None) -> Measured:
    """Medians over ``repeat`` fresh interpreters (after a warm-up that writes the bytecode);
    ``sim`` (a simulated Anthropic API) answers each one model turn, with ``reply``."""
    code = PROBE.format(statement=statement)
    inside, cpu, whole, rss, loaded, modules = [], [], [], [], 0, 0
    with tempfile.TemporaryDirectory(prefix="startup-pycache-") as pycache:
        env = _env(pycache)
        for i in range(repeat + 1):
            if sim is not None:
                sim.reset()
                sim.script(reply)
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env)
            wall = time.perf_counter() - start
            if proc.returncode != 0:
                raise SystemExit(f"{statement!r} failed in {sys.executable}:\n{proc.stderr}")
            out = json.loads(proc.stdout)
            if i == 0:  # the warm-up
                continue
            inside.append(out["seconds"])
            cpu.append(out["cpu"])
            whole.append(wall)
            rss.append(out["rss"])
            loaded, modules = out["langchain_modules"], out["modules"]
    median = statistics.median
    return Measured(median(inside), median(cpu), median(whole), median(rss), loaded, modules)


def bare_interpreter(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _pair(ref: float, ours: float, scale: float = 1000) -> str:
    return f"{ref * scale:.0f} / {ours * scale:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=21, help="fresh interpreters per measurement")
    args = parser.parse_args()

    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}; median of {args.repeat} fresh interpreters; load average {load:.1f}")
    print(f"bare interpreter (python -c pass): {bare_interpreter(args.repeat) * 1000:.0f} ms process\n")
    header = (
        f"{'statement':<42} {'wall ms (da / rs)':>18} {'cpu ms (da / rs)':>17} {'cpu ratio':>9}  "
        f"{'process ms (da / rs)':>20}  {'RSS MiB (da / rs)':>17}  {'LangChain modules (da / rs)':>27}  "
        f"{'modules (da / rs)':>17}"
    )
    print(header, "-" * len(header), sep="\n")
    sys.path[:0] = [str(BENCHES), str(BENCHES.parent / "tests")]
    from sim.anthropic import text
    from sim_process import SimProcess
    from tool_loop import point_env_at

    with SimProcess(min_cache_tokens=64) as sim:
        # `measure`'s interpreters inherit this environment: pointed at the simulator once.
        point_env_at(sim)
        for label, template in STATEMENTS:
            ref, ours = (measure(template.format(pkg=pkg), args.repeat, sim, text("hello")) for pkg in PACKAGES)
            print(
                f"{label:<42} {_pair(ref.seconds, ours.seconds):>18} {_pair(ref.cpu, ours.cpu):>17} "
                f"{ref.cpu / ours.cpu:>8.1f}x  {_pair(ref.process, ours.process):>20}  "
                f"{_pair(ref.rss_mib, ours.rss_mib, 1):>17}  "
                f"{f'{ref.langchain_modules} / {ours.langchain_modules}':>27}  "
                f"{f'{ref.modules} / {ours.modules}':>17}"
            )
    print(f"\nload average after the run: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
