"""Parity: a deep agent's filesystem tool calls on its default state backend, end to end.

Each case is a short script of model turns run through ``deepagents`` and ``deepagents_rs``
(``invoke`` and ``ainvoke``), with no backend given or an explicit ``StateBackend()``. Besides
``fs_support.check`` (every model call, the result messages, the ``files`` state), each case
states what deepagents answered, so a scenario that stopped exercising the behaviour fails:

* several writes in one AI message all land in state (the ``files`` reducer merges them);
* ``edit_file``: one replacement, ``replace_all``, a missing file, a string not in the file,
  and two edits of one file in the same message (the second is refused);
* ``grep`` over files written in an earlier turn;
* malformed paths (``..`` segments, ``~``, Windows drive paths) come back as error tool
  messages, the run goes on, and nothing is written.

The wider per-tool matrix over every backend is in ``test_files_tools.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from .fs_support import MODES, ai_tool_calls, check, run_fs, tool_results

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

Result = tuple[str, str, str]
PARALLEL = "Error: parallel file mutations to the same path are not allowed."


def _write(path: str, content: str) -> tuple[str, dict[str, Any]]:
    return ("write_file", {"file_path": path, "content": content})


def _edit(path: str, old: str, new: str, **extra: Any) -> tuple[str, dict[str, Any]]:
    return ("edit_file", {"file_path": path, "old_string": old, "new_string": new, **extra})


@dataclass
class Case:
    id: str
    turns: list[list[tuple[str, dict[str, Any]]]]
    #: The tool messages deepagents answers with, in order: ``(tool, content, status)``.
    results: list[Result]
    #: Path -> text the ``files`` state ends with; ``None``: the path must be absent.
    files: dict[str, str | None] = field(default_factory=dict)
    #: ``"state"`` passes ``backend=StateBackend()``; ``"default"`` passes no backend.
    backend: str = "default"


CASES = [
    Case(
        "parallel-writes-to-two-paths",
        [[_write("/alpha.md", "first body"), _write("/nested/beta.md", "second body")]],
        [
            ("write_file", "Updated file /alpha.md", "success"),
            ("write_file", "Updated file /nested/beta.md", "success"),
        ],
        files={"/alpha.md": "first body", "/nested/beta.md": "second body"},
        backend="state",
    ),
    Case(
        "edit-one-occurrence",
        [[_write("/greet.py", "def greet():\n    return 'hi there'\n")], [_edit("/greet.py", "hi there", "hi all")]],
        [
            ("write_file", "Updated file /greet.py", "success"),
            ("edit_file", "Successfully replaced 1 instance(s) of the string in '/greet.py'", "success"),
        ],
        files={"/greet.py": "def greet():\n    return 'hi all'\n"},
        backend="state",
    ),
    Case(
        "edit-replace-all",
        [[_write("/seq.txt", "ab-cd-ab-ef-ab")], [_edit("/seq.txt", "ab", "zz", replace_all=True)]],
        [
            ("write_file", "Updated file /seq.txt", "success"),
            ("edit_file", "Successfully replaced 3 instance(s) of the string in '/seq.txt'", "success"),
        ],
        files={"/seq.txt": "zz-cd-zz-ef-zz"},
        backend="state",
    ),
    Case(
        "edit-missing-file",
        [[_edit("/ghost.md", "boo", "hello")]],
        [("edit_file", "Error: File '/ghost.md' not found", "error")],
        files={"/ghost.md": None},
    ),
    Case(
        "edit-string-absent",
        [[_write("/memo.txt", "keep calm")], [_edit("/memo.txt", "panic", "relax")]],
        [
            ("write_file", "Updated file /memo.txt", "success"),
            ("edit_file", "Error: String not found in file: 'panic'", "error"),
        ],
        files={"/memo.txt": "keep calm"},
    ),
    Case(
        "two-edits-of-one-file-in-one-message",
        [
            [_write("/list.txt", "red\ngreen\nblue\n")],
            [_edit("/list.txt", "red", "RED"), _edit("/list.txt", "blue", "BLUE")],
        ],
        [
            ("write_file", "Updated file /list.txt", "success"),
            ("edit_file", "Successfully replaced 1 instance(s) of the string in '/list.txt'", "success"),
            ("edit_file", PARALLEL, "error"),
        ],
        files={"/list.txt": "RED\ngreen\nblue\n"},
    ),
    Case(
        "grep-after-writes",
        [
            [
                _write("/pkg/cli.py", "import argparse\n\nprint('cli')\n"),
                _write("/pkg/io.py", "# io helpers\nimport json\n"),
                _write("/pkg/README", "no matches here\n"),
            ],
            [("grep", {"pattern": "import", "output_mode": "content"})],
        ],
        [
            ("write_file", "Updated file /pkg/cli.py", "success"),
            ("write_file", "Updated file /pkg/io.py", "success"),
            ("write_file", "Updated file /pkg/README", "success"),
            ("grep", "/pkg/cli.py:\n  1: import argparse\n/pkg/io.py:\n  2: import json", "success"),
        ],
    ),
]

WINDOWS = "Error: Windows absolute paths are not supported: {p}. Please use virtual paths starting with / (e.g., /workspace/file.txt)"

#: ``(tool call, error text)``: refused before any backend is reached.
BAD_PATHS = [
    (_edit("./drafts/..", "a", "b"), "Error: Path traversal not allowed: ./drafts/.."),
    (("read_file", {"file_path": "C:\\Users\\me\\plan.txt"}), WINDOWS.format(p="C:\\Users\\me\\plan.txt")),
    (("read_file", {"file_path": "d:/data/x.csv"}), WINDOWS.format(p="d:/data/x.csv")),
    (_write("~/keys.txt", "secret"), "Error: Path traversal not allowed: ~/keys.txt"),
    (("ls", {"path": "../../../etc"}), "Error: Path traversal not allowed: ../../../etc"),
    (("glob", {"pattern": "*", "path": "/work/../.."}), "Error: Path traversal not allowed: /work/../.."),
    (("delete", {"file_path": "~"}), "Error: Path traversal not allowed: ~"),
]


def _setup(case: Case) -> Callable[[Any], dict[str, Any]] | None:
    if case.backend == "state":
        return lambda api: {"backend": api.StateBackend()}
    return None


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_tool_call_scenario(case: Case, mode: str) -> None:
    script = [ai_tool_calls(*turn) for turn in case.turns] + ["done"]
    ref = check(run_fs(script, mode=mode, setup=_setup(case)))
    out = tool_results(ref)
    assert out == case.results
    files = ref.get("files") or {}
    for path, text in case.files.items():
        if text is None:
            assert path not in files
        else:
            assert files[path]["content"] == text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("call", "expected"), BAD_PATHS, ids=[c[0] for c, _ in BAD_PATHS])
def test_malformed_path_is_an_error_result(call: tuple[str, dict[str, Any]], expected: str, mode: str) -> None:
    ref = check(run_fs([ai_tool_calls(call), "after the error"], mode=mode))
    assert tool_results(ref) == [(call[0], expected, "error")]
    assert ref["messages"][-1].content == "after the error"
    assert not ref.get("files")
