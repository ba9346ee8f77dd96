"""Parity: ``StoreBackend`` on a plain ``InMemoryStore``, which ours reads from its dict.

deepagents pages through ``store.search`` and calls ``store.get``; ours reads a plain
``InMemoryStore``'s items and entries from its dict instead (``backends/_memory_store_reads.py``).
Each implementation works on its own store seeded alike, with items in child and sibling
namespaces and a key repeated in a child namespace: results, the items left behind and the
namespaces listed (a ``get`` in a namespace never seen leaves it listed) must match
deepagents', while ours asks the store for no ``search`` and no ``get``. Stores that must be
called (a subclass with its own reading path, a namespace LangGraph refuses) are, and a list
namespace finds nothing, as in deepagents.
"""

from __future__ import annotations

from collections import Counter
from pathlib import PurePosixPath
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from .backend_direct import CALL_MODES, IMPLS, impl_api, run_ops
from .fs_support import store_items

NS = ("team", "files")
OPS = [
    ("ls", "/"),
    ("ls", "/d"),
    ("glob", "**/*.txt"),
    ("glob", "*.png", {"path": "/"}),
    ("grep", "line 1", {"path": "/"}),
    ("grep", "line", {"path": "/d", "glob": "*.txt", "max_count": 3}),
    ("delete", "/missing.txt"),
    ("delete", "/d/f3.txt"),
    ("read", "/d/f1.txt", {"offset": 1, "limit": 1}),
    ("read", "/nope.txt"),
    ("read", "/bin.png"),
    ("edit", "/d/f1.txt", "line 1", "LINE 1"),
    ("edit", "/d/f1.txt", "absent", "x"),
    ("download_files", ["/d/f1.txt", "/missing", "/bin.png", PurePosixPath("/d/f2.txt")]),
    ("write", "/d/f2.txt", "rewritten"),
    ("write", "/d/new.txt", "one\ntwo"),
    ("upload_files", [("/up.txt", b"text")]),
    ("delete", "/d"),
    ("ls", "/"),
    ("glob", "**"),
]


def seed(store: Any, count: int) -> None:
    """`count` files under `/d` of `NS`, interleaved with items of a child, a sibling and a
    parent namespace (a repeated key among them) and an item without content."""
    for i in range(count):
        body = "\n".join(f"line {j} of file {i}" for j in range(3))
        store.put(
            NS, f"/d/f{i}.txt", {"content": body, "encoding": "utf-8", "modified_at": f"2024-01-{i % 28 + 1:02d}"}
        )
        if i % 40 == 0:
            store.put((*NS, "sub"), f"/d/f{i}.txt", {"content": f"line 1 child {i}", "encoding": "utf-8"})
            store.put(("team", "other"), f"/o{i}.txt", {"content": "line 1 sibling", "encoding": "utf-8"})
    store.put(("team",), "/parent.txt", {"content": "line 1 parent", "encoding": "utf-8"})
    store.put(NS, "/bin.png", {"content": "iVBORw0KGgo=", "encoding": "base64"})
    store.put(NS, "/d/no-content", {"other": 1})


class Searches:
    """Counts the operations `InMemoryStore.batch`/`abatch` receive, by kind (every public
    store method goes through one of them), while installed on the class."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.kinds: Counter[str] = Counter()
        batch, abatch = InMemoryStore.batch, InMemoryStore.abatch

        def counted(store: Any, ops: Any) -> Any:
            ops = list(ops)
            self.kinds.update(type(op).__name__ for op in ops)
            return batch(store, ops)

        async def acounted(store: Any, ops: Any) -> Any:
            ops = list(ops)
            self.kinds.update(type(op).__name__ for op in ops)
            return await abatch(store, ops)

        monkeypatch.setattr(InMemoryStore, "batch", counted)
        monkeypatch.setattr(InMemoryStore, "abatch", acounted)


def run_both(make_store: Any, mode: str, namespace: Any = NS, count: int = 12, ops: Any = OPS) -> dict[str, Any]:
    out = {}
    for impl in IMPLS:
        store = make_store()
        seed(store, count)
        backend = impl_api(impl).StoreBackend(store=store, namespace=lambda _rt: namespace)
        out[impl] = {"results": run_ops(backend, mode, ops), "store": contents(store)}
    return out


def contents(store: Any) -> dict[str, Any]:
    return {"namespaces": store.list_namespaces(), "items": store_items(store)}


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("count", [0, 99, 100, 101, 250])
def test_plain_store_read_directly(count: int, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same results and store contents as deepagents across page boundaries; ours neither
    searches nor gets."""
    searches, gets = {}, {}
    out = {}
    for impl in IMPLS:
        store = InMemoryStore()
        seed(store, count)
        counter = Searches(monkeypatch)
        backend = impl_api(impl).StoreBackend(store=store, namespace=lambda _rt: NS)
        results = run_ops(backend, mode, OPS)
        searches[impl], gets[impl] = counter.kinds["SearchOp"], counter.kinds["GetOp"]
        monkeypatch.undo()
        out[impl] = {"results": results, "store": contents(store)}
    assert out["deepagents_rs"] == out["deepagents"]
    assert searches["deepagents"] >= len([op for op in OPS if op[0] in ("ls", "glob", "grep", "delete")])
    assert gets["deepagents"] >= len([op for op in OPS if op[0] in ("read", "edit", "write")])
    assert (searches["deepagents_rs"], gets["deepagents_rs"]) == (0, 0)


