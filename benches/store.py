"""Per-call cost of ``StoreBackend``: deepagents_rs vs deepagents 0.7.32, on one in-memory store.

Each implementation's ``StoreBackend`` works on its own LangGraph ``InMemoryStore`` holding
the same ``--files`` files of 200 lines (10 folders), through the same namespace factory, so
both make the same store calls; what differs is the backend's own work around them (namespace
checks, item to file data, paging, results). The store's own time is included on both sides.

Operations: ``ls`` (one folder), ``read`` (one 2000-line page), ``write`` (replaces one file),
``edit`` (one replacement, undone by the next call), ``grep`` (literal with many matches),
``glob`` (``**/*.txt``), ``delete`` (a missing path: the whole namespace is listed),
``upload`` and ``download`` (one file); the store's native async ones as well (``aread``,
``awrite``, ``aedit``, ``adelete``; one ``asyncio.run`` per batch). The median over
``--repeat`` batches of ``--calls`` calls is reported, with the ratio deepagents / deepagents_rs
(the median of the ratios of batch pairs, each pair run back to back).

``--store canned`` times the backend's own work alone on the operations that list the whole
namespace (``ls``, ``grep``, ``glob``, ``delete``, ``adelete``): each side's store answers
``search``/``asearch`` with the pages its ``InMemoryStore`` returned once, so the store's own
search (about 90% of those rows with ``--store memory``, the same calls on both sides) is left out.

Usage::

    .venv/bin/python benches/store.py [--calls 200] [--repeat 5] [--files 200] [--stat median|min]
                                      [--store memory|canned]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import statistics
import time
from collections.abc import Callable
from typing import Any

from langgraph.store.memory import InMemoryStore

NAMESPACE = ("bench", "files")


class CannedStore(InMemoryStore):
    """An `InMemoryStore` whose searches answer from pages read once (`can`): the same items
    each time, at the cost of a dict lookup."""

    pages: dict[int, list[Any]] | None = None

    def can(self) -> None:
        self.pages = {}
        offset = 0
        while True:
            page = super().search(NAMESPACE, limit=100, offset=offset)
            self.pages[offset] = page
            if not page:
                return
            offset += 100

    def search(self, namespace_prefix: tuple[str, ...], /, **kwargs: Any) -> list[Any]:
        if self.pages is None:
            return super().search(namespace_prefix, **kwargs)
        return self.pages.get(kwargs.get("offset", 0), [])

    async def asearch(self, namespace_prefix: tuple[str, ...], /, **kwargs: Any) -> list[Any]:
        return self.search(namespace_prefix, **kwargs)


def make(impl: str, files: int, store: str = "memory") -> Any:
    """`impl`'s `StoreBackend` over a fresh store holding the bench tree (`canned`: its searches
    answered from pages read once)."""
    store_module = importlib.import_module(f"{impl}.backends.store")
    backing = CannedStore() if store == "canned" else InMemoryStore()
    backend = store_module.StoreBackend(namespace=lambda _rt: NAMESPACE, store=backing)
    for i in range(files):
        lines = (f"line {n} of file {i}" + (" needle" if n % 25 == 0 else "") for n in range(200))
        backend.write(f"/d{i % 10}/f{i // 10}.txt", "\n".join(lines) + "\n")
    if isinstance(backing, CannedStore):
        backing.can()
    return backend


def edit_args(i: int) -> tuple[str, str, str]:
    """The edit of call `i`: even calls make it, odd calls undo it, so each call succeeds."""
    old, new = ("line 7 ", "line seven ") if i % 2 == 0 else ("line seven ", "line 7 ")
    return ("/d0/f1.txt", old, new)


# name -> (method, arguments of call i)
OPERATIONS: dict[str, tuple[str, Callable[[int], tuple[Any, ...]]]] = {
    "ls": ("ls", lambda _i: ("/d0",)),
    "read": ("read", lambda _i: ("/d0/f0.txt",)),
    "write": ("write", lambda _i: ("/w/new.txt", "text\n" * 50)),
    "edit": ("edit", edit_args),
    "grep": ("grep", lambda _i: ("needle", "/")),
    "glob": ("glob", lambda _i: ("**/*.txt", "/")),
    "delete": ("delete", lambda _i: ("/missing.txt",)),
    "upload": ("upload_files", lambda _i: ([("/u/up.bin", b"raw \x00\xff bytes" * 20)],)),
    "download": ("download_files", lambda _i: (["/d0/f0.txt"],)),
}
# The operations StoreBackend answers with the store's own async API (the others go to a thread).
NATIVE_ASYNC = ("read", "write", "edit", "delete")
# The operations that list the whole namespace (the only ones a canned store can answer).
LISTING = ("ls", "grep", "glob", "delete")


def batch(backend: Any, method: str, args: Callable[[int], tuple[Any, ...]], calls: int, is_async: bool) -> float:
    if is_async:

        async def run() -> float:
            bound = getattr(backend, f"a{method}")
            t0 = time.perf_counter()
            for i in range(calls):
                await bound(*args(i))
            return time.perf_counter() - t0

        return asyncio.run(run())
    bound = getattr(backend, method)
    t0 = time.perf_counter()
    for i in range(calls):
        bound(*args(i))
    return time.perf_counter() - t0


def row(label: str, ref: list[float], ours: list[float], stat: str = "median") -> str:
    """One table row: each side's µs per call and the ratio deepagents / deepagents_rs.

    `median`: each side's median batch, the ratio the median of the batch pairs' ratios (the
    two batches of a pair run back to back, so a change of the machine's load between pairs
    cancels out). `min`: each side's fastest batch and their ratio, the estimate least moved
    by other processes on a loaded machine.
    """
    if stat == "min":
        fast_ref, fast_ours = min(ref), min(ours)
        return f"{label:<12}{fast_ref:>16.1f}{fast_ours:>18.1f}{fast_ref / fast_ours:>7.2f}x"
    ratio = statistics.median(r / o for r, o in zip(ref, ours, strict=True))
    return f"{label:<12}{statistics.median(ref):>16.1f}{statistics.median(ours):>18.1f}{ratio:>7.2f}x"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--stat", choices=["median", "min"], default="median")
    ap.add_argument("--store", choices=["memory", "canned"], default="memory")
    opts = ap.parse_args()
    backends = {impl: make(impl, opts.files, opts.store) for impl in ("deepagents", "deepagents_rs")}
    kind = "InMemoryStore" if opts.store == "memory" else "canned pages of an InMemoryStore"
    print(f"store={kind} calls={opts.calls} repeat={opts.repeat} files={opts.files} stat={opts.stat}")
    print(f"{'operation':<12}{'deepagents us':>16}{'deepagents_rs us':>18}{'ratio':>8}")
    for op, (method, args) in OPERATIONS.items():
        if opts.store == "canned" and op not in LISTING:
            continue
        for is_async in (False, True) if op in NATIVE_ASYNC else (False,):
            walls: dict[str, list[float]] = {impl: [] for impl in backends}
            # A first batch on each side warms up, unmeasured.
            for impl, backend in backends.items():
                batch(backend, method, args, 2, is_async)
            for _ in range(opts.repeat):
                for impl, backend in backends.items():
                    walls[impl].append(batch(backend, method, args, opts.calls, is_async) / opts.calls * 1e6)
            label = f"a{op}" if is_async else op
            print(row(label, walls["deepagents"], walls["deepagents_rs"], opts.stat))


if __name__ == "__main__":
    main()
