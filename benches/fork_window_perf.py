"""Where the fork start's CPU goes, by thread and function, user and kernel apart:
``fork_native.py``'s window (the server starting to write the parent's ``task`` reply to the
fork's request read whole) cut out of a ``perf`` profile of the client process.

``fork_native.py`` reports the window's CPU exactly but whole: Linux splits a process' time
into user and system only by 4 ms ticks. Sampling splits it::

    perf record -k mono -g -F 20000 -o fork.data python benches/fork_window_perf.py run 10000 20 win.json
    perf script -i fork.data -F comm,pid,tid,time,ip,sym | python benches/fork_window_perf.py cut win.json

``-k mono`` makes perf's timestamps ``CLOCK_MONOTONIC``, the clock of the server's stamps, so
the stamps select samples; only the client's samples count (the server runs in a process of
its own, which perf also records). A sample is the kernel's when its leaf address is one
(``ffff...``).
"""

from __future__ import annotations

import collections
import json
import os
import re
import sys

HEADER = re.compile(r"^(.*?)\s+(\d+)/(\d+)\s+([\d.]+):")


def run(n: int, repeat: int, out: str) -> None:
    """Runs deepagents_rs' side of ``fork_native.py`` (two unstamped warm-up runs first) and
    writes this process' id and each window's (start, end, client CPU) to ``out``."""
    import deepagents_rs
    import fork_native
    from fork import MODEL_STRING, fork_spec
    from tool_loop import point_env_at

    windows = []
    with fork_native.RemoteSim() as sim:
        point_env_at(sim)
        agent = deepagents_rs.create_deep_agent(model=MODEL_STRING, subagents=[fork_spec()])
        for i in range(repeat + 2):
            r = fork_native.run_once("deepagents_rs", agent, sim, n)
            if i >= 2:
                windows.append((r.window[0], r.window[1], r.fork_cpu_s))
    with open(out, "w") as f:
        json.dump({"pid": os.getpid(), "windows": windows}, f)
    cpus = sorted(w[2] for w in windows)
    print(f"N={n}: {len(windows)} windows, median client CPU {cpus[len(cpus) // 2] * 1e3:.3f} ms")


def cut(windows_file: str, lines: list[str]) -> None:
    """Counts the client's samples of ``perf script`` output that fall in the windows: by
    thread name, user and kernel apart, and by the leaf symbol of each thread group."""
    with open(windows_file) as f:
        saved = json.load(f)
    pid, windows = saved["pid"], saved["windows"]

    def inside(t: float) -> bool:
        return any(a <= t <= b for a, b, _ in windows)

    by_thread: collections.Counter[str] = collections.Counter()
    kernel: collections.Counter[str] = collections.Counter()
    leaves: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    sample: tuple[float, str] | None = None
    leaf: str | None = None
    in_kernel = False
    for line in [*lines, ""]:
        if not line.strip():
            if sample is not None and inside(sample[0]):
                by_thread[sample[1]] += 1
                kernel[sample[1]] += in_kernel
                leaves[sample[1]][leaf or "?"] += 1
            sample, leaf = None, None
        elif not line[0].isspace():
            m = HEADER.match(line)
            sample = (float(m.group(4)), m.group(1).strip()) if m and int(m.group(2)) == pid else None
        elif leaf is None:
            parts = line.split(None, 1)
            in_kernel = parts[0].startswith("ffff")
            leaf = re.sub(r"\+0x[0-9a-f]+$", "", parts[1].split(" (")[0]) if len(parts) == 2 else "?"
    total, per = sum(by_thread.values()), max(len(windows), 1)
    cpu = sorted(w[2] for w in windows)[len(windows) // 2] * 1e3 if windows else 0.0
    print(f"{total} client samples in {len(windows)} windows ({total / per:.1f} a window; median CPU {cpu:.3f} ms)")
    print(f"  user {total - sum(kernel.values())}, kernel {sum(kernel.values())}")
    for name, count in by_thread.most_common():
        top = ", ".join(f"{s[:60]} {c}" for s, c in leaves[name].most_common(6))
        print(f"{name:>12} {count:>6} {count / per:>6.1f}/window (kernel {kernel[name] / per:.1f})  {top}")


if __name__ == "__main__":
    sys.path[:0] = ["benches", "tests"]
    if len(sys.argv) == 5 and sys.argv[1] == "run":
        run(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 3 and sys.argv[1] == "cut":
        cut(sys.argv[2], sys.stdin.read().splitlines())
    else:
        sys.exit(__doc__)
