"""Parity: ``ContextHubBackend`` over a mocked langsmith ``Client``, one caller at a time.

Both implementations get a ``MagicMock`` client configured the same way (what ``pull_agent``
returns or raises, what ``push_agent`` answers); each runs the same operations, and the
results, every commit sent (``push_agent`` arguments, entries reduced to their text or
``None`` for a deletion) and the number of pulls must match. Concurrent callers and commit
batching are in ``test_hosted_hub_batching.py``.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import MagicMock, patch

import pytest
from langsmith.schemas import AgentEntry, FileEntry, SkillEntry
from langsmith.utils import LangSmithAPIError, LangSmithConflictError, LangSmithNotFoundError

from .backend_direct import IMPLS, _differences, attempt, impl_api, view

HASH = "0123abcd" * 8
URL = "https://host/context/my-agent/ef567890?organizationId=org-id"
OLD_STYLE_URL = "https://host/hub/-/my-agent:ef567890"
NO_HASH_URL = "https://host/context/my-agent?organizationId=org-id"


def tree(commit_hash: str | None = HASH, **files: Any) -> SimpleNamespace:
    """What ``pull_agent`` returns: files given as text (file entries) or entries."""
    entries = {k: FileEntry(type="file", content=v) if isinstance(v, str) else v for k, v in files.items()}
    return SimpleNamespace(commit_id="c-" + (commit_hash or "none")[:6], commit_hash=commit_hash, files=entries)


def hub_module(impl: str) -> Any:
    return importlib.import_module(f"{impl}.backends.context_hub")


def client(pull: Any = None, push: Any = URL) -> MagicMock:
    """``pull``/``push``: a value, an exception, or a list (one per call)."""
    mock = MagicMock()
    for target, spec in ((mock.pull_agent, pull if pull is not None else tree()), (mock.push_agent, push)):
        if isinstance(spec, (BaseException, list)):
            target.side_effect = spec
        else:
            target.return_value = spec
    return mock


def commits(mock: MagicMock) -> list[Any]:
    out = []
    for call in mock.push_agent.call_args_list:
        files = {k: None if v is None else (v.type, v.content) for k, v in call.kwargs.get("files", {}).items()}
        out.append((call.args, {**call.kwargs, "files": files}))
    return out


Steps = Callable[[Any, Any], dict[str, Any]]


def hub_both(make_client: Callable[[], MagicMock], steps: Steps) -> dict[str, Any]:
    """Run ``steps(backend, module)`` per implementation; results plus commits and pulls."""
    out = {}
    for impl in IMPLS:
        mock = make_client()
        module = hub_module(impl)
        backend = module.ContextHubBackend("-/my-agent", client=mock)
        result = view(attempt(lambda backend=backend, module=module: steps(backend, module)))
        out[impl] = {"result": result, "commits": view(commits(mock)), "pulls": mock.pull_agent.call_count}
    assert out["deepagents_rs"] == out["deepagents"], _differences(out["deepagents"], out["deepagents_rs"])
    ref = out["deepagents"]
    assert not (isinstance(ref["result"], tuple) and ref["result"][0] == "raised"), ref["result"]
    return ref


def ops(*steps: tuple[Any, ...]) -> Steps:
    """``(label, method, *args)`` in turn; an exception is that step's result."""

    def run(backend: Any, _module: Any) -> dict[str, Any]:
        return {label: attempt(lambda m=method, a=args: getattr(backend, m)(*a)) for label, method, *args in steps}

    return run


SEED = {
    "AGENTS.md": "# hi\nworld",
    "a.md": "1\n2\n3\n4\n5",
    "memories/day1.md": "m1 hello\n",
    "memories/day2.md": "m2\n",
    "src/main.py": "import os",
    "main.py": "import os",
    "lit.{py,md}": "hit",
    "x.py": "hit",
    "notes.md": "items[0]\nhello\n",
    "skills/code-reviewer": SkillEntry(type="skill", repo_handle="code-reviewer"),
    "skills/s": SkillEntry(type="skill", repo_handle="s"),
    "skills/s/skill.md": "expanded",
    "subagents/planner": AgentEntry(type="agent", repo_handle="planner"),
}


