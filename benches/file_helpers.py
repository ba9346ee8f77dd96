"""Direct calls of the in-memory search helpers on a 10,000-file map: deepagents_rs vs deepagents 0.7.32.

``backends.utils._glob_search_files`` and ``grep_matches_from_files`` are what ``StateBackend``
and ``StoreBackend`` search with when called from Python (the in-agent state backend does not
go through them). A map of ``--dirs`` x ``--files-per-dir`` records of 20 lines each is built
once; each case is called on both implementations, the results compared, and the median wall
over ``--repeat`` calls reported with the ratio deepagents / deepagents_rs.

Usage::

    .venv/bin/python benches/file_helpers.py [--dirs 100] [--files-per-dir 100] [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from deepagents.backends import utils as reference
from deepagents_rs.backends import utils as ours


def build(dirs: int, per_dir: int) -> dict[str, dict[str, str]]:
    files = {}
    for d in range(dirs):
        for f in range(per_dir):
            lines = (
                f"line {i} of file {d}/{f} with some text" + (" needle" if (i + f) % 37 == 0 else "") for i in range(20)
            )
            files[f"/dir{d}/file{f}.{'py' if f % 2 else 'txt'}"] = {
                "content": "\n".join(lines),
                "encoding": "utf-8",
                "created_at": "2024-01-01T00:00:00",
                "modified_at": f"2024-01-{1 + (f % 28):02d}T00:00:00",
            }
    return files


def median_ms(call: Callable[[], Any], repeat: int) -> float:
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        walls.append(time.perf_counter() - start)
    return statistics.median(walls) * 1000


def comparable(result: Any) -> Any:
    """A helper's result on either side, comparable across the two (a `GrepResult` by its fields)."""
    return result if isinstance(result, str) else (result.error, result.matches, result.truncated)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dirs", type=int, default=100, help="directories in the map (default 100)")
    parser.add_argument("--files-per-dir", type=int, default=100, help="records per directory (default 100)")
    parser.add_argument("--repeat", type=int, default=7, help="calls per case; the median is reported (default 7)")
    args = parser.parse_args()
    files = build(args.dirs, args.files_per_dir)
    cases: dict[str, Callable[[Any], Any]] = {
        "glob **/*.py under /": lambda m: m._glob_search_files(files, "**/*.py", "/"),
        "glob *.txt under /dir7": lambda m: m._glob_search_files(files, "*.txt", "/dir7"),
        "grep under /": lambda m: m.grep_matches_from_files(files, "needle", "/"),
        "grep glob *.py under /": lambda m: m.grep_matches_from_files(files, "needle", "/", "*.py"),
        "grep under /dir3": lambda m: m.grep_matches_from_files(files, "needle", "/dir3"),
    }
    print(f"{len(files):,} files; load average {os.getloadavg()[0]:.2f}; median of {args.repeat} calls")
    print(f"{'case':26s} {'rs ms':>8s} {'ref ms':>8s} {'ratio':>7s}")
    for name, case in cases.items():
        if comparable(case(reference)) != comparable(case(ours)):
            raise SystemExit(f"{name}: results differ")
        rs, ref = median_ms(lambda c=case: c(ours), args.repeat), median_ms(lambda c=case: c(reference), args.repeat)
        print(f"{name:26s} {rs:8.1f} {ref:8.1f} {ref / rs:7.2f}")


if __name__ == "__main__":
    main()
