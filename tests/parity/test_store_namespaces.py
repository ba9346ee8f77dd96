"""Parity: where ``StoreBackend`` keeps files (namespace factories and their validation), how
it removes them (one batched write per delete), and what ``StateBackend``/``StoreBackend``
say when used outside a graph. Sync and async calls alike; results, exceptions and the
store's contents are compared between deepagents and deepagents_rs.
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph.store.base import PutOp
from langgraph.store.memory import InMemoryStore

from .backend_direct import CALL_MODES, IMPLS, Call, attempt, caller, impl_api, run_both, same, view
from .fs_support import store_items

# --------------------------------------------------------------------------------------------
# Outside a graph
# --------------------------------------------------------------------------------------------

CALLS = [
    ("read", ("/a.txt",)),
    ("write", ("/a.txt", "x")),
    ("ls", ("/",)),
    ("glob", ("*",)),
    ("upload_files", ([("/a.txt", b"x")],)),
    ("download_files", (["/a.txt"],)),
    ("delete", ("/a.txt",)),
]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize(("method", "args"), CALLS, ids=[m for m, _ in CALLS])
@pytest.mark.parametrize("kind", ["state", "store_without_store", "runtime_factory"])
def test_outside_a_graph(kind: str, method: str, args: tuple[Any, ...], mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        if kind == "state":
            backend = a.StateBackend()
        elif kind == "store_without_store":
            backend = a.StoreBackend(namespace=lambda _rt: ("fs",))
        else:
            # A factory reading the runtime gets None outside a graph: a clear error, not AttributeError.
            backend = a.StoreBackend(store=InMemoryStore(), namespace=lambda rt: (rt.server_info.user.identity,))
        return call(backend, method, *args)

    ref = same(scenario, mode, raises=True)
    assert ref[1] == "RuntimeError"
    assert "LangGraph graph execution" in ref[2]


# --------------------------------------------------------------------------------------------
# Namespace factories
# --------------------------------------------------------------------------------------------


def _scoped(user: str) -> Any:
    return lambda _rt: ("users", user, "files")


FACTORIES = {
    "single": lambda _rt: ("files",),
    "per_user": lambda _rt: ("files", "dana"),
    "four_levels": lambda _rt: ("org", "org-7", "member", "eli"),
    "closure": _scoped("frank-92"),
    "ignores_runtime_none": lambda rt: ("files", "anon" if rt is None else "known"),
}


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("factory", list(FACTORIES))
def test_namespace_factory(factory: str, mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        store = InMemoryStore()
        backend = a.StoreBackend(store=store, namespace=FACTORIES[factory])
        return {
            "write": call(backend, "write", "/doc.md", f"owned by {factory}"),
            "read": call(backend, "read", "/doc.md"),
            "store": store_items(store),
        }

    ref = same(scenario, mode)
    assert list(ref["store"]) == [(FACTORIES[factory](None), "/doc.md")]
    assert ref["read"]["file_data"]["content"] == f"owned by {factory}"


@pytest.mark.parametrize("mode", CALL_MODES)
def test_namespaces_are_isolated(mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        store = InMemoryStore()
        gil, hana = (a.StoreBackend(store=store, namespace=_scoped(u)) for u in ("gil", "hana"))
        for backend, text in ((gil, "gil's plan"), (hana, "hana's plan")):
            call(backend, "write", "/plan.txt", text)
        return {
            "gil": call(gil, "read", "/plan.txt"),
            "hana": call(hana, "read", "/plan.txt"),
            "hana_ls": call(hana, "ls", "/"),
            "gil_delete": call(gil, "delete", "/plan.txt"),
            "store": store_items(store),
        }

    ref = same(scenario, mode)
    assert ref["gil"]["file_data"]["content"] == "gil's plan"
    assert ref["hana"]["file_data"]["content"] == "hana's plan"
    assert list(ref["store"]) == [(("users", "hana", "files"), "/plan.txt")]


def _raise_key_error(_rt: Any) -> tuple[str, ...]:
    raise KeyError("tenant")


BAD_FACTORIES = {
    "raises": (_raise_key_error, "KeyError"),
    "wildcard": (lambda _rt: ("files", "*"), "disallowed characters"),
    "space": (lambda _rt: ("my files",), "disallowed characters"),
    "empty_tuple": (lambda _rt: (), "must not be empty"),
    "empty_component": (lambda _rt: ("files", ""), "must not be empty"),
    "returns_runtime": (lambda rt: rt, "must not be empty"),
    "non_string": (lambda _rt: ("files", 7), "must be a string"),
    "list": (lambda _rt: ["files"], "unhashable"),
    # Valid for the backend, refused by the store itself.
    "period": (lambda _rt: ("files", "v1.2"), "cannot contain periods"),
}


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("factory", list(BAD_FACTORIES))
def test_bad_namespace_factory(factory: str, mode: str) -> None:
    namespace, fragment = BAD_FACTORIES[factory]

    def scenario(a: SimpleNamespace, call: Call) -> Any:
        store = InMemoryStore()
        backend = a.StoreBackend(store=store, namespace=namespace)
        return {"write": attempt(lambda: call(backend, "write", "/a.txt", "x")), "store": store_items(store)}

    ref = same(scenario, mode)
    assert fragment in " ".join(ref["write"][1:]), ref["write"]
    assert ref["store"] == {}


def test_namespace_is_required() -> None:
    ref = same(lambda a, _call: a.StoreBackend(store=InMemoryStore()), raises=True)
    assert ref[1] == "TypeError" and "namespace" in ref[2]


VALID_NAMESPACES = [
    ("files",),
    ("a", "b", "c", "d", "e"),
    ("ivy@example.com",),
    ("ivy+work@example.com",),
    ("6f1c2d3e-0000-4000-8000-123456789abc",),
    ("team:red:alpha",),
    ("~home",),
    ("release-2.0.1_rc",),
    ("UPPER", "lower", "123"),
    ("trailing\n",),
]

INVALID_NAMESPACES = [
    (),
    ("",),
    ("files", ""),
    ("?",),
    ("all*",),
    ("x[1]",),
    ("{a,b}",),
    ("two words",),
    ("a/b",),
    ("%x",),
    ("wow!",),
    ("a,b",),
    ("a|b",),
    ("tab\there",),
    ("new\nline",),
    ("back\\slash",),
    ("files", 3),
    (None,),
    ("ok", b"bytes"),
]


@pytest.mark.parametrize(
    ("namespace", "valid"), [(n, True) for n in VALID_NAMESPACES] + [(n, False) for n in INVALID_NAMESPACES], ids=repr
)
def test_validate_namespace(namespace: tuple[Any, ...], valid: bool) -> None:
    out = run_both(lambda a, _call: importlib.import_module(f"{a.impl}.backends.store")._validate_namespace(namespace))
    assert out["deepagents_rs"] == out["deepagents"]
    ref = out["deepagents"]
    if valid:
        assert ref == list(namespace)
    else:
        assert ref[0] == "raised"
        assert ref[1] == ("TypeError" if any(not isinstance(c, str) for c in namespace) else "ValueError")


# --------------------------------------------------------------------------------------------
# Deletes go to the store in one batch
# --------------------------------------------------------------------------------------------


class CountingStore(InMemoryStore):
    """Records the operations of every ``batch``/``abatch`` call (every store call goes through one)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[Any]] = []

    def batch(self, ops: Any) -> Any:
        ops = list(ops)
        self.calls.append(ops)
        return super().batch(ops)

    async def abatch(self, ops: Any) -> Any:
        ops = list(ops)
        self.calls.append(ops)
        return await super().abatch(ops)


