"""Where the fork start's CPU goes, by thread: ``fork_native.py``'s window (the server having
written the parent's ``task`` reply to the fork's request arriving) cut out of a ``perf`` profile.

``fork_native.py`` reports the window's process CPU, which counts every thread of the process:
the client's runtime workers (the fork built, its request encoded and sent, the kernel's
loopback send charged to them), its Python drainer, and the simulator's own Python threads
(reading the request line and headers before it stamps the arrival). This splits it::

    perf record -k mono -g -F 20000 -o fork.data python benches/fork_window_perf.py run 10000 20 win.json
    perf script -i fork.data -F comm,tid,time,ip,sym | python benches/fork_window_perf.py cut win.json

``-k mono`` makes perf's timestamps ``time.perf_counter``'s clock, so the stamps select samples.
"""

from __future__ import annotations

import collections
import json
import re
import sys

HEADER = re.compile(r"^(.*?)\s+(\d+)\s+([\d.]+):")


def run(n: int, repeat: int, out: str) -> None:
    """Runs deepagents_rs' side of ``fork_native.py`` (two unstamped warm-up runs first) and
    writes each window's (start, end, process CPU) to ``out``."""
    import deepagents_rs
    import fork_native
    from fork import MODEL_STRING, fork_spec
    from tool_loop import point_env_at

    windows = []
    with fork_native.stamped_sim() as sim:
        point_env_at(sim)
        agent = deepagents_rs.create_deep_agent(model=MODEL_STRING, subagents=[fork_spec()])
        for i in range(repeat + 2):
            fork_native.run_once("deepagents_rs", agent, sim, n)
            (_, (start, start_cpu)), ((end, end_cpu), _), _ = sim.stamps
            if i >= 2:
                windows.append((start, end, end_cpu - start_cpu))
    with open(out, "w") as f:
        json.dump(windows, f)
    cpus = sorted(w[2] for w in windows)
    print(f"N={n}: {len(windows)} windows, median process CPU {cpus[len(cpus) // 2] * 1e3:.3f} ms")


def cut(windows_file: str, lines: list[str]) -> None:
    """Counts the samples of ``perf script`` output that fall in the windows: by thread
    name, and by the leaf symbol of each thread group (kernel frames included)."""
    with open(windows_file) as f:
        windows = json.load(f)

    def inside(t: float) -> bool:
        return any(a <= t <= b for a, b, _ in windows)

    by_thread: collections.Counter[str] = collections.Counter()
    leaves: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    sample: tuple[float, str] | None = None
    leaf: str | None = None
    for line in [*lines, ""]:
        if not line.strip():
            if sample is not None and inside(sample[0]):
                by_thread[sample[1]] += 1
                leaves[sample[1]][leaf or "?"] += 1
            sample, leaf = None, None
        elif not line[0].isspace():
            m = HEADER.match(line)
            sample = (float(m.group(3)), m.group(1).strip()) if m else None
        elif leaf is None:
            parts = line.split(None, 1)
            leaf = re.sub(r"\+0x[0-9a-f]+$", "", parts[1].split(" (")[0]) if len(parts) == 2 else "?"
    total = sum(by_thread.values())
    print(f"{total} samples in {len(windows)} windows ({total / max(len(windows), 1):.1f} a window)")
    for name, count in by_thread.most_common():
        top = ", ".join(f"{s[:60]} {c}" for s, c in leaves[name].most_common(6))
        print(f"{name:>12} {count:>6} {count / max(len(windows), 1):>6.1f}/window  {top}")


if __name__ == "__main__":
    sys.path[:0] = ["benches", "tests"]
    if len(sys.argv) == 5 and sys.argv[1] == "run":
        run(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 3 and sys.argv[1] == "cut":
        cut(sys.argv[2], sys.stdin.read().splitlines())
    else:
        sys.exit(__doc__)
