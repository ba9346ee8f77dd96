"""Parity: ``CompositeBackend`` grep/glob/ls merging, called directly on both implementations.

Searches scoped to one route or to the default backend, searches from ``/`` merged across
all of them (route prefixes restored), how ``truncated`` and errors from a child reach the
caller, ``max_count`` across routes (and children whose ``grep`` predates it). Every
scenario runs sync and async.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from .backend_direct import CALL_MODES, Call, paths, same
from .test_composite_routing import in_store, run_ops


def stub(backend: Any, name: str, fn: Callable[..., Any], calls: list[str] | None = None) -> None:
    """Replace ``name`` and ``a<name>`` on one backend instance with ``fn`` (noting calls)."""

    def sync(*args: Any, **kwargs: Any) -> Any:
        if calls is not None:
            calls.append(name)
        return fn(*args, **kwargs)

    async def async_(*args: Any, **kwargs: Any) -> Any:
        return sync(*args, **kwargs)

    setattr(backend, name, sync)
    setattr(backend, f"a{name}", async_)


def pair(a: SimpleNamespace) -> tuple[Any, Any, Any]:
    """A composite over two store namespaces: ``(composite, default, /memories/ route)``."""
    store = InMemoryStore()
    default, routed = in_store(a, store, "default"), in_store(a, store, "memories")
    return a.CompositeBackend(default=default, routes={"/memories/": routed}), default, routed


# --------------------------------------------------------------------------------------------
# Real searches over a disk default and store routes
# --------------------------------------------------------------------------------------------

DISK = {
    "script.py": "python code here\n",
    "config.json": "json config here\n",
    "multi.txt": "line1 pattern\nline2 pattern\nline3 other\n",
    "work/project.txt": "project content\n",
    "tools/hammer.md": "tool for nailing\n",
    "notes/other.md": "unrelated tool note\n",
    "odd.txt": "brackets [invalid( stay literal\n",
}

ROUTED = [
    ("write", "/memories/notes.py", "python notes here\n"),
    ("write", "/memories/data.json", "json data here\n"),
    ("write", "/memories/docs/readme.md", "documentation here\nmemory pattern\n"),
    ("write", "/memories/docs/guide.md", "guide here\n"),
    ("write", "/memories/top.py", "tool top\n"),
    ("write", "/memories/deep/nested.py", "tool nested\n"),
    ("write", "/archive/2024/jan.log", "january logs\n"),
    ("write", "/archive/2024/feb.log", "february logs\n"),
    ("write", "/archive/2023/dec.log", "december logs\n"),
    ("write", "/archive/notes.txt", "general notes here\n"),
]

SEARCHES = [
    ("grep", "here", "/memories/"),
    ("grep", "here", "/memories"),
    ("grep", "here", "/memories/docs/"),
    ("grep", "memory", "/memories/docs/readme.md"),
    ("grep", "here", "/"),
    ("grep", "here", None),
    ("grep", "here", "/", "*.py"),
    ("grep", "here", "/memories/", "*.md"),
    ("grep", "pattern", "/"),
    ("grep", "content", "/work"),
    ("grep", "tool", "/tools"),
    ("grep", "[invalid(", "/"),
    ("grep", "nonexistent_xyz", "/"),
    ("glob", "**/*.md", "/"),
    ("glob", "*.md", "/memories"),
    ("glob", "*.md", "/"),
    ("glob", "*.md", "/tools"),
    ("glob", "**/*.py", "/memories/"),
    ("glob", "/memories/**/*.md", "/"),
    ("glob", "/memories/*.py", "/"),
    ("glob", "*.log", "/archive/2024/"),
    ("glob", "**/*.log", "/archive"),
]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_searches_scoped_and_merged(mode: str, tmp_path: Path) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        root = tmp_path / a.impl
        for rel, text in DISK.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        store = InMemoryStore()
        comp = a.CompositeBackend(
            default=a.FilesystemBackend(root_dir=str(root), virtual_mode=True),
            routes={"/memories/": in_store(a, store, "memories"), "/archive/": in_store(a, store, "archive")},
        )
        run_ops(comp, call, ROUTED)
        out = run_ops(comp, call, SEARCHES)
        out["glob *.md default path"] = call(comp, "glob", "*.md")
        for result in out.values():
            # Grep on disk reports files in directory order in deepagents (os.walk); only the
            # set of matches is defined.
            if type(result).__name__ == "GrepResult" and result.matches:
                result.matches.sort(key=lambda m: (m["path"], m["line"]))
        return out

    ref = same(scenario, mode)

    def hits(key: str) -> list[str]:
        return paths(ref[key], "matches")

    assert hits("grep here /memories/") == hits("grep here /memories") != []
    assert all(p.startswith("/memories/") and "//" not in p for p in hits("grep here /memories/"))
    assert set(hits("grep here /memories/docs/")) == {"/memories/docs/readme.md", "/memories/docs/guide.md"}
    assert hits("grep memory /memories/docs/readme.md") == ["/memories/docs/readme.md"]
    assert sorted(hits("grep here /")) == sorted(hits("grep here None"))
    assert set(hits("grep here / *.py")) == {"/script.py", "/memories/notes.py"}
    assert hits("grep here /memories/ *.md") == ["/memories/docs/guide.md", "/memories/docs/readme.md"]
    assert [m["line"] for m in ref["grep pattern /"]["matches"] if m["path"] == "/multi.txt"] == [1, 2]
    assert hits("grep content /work") == ["/work/project.txt"]
    assert hits("grep tool /tools") == ["/tools/hammer.md"]
    assert hits("grep [invalid( /") == ["/odd.txt"]
    assert hits("grep nonexistent_xyz /") == []
    assert hits("glob *.md /tools") == ["/tools/hammer.md"]
    assert set(hits("glob **/*.py /memories/")) == {
        "/memories/deep/nested.py",
        "/memories/notes.py",
        "/memories/top.py",
    }
    assert "/memories/docs/readme.md" in hits("glob /memories/**/*.md /")
    assert hits("glob /memories/*.py /") == ["/memories/notes.py", "/memories/top.py"]
    assert hits("glob *.log /archive/2024/") == ["/archive/2024/feb.log", "/archive/2024/jan.log"]
    assert ref["glob *.md default path"] == ref["glob *.md /"]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_routes_sharing_one_namespace(mode: str, tmp_path: Path) -> None:
    """Two routes over the same store namespace see each other's files (deepagents keeps
    no isolation between them); grep from ``/`` reports what that gives."""

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        root = tmp_path / a.impl
        root.mkdir()
        (root / "default.txt").write_text("default findme\n")
        store = InMemoryStore()
        comp = a.CompositeBackend(
            default=a.FilesystemBackend(root_dir=str(root), virtual_mode=True),
            routes={"/memories/": in_store(a, store, "shared"), "/archive/": in_store(a, store, "shared")},
        )
        return run_ops(
            comp,
            call,
            [
                ("write", "/memories/mem.txt", "memory findme\n"),
                ("write", "/archive/arch.txt", "archive findme\n"),
                ("grep", "findme", "/"),
                ("ls", "/archive/"),
            ],
        )

    ref = same(scenario, mode)
    assert "/archive/mem.txt" in paths(ref["grep findme /"], "matches")


# --------------------------------------------------------------------------------------------
# Children that report truncation or errors (stubbed)
# --------------------------------------------------------------------------------------------


def _grep_hit(path: str, truncated: bool, a: SimpleNamespace) -> Callable[..., Any]:
    return lambda *_a, **_k: a.P.GrepResult(matches=[{"path": path, "line": 1, "text": "hit"}], truncated=truncated)


def _glob_hit(path: str, truncated: bool, a: SimpleNamespace) -> Callable[..., Any]:
    return lambda *_a, **_k: a.P.GlobResult(matches=[{"path": path, "is_dir": False}], truncated=truncated)


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize(("default_cut", "route_cut"), [(True, False), (False, True), (False, False), (True, True)])
def test_truncation_is_ored_across_children(default_cut: bool, route_cut: bool, mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        comp, default, routed = pair(a)
        stub(default, "grep", _grep_hit("/d.txt", default_cut, a))
        stub(routed, "grep", _grep_hit("/r.txt", route_cut, a))
        stub(default, "glob", _glob_hit("/d.txt", default_cut, a))
        stub(routed, "glob", _glob_hit("/r.txt", route_cut, a))
        return run_ops(
            comp,
            call,
            [("grep", "hit", "/"), ("glob", "*.txt", "/"), ("grep", "hit", "/memories/"), ("glob", "*", "/memories/")],
        )

    ref = same(scenario, mode)
    for key in ("grep hit /", "glob *.txt /"):
        assert ref[key]["truncated"] is (default_cut or route_cut)
        assert set(paths(ref[key], "matches")) == {"/d.txt", "/memories/r.txt"}
    assert ref["grep hit /memories/"]["truncated"] is route_cut
    assert paths(ref["glob * /memories/"], "matches") == ["/memories/r.txt"]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("failing", ["default", "route"])
def test_child_errors_surface(failing: str, mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        comp, default, routed = pair(a)
        bad, good = (default, routed) if failing == "default" else (routed, default)
        route_calls: list[str] = []
        stub(bad, "glob", lambda *_a, **_k: a.P.GlobResult(error="sandbox RPC failed", matches=[]))
        stub(good, "glob", _glob_hit("/ok.txt", False, a), calls=route_calls if good is routed else None)
        stub(bad, "grep", lambda *_a, **_k: a.P.GrepResult(error=f"{failing} grep broke"))
        stub(bad, "ls", lambda *_a, **_k: a.P.LsResult(error="Error: connection to sandbox lost"))
        out = run_ops(
            comp,
            call,
            [
                ("glob", "*.txt", "/"),
                ("grep", "test", "/"),
                ("grep", "test", "/memories/"),
                ("ls", "/"),
                ("ls", "/memories/"),
            ],
        )
        out["route globbed"] = route_calls
        return out

    ref = same(scenario, mode)
    assert ref["glob *.txt /"]["error"] == "sandbox RPC failed"
    assert ref["grep test /"]["error"] == f"{failing} grep broke"
    if failing == "default":
        # A failing default stops the merge before any route is asked.
        assert ref["route globbed"] == []
        assert ref["ls /"]["error"] == "Error: connection to sandbox lost" and ref["ls /"]["entries"] is None
    else:
        assert ref["grep test /memories/"]["error"] == "route grep broke"


# --------------------------------------------------------------------------------------------
# max_count across routes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", CALL_MODES)
def test_grep_cap_across_routes(mode: str) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        comp, _default, _routed = pair(a)
        run_ops(comp, call, [("write", "/root_a.txt", "hit\nhit\n"), ("write", "/memories/mem_a.txt", "hit\nhit\n")])
        out = {
            "capped": call(comp, "grep", "hit", path="/", max_count=3),
            "uncapped": call(comp, "grep", "hit", path="/"),
            "roomy": call(comp, "grep", "hit", path="/", max_count=4),
        }
        store = InMemoryStore()
        asked: list[str] = []
        routed = in_store(a, store, "r")
        stub(routed, "grep", lambda *_a, **_k: a.P.GrepResult(matches=[]), calls=asked)
        full = a.CompositeBackend(default=in_store(a, store, "d"), routes={"/memories/": routed})
        call(full, "write", "/root.txt", "hit\nhit\nhit\n")
        out["default fills cap"] = call(full, "grep", "hit", path="/", max_count=2)
        out["route asked"] = asked
        return out

    ref = same(scenario, mode)
    assert len(ref["capped"]["matches"]) == 3 and ref["capped"]["truncated"] is True
    assert len(ref["uncapped"]["matches"]) == 4 and ref["uncapped"]["truncated"] is False
    assert len(ref["default fills cap"]["matches"]) == 2 and ref["default fills cap"]["truncated"] is True
    assert ref["route asked"] == []


@pytest.mark.parametrize("mode", CALL_MODES)
def test_grep_cap_with_children_lacking_max_count(mode: str) -> None:
    """Children written before ``max_count`` existed: it is not passed to them, and the
    composite applies the cap to what they return."""

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        seen: list[Any] = []

        class OldStyle(a.BackendProtocol):
            def __init__(self, found: list[str]) -> None:
                self.found = found

            def grep(self, pattern: str, path: str | None = None, glob: str | None = None) -> Any:
                seen.append(("sync", pattern, path, glob))
                return a.P.GrepResult(matches=[{"path": p, "line": 1, "text": pattern} for p in self.found])

            async def agrep(self, pattern: str, path: str | None = None, glob: str | None = None) -> Any:
                seen.append(("async", pattern, path, glob))
                return a.P.GrepResult(matches=[{"path": p, "line": 1, "text": pattern} for p in self.found])

        comp = a.CompositeBackend(
            default=OldStyle(["/default.txt"]), routes={"/legacy/": OldStyle(["/one.txt", "/two.txt", "/three.txt"])}
        )
        out = {
            "all": call(comp, "grep", "needle", path="/"),
            "two": call(comp, "grep", "needle", path="/", max_count=2),
        }
        out["seen"] = seen
        return out

    ref = same(scenario, mode)
    assert len(ref["all"]["matches"]) == 4 and ref["all"]["truncated"] is False
    assert paths(ref["two"], "matches") == ["/default.txt", "/legacy/one.txt"] and ref["two"]["truncated"] is True