def test_reads_listings_and_searches() -> None:
    ref = hub_both(
        lambda: client(tree(**SEED)),
        ops(
            ("whole", "read", "/AGENTS.md"),
            ("slice", "read", "/a.md", 1, 2),
            ("missing", "read", "/missing.md"),
            ("expanded", "read", "/skills/s/skill.md"),
            ("root", "ls", "/"),
            ("memories", "ls", "/memories"),
            ("grep", "grep", "hello"),
            ("grep_scoped", "grep", "hello", "/memories"),
            ("grep_py", "grep", "import", None, "*.py"),
            ("grep_full_path_glob", "grep", "import", None, "src/*.py"),
            ("grep_braces", "grep", "hit", None, "*.{py,md}"),
            ("grep_bracket", "grep", "["),
            ("glob_md", "glob", "*.md"),
            ("glob_deep", "glob", "**/*.md", "/memories"),
            ("download", "download_files", ["/AGENTS.md", "/nope.md"]),
            ("linked", "get_linked_entries"),
            ("prior", "has_prior_commits"),
        ),
    )
    r = ref["result"]
    assert r["whole"]["file_data"]["content"] == "# hi\nworld"
    assert r["slice"]["file_data"]["content"] == "2\n3\n"
    assert (r["slice"]["total_lines"], r["slice"]["start_line"], r["slice"]["end_line"], r["slice"]["next_offset"]) == (
        5,
        2,
        3,
        3,
    )
    assert r["missing"]["error"] == "File '/missing.md' not found"
    entries = {e["path"]: e["is_dir"] for e in r["root"]["entries"]}
    assert entries["/AGENTS.md"] is False and entries["/memories"] is True
    assert [m["path"] for m in r["grep_scoped"]["matches"]] == ["/memories/day1.md"]
    assert {m["path"] for m in r["grep_py"]["matches"]} == {"/src/main.py", "/main.py"}
    assert [m["path"] for m in r["grep_full_path_glob"]["matches"]] == ["/src/main.py"]
    assert [m["path"] for m in r["grep_braces"]["matches"]] == ["/lit.{py,md}"]
    assert r["grep_bracket"]["matches"] == [{"path": "/notes.md", "line": 1, "text": "items[0]"}]
    assert [d["error"] for d in r["download"]] == [None, "file_not_found"] and r["download"][0][
        "content"
    ] == b"# hi\nworld"
    assert r["linked"] == {"skills/code-reviewer": "code-reviewer", "skills/s": "s", "subagents/planner": "planner"}
    assert r["prior"] is True and ref["pulls"] == 1 and ref["commits"] == []


@pytest.mark.parametrize(("cap", "count", "cut"), [(2, 2, True), (3, 3, False), (None, 3, False)])
def test_grep_cap(cap: int | None, count: int, cut: bool) -> None:
    ref = hub_both(
        lambda: client(tree(**{"a.md": "hit\nhit\n", "b.md": "hit\n"})), lambda b, _m: b.grep("hit", max_count=cap)
    )
    assert len(ref["result"]["matches"]) == count and ref["result"]["truncated"] is cut


REFUSED = "{a,b}" * 40 + "*.py"


def _refused_globs(backend: Any, _module: Any) -> list[Any]:
    return [backend.glob(REFUSED), asyncio.run(backend.aglob(REFUSED))]


def test_refused_glob() -> None:
    """A pattern wcmatch refuses is an error result, sync and async; the reason after the
    pattern is compared in the next test."""

    def steps(backend: Any, module: Any) -> list[Any]:
        results = _refused_globs(backend, module)
        for r in results:
            r.error = r.error.split("': ")[0]
        return results

    results = hub_both(client, steps)["result"]
    assert [r["error"] for r in results] == [f"Invalid glob pattern '{REFUSED}"] * 2
    assert [r["matches"] for r in results] == [None, None]


def test_refused_glob_reason() -> None:
    """A pattern over the brace-expansion limit is refused in wcmatch's words."""
    hub_both(client, _refused_globs)


# --------------------------------------------------------------------------------------------
# Pull failures
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "failure",
    [LangSmithNotFoundError("not found"), LangSmithAPIError("hub 5xx"), RuntimeError("boom")],
    ids=["404", "5xx", "unexpected"],
)
def test_pull_failures(failure: Exception) -> None:
    steps = ops(
        ("read", "read", "/any.md"),
        ("ls", "ls", "/"),
        ("download", "download_files", ["/a.md"]),
        ("prior", "has_prior_commits"),
        ("write", "write", "/seed.md", "hello"),
        ("prior_after", "has_prior_commits"),
    )
    r = hub_both(lambda: client(pull=failure), steps)["result"]
    if isinstance(failure, LangSmithNotFoundError):
        # A repository that does not exist yet is empty, and a first write creates it.
        assert r["read"]["error"] == "File '/any.md' not found"
        assert (r["prior"], r["prior_after"]) == (False, True)
    elif isinstance(failure, LangSmithAPIError):
        assert all("Hub unavailable: hub 5xx" in r[k]["error"] for k in ("read", "ls"))
        assert "Hub unavailable" in r["download"][0]["error"]
    else:
        assert r["read"] == ("raised", "RuntimeError", "boom")


