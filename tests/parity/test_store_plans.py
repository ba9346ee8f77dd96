"""Parity: the store calls ``StoreBackend`` makes, and paging through a namespace.

Each implementation's backend works on its own ``InMemoryStore`` seeded alike, behind a
``LoggingStore`` that records every ``get``/``put``/``search``/``batch`` (sync or async)
with its arguments. The log, every result and the items left behind must match
deepagents': the same pages asked for (``query``, ``filter``, ``limit``, ``offset``), the
same writes, nothing asked of the store when a namespace is refused. The last tests run
the same operations on a ``PostgresStore`` (a throwaway server; skipped without one).
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest
from langgraph.store.base import PutOp
from langgraph.store.memory import InMemoryStore

from .backend_direct import CALL_MODES, IMPLS, attempt, impl_api, run_ops, view
from .fs_support import store_items

NS = ("team", "files")
ALL_OPS = [
    ("ls", "/"),
    ("ls", "/d"),
    ("glob", "**/*.txt"),
    ("grep", "line", {"path": "/"}),
    ("grep", "line", {"path": "/d", "max_count": 3}),
    ("read", "/d/f7.txt", {"offset": 0, "limit": 5}),
    ("write", "/d/new.txt", "one\ntwo"),
    ("edit", "/d/new.txt", "two", "three"),
    ("download_files", ["/d/f1.txt", "/missing", "/bin.png"]),
    ("upload_files", [("/up.txt", b"text"), ("/up.bin", b"\xff\x00")]),
    ("delete", "/d"),
    ("ls", "/"),
]


def _logged(value: Any) -> Any:
    if isinstance(value, PutOp):
        return ("PutOp", value.namespace, value.key, view({"v": value.value})["v"])
    if isinstance(value, list):
        return [_logged(v) for v in value]
    if isinstance(value, dict):
        return view(value)
    return value


class LoggingStore:
    """An ``InMemoryStore`` whose public calls are written to ``log`` (timestamps normalized)."""

    def __init__(self) -> None:
        self.inner = InMemoryStore()
        self.log: list[Any] = []

    def _note(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.log.append((method, [_logged(a) for a in args], {k: _logged(v) for k, v in sorted(kwargs.items())}))

    def __getattr__(self, method: str) -> Any:
        if method not in ("get", "put", "search", "batch", "aget", "aput", "asearch", "abatch"):
            raise AttributeError(method)
        target = getattr(self.inner, method)

        def call(*args: Any, **kwargs: Any) -> Any:
            self._note(method, args, kwargs)
            return target(*args, **kwargs)

        return call


def seed(store: Any, count: int) -> None:
    for i in range(count):
        body = "\n".join(f"line {j} of file {i}" for j in range(3))
        store.put(
            NS, f"/d/f{i}.txt", {"content": body, "encoding": "utf-8", "modified_at": f"2024-01-{i % 28 + 1:02d}"}
        )
    store.put(NS, "/bin.png", {"content": "iVBORw0KGgo=", "encoding": "base64"})
    store.put(NS, "/d/no-content", {"other": 1})


def run_logged(impl: str, mode: str, count: int, ops: list[tuple[Any, ...]]) -> dict[str, Any]:
    store = LoggingStore()
    seed(store.inner, count)
    backend = impl_api(impl).StoreBackend(store=store, namespace=lambda _rt: NS)
    return {"results": run_ops(backend, mode, ops), "log": store.log, "store": store_items(store.inner)}


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("count", [0, 98, 99, 100, 101, 250])
def test_store_calls_and_results_match(count: int, mode: str) -> None:
    """Page boundaries: the namespace holds `count` files plus two odd items."""
    out = {impl: run_logged(impl, mode, count, ALL_OPS) for impl in IMPLS}
    ref, ours = out["deepagents"], out["deepagents_rs"]
    assert ours["results"] == ref["results"]
    assert ours["log"] == ref["log"]
    assert ours["store"] == ref["store"]
    searches = [entry for entry in ref["log"] if entry[0].endswith("search")]
    assert searches, "the scenario reads whole namespaces"


def test_the_logging_store_sees_async_calls() -> None:
    """The async mode really uses the store's async API (the log would show sync calls otherwise)."""
    log = run_logged("deepagents_rs", "async", 3, [("read", "/d/f1.txt"), ("delete", "/d")])["log"]
    assert [entry[0] for entry in log] == ["aget", "asearch", "abatch"]


@pytest.mark.parametrize("bad", [("*",), ("a", "b/c"), (), ("ok", ""), ("ok", 3), ("..",), ("x?",)])
@pytest.mark.parametrize("mode", CALL_MODES)
def test_refused_namespaces_never_reach_the_store(bad: tuple[Any, ...], mode: str) -> None:
    out = {}
    for impl in IMPLS:
        store = LoggingStore()
        backend = impl_api(impl).StoreBackend(store=store, namespace=lambda _rt, bad=bad: bad)
        out[impl] = {"results": run_ops(backend, mode, ALL_OPS), "log": store.log}
    assert out["deepagents_rs"] == out["deepagents"]
    ref = out["deepagents"]
    if bad != ("..",):
        assert all(r[0] == "raised" for r in ref["results"])
        assert ref["log"] == []


