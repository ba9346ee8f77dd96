"""Per-call cost of ``StoreBackend``: deepagents_rs vs deepagents 0.7.32, on one in-memory store.

Each implementation's ``StoreBackend`` works on its own LangGraph ``InMemoryStore`` holding
the same ``--files`` files of 200 lines (10 folders), through the same namespace factory, so
both make the same store calls; what differs is the backend's own work around them (namespace
checks, item to file data, paging, results). The store's own time is included on both sides.

Operations: ``ls`` (one folder), ``read`` (one 2000-line page), ``write`` (replaces one file),
``edit`` (one replacement, undone by the next call), ``grep`` (literal with many matches),
``glob`` (``**/*.txt``), ``delete`` (a missing path: the whole namespace is listed),
``upload`` and ``download`` (one file); the store's native async ones as well (``aread``,
``awrite``, ``aedit``, ``adelete``; one ``asyncio.run`` per batch).

Each row times ``--repeat`` pairs of batches of ``--calls`` calls, deepagents' batch and ours
back to back (which goes first alternates), as wall time and as the process's CPU time (the
figure least moved by other processes on a loaded machine). ``--stat min`` (default) reports
each side's fastest batch and their ratio; ``--stat median`` the median batch and the median
of the pairs' ratios. Ratio = deepagents / deepagents_rs. The load average is printed before
and after.

Each row also shows the store calls one operation makes on each side (``search``, ``get``,
``put``, ``batch``, async twins with an ``a``), counted in an untimed pass. On a plain
``InMemoryStore`` ours reads the namespace's items and single entries from the store's dict,
with the lookups the store's own ``search`` and ``get`` make (``backends/_memory_store_reads.py``),
so it makes no ``search`` and no ``get``; any other store is called as deepagents calls it.

``--store canned`` times the backend's own work on the whole-namespace operations (``ls``,
``grep``, ``glob``, ``delete``, ``adelete``) as deepagents does it, through ``search``: each
side's store (an ``InMemoryStore`` subclass with its own ``search``, so ours pages through it
too) answers ``search``/``asearch`` with the pages its ``InMemoryStore`` returned once, at the
cost of a dict lookup, so the store's own search is left out and both sides make the same calls.

Usage::

    .venv/bin/python benches/store.py [--calls 200] [--repeat 5] [--files 200] [--stat min|median]
                                      [--store memory|canned]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any
from unittest import mock

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


def batch(
    backend: Any, method: str, args: Callable[[int], tuple[Any, ...]], calls: int, is_async: bool
) -> tuple[float, float]:
    """One batch of `calls` calls: its wall and CPU time, in seconds."""
    if is_async:

        async def run() -> tuple[float, float]:
            bound = getattr(backend, f"a{method}")
            t0, c0 = time.perf_counter(), time.process_time()
            for i in range(calls):
                await bound(*args(i))
            return time.perf_counter() - t0, time.process_time() - c0

        return asyncio.run(run())
    bound = getattr(backend, method)
    t0, c0 = time.perf_counter(), time.process_time()
    for i in range(calls):
        bound(*args(i))
    return time.perf_counter() - t0, time.process_time() - c0


# The store methods counted; `search` calls `batch` inside, so only the outermost call counts.
COUNTED = ("get", "put", "search", "batch")


def store_calls(backend: Any, method: str, args: Callable[[int], tuple[Any, ...]], is_async: bool) -> str:
    """The store calls of one operation, as `search×3 batch×1` (two calls made, untimed, with
    the store's class methods wrapped to count them; an even number leaves the store as it was)."""
    cls = type(backend._store)
    counts: Counter[str] = Counter()
    depth = [0]

    def wrap(name: str) -> Any:
        inner = getattr(cls, name)
        if name.startswith("a"):

            async def acounted(*a: Any, **kw: Any) -> Any:
                counts[name] += depth[0] == 0
                depth[0] += 1
                try:
                    return await inner(*a, **kw)
                finally:
                    depth[0] -= 1

            return acounted

        def counted(*a: Any, **kw: Any) -> Any:
            counts[name] += depth[0] == 0
            depth[0] += 1
            try:
                return inner(*a, **kw)
            finally:
                depth[0] -= 1

        return counted

    with contextlib.ExitStack() as patches:
        for name in (prefix + n for prefix in ("", "a") for n in COUNTED):
            patches.enter_context(mock.patch.object(cls, name, wrap(name)))
        batch(backend, method, args, 2, is_async)
    return " ".join(f"{name}×{n / 2:g}" for name, n in sorted(counts.items()) if n) or "-"


def row(label: str, ref: list[tuple[float, float]], ours: list[tuple[float, float]], stat: str) -> str:
    """One table row: each side's wall µs per call, the ratio deepagents / deepagents_rs of
    wall and of CPU time.

    `median`: each side's median batch, the ratio the median of the batch pairs' ratios (the
    two batches of a pair run back to back, so a change of the machine's load between pairs
    cancels out). `min`: each side's fastest batch and their ratio, the estimate least moved
    by other processes on a loaded machine.
    """
    cells = []
    for k in (0, 1):
        r, o = [x[k] for x in ref], [x[k] for x in ours]
        if stat == "min":
            cells.append((min(r), min(o), min(r) / min(o)))
        else:
            ratio = statistics.median(a / b for a, b in zip(r, o, strict=True))
            cells.append((statistics.median(r), statistics.median(o), ratio))
    (wall_ref, wall_ours, wall_ratio), (_, _, cpu_ratio) = cells
    return f"{label:<10}{wall_ref:>10.1f}{wall_ours:>10.1f}{wall_ratio:>8.2f}x{cpu_ratio:>8.2f}x"


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--stat", choices=["min", "median"], default="min")
    ap.add_argument("--store", choices=["memory", "canned"], default="memory")
    opts = ap.parse_args()
    backends = {impl: make(impl, opts.files, opts.store) for impl in ("deepagents", "deepagents_rs")}
    kind = "InMemoryStore" if opts.store == "memory" else "canned pages of an InMemoryStore"
    print(f"store={kind} calls={opts.calls} repeat={opts.repeat} files={opts.files} stat={opts.stat}")
    print(f"{os.cpu_count()} CPUs, load average {load()}; ratio = deepagents / deepagents_rs")
    print(f"{'operation':<10}{'ref us':>10}{'ours us':>10}{'wall':>9}{'cpu':>9}  store calls: deepagents | ours")
    for op, (method, args) in OPERATIONS.items():
        if opts.store == "canned" and op not in LISTING:
            continue
        for is_async in (False, True) if op in NATIVE_ASYNC else (False,):
            times: dict[str, list[tuple[float, float]]] = {impl: [] for impl in backends}
            # A first batch on each side warms up, unmeasured.
            for impl, backend in backends.items():
                batch(backend, method, args, 2, is_async)
            calls = {impl: store_calls(backend, method, args, is_async) for impl, backend in backends.items()}
            for r in range(opts.repeat):
                # Which side goes first alternates, so neither always follows the other's garbage.
                for impl in list(backends)[:: 1 if r % 2 == 0 else -1]:
                    wall, cpu = batch(backends[impl], method, args, opts.calls, is_async)
                    times[impl].append((wall / opts.calls * 1e6, cpu / opts.calls * 1e6))
            label = f"a{op}" if is_async else op
            line = row(label, times["deepagents"], times["deepagents_rs"], opts.stat)
            print(f"{line}  {calls['deepagents']} | {calls['deepagents_rs']}")
    print(f"load average {load()}")


if __name__ == "__main__":
    main()
