"""Parity: what each backend configuration offers the model (tool list with full schemas and
descriptions, system prompt), ``execute`` on ``LocalShellBackend``, ``CompositeBackend``
routing, ``StoreBackend`` with an explicit store, large-result eviction into the backend,
and a backend written in Python against ``BackendProtocol``.

The per-tool scenarios on every stock backend are in ``test_files_tools.py``; permissions are
in ``test_files_permissions.py``. ``PARITY_REF_ONLY=1`` runs the deepagents side alone.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .fs_support import (
    FS_TOOLS,
    MODES,
    REF_ONLY,
    STORE_NAMESPACE,
    Tree,
    ai_tool_calls,
    check,
    check_error,
    file_data,
    run_fs,
    store_items,
    tool_msgs,
    tool_results,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

SEED = {"notes.txt": "alpha\nbeta\n", "src/app.py": "print('hello')\n"}


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def _ns(_runtime: Any) -> tuple[str, ...]:
    return STORE_NAMESPACE


# --------------------------------------------------------------------------------------------
# A backend written in Python, as a user would: a dict of texts; no delete, grep without
# max_count, reads without window metadata. One instance per implementation, built from that
# implementation's own BackendProtocol and result types.
# --------------------------------------------------------------------------------------------


def make_dict_backend(a: SimpleNamespace, files: dict[str, str]) -> Any:
    P = a.protocol

    class DictBackend(a.BackendProtocol):
        def __init__(self) -> None:
            self.files = dict(files)

        def ls(self, path: str) -> Any:
            if path == "/broken":
                return P.LsResult(error="backend unavailable")
            prefix = path.rstrip("/") + "/"
            names = sorted({k[len(prefix) :].split("/")[0] for k in self.files if k.startswith(prefix)})
            entries = [
                {"path": prefix + n, "is_dir": False}
                if prefix + n in self.files
                else {"path": prefix + n + "/", "is_dir": True}
                for n in names
            ]
            return P.LsResult(entries=entries)

        def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> Any:
            if file_path not in self.files:
                return P.ReadResult(error=f"no such file: {file_path}")
            lines = self.files[file_path].splitlines(keepends=True)[max(offset, 0) : max(offset, 0) + max(limit, 0)]
            return P.ReadResult(file_data={"content": "".join(lines), "encoding": "utf-8"})

        def write(self, file_path: str, content: str) -> Any:
            self.files[file_path] = content
            return P.WriteResult(path=file_path)

        def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> Any:
            text = self.files.get(file_path)
            if text is None:
                return P.EditResult(error=f"cannot edit {file_path}: missing")
            count = text.count(old_string)
            if count == 0 or (count > 1 and not replace_all):
                return P.EditResult(error=f"cannot edit {file_path}: {count} matches")
            self.files[file_path] = text.replace(old_string, new_string, -1 if replace_all else 1)
            return P.EditResult(path=file_path, occurrences=count if replace_all else 1)

        def glob(self, pattern: str, path: str | None = None) -> Any:
            if pattern == "boom":
                raise RuntimeError("glob exploded")
            base = (path or "/").rstrip("/") + "/"
            hits = [
                {"path": k}
                for k in sorted(self.files)
                if k.startswith(base) and fnmatch.fnmatch(k[len(base) :], pattern)
            ]
            return P.GlobResult(
                matches=hits, truncated=pattern == "*.md", truncation_reason="unreadable" if pattern == "*.md" else None
            )

        def grep(self, pattern: str, path: str | None = None, glob: str | None = None) -> Any:
            matches = [
                {"path": k, "line": i, "text": line}
                for k in sorted(self.files)
                if k.startswith(path or "/") and (glob is None or fnmatch.fnmatch(k.rsplit("/", 1)[-1], glob))
                for i, line in enumerate(self.files[k].splitlines(), start=1)
                if pattern in line
            ]
            error = "could not read /locked.txt" if pattern == "partial" else None
            return P.GrepResult(matches=matches, error=error)

    return DictBackend()


DICT_FILES = {
    "/notes.md": "one\ntwo\nthree\nfour\n",
    "/src/app.py": "x = 'partial'\nprint(x)\n",
    "/src/lib.py": "y = 'partial'\n",
}


# --------------------------------------------------------------------------------------------
# What the model is offered in each configuration
# --------------------------------------------------------------------------------------------

#: name -> (setup(api, root) -> create kwargs, expected tool names)
CONFIGS: dict[str, tuple[Callable[[SimpleNamespace, Path], dict[str, Any]], list[str]]] = {
    "default": (lambda a, root: {}, [*FS_TOOLS, "task"]),
    "state": (lambda a, root: {"backend": a.StateBackend()}, [*FS_TOOLS, "task"]),
    "fs_virtual": (
        lambda a, root: {"backend": a.FilesystemBackend(root_dir=root, virtual_mode=True)},
        [*FS_TOOLS, "task"],
    ),
    "fs_real": (
        lambda a, root: {"backend": a.FilesystemBackend(root_dir=root, virtual_mode=False)},
        [*FS_TOOLS, "task"],
    ),
    "shell": (
        lambda a, root: {"backend": a.LocalShellBackend(root_dir=root, virtual_mode=True)},
        [*FS_TOOLS, "execute", "task"],
    ),
    "store": (
        lambda a, root: {"backend": a.StoreBackend(namespace=_ns), "store": _memory_store()},
        [*FS_TOOLS, "task"],
    ),
    "composite": (
        lambda a, root: {
            "backend": a.CompositeBackend(
                default=a.StateBackend(), routes={"/disk/": a.FilesystemBackend(root_dir=root, virtual_mode=True)}
            )
        },
        [*FS_TOOLS, "task"],
    ),
    "composite_shell": (
        lambda a, root: {
            "backend": a.CompositeBackend(
                default=a.LocalShellBackend(root_dir=root / "work", virtual_mode=True),
                routes={
                    "/shared/": a.FilesystemBackend(root_dir=root / "shared", virtual_mode=True),
                    "/legacy/": a.FilesystemBackend(root_dir=root, virtual_mode=False),
                    "/memories/": a.StoreBackend(namespace=_ns),
                },
            ),
            "store": _memory_store(),
        },
        [*FS_TOOLS, "execute", "task"],
    ),
    "custom": (
        lambda a, root: {"backend": make_dict_backend(a, DICT_FILES)},
        ["ls", "read_file", "write_file", "edit_file", "glob", "grep", "task"],
    ),
    "user_tools_and_prompt": (
        lambda a, root: {
            "system_prompt": "You are careful.",
            "subagents": [{"name": "helper", "description": "Helps."}],
        },
        [*FS_TOOLS, "task", "lookup"],
    ),
}


def _memory_store() -> Any:
    from langgraph.store.memory import InMemoryStore

    return InMemoryStore()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("config", list(CONFIGS))
def test_tools_and_system_prompt_offered(config: str, mode: str, tmp_path: Path) -> None:
    setup, expected = CONFIGS[config]
    root = tmp_path / "root"
    tree = Tree(root, {"work/keep.txt": "k\n", "shared/s.txt": "s\n"})
    tools = [lookup] if config == "user_tools_and_prompt" else None
    run = run_fs(["done"], mode=mode, setup=lambda a: setup(a, root), tree=tree, tools=tools)
    check(run)
    call = run.ref.calls[0]
    assert call.tool_names == expected
    assert call.kwargs == {"tool_choice": None}
    by_name = {t["function"]["name"]: t["function"] for t in call.tools}
    rg_hint = "If you genuinely need regex, use the execute tool"
    assert (rg_hint in by_name["grep"]["description"]) == ("execute" in expected)
    system = call.messages[0]
    assert system.type == "system"
    if config == "composite_shell":
        # Appended to the empty base prompt as a content block, not a string.
        (block,) = system.content
        assert block["type"] == "text" and block["text"].startswith("## Shell paths vs. virtual paths\n")
        assert f"- `/shared/` -> `{root / 'shared'}/`" in block["text"]
        assert "- `/legacy/` -> `/`" in block["text"] and block["text"].endswith("\n- `/memories/`")
    elif config == "user_tools_and_prompt":
        assert system.content == "You are careful."
    else:
        assert system.content == ""


# --------------------------------------------------------------------------------------------
# execute (LocalShellBackend)
# --------------------------------------------------------------------------------------------


def shell(root: Path, **kw: Any) -> Callable[[SimpleNamespace], dict[str, Any]]:
    return lambda a: {"backend": a.LocalShellBackend(root_dir=root, virtual_mode=True, **kw)}


@pytest.mark.parametrize("mode", MODES)
def test_execute_success_and_failure(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    script = [
        ai_tool_calls(
            ("execute", {"command": "echo hello && cat notes.txt"}),
            ("execute", {"command": "echo out; echo err >&2; exit 3"}),
            ("execute", {"command": "true"}),
        ),
        ai_tool_calls(("execute", {"command": "printf 'made\\n' > made.txt && ls"})),
        ai_tool_calls(("read_file", {"file_path": "/made.txt"})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=shell(root), tree=Tree(root, SEED))
    msgs = tool_msgs(check(run))
    assert msgs[0].content == "hello\nalpha\nbeta\n\n[Command succeeded with exit code 0]"
    assert msgs[0].artifact == {"truncated": False, "exit_code": 0}
    assert msgs[1].content == "out\n\n[stderr] err\n\nExit code: 3\n[Command failed with exit code 3]"
    assert msgs[1].status == "success" and msgs[1].artifact == {"truncated": False, "exit_code": 3}
    assert msgs[2].content == "<no output>\n[Command succeeded with exit code 0]"
    assert msgs[3].content == "made.txt\nnotes.txt\nsrc\n\n[Command succeeded with exit code 0]"
    assert msgs[4].content == "@@ lines 1-1 of 1 @@\nmade"
    assert run.disk["deepagents"]["made.txt"] == b"made\n"


@pytest.mark.parametrize("mode", MODES)
def test_execute_timeouts(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    script = [
        ai_tool_calls(
            ("execute", {"command": "sleep 3; echo late", "timeout": 1}),
            ("execute", {"command": "echo x", "timeout": -1}),
            ("execute", {"command": "echo x", "timeout": 4000}),
            ("execute", {"command": "echo x", "timeout": 0}),
            ("execute", {"command": "echo in time", "timeout": 30}),
        ),
        ai_tool_calls(("execute", {"command": "sleep 3"})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=shell(root, timeout=1), tree=Tree(root, SEED))
    out = tool_results(check(run))
    assert out[0] == (
        "execute",
        (
            "Error: Command timed out after 1 seconds (custom timeout). The command may be stuck or require more time."
            "\n[Command failed with exit code 124]"
        ),
        "success",
    )
    assert out[1] == ("execute", "Error: timeout must be non-negative, got -1.", "error")
    assert out[2] == ("execute", "Error: timeout 4000s exceeds maximum allowed (3600s).", "error")
    assert out[3] == ("execute", "Error: Invalid parameter. timeout must be positive, got 0", "error")
    assert out[4][1] == "in time\n\n[Command succeeded with exit code 0]"
    assert out[5][1].startswith("Error: Command timed out after 1 seconds. For long-running commands")


@pytest.mark.parametrize("mode", MODES)
def test_execute_output_truncation(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    script = [ai_tool_calls(("execute", {"command": "seq 1 100"}), ("execute", {"command": "seq 1 5; exit 1"})), "done"]
    run = run_fs(script, mode=mode, setup=shell(root, max_output_bytes=40), tree=Tree(root, SEED))
    msgs = tool_msgs(check(run))
    assert msgs[0].content.endswith(
        "\n\n... Output truncated at 40 bytes.\n[Command succeeded with exit code 0]\n[Output was truncated due to size limits]"
    )
    assert msgs[0].artifact == {"truncated": True, "exit_code": 0}
    assert msgs[1].artifact == {"truncated": False, "exit_code": 1}


@pytest.mark.parametrize("mode", MODES)
def test_execute_large_output_is_evicted_to_the_backend(mode: str, tmp_path: Path) -> None:
    """Over 80k chars (20k tokens) the result is written to /large_tool_results/<call id> and
    the model gets a preview; the file lands in the shell's root."""
    root = tmp_path / "root"
    script = [
        ai_tool_calls(("execute", {"command": "seq 100000 125000"}, "big_1")),
        ai_tool_calls(("read_file", {"file_path": "/large_tool_results/big_1", "offset": 0, "limit": 3})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=shell(root), tree=Tree(root, SEED))
    msgs = tool_msgs(check(run))
    assert "/large_tool_results/big_1" in msgs[0].content and len(msgs[0].content) < 10_000
    assert msgs[0].artifact == {"truncated": True, "exit_code": 0}
    assert msgs[1].content.startswith("@@ lines 1-3 of 1429") and msgs[1].content.endswith("\n100000\n100001\n100002")
    assert run.disk["deepagents"]["large_tool_results/big_1"].startswith(b"100000\n100001\n")


@pytest.mark.parametrize("mode", MODES)
def test_execute_is_hidden_without_a_sandbox(mode: str) -> None:
    """The tool node still has ``execute``: a model that calls it anyway gets an error result."""
    script = [ai_tool_calls(("execute", {"command": "echo hi"})), "done"]
    run = run_fs(script, mode=mode)
    out = tool_results(check(run))
    assert "execute" not in run.ref.calls[0].tool_names
    assert out == [
        (
            "execute",
            (
                "Error: Execution not available. This agent's backend does not support command execution "
                "(SandboxBackendProtocol). To use the execute tool, provide a backend that implements "
                "SandboxBackendProtocol."
            ),
            "error",
        )
    ]


@pytest.mark.parametrize("mode", MODES)
def test_large_user_tool_result_is_evicted_into_state(mode: str) -> None:
    def dump(n: int) -> str:
        """Return n numbered lines."""
        return "".join(f"row {i:06d}\n" for i in range(n))

    script = [ai_tool_calls(("dump", {"n": 9000}, "d1")), ai_tool_calls(("grep", {"pattern": "row 008999"})), "done"]
    run = run_fs(script, mode=mode, tools=[dump])
    result = check(run)
    msgs = tool_msgs(result)
    assert msgs[0].content.startswith("Tool result too large") and "/large_tool_results/d1" in msgs[0].content
    assert msgs[1].content == "/large_tool_results/d1"
    assert result["files"]["/large_tool_results/d1"]["content"] == dump(9000)


# --------------------------------------------------------------------------------------------
# CompositeBackend
# --------------------------------------------------------------------------------------------


def composite(root: Path) -> Callable[[SimpleNamespace], dict[str, Any]]:
    return lambda a: {
        "backend": a.CompositeBackend(
            default=a.StateBackend(), routes={"/disk/": a.FilesystemBackend(root_dir=root, virtual_mode=True)}
        )
    }


@pytest.mark.parametrize("mode", MODES)
def test_composite_routes_to_disk_and_state(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    inp = {"messages": [{"role": "user", "content": "go"}], "files": {"/mem.txt": file_data("in state\nhello\n")}}
    # Calls in one AI message run concurrently: none of them reads what another one changes.
    script = [
        ai_tool_calls(
            ("ls", {"path": "/"}),
            ("ls", {"path": "/disk"}),
            ("read_file", {"file_path": "/disk/notes.txt"}),
            ("read_file", {"file_path": "/disk/missing.txt"}),
        ),
        ai_tool_calls(
            ("write_file", {"file_path": "/disk/new/out.txt", "content": "on disk\nhello\n"}),
            ("write_file", {"file_path": "/scratch.txt", "content": "in state too\n"}),
            ("edit_file", {"file_path": "/disk/notes.txt", "old_string": "beta", "new_string": "BETA"}),
        ),
        ai_tool_calls(("glob", {"pattern": "**/*.txt"}), ("grep", {"pattern": "hello", "output_mode": "content"})),
        ai_tool_calls(("delete", {"file_path": "/disk/src"}), ("delete", {"file_path": "/mem.txt"})),
        ai_tool_calls(("glob", {"pattern": "*.py", "path": "/disk"}), ("ls", {"path": "/"})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=composite(root), tree=Tree(root, SEED), inp=inp)
    result = check(run)
    out = [c for _, c, _ in tool_results(result)]
    assert out[0] == "['/disk/', '/mem.txt']"
    assert out[1] == "['/disk/notes.txt', '/disk/src/']"
    assert out[2] == "@@ lines 1-2 of 2 @@\nalpha\nbeta"
    # The route's backend reports paths without the route prefix.
    assert out[3] == "Error: File '/missing.txt' not found"
    assert out[4] == "Updated file /disk/new/out.txt"
    assert out[7] == "['/disk/new/out.txt', '/disk/notes.txt', '/mem.txt', '/scratch.txt']"
    assert out[8] == "/disk/new/out.txt:\n  2: hello\n/disk/src/app.py:\n  1: print('hello')\n/mem.txt:\n  2: hello"
    assert out[9:] == ["Deleted /disk/src", "Deleted /mem.txt", "No files found", "['/disk/', '/scratch.txt']"]
    assert set(result["files"]) == {"/scratch.txt"}
    assert run.disk["deepagents"] == {"new": "<dir>", "new/out.txt": b"on disk\nhello\n", "notes.txt": b"alpha\nBETA\n"}


# --------------------------------------------------------------------------------------------
# StoreBackend with an explicit store (the matrix in test_files_tools passes it to the agent)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_store_backend_with_its_own_store(mode: str) -> None:
    def setup(a: SimpleNamespace) -> dict[str, Any]:
        store = _memory_store()
        store.put(("team", "docs"), "/readme.md", file_data("# Team\n"))
        store.put(("other",), "/hidden.md", file_data("not in this namespace\n"))
        backend = a.StoreBackend(namespace=lambda _rt: ("team", "docs"), store=store)
        return {"backend": backend, "store": store}

    script = [
        ai_tool_calls(
            ("ls", {"path": "/"}),
            ("read_file", {"file_path": "/readme.md"}),
            ("read_file", {"file_path": "/hidden.md"}),
        ),
        # Calls in one AI message run concurrently on the shared store: writes go alone.
        ai_tool_calls(("write_file", {"file_path": "/notes/n1.md", "content": "note\n"})),
        ai_tool_calls(("glob", {"pattern": "**/*.md"}), ("glob", {"pattern": "*.md"})),
        ai_tool_calls(("delete", {"file_path": "/readme.md"})),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=setup)
    out = tool_results(check(run))
    assert out[0][1] == "['/readme.md']"
    assert out[2] == ("read_file", "Error: File '/hidden.md' not found", "error")
    assert out[4][1] == out[5][1] == "['/notes/n1.md', '/readme.md']"
    items = store_items(run.kwargs["deepagents"]["store"])
    assert set(items) == {(("team", "docs"), "/notes/n1.md"), (("other",), "/hidden.md")}
    assert items[(("team", "docs"), "/notes/n1.md")] == {
        "content": "note\n",
        "encoding": "utf-8",
        "created_at": "<timestamp>",
        "modified_at": "<timestamp>",
    }


# --------------------------------------------------------------------------------------------
# A Python BackendProtocol subclass
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_custom_backend(mode: str) -> None:
    script = [
        ai_tool_calls(
            ("ls", {"path": "/"}),
            ("ls", {"path": "/broken"}),
            ("read_file", {"file_path": "/notes.md", "offset": 1, "limit": 2}),
            ("read_file", {"file_path": "/nope.md"}),
        ),
        ai_tool_calls(
            ("write_file", {"file_path": "/src/new.py", "content": "z = 'partial'\n"}),
            ("edit_file", {"file_path": "/notes.md", "old_string": "o", "new_string": "0"}),
            ("edit_file", {"file_path": "/notes.md", "old_string": "two", "new_string": "2"}),
        ),
        ai_tool_calls(
            ("glob", {"pattern": "*.py", "path": "/src"}),
            ("glob", {"pattern": "*.md"}),
            ("glob", {"pattern": "boom"}),
            ("grep", {"pattern": "print"}),
            ("grep", {"pattern": "partial", "output_mode": "count"}),
            ("grep", {"pattern": "'", "max_count": 1, "output_mode": "content"}),
        ),
        "done",
    ]
    run = run_fs(script, mode=mode, setup=lambda a: {"backend": make_dict_backend(a, DICT_FILES)})
    out = tool_results(check(run))
    assert out[0][1] == "['/notes.md', '/src/']"
    assert out[1] == ("ls", "Error: backend unavailable", "error")
    # No window metadata from the backend: the header is derived from the requested offset.
    assert out[2] == ("read_file", "@@ lines 2-3 @@\ntwo\nthree", "success")
    assert out[3] == ("read_file", "Error: no such file: /nope.md", "error")
    assert out[4] == ("write_file", "Updated file /src/new.py", "success")
    assert out[5] == ("edit_file", "cannot edit /notes.md: 3 matches", "error")
    assert out[7][1] == "['/src/app.py', '/src/lib.py', '/src/new.py']"
    assert out[8][1].startswith("['/notes.md']\n\nNote: some directories could not be read")
    assert out[9] == ("glob", "Error: glob failed: glob exploded", "error")
    assert out[11][2] == "error" and out[11][1].startswith("could not read /locked.txt\n\nPartial matches:\n")
    assert "Note: the search stopped early" in out[12][1]


def test_custom_backend_without_delete_hides_the_tool() -> None:
    """``delete`` is only offered when the backend overrides it; a call anyway reaches the
    backend's ``NotImplementedError``, which deepagents lets out of the run."""
    script = [ai_tool_calls(("delete", {"file_path": "/notes.md"})), "done"]
    run = run_fs(script, mode="invoke", setup=lambda a: {"backend": make_dict_backend(a, DICT_FILES)})
    assert "delete" not in run.ref.calls[0].tool_names
    assert isinstance(check_error(run), NotImplementedError)


def test_permissions_with_an_executing_backend_are_refused(tmp_path: Path) -> None:
    errors = []
    for impl in ("deepagents",) if REF_ONLY else ("deepagents", "deepagents_rs"):
        from .fs_support import api

        a = api(impl)
        module = __import__(impl)
        from fake_models import ScriptedChatModel

        with pytest.raises(NotImplementedError) as info:
            module.create_deep_agent(
                model=ScriptedChatModel([]),
                backend=a.LocalShellBackend(root_dir=tmp_path, virtual_mode=True),
                permissions=[a.FilesystemPermission(operations=["write"], paths=["/**"], mode="deny")],
            )
        errors.append(str(info.value))
    assert errors[0].startswith(
        "FilesystemMiddleware does not yet support permissions with backends that provide command execution"
    )
    assert len(set(errors)) == 1
