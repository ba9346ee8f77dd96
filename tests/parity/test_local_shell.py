"""Parity: ``LocalShellBackend`` called directly: construction, ``execute`` (output, stderr,
exit codes, empty commands, timeouts, truncation, environment, working directory), the file
methods it inherits from ``FilesystemBackend``, and how the two meet (files written by one
are seen by the other; only the file methods are confined to the root).

Agent-level ``execute`` calls (tool messages, timeouts given by the model, eviction of large
output) are in ``test_files_backends.py``. Every scenario runs sync and async.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import CALL_MODES, IMPLS, Call, attempt, same
from .fs_support import Tree, api

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="LocalShellBackend runs sh")


def shell(a: SimpleNamespace, root: Path, **kwargs: Any) -> Any:
    return a.LocalShellBackend(root_dir=str(root), **kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"virtual_mode": True}, {"virtual_mode": False}], ids=str)
def test_construction(kwargs: dict[str, Any], tmp_path: Path) -> None:
    seen = {}
    for impl in IMPLS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            be = api(impl).LocalShellBackend(root_dir=str(tmp_path / "." / ""), **kwargs)
        seen[impl] = (
            [str(w.message) for w in caught],
            be.cwd,
            be.virtual_mode,
            re.fullmatch(r"local-[0-9a-f]{8}", be.id),
        )
    assert (
        seen["deepagents"][:3]
        == seen["deepagents_rs"][:3]
        == ([], tmp_path.resolve(), kwargs.get("virtual_mode", True))
    )
    assert seen["deepagents"][3] and seen["deepagents_rs"][3]


COMMANDS = [
    "echo 'plain words'",
    "cat no_such_file.txt",
    "cat here.txt",
    "printf 'to stderr\\n' >&2",
    "echo both; echo oops >&2; exit 5",
    "",
    "   ",
    "seq 1 800",
    "sh -c 'echo value=$MY_VAR'",
    "sh -c 'echo path=$PATH'",
    "echo parent=$PARENT_ONLY",
    "cat ../beside.txt",
]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("env", ["empty", "custom", "inherit"])
def test_execute(mode: str, env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARENT_ONLY", "inherited")
    root = tmp_path / "root"
    tree = Tree(root, {"here.txt": "in the root\n"})
    (tmp_path / "beside.txt").write_text("outside the root\n")
    env_kwargs = {
        "empty": {},
        "custom": {"env": {"MY_VAR": "from-env", "PATH": "/usr/bin:/bin"}},
        "inherit": {"inherit_env": True},
    }[env]

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = shell(a, root, max_output_bytes=120, **env_kwargs)
        return {cmd: call(be, "execute", cmd) for cmd in COMMANDS}

    ref = same(scenario, mode)
    if env != "empty":  # without PATH only the shell's builtins run
        assert ref["echo 'plain words'"] == {
            "<type>": "ExecuteResponse",
            "output": "plain words\n",
            "exit_code": 0,
            "truncated": False,
        }
        failed = ref["cat no_such_file.txt"]
        assert failed["exit_code"] != 0 and "[stderr]" in failed["output"] and "Exit code:" in failed["output"]
        assert ref["cat here.txt"]["output"] == "in the root\n"
        assert ref["cat ../beside.txt"]["output"] == "outside the root\n"  # the shell is not confined
        seq = ref["seq 1 800"]
        assert seq["truncated"] is True and "Output truncated" in seq["output"] and len(seq["output"]) < 200
    assert "[stderr] to stderr" in ref["printf 'to stderr\\n' >&2"]["output"]
    assert ref["echo both; echo oops >&2; exit 5"]["exit_code"] == 5
    assert ref[""]["exit_code"] == 1 and "must be a non-empty string" in ref[""]["output"]
    value = ref["sh -c 'echo value=$MY_VAR'"]["output"]
    assert value.startswith("value=from-env" if env == "custom" else "value=\n")
    assert ref["echo parent=$PARENT_ONLY"]["output"] == ("parent=inherited\n" if env == "inherit" else "parent=\n")
    if env == "custom":
        assert ref["sh -c 'echo path=$PATH'"]["output"] == "path=/usr/bin:/bin\n"


@pytest.mark.parametrize("mode", CALL_MODES)
def test_execute_timeout(mode: str, tmp_path: Path) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        return call(shell(a, tmp_path, timeout=1, inherit_env=True), "execute", "sleep 4")

    ref = same(scenario, mode)
    assert ref["exit_code"] == 124 and "timed out" in ref["output"]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_files_and_shell_together(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {})
    (tmp_path / "beside.txt").write_text("outside the root\n")

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = shell(a, root, virtual_mode=True, inherit_env=True)
        out = {
            "write": call(be, "write", "/run.sh", "#!/bin/sh\necho ran from script\n"),
            "write 2": call(be, "write", "/notes.md", "alpha\nbeta\n"),
            "edit": call(be, "edit", "/notes.md", "beta", "gamma"),
            "read": call(be, "read", "/notes.md"),
            "chmod": call(be, "execute", "chmod +x run.sh && ./run.sh"),
            "shell writes": call(be, "execute", "echo from shell > made.txt"),
            "read made": call(be, "read", "/made.txt"),
            "ls": call(be, "ls", "/"),
            "grep": call(be, "grep", "gamma"),
            "glob": call(be, "glob", "*.md"),
            "escape": attempt(lambda: call(be, "read", "/../beside.txt")),
        }
        out["disk"] = tree.snapshot()
        return out

    ref = same(scenario, mode)
    assert ref["read"]["file_data"]["content"] == "alpha\ngamma\n"
    assert ref["chmod"]["output"] == "ran from script\n"
    assert ref["read made"]["file_data"]["content"] == "from shell\n"
    assert [e["path"] for e in ref["ls"]["entries"]] == ["/made.txt", "/notes.md", "/run.sh"]
    assert [m["path"] for m in ref["grep"]["matches"]] == ["/notes.md"]
    assert [m["path"] for m in ref["glob"]["matches"]] == ["/notes.md"]
    assert ref["escape"] == ("raised", "ValueError", "Path traversal not allowed")
    assert sorted(ref["disk"]) == ["made.txt", "notes.md", "run.sh"]