# --------------------------------------------------------------------------------------------
# Commits
# --------------------------------------------------------------------------------------------


def test_writes_edits_and_deletes_commit() -> None:
    seed = {"e.md": "hello world", "x.md": "x x x", "work/a.md": "a", "work/sub/b.md": "b", "keep.md": "k", **SEED}
    ref = hub_both(
        lambda: client(tree(**seed)),
        ops(
            ("read", "read", "/e.md"),
            ("write", "write", "/notes.md", "# hi"),
            ("read_back", "read", "/notes.md"),
            ("sibling", "write", "/skills/code-reviewer.md", "sibling"),
            ("edit", "edit", "/e.md", "world", "earth"),
            ("edit_missing", "edit", "/missing.md", "x", "y"),
            ("edit_ambiguous", "edit", "/x.md", "x", "y"),
            ("edit_all", "edit", "/x.md", "x", "y", True),
            ("delete", "delete", "/keep.md"),
            ("read_deleted", "read", "/keep.md"),
            ("delete_tree", "delete", "/work"),
            ("delete_missing", "delete", "/ghost.md"),
            (
                "upload",
                "upload_files",
                [("/u/a.md", b"alpha"), ("/bad.bin", b"\x80\x81"), ("/u/b.md", b"beta"), ("/u/a.md", b"again")],
            ),
            ("upload_binary_only", "upload_files", [("/x.bin", b"\x80\x81\xff")]),
        ),
    )
    r, sent = ref["result"], ref["commits"]
    assert r["write"]["path"] == "/notes.md" and r["read_back"]["file_data"]["content"] == "# hi"
    assert sent[0][0] == ["-/my-agent"]
    assert sent[0][1]["files"] == {"notes.md": ["file", "# hi"]} and sent[0][1]["parent_commit"] == HASH
    assert sent[1][1]["parent_commit"] == "ef567890"
    assert r["edit"]["occurrences"] == 1 and sent[2][1]["files"] == {"e.md": ["file", "hello earth"]}
    assert "not found" in r["edit_missing"]["error"] and "3 times" in r["edit_ambiguous"]["error"]
    assert r["edit_all"]["occurrences"] == 3
    assert r["delete"]["path"] == "/keep.md" and sent[4][1]["files"] == {"keep.md": None}
    assert r["read_deleted"]["error"] == "File '/keep.md' not found"
    assert sent[5][1]["files"] == {"work/a.md": None, "work/sub/b.md": None}
    assert r["delete_missing"]["path"] is None and "not found" in r["delete_missing"]["error"]
    assert [u["error"] for u in r["upload"]] == [None, "invalid_path", None, None]
    assert sent[6][1]["files"] == {"u/a.md": ["file", "again"], "u/b.md": ["file", "beta"]}
    assert r["upload_binary_only"][0]["error"] == "invalid_path" and len(sent) == 7
    assert ref["pulls"] == 1


@pytest.mark.parametrize("url", [URL, OLD_STYLE_URL], ids=["context", "hub"])
def test_next_parent_comes_from_the_commit_url(url: str) -> None:
    ref = hub_both(lambda: client(push=[url, URL]), ops(("a", "write", "/a.md", "a"), ("b", "write", "/b.md", "b")))
    assert [c[1]["parent_commit"] for c in ref["commits"]] == [HASH, "ef567890"]


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("action", ["write", "delete", "upload"])
def test_failed_commit_drops_the_cached_tree(action: str, mode: str) -> None:
    def steps(backend: Any, _module: Any) -> dict[str, Any]:
        call = {
            "write": ("write", "/b.md", "b"),
            "delete": ("delete", "/a.md"),
            "upload": ("upload_files", [("/a.md", b"alpha"), ("/b.md", b"beta"), ("/bad.bin", b"\x80")]),
        }[action]
        fn = getattr(backend, call[0] if mode == "sync" else f"a{call[0]}")
        result = fn(*call[1:]) if mode == "sync" else asyncio.run(fn(*call[1:]))
        return {"result": result, "read": backend.read("/a.md")}

    ref = hub_both(lambda: client(tree(**{"a.md": "a"}), push=LangSmithAPIError("500")), steps)
    result = ref["result"]["result"]
    errors = [r["error"] for r in result] if action == "upload" else [result["error"]]
    assert all("Hub unavailable" in e for e in errors[:2]) and ref["pulls"] == 2 and len(ref["commits"]) == 1
    if action == "upload":
        assert errors[2] == "invalid_path"