PAGED = [
    {},
    {"page_size": 10},
    {"page_size": 7, "filter": {"kind": "even"}},
    {"page_size": 1},
    {"query": None, "page_size": 3},
]


@pytest.mark.parametrize("size", [0, 9, 10, 11, 35])
@pytest.mark.parametrize("kwargs", PAGED)
@pytest.mark.parametrize("mode", CALL_MODES)
def test_search_store_paginated(size: int, kwargs: dict[str, Any], mode: str) -> None:
    """Called unbound, as deepagents' own tests call it: the items, and the pages asked for."""
    out = {}
    for impl in IMPLS:
        store = LoggingStore()
        for i in range(size):
            store.inner.put(("p",), f"/k{i:03d}", {"content": str(i), "kind": "even" if i % 2 == 0 else "odd"})
        cls = importlib.import_module(f"{impl}.backends.store").StoreBackend
        if mode == "sync":
            items = cls._search_store_paginated(None, store, ("p",), **kwargs)
        else:
            items = asyncio.run(cls._asearch_store_paginated(None, store, ("p",), **kwargs))
        out[impl] = {"keys": sorted(item.key for item in items), "log": store.log}
    assert out["deepagents_rs"] == out["deepagents"]


# --------------------------------------------------------------------------------------------
# PostgresStore
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg_dsn() -> Any:
    import pg_server

    reason = pg_server.available()
    if reason is not None:
        pytest.skip(reason)
    with pg_server.server() as dsn:
        yield dsn


PG_OPS = [
    ("write", "/notes/a.md", "alpha\nbeta"),
    ("write", "/notes/deep/b.md", "gamma"),
    ("upload_files", [("/img.png", b"\x89PNG\r\n\x1a\n\x00\xff")]),
    ("read", "/notes/a.md", {"offset": 1, "limit": 1}),
    ("edit", "/notes/a.md", "beta", "BETA"),
    ("ls", "/notes"),
    ("glob", "**/*.md"),
    ("grep", "BETA"),
    ("download_files", ["/img.png", "/notes/a.md", "/none"]),
    ("read", "/img.png"),
    ("delete", "/notes/"),
    ("ls", "/"),
]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_postgres_store(pg_dsn: str, mode: str) -> None:
    """Each implementation in its own namespace of one PostgreSQL database."""
    out = {}
    if mode == "sync":
        from langgraph.store.postgres import PostgresStore

        with PostgresStore.from_conn_string(pg_dsn) as store:
            store.setup()
            for impl in IMPLS:
                out[impl] = _pg_run(impl, store, "sync")
    else:
        from langgraph.store.postgres.aio import AsyncPostgresStore

        async def run() -> None:
            async with AsyncPostgresStore.from_conn_string(pg_dsn) as store:
                await store.setup()
                for impl in IMPLS:
                    out[impl] = await _apg_run(impl, store)

        asyncio.run(run())
    assert out["deepagents_rs"] == out["deepagents"]
    assert out["deepagents"][0]["<type>"] == "WriteResult"


def _pg_run(impl: str, store: Any, mode: str) -> list[Any]:
    ns = ("pg", impl, mode)
    return run_ops(impl_api(impl).StoreBackend(store=store, namespace=lambda _rt: ns), mode, PG_OPS)


async def _apg_run(impl: str, store: Any) -> list[Any]:
    """The async methods (the rest are the sync ones in a worker thread, as deepagents runs them)."""
    ns = ("pg", impl, "async")
    backend = impl_api(impl).StoreBackend(store=store, namespace=lambda _rt: ns)
    results = []
    for method, *args in PG_OPS:
        kwargs = args.pop() if args and isinstance(args[-1], dict) else {}
        try:
            results.append(view(await getattr(backend, f"a{method}")(*args, **kwargs)))
        except Exception as exc:  # noqa: BLE001 - compared
            results.append(view(exc))
    return results


ODD_ITEMS = {
    "/wrapped.bin": {"content": "aGVs\nbG8=", "encoding": "base64"},
    "/unpadded.bin": {"content": "abc", "encoding": "base64"},
    "/stray.bin": {"content": "aGVsbG8=!!", "encoding": "base64"},
    "/lines.txt": {"content": ["a", "b"], "encoding": "utf-8"},
    "/number.txt": {"content": 7},
    "/empty.txt": {"content": ""},
    "/latin.txt": {"content": "x", "encoding": "latin-1", "created_at": 5, "modified_at": "m"},
}