SEEDED = ["/proj/a.txt", "/proj/src/x.py", "/proj/src/deep/y.py", "/project.txt", "/z.txt"]

#: target -> the keys a delete removes (a directory takes its whole subtree, never a mere prefix)
DELETES = {
    "/proj": ["/proj/a.txt", "/proj/src/deep/y.py", "/proj/src/x.py"],
    "/proj/": ["/proj/a.txt", "/proj/src/deep/y.py", "/proj/src/x.py"],
    "/proj/src/x.py": ["/proj/src/x.py"],
    "/nothing": [],
}


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("target", list(DELETES))
def test_delete_is_one_batched_write(target: str, mode: str) -> None:
    deleted: dict[str, Any] = {}
    for impl in IMPLS:
        store = CountingStore()
        backend = impl_api(impl).StoreBackend(store=store, namespace=lambda _rt: ("files",))
        for key in SEEDED:
            store.put(("files",), key, {"content": key, "encoding": "utf-8"})
        store.calls.clear()
        result = view(attempt(lambda backend=backend: caller(mode)(backend, "delete", target)))
        tombstones = [ops for ops in store.calls if any(isinstance(op, PutOp) and op.value is None for op in ops)]
        # No write at all for nothing to delete; otherwise every key goes in a single batch of tombstones.
        assert len(tombstones) == (1 if DELETES[target] else 0), impl
        assert all(isinstance(op, PutOp) and op.value is None for ops in tombstones for op in ops), impl
        keys = sorted(op.key for ops in tombstones for op in ops)
        assert keys == DELETES[target], impl
        deleted[impl] = {"result": result, "left": sorted(k for _ns, k in store_items(store))}
    assert deleted["deepagents_rs"] == deleted["deepagents"]
    assert deleted["deepagents"]["left"] == sorted(set(SEEDED) - set(DELETES[target]))
    assert (deleted["deepagents"]["result"]["error"] is None) is bool(DELETES[target])
