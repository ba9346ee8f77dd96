#!/usr/bin/env python3
"""Fails when the repository repeats deepagents' own code.

deepagents is this project's specification and oracle, never its source. This check reads the
installed deepagents package and every source file of the repository (Python, Rust, stubs),
drops what carries no logic (blank lines, comments, imports, lines of bare brackets), folds
whitespace, and reports each file holding a run of WINDOW consecutive such lines that also
stands in deepagents. Files whose name says they hold interface texts (``*texts*``,
``*prompts*``: the words the model and the user see, kept verbatim on purpose) are exempt.

    python .ci/own_code.py        # from the repository root, deepagents importable
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from pathlib import Path

WINDOW = 6
#: Repeated lines the whole repository may hold outside the texts modules.
ALLOWED = 0
SOURCES = ("python", "src", "tests", "benches", "examples")
SUFFIXES = {".py", ".pyi", ".rs"}
IGNORED_DIRS = {".venv", "target", "__pycache__", ".git", "fixtures"}
_NO_LOGIC = re.compile(r"^(#|//|from\s+\S+\s+import\b|import\s|use\s|[\[\](){},;:]+$)")


def logic_lines(text: str) -> list[str]:
    """The lines that carry logic, folded so formatting does not hide a repeat."""
    kept = []
    for line in text.splitlines():
        line = line.strip()
        if line and not _NO_LOGIC.match(line):
            kept.append(" ".join(line.replace("deepagents_rs", "deepagents").split()))
    return kept


def fingerprints(lines: list[str]) -> list[bytes]:
    return [
        hashlib.sha1("\n".join(lines[i : i + WINDOW]).encode()).digest() for i in range(len(lines) - WINDOW + 1)
    ]


def source_files(root: Path):
    for path in sorted(root.rglob("*")):
        # Ignored folders count below `root` only: the reference itself lives in a venv.
        inside = path.relative_to(root).parts
        if path.suffix in SUFFIXES and not IGNORED_DIRS.intersection(inside) and path.is_file():
            yield path


def main() -> int:
    spec = importlib.util.find_spec("deepagents")
    if spec is None or not spec.submodule_search_locations:
        print("own_code: deepagents is not installed; install the test extras first", file=sys.stderr)
        return 2
    reference = set()
    for path in source_files(Path(next(iter(spec.submodule_search_locations)))):
        reference.update(fingerprints(logic_lines(path.read_text(errors="replace"))))
    repo = Path.cwd()
    total, offenders = 0, []
    for top in SOURCES:
        if not (repo / top).is_dir():
            continue
        for path in source_files(repo / top):
            if re.search(r"texts|prompts", path.name):
                continue
            prints = fingerprints(logic_lines(path.read_text(errors="replace")))
            covered = {j for i, p in enumerate(prints) if p in reference for j in range(i, i + WINDOW)}
            if covered:
                total += len(covered)
                offenders.append((len(covered), path.relative_to(repo)))
    for count, path in sorted(offenders, reverse=True):
        print(f"  {count:5d} lines repeat deepagents' code: {path}")
    print(f"own_code: {total} repeated lines outside the texts modules (allowed: {ALLOWED})")
    return 0 if total <= ALLOWED else 1


if __name__ == "__main__":
    sys.exit(main())
