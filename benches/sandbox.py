"""Per-call cost of ``BaseSandbox``'s own work: deepagents_rs vs deepagents 0.7.32.

Each implementation subclasses its own ``BaseSandbox`` with the same sandbox. With
``--sandbox replay`` (the default) the sandbox answers every ``execute`` with the reply a real
run gave for that operation (recorded once, on deepagents, against a tree of ``--files``
files of 200 lines): what is timed is only what ``BaseSandbox`` does itself, building the
command, driving the sandbox's primitives and reading the reply. With ``--sandbox local``
commands really run in ``bash`` (each call then costs a process start or two).

Operations: ``ls``, ``read`` (one 2000-line page), ``write``, ``edit``, ``grep`` (literal
with many matches), ``glob`` (``**/*.txt``), each sync and async (``a``-prefixed, one
``asyncio.run`` per batch). The median over ``--repeat`` batches of ``--calls`` calls is
reported, with the ratio deepagents / deepagents_rs (the median of the ratios of batch pairs,
each pair run back to back; see ``store.row``).

Usage::

    .venv/bin/python benches/sandbox.py [--sandbox replay|local] [--calls 200] [--repeat 5] [--files 200] [--stat median|min]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from store import row


def make(impl: str, root: Path, replies: dict[str, Any] | None) -> Any:
    sandbox = importlib.import_module(f"{impl}.backends.sandbox")
    P = importlib.import_module(f"{impl}.backends.protocol")

    class Bench(sandbox.BaseSandbox):
        op = ""

        @property
        def id(self) -> str:
            return "bench"

        def execute(self, command: str, *, timeout: int | None = None) -> Any:
            if replies is not None:
                output, code = replies[self.op]
                return P.ExecuteResponse(output=output, exit_code=code)
            proc = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, check=False)
            return P.ExecuteResponse(output=(proc.stdout + proc.stderr).decode(), exit_code=proc.returncode)

        def upload_files(self, files: list[tuple[str, bytes]]) -> list[Any]:
            if replies is None:
                for path, data in files:
                    Path(path).write_bytes(data)
            return [P.FileUploadResponse(path=p, error=None) for p, _ in files]

        def download_files(self, paths: list[str]) -> list[Any]:
            return [P.FileDownloadResponse(path=p, content=Path(p).read_bytes(), error=None) for p in paths]

    return Bench()


def operations(root: Path) -> dict[str, tuple[str, tuple[Any, ...], dict[str, Any]]]:
    return {
        "ls": ("ls", (f"{root}/d0",), {}),
        "read": ("read", (f"{root}/d0/f0.txt",), {}),
        "write": ("write", (f"{root}/w/new.txt", "text\n" * 50), {}),
        "edit": ("edit", (f"{root}/d0/f1.txt", "line 7 ", "line seven "), {}),
        "grep": ("grep", ("needle", str(root)), {}),
        "glob": ("glob", ("**/*.txt", str(root)), {}),
    }


def build_tree(root: Path, files: int) -> None:
    for i in range(files):
        d = root / f"d{i % 10}"
        d.mkdir(parents=True, exist_ok=True)
        lines = (f"line {n} of file {i}" + (" needle" if n % 25 == 0 else "") for n in range(200))
        (d / f"f{i // 10}.txt").write_text("\n".join(lines) + "\n")


def record(root: Path) -> dict[str, Any]:
    """Each operation's reply from a real run on deepagents (the edit restored afterwards)."""
    replies: dict[str, Any] = {}
    s = make("deepagents", root, None)
    original = s.execute

    for op, (name, args, kwargs) in operations(root).items():
        seen: list[Any] = []

        def execute(command: str, *, timeout: int | None = None, seen: list[Any] = seen) -> Any:
            out = original(command, timeout=timeout)
            seen.append((out.output, out.exit_code))
            return out

        s.execute = execute  # type: ignore[method-assign]
        getattr(s, name)(*args, **kwargs)
        replies[op] = seen[-1]
    return replies


def batch(s: Any, name: str, args: Any, kwargs: Any, calls: int, is_async: bool) -> float:
    if is_async:

        async def run() -> float:
            method = getattr(s, f"a{name}")
            t0 = time.perf_counter()
            for _ in range(calls):
                await method(*args, **kwargs)
            return time.perf_counter() - t0

        return asyncio.run(run())
    method = getattr(s, name)
    t0 = time.perf_counter()
    for _ in range(calls):
        method(*args, **kwargs)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sandbox", choices=["replay", "local"], default="replay")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--stat", choices=["median", "min"], default="median")
    opts = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sandbox-bench-"))
    try:
        build_tree(tmp, opts.files)
        replies = record(tmp) if opts.sandbox == "replay" else None
        print(f"sandbox={opts.sandbox} calls={opts.calls} repeat={opts.repeat} files={opts.files} stat={opts.stat}")
        print(f"{'operation':<12}{'deepagents us':>16}{'deepagents_rs us':>18}{'ratio':>8}")
        for op, (name, args, kwargs) in operations(tmp).items():
            for is_async in (False, True):
                walls: dict[str, list[float]] = {"deepagents": [], "deepagents_rs": []}
                for _ in range(opts.repeat):
                    for impl, impl_walls in walls.items():
                        s = make(impl, tmp, replies)
                        s.op = op
                        impl_walls.append(batch(s, name, args, kwargs, opts.calls, is_async) / opts.calls * 1e6)
                label = f"a{name}" if is_async else name
                print(row(label, walls["deepagents"], walls["deepagents_rs"], opts.stat))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