@pytest.mark.parametrize(
    "op",
    [("read", "/a.txt"), ("download_files", ["/b.txt"]), ("download_files", []), ("edit", "/c.txt", "x", "y")],
    ids=repr,
)
@pytest.mark.parametrize("mode", CALL_MODES)
def test_namespace_never_seen(op: tuple[Any, ...], mode: str) -> None:
    """A read in a namespace nothing was written to leaves it listed, as the store's own `get`
    does (and no read, none)."""
    out = run_both(InMemoryStore, mode, namespace=("fresh", "space"), ops=[op])
    assert out["deepagents_rs"] == out["deepagents"]
    assert (("fresh", "space") in out["deepagents"]["store"]["namespaces"]) == (op[1] != [])


class OwnSearch(InMemoryStore):
    """Hides every `f2` file from searches."""

    def search(self, namespace_prefix: tuple[str, ...], /, **kwargs: Any) -> list[Any]:
        return [item for item in super().search(namespace_prefix, **kwargs) if "f2" not in item.key]

    async def asearch(self, namespace_prefix: tuple[str, ...], /, **kwargs: Any) -> list[Any]:
        return self.search(namespace_prefix, **kwargs)


class OwnFilter(InMemoryStore):
    """Its item filter (under `search` and `asearch` alike) hides every `f2` file."""

    def _filter_items(self, op: Any) -> list[Any]:
        return [pair for pair in super()._filter_items(op) if "f2" not in pair[0].key]


class Unchanged(InMemoryStore):
    """A subclass whose reading path is `InMemoryStore`'s own (read directly)."""


def with_own_search_attribute() -> InMemoryStore:
    """An unchanged subclass's instance holding its own `search`/`asearch`, hiding `f2` files."""
    store = Unchanged()
    search = store.search

    def own(namespace_prefix: tuple[str, ...], /, **kwargs: Any) -> list[Any]:
        return [item for item in search(namespace_prefix, **kwargs) if "f2" not in item.key]

    async def aown(namespace_prefix: tuple[str, ...], /, **kwargs: Any) -> list[Any]:
        return own(namespace_prefix, **kwargs)

    store.search, store.asearch = own, aown  # type: ignore[method-assign]
    return store


@pytest.mark.parametrize("make_store", [OwnSearch, OwnFilter, Unchanged, with_own_search_attribute])
@pytest.mark.parametrize("mode", CALL_MODES)
def test_subclasses(make_store: Any, mode: str) -> None:
    """A subclass's own reading path is used, as deepagents' searches use it."""
    out = run_both(make_store, mode)
    assert out["deepagents_rs"] == out["deepagents"]
    hidden = make_store is not Unchanged
    listed = str(out["deepagents"]["results"][:6])
    assert ("/d/f2.txt" not in listed) == hidden


class OwnGet(InMemoryStore):
    """Its `get` and `aget` find no `f1` file."""

    def get(self, namespace: tuple[str, ...], key: str, **kwargs: Any) -> Any:
        return None if "f1" in key else super().get(namespace, key, **kwargs)

    async def aget(self, namespace: tuple[str, ...], key: str, **kwargs: Any) -> Any:
        return self.get(namespace, key, **kwargs)


@pytest.mark.parametrize("mode", CALL_MODES)
def test_own_get(mode: str) -> None:
    """A subclass's own `get` is called, as deepagents calls it."""
    ops = [("read", "/d/f1.txt"), ("download_files", ["/d/f1.txt"]), ("write", "/d/f1.txt", "new")]
    out = run_both(OwnGet, mode, ops=ops)
    assert out["deepagents_rs"] == out["deepagents"]
    assert out["deepagents"]["results"][0]["error"]


@pytest.mark.parametrize("namespace", [("team", "a.b"), ("team", "a\x00"), ["team", "files"]], ids=repr)
@pytest.mark.parametrize("mode", CALL_MODES)
def test_namespaces_searched(namespace: Any, mode: str) -> None:
    """A label LangGraph refuses fails as deepagents' search fails; a list namespace matches
    no stored tuple, read directly or searched."""
    out = run_both(InMemoryStore, mode, namespace=namespace)
    assert out["deepagents_rs"] == out["deepagents"]
    first = out["deepagents"]["results"][0]
    if isinstance(namespace, tuple) and "." in namespace[1]:
        assert first[0] == "raised"
