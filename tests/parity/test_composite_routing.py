"""Parity: ``CompositeBackend`` called directly, on deepagents and deepagents_rs alike.

How paths are routed (longest prefix, segment boundaries, prefix stripped on the way in and
restored on the way out), listings across routes, read/write/edit/delete, uploads and
downloads, and ``execute`` through the default backend. Searches (grep/glob merging,
truncation, errors, caps) are in ``test_composite_search.py``; the composite inside an agent
is in ``test_files_backends.py``. Every scenario runs sync and async.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from .backend_direct import CALL_MODES, Call, paths, same
from .fs_support import MODES, ai_tool_calls, check, run_fs, store_items, tool_msgs

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


def in_store(a: SimpleNamespace, store: Any, namespace: str) -> Any:
    return a.StoreBackend(store=store, namespace=lambda _rt: (namespace,))


def run_ops(comp: Any, call: Call, ops: list[tuple[Any, ...]]) -> dict[str, Any]:
    """Each ``(method, *args)`` in turn; results keyed ``"method arg1 arg2"``."""
    out: dict[str, Any] = {}
    for method, *args in ops:
        out[" ".join([method, *map(str, args)])] = call(comp, method, *args)
    return out


# --------------------------------------------------------------------------------------------
# Routing across a default and several routes
# --------------------------------------------------------------------------------------------

SEED_OPS = [
    ("write", "/top.txt", "ephemeral alpha\n"),
    ("write", "/work/projects/p1.txt", "project alpha\n"),
    ("write", "/memories/readme.md", "long-term memory\n"),
    ("write", "/memories/deep/nested/n3.md", "deep note\n"),
    ("write", "/archive/2024/jan.log", "january\n"),
    ("write", "/top.txt", "written twice\n"),
]

LOOK_OPS = [
    ("ls", "/"),
    ("ls", "/work/"),
    ("ls", "/memories"),
    ("ls", "/memories/"),
    ("ls", "/memories/deep/"),
    ("ls", "/memories/nowhere/"),
    ("ls", "/archive"),
    ("read", "/top.txt"),
    ("read", "/memories/readme.md"),
    ("read", "/memories/missing.md"),
    ("edit", "/memories/readme.md", "long-term", "persistent"),
    ("edit", "/archive/2024/jan.log", "nope", "x"),
    ("read", "/memories/readme.md"),
    ("write", "/memories/readme.md", "again"),
]


def _default(kind: str, a: SimpleNamespace, store: Any, root: Path) -> Any:
    if kind == "store":
        return in_store(a, store, "default")
    root.mkdir(parents=True, exist_ok=True)
    (root / "disk.txt").write_text("on disk\n")
    return a.FilesystemBackend(root_dir=str(root), virtual_mode=True)


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("default_kind", ["store", "disk"])
def test_routes_listings_reads_and_edits(default_kind: str, mode: str, tmp_path: Path) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        store = InMemoryStore()
        comp = a.CompositeBackend(
            default=_default(default_kind, a, store, tmp_path / a.impl),
            routes={"/memories/": in_store(a, store, "memories"), "/archive/": in_store(a, store, "archive")},
        )
        out = run_ops(comp, call, SEED_OPS + LOOK_OPS)
        out["ls /nowhere/"] = call(comp, "ls", "/nowhere/")
        return out

    ref = same(scenario, mode)
    root = paths(ref["ls /"], "entries")
    assert {"/memories/", "/archive/", "/top.txt", "/work/"} <= set(root) and root == sorted(root)
    assert "/memories/readme.md" not in root
    assert ref["ls /memories"] == ref["ls /memories/"]
    assert paths(ref["ls /memories/deep/"], "entries") == ["/memories/deep/nested/"]
    assert ref["ls /memories/nowhere/"]["entries"] == []
    assert ref["write /memories/readme.md long-term memory\n"]["path"] == "/memories/readme.md"
    assert ref["edit /memories/readme.md long-term persistent"]["path"] == "/memories/readme.md"
    assert ref["edit /memories/readme.md long-term persistent"]["occurrences"] == 1
    assert ref["read /memories/readme.md"]["file_data"]["content"] == "persistent memory\n"
    if default_kind == "disk":
        assert ref["ls /nowhere/"]["error"] == "Path '/nowhere/': path_not_found"


def test_routing_table_boundaries() -> None:
    """Which backend a path reaches, through ``_route_for_path`` and through writes: the
    longest prefix wins, a route matches only at a segment boundary (``/memories2``,
    ``/abcde``), and the route root maps to ``/`` with or without its slash."""
    probes = [
        "/other/file.txt",
        "/memories",
        "/memories/",
        "/memories/notes.txt",
        "/memories/sub/file.txt",
        "/memories/private/secret.txt",
        "/memories/private",
        "/memories2/file.txt",
        "/abcd",
        "/abcd/file.txt",
        "/abcde/file.txt",
        "/memories-backup/file.txt",
    ]
    tables = {
        "nested": [("/memories/private/", "private"), ("/memories/", "memories")],
        "no_slash": [("/abcd", "abcd"), ("/memories", "memories")],
        "slash": [("/abcd/", "abcd")],
    }

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        store = InMemoryStore()
        backends = {name: in_store(a, store, name) for name in ("default", "private", "memories", "abcd")}
        names = {id(b): n for n, b in backends.items()}
        out: dict[str, Any] = {}
        for table, routes in tables.items():
            sorted_routes = [(prefix, backends[name]) for prefix, name in routes]
            for probe in probes:
                backend, key, prefix = a.composite._route_for_path(
                    default=backends["default"], sorted_routes=sorted_routes, path=probe
                )
                out[f"{table} {probe}"] = (names[id(backend)], key, prefix)
        comp = a.CompositeBackend(
            default=backends["default"],
            routes={"/memories/": backends["memories"], "/memories/private/": backends["private"]},
        )
        for probe in ("/memories/notes.txt", "/memories/private/secret.txt", "/memories2/file.txt"):
            backend, key = comp._get_backend_and_key(probe)
            out[f"key {probe}"] = (names[id(backend)], key)
            call(comp, "write", probe, f"content of {probe}")
        out["by namespace"] = {ns[0]: sorted(i.key for i in store.search(ns)) for ns in store.list_namespaces()}
        return out

    ref = same(scenario)
    assert ref["nested /memories/private/secret.txt"] == ["private", "/secret.txt", "/memories/private/"]
    assert ref["nested /memories"] == ["memories", "/", "/memories/"]
    assert ref["nested /memories2/file.txt"] == ["default", "/memories2/file.txt", None]
    assert ref["no_slash /abcde/file.txt"] == ["default", "/abcde/file.txt", None]
    assert ref["no_slash /abcd/file.txt"] == ["abcd", "/file.txt", "/abcd"]
    assert ref["by namespace"] == {
        "default": ["/memories2/file.txt"],
        "memories": ["/notes.txt"],
        "private": ["/secret.txt"],
    }


# --------------------------------------------------------------------------------------------
# Delete
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", CALL_MODES)
def test_delete_through_routes(mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        class NoDelete(a.StoreBackend):
            delete = a.BackendProtocol.delete
            adelete = a.BackendProtocol.adelete

        store = InMemoryStore()
        comp = a.CompositeBackend(
            default=in_store(a, store, "default"),
            routes={
                "/memories/": in_store(a, store, "memories"),
                "/nodelete/": NoDelete(store=store, namespace=lambda _rt: ("nd",)),
            },
        )
        for path in (
            "/file.txt",
            "/memories/note.txt",
            "/memories/proj/a.txt",
            "/memories/proj/sub/b.txt",
            "/memories/keep.txt",
            "/nodelete/x.txt",
        ):
            call(comp, "write", path, "x")
        ops = [
            ("delete", "/file.txt"),
            ("read", "/file.txt"),
            ("delete", "/memories/note.txt"),
            ("read", "/memories/note.txt"),
            ("delete", "/memories/proj"),
            ("read", "/memories/proj/sub/b.txt"),
            ("read", "/memories/keep.txt"),
            ("delete", "/memories/ghost.txt"),
            ("delete", "/nodelete/x.txt"),
            ("read", "/nodelete/x.txt"),
        ]
        return run_ops(comp, call, ops)

    ref = same(scenario, mode)
    assert [ref[f"delete {p}"]["path"] for p in ("/file.txt", "/memories/note.txt", "/memories/proj")] == [
        "/file.txt",
        "/memories/note.txt",
        "/memories/proj",
    ]
    assert ref["read /memories/proj/sub/b.txt"]["error"] and ref["read /memories/keep.txt"]["error"] is None
    assert (
        ref["delete /memories/ghost.txt"]["path"] is None and "not found" in ref["delete /memories/ghost.txt"]["error"]
    )
    assert ref["delete /nodelete/x.txt"]["path"] is None and "not supported" in ref["delete /nodelete/x.txt"]["error"]
    assert ref["read /nodelete/x.txt"]["error"] is None


# --------------------------------------------------------------------------------------------
# Uploads and downloads
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", CALL_MODES)
def test_upload_and_download_routing(mode: str, tmp_path: Path) -> None:
    blob = bytes(range(256))

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        root = tmp_path / a.impl
        (root / "sub").mkdir(parents=True)
        (root / "sub" / "nested.bin").write_bytes(b"nested bytes")
        (root / "local.bin").write_bytes(b"local binary")
        store = InMemoryStore()
        comp = a.CompositeBackend(
            default=a.FilesystemBackend(root_dir=str(root), virtual_mode=True),
            routes={"/memories/": in_store(a, store, "memories"), "/archive/": in_store(a, store, "archive")},
        )
        out: dict[str, Any] = {}
        out["upload"] = call(
            comp,
            "upload_files",
            [
                ("/one.bin", b"default one"),
                ("/../escape.bin", b"refused"),
                ("/memories/note.txt", b"memory text"),
                ("/archive/arch.bin", blob),
                ("/blob.bin", blob),
            ],
        )
        out["download"] = call(
            comp,
            "download_files",
            [
                "/local.bin",
                "/sub/nested.bin",
                "/blob.bin",
                "/missing.bin",
                "/../invalid",
                "/memories/note.txt",
                "/archive/arch.bin",
                "/memories/absent.txt",
            ],
        )
        out["read routed"] = call(comp, "read", "/memories/note.txt")
        out["disk"] = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
        out["one.bin"] = (root / "one.bin").read_bytes()
        out["store"] = store_items(store)
        return out

    ref = same(scenario, mode)
    assert [r["error"] for r in ref["upload"]] == [None, "invalid_path", None, None, None]
    downloads = ref["download"]
    assert [d["path"] for d in downloads][:3] == ["/local.bin", "/sub/nested.bin", "/blob.bin"]
    assert downloads[2]["content"] == blob
    assert [d["error"] for d in downloads[3:5]] == ["file_not_found", "invalid_path"]
    assert downloads[3]["content"] is None
    assert ref["read routed"]["file_data"]["content"] == "memory text"
    assert "escape.bin" not in ref["disk"] and "memories" not in ref["disk"]


# --------------------------------------------------------------------------------------------
# execute goes to the default backend
# --------------------------------------------------------------------------------------------


def make_echo_sandbox(a: SimpleNamespace, store: Any, timeouts: list[Any]) -> Any:
    """A StoreBackend that can also execute: it echoes the command, sync and async apart."""

    class EchoSandbox(a.protocol.SandboxBackendProtocol, a.StoreBackend):
        @property
        def id(self) -> str:
            return "echo"

        def execute(self, command: str, *, timeout: int | None = None) -> Any:
            timeouts.append(("sync", timeout))
            return a.P.ExecuteResponse(output=f"ran {command}", exit_code=0, truncated=False)

        async def aexecute(self, command: str, *, timeout: int | None = None) -> Any:
            timeouts.append(("async", timeout))
            return a.P.ExecuteResponse(output=f"ran async {command}", exit_code=7, truncated=True)

    return EchoSandbox(store=store, namespace=lambda _rt: ("default",))


@pytest.mark.parametrize("mode", CALL_MODES)
def test_execute_uses_the_default_backend(mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        store = InMemoryStore()
        timeouts: list[Any] = []
        sandbox = make_echo_sandbox(a, store, timeouts)
        comp = a.CompositeBackend(default=sandbox, routes={"/memories/": in_store(a, store, "memories")})
        plain = a.CompositeBackend(default=in_store(a, store, "plain"), routes={})
        out = run_ops(comp, call, [("write", "/local.txt", "local"), ("write", "/memories/kept.txt", "kept")])
        out["run"] = call(comp, "execute", "ls -la")
        out["run with timeout"] = call(comp, "execute", "ls", timeout=42)
        out.update(run_ops(comp, call, [("read", "/local.txt"), ("read", "/memories/kept.txt")]))
        out["timeouts"] = timeouts
        out["plain has execute"] = hasattr(plain, "execute")
        try:
            call(plain, "execute", "ls -la")
        except NotImplementedError as exc:
            out["plain"] = str(exc)
        return out

    ref = same(scenario, mode)
    assert ref["run"]["output"] == ("ran ls -la" if mode == "sync" else "ran async ls -la")
    assert ref["timeouts"] == [[mode, None], [mode, 42]]
    assert "doesn't support command execution" in ref["plain"]
    assert ref["read /memories/kept.txt"]["file_data"]["content"] == "kept"


# --------------------------------------------------------------------------------------------
# Large tool results evicted through a composite (the agent's eviction step)
# --------------------------------------------------------------------------------------------


def blob_tool(n: int) -> str:
    """Return n numbered lines."""
    return "".join(f"entry {i:06d}\n" for i in range(n))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("route_results", [False, True], ids=["to_default", "to_routed_store"])
def test_large_tool_result_lands_where_the_composite_routes_it(route_results: bool, mode: str) -> None:
    def setup(a: SimpleNamespace) -> dict[str, Any]:
        store = InMemoryStore()
        routes = {"/memories/": in_store(a, store, "memories")}
        if route_results:
            routes["/large_tool_results/"] = in_store(a, store, "evicted")
        return {"backend": a.CompositeBackend(default=in_store(a, store, "default"), routes=routes), "store": store}

    script = [
        ai_tool_calls(("blob_tool", {"n": 9000}, "call_big")),
        ai_tool_calls(("read_file", {"file_path": "/large_tool_results/call_big", "limit": 2})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=setup, tools=[blob_tool])
    msgs = tool_msgs(check(run))
    assert msgs[0].content.startswith("Tool result too large") and "/large_tool_results/call_big" in msgs[0].content
    assert msgs[1].content.endswith("entry 000000\nentry 000001")
    items = store_items(run.kwargs["deepagents"]["store"])
    key = (("evicted",), "/call_big") if route_results else (("default",), "/large_tool_results/call_big")
    assert items[key]["content"] == blob_tool(9000)