@pytest.mark.parametrize("path", [*ODD_ITEMS, "/absent"])
@pytest.mark.parametrize("mode", CALL_MODES)
def test_odd_items(path: str, mode: str) -> None:
    """Base64 the strict decoder refuses, legacy and wrong content kinds, odd encodings and stamps."""
    ops = [
        ("download_files", [path]),
        ("read", path),
        ("edit", path, "a", "z"),
        ("write", path, "new"),
        ("download_files", [path]),
    ]
    out = run_on_items(ODD_ITEMS, mode, ops)
    assert out["deepagents_rs"] == out["deepagents"]


def run_on_items(items: dict[str, dict[str, Any]], mode: str, ops: list[tuple[Any, ...]]) -> dict[str, Any]:
    """``ops`` on each implementation's backend over a store holding ``items``: results, store
    calls and the items left, by implementation."""
    out = {}
    for impl in IMPLS:
        store = LoggingStore()
        for key, value in items.items():
            store.inner.put(NS, key, value)
        backend = impl_api(impl).StoreBackend(store=store, namespace=lambda _rt: NS)
        out[impl] = {"results": run_ops(backend, mode, ops), "log": store.log, "store": store_items(store.inner)}
    return out


@pytest.mark.parametrize(
    "content",
    [b"plain", bytearray(b"\xff\xfe"), memoryview(b"abc"), "text", b"\xc3\x28", b""],
    # Not a memoryview's repr: its address differs between the test worker processes, which
    # must collect the same ids.
    ids=lambda c: f"memoryview({bytes(c)!r})" if isinstance(c, memoryview) else repr(c),
)
def test_upload_kinds(content: Any) -> None:
    """Bytes-likes with a `decode` are stored; what has none fails as in deepagents, after the earlier files."""
    out = {}
    for impl in IMPLS:
        store = LoggingStore()
        backend = impl_api(impl).StoreBackend(store=store, namespace=lambda _rt: NS)
        files = [("/first.txt", b"ok"), ("/x", content)]
        out[impl] = {"result": view(attempt(lambda b=backend, f=files: b.upload_files(f))), "log": store.log}
    assert out["deepagents_rs"] == out["deepagents"]


# --------------------------------------------------------------------------------------------
# A subclass's own `_search_store_paginated`
# --------------------------------------------------------------------------------------------

LISTING_OPS = [
    ("ls", "/d"),
    ("grep", "line 1", {"path": "/"}),
    ("glob", "**/*.txt"),
    ("delete", "/d/f3.txt"),
    ("delete", "/d"),
    ("ls", "/"),
]


def own_search_backend(impl: str, store: Any, which: tuple[str, ...], calls: list[Any]) -> Any:
    """A StoreBackend subclass whose paging methods (those in `which`) note their arguments,
    hide every ``f2`` file, and use page size 4 for the rest."""
    base = impl_api(impl).StoreBackend

    class OwnSearch(base):  # type: ignore[misc, valid-type]
        if "sync" in which:

            def _search_store_paginated(self, store: Any, namespace: Any, **kwargs: Any) -> Any:
                calls.append(("sync", namespace, kwargs))
                found = super()._search_store_paginated(store, namespace, page_size=4, **kwargs)
                return [item for item in found if "f2" not in item.key]

        if "async" in which:

            async def _asearch_store_paginated(self, store: Any, namespace: Any, **kwargs: Any) -> Any:
                calls.append(("async", namespace, kwargs))
                found = await super()._asearch_store_paginated(store, namespace, page_size=4, **kwargs)
                return [item for item in found if "f2" not in item.key]

    return OwnSearch(store=store, namespace=lambda _rt: NS)


@pytest.mark.parametrize("which", [("sync",), ("async",), ("sync", "async")])
@pytest.mark.parametrize("mode", CALL_MODES)
def test_own_search_store_paginated_is_used(which: tuple[str, ...], mode: str) -> None:
    """ls, grep, glob and delete read the namespace through the subclass's method, as in
    deepagents (async ls/grep/glob run the sync ones in a thread; adelete takes the async one)."""
    out = {}
    for impl in IMPLS:
        store, calls = LoggingStore(), []
        seed(store.inner, 12)
        backend = own_search_backend(impl, store, which, calls)
        results = run_ops(backend, mode, LISTING_OPS)
        out[impl] = {"results": results, "calls": calls, "log": store.log, "store": store_items(store.inner)}
    ref, ours = out["deepagents"], out["deepagents_rs"]
    assert ours == ref
    # Sync calls never reach an async-only override; every other case calls the subclass.
    assert bool(ref["calls"]) == (mode == "async" or "sync" in which)
    if "sync" in which:
        assert all("f2" not in str(r) for r in ref["results"][:3]), "its result was used"
        assert any(entry[2].get("limit") == 4 for entry in ref["log"]), "its paging reached the store"
