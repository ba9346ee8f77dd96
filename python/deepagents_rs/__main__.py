"""Command line: ``python -m deepagents_rs demo``."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if argv[:1] == ["demo"]:
        from ._demo import run_demo

        return run_demo()
    print("usage: python -m deepagents_rs demo", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