def test_async_delete() -> None:
    def steps(backend: Any, _module: Any) -> dict[str, Any]:
        return {
            "delete": asyncio.run(backend.adelete("/a.md")),
            "ghost": asyncio.run(backend.adelete("/ghost.md")),
            "read": backend.read("/a.md"),
        }

    ref = hub_both(lambda: client(tree(**{"a.md": "bye"})), steps)
    assert ref["result"]["delete"]["path"] == "/a.md" and "not found" in ref["result"]["ghost"]["error"]
    assert ref["commits"][0][1]["files"] == {"a.md": None} and ref["pulls"] == 1


def test_conflicts_retry_three_times() -> None:
    pulls = [tree(f"{i + 1:064x}") for i in range(4)]
    ref = hub_both(
        lambda: client(pull=list(pulls), push=LangSmithConflictError("409")), lambda b, _m: b.write("/l.md", "l")
    )
    assert "Hub unavailable" in ref["result"]["error"]
    assert [c[1]["parent_commit"] for c in ref["commits"]] == [f"{i + 1:064x}" for i in range(4)] and ref["pulls"] == 4


def test_commit_without_a_resolvable_hash() -> None:
    """A commit URL without a hash makes the backend pull to learn it; when that pull has no
    hash either, the write fails and the backend starts over clean."""

    def steps(backend: Any, _module: Any) -> dict[str, Any]:
        out = {"write": attempt(lambda: backend.write("/local.md", "local"))}
        queue = backend._mutations
        out["state"] = (backend._worker, backend._cache, list(queue.pending), list(queue.in_flight))
        return out

    ref = hub_both(lambda: client(pull=[tree(), tree(None, **{"local.md": "local"})], push=NO_HASH_URL), steps)
    assert ref["result"]["write"][:2] == ("raised", "RuntimeError")
    assert "commit succeeded but its hash could not be resolved" in ref["result"]["write"][2]
    assert ref["result"]["state"] == [None, None, [], []] and ref["pulls"] == 2


def test_worker_that_cannot_start() -> None:
    def steps(backend: Any, module: Any) -> dict[str, Any]:
        worker = MagicMock()
        worker.start.side_effect = RuntimeError("thread start failed")
        with patch.object(module.threading, "Thread", return_value=worker):
            failed = attempt(lambda: backend.write("/failed.md", "failed"))
        queue = backend._mutations
        state = (list(queue.pending), list(queue.in_flight), queue.deadline, backend._worker)
        return {"failed": failed, "state": state, "recovered": backend.write("/ok.md", "ok")}

    ref = hub_both(client, steps)
    assert ref["result"]["failed"] == ("raised", "RuntimeError", "thread start failed")
    assert ref["result"]["state"] == [[], [], None, None] and len(ref["commits"]) == 1


def test_default_client() -> None:
    for impl in IMPLS:
        with patch(f"{impl}.backends.context_hub.Client") as made:
            hub_module(impl).ContextHubBackend("-/x")
        made.assert_called_once_with()


def test_behind_a_composite_route(tmp_path: Path) -> None:
    def steps_for(impl: str) -> Callable[[Any, Any], dict[str, Any]]:
        def steps(backend: Any, _module: Any) -> dict[str, Any]:
            a = impl_api(impl)
            root = tmp_path / impl
            root.mkdir()
            comp = a.CompositeBackend(
                default=a.FilesystemBackend(root_dir=str(root), virtual_mode=True), routes={"/memories/": backend}
            )
            out = {
                "write": comp.write("/memories/notes.md", "hello hub"),
                "read": comp.read("/memories/notes.md"),
                "outside": comp.write("/fs-only.txt", "default side"),
                "ls": comp.ls("/memories/"),
                "grep": comp.grep("hello", path="/memories"),
                "glob": comp.glob("*.md", path="/memories"),
            }
            out["disk"] = (root / "fs-only.txt").read_text()
            return out

        return steps

    out = {}
    for impl in IMPLS:
        mock = client()
        backend = hub_module(impl).ContextHubBackend("-/my-agent", client=mock)
        out[impl] = (view(steps_for(impl)(backend, None)), view(commits(mock)))
    assert out["deepagents_rs"] == out["deepagents"]
    result, sent = out["deepagents"]
    assert sent[0][1]["files"] == {"notes.md": ["file", "hello hub"]} and len(sent) == 1
    assert result["read"]["file_data"]["content"] == "hello hub" and result["disk"] == "default side"
    assert [e["path"] for e in result["ls"]["entries"]] == ["/memories/notes.md"]
    assert (
        [m["path"] for m in result["grep"]["matches"]]
        == [m["path"] for m in result["glob"]["matches"]]
        == ["/memories/notes.md"]
    )
