"""Parity: deepagents' filesystem tools (ls, read_file, write_file, edit_file, delete, glob,
grep), their results and their errors, on every stock backend configuration:

* ``state``: the default ``StateBackend``; files come in through the input's ``files`` key and
  the output's ``files`` is compared (timestamps normalized by ``harness.norm_files``).
* ``fs_virtual`` / ``fs_real``: ``FilesystemBackend(root_dir=tmp/root, virtual_mode=True/False)``;
  the tree is rebuilt at the same path before each implementation's run and compared after
  it. With ``virtual_mode=False`` the model uses (and sees) absolute host paths.
* ``store``: ``StoreBackend(namespace=...)`` over a langgraph ``InMemoryStore`` passed as
  ``store=`` to ``create_deep_agent``; the store's items are compared after the run.

Each scenario runs under ``invoke`` and ``ainvoke``. Besides ``fs_support.check`` (which runs
``harness.assert_parity``: every model call's messages, tools with their full schemas and
kwargs, the result messages and files), each asserts what deepagents itself did, so it
cannot pass vacuously. ``PARITY_REF_ONLY=1`` runs the deepagents side alone.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from .fs_support import (
    BACKENDS,
    MODES,
    REF_ONLY,
    ai_tool_calls,
    check,
    make_backend,
    tool_msgs,
    tool_results,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

LONG = "".join(f"line {i}\n" for i in range(1, 151))

FILES: dict[str, str | bytes] = {
    "/notes.txt": "alpha\nbeta\ngamma\n",
    "/src/app.py": "import os\n\n\ndef main():\n    print('hello world')\n",
    "/src/util.py": "def helper():\n    return 'hello'\n",
    "/src/pkg/deep.py": "HELLO = 'hello'\n",
    "/docs/guide.md": "# Guide\nSay hello.\n",
    "/empty.txt": "",
    "/long.txt": LONG,
    "/dup.txt": "x = 1\nx = 1\ny = 2\n",
    "/noeol.txt": "first\nlast",
}


@pytest.fixture(params=BACKENDS)
def backend_name(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def backend(backend_name: str, tmp_path: Path):
    return make_backend(backend_name, tmp_path, FILES, dirs=["/emptydir"])


def contents(run) -> list:
    return [c for _, c, _ in tool_results(check(run))]


def statuses(run) -> list:
    return [s for _, _, s in tool_results(check(run))]


# --------------------------------------------------------------------------------------------
# ls
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_ls(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(("ls", {"path": p("/")}), ("ls", {"path": p("/src")}), ("ls", {"path": p("/src/")})),
        ai_tool_calls(
            ("ls", {"path": p("/nowhere")}), ("ls", {"path": p("/notes.txt")}), ("ls", {"path": p("/emptydir")})
        ),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = tool_results(check(run))
    assert p("/notes.txt") in out[0][1] and p("/src/") in out[0][1]
    assert out[1] == out[2] and p("/src/app.py") in out[1][1] and p("/src/pkg/deep.py") not in out[1][1]
    if backend.name.startswith("fs"):
        assert out[3] == ("ls", f"Error: Path '{p('/nowhere')}': path_not_found", "error")
        assert out[4] == ("ls", f"Error: Path '{p('/notes.txt')}': not_a_directory", "error")
        assert out[5] == ("ls", "No files found", "success")
    else:  # key-value backends have no directories: anything missing lists as empty
        assert out[3:] == [("ls", "No files found", "success")] * 3


# --------------------------------------------------------------------------------------------
# read_file
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_read_file_windows(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": p("/notes.txt")}),
            ("read_file", {"file_path": p("/long.txt")}),
            ("read_file", {"file_path": p("/long.txt"), "offset": 10, "limit": 5}),
            ("read_file", {"file_path": p("/long.txt"), "offset": -3, "limit": 2}),
        ),
        ai_tool_calls(
            ("read_file", {"file_path": p("/long.txt"), "limit": 0}),
            ("read_file", {"file_path": p("/long.txt"), "offset": 500}),
            ("read_file", {"file_path": p("/long.txt"), "offset": 148}),
            ("read_file", {"file_path": p("/noeol.txt")}),
        ),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = contents(run)
    assert out[0].startswith("@@ ") and out[0].endswith("alpha\nbeta\ngamma")
    assert "line 100" in out[1] and "line 101\n" not in out[1]
    assert "line 11\n" in out[2] and "line 16" not in out[2]
    assert "Requested offset -3" in out[3]
    assert "no lines were read because `limit` was 0" in out[4]


@pytest.mark.parametrize("mode", MODES)
def test_read_file_empty_and_missing(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": p("/empty.txt")}),
            ("read_file", {"file_path": p("/missing.txt")}),
            ("read_file", {"file_path": p("/src")}),
        ),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = tool_results(check(run))
    assert out[0][1].endswith("System reminder: File exists but has empty contents") and out[0][2] == "success"
    assert out[1][2] == "error" and "missing.txt" in out[1][1]


#: A 1x1 transparent PNG.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")


@pytest.mark.parametrize("mode", MODES)
def test_read_file_media(backend_name: str, tmp_path: Path, mode: str) -> None:
    files = {"/img/dot.png": PNG, "/doc.pdf": b"%PDF-1.4 not really", "/blob.bin": bytes(range(256))}
    backend = make_backend(backend_name, tmp_path, files)
    p = backend.path
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": p("/img/dot.png")}),
            ("read_file", {"file_path": p("/img/dot.png"), "offset": 5, "limit": 1}),
            ("read_file", {"file_path": p("/doc.pdf")}),
        ),
        ai_tool_calls(("read_file", {"file_path": p("/blob.bin")})),
        "done",
    ]
    run = backend.run(script, mode=mode)
    msgs = tool_msgs(check(run))
    image = msgs[0]
    assert image.status == "success" and image.additional_kwargs["read_file_media_type"] == "image/png"
    assert [(b["type"], b.get("mime_type")) for b in image.content_blocks] == [("image", "image/png")]
    assert base64.b64decode(image.content_blocks[0]["base64"]) == PNG
    assert msgs[1].content == image.content
    # The model is sent the image blocks as they are (ScriptedChatModel has no profile to refuse them).
    assert run.ref.calls[1].messages[-3].content == image.content


@pytest.mark.parametrize("mode", MODES)
def test_read_file_size_truncation(backend_name: str, tmp_path: Path, mode: str) -> None:
    wide = "".join(f"{i:04d} " + "x" * 1000 + "\n" for i in range(100))  # ~100k chars in 100 lines
    files = {"/wide.txt": wide, "/oneline.txt": "y" * 90_000, "/mixed.txt": "short\n" + "z" * 85_000 + "\nend\n"}
    backend = make_backend(backend_name, tmp_path, files)
    p = backend.path
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": p("/wide.txt")}),
            ("read_file", {"file_path": p("/oneline.txt")}),
            ("read_file", {"file_path": p("/mixed.txt")}),
        ),
        ai_tool_calls(("read_file", {"file_path": p("/wide.txt"), "offset": 70, "limit": 10})),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = contents(run)
    assert all(len(c) <= 80_000 for c in out[:3])
    assert "truncated due to size" in out[0] and "[Output was truncated due to size limits." in out[0]
    assert "truncated mid-line" in out[1]
    assert out[3].startswith("@@ lines 71-80 of 100 | next offset 80 @@")


@pytest.mark.parametrize("mode", MODES)
def test_read_after_write_in_later_turn(backend, mode: str) -> None:
    """The next turn sees a write. On StateBackend a read in the *same* AI message as the write
    sees the files as they were before the turn (the tool calls of one message all run against
    one state snapshot); elsewhere that would race the write, so only StateBackend tries it."""
    p = backend.path
    same_turn = (
        [("read_file", {"file_path": p("/fresh.txt")}), ("ls", {"path": p("/")})] if backend.name == "state" else []
    )
    script = [
        ai_tool_calls(("write_file", {"file_path": p("/fresh.txt"), "content": "one\ntwo\n"}), *same_turn),
        ai_tool_calls(("read_file", {"file_path": p("/fresh.txt")}), ("ls", {"path": p("/")})),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = tool_results(check(run))
    assert out[-2] == ("read_file", "@@ lines 1-2 of 2 @@\none\ntwo", "success")
    assert p("/fresh.txt") in out[-1][1]
    if backend.name == "state":
        assert out[1] == ("read_file", "Error: File '/fresh.txt' not found", "error")
        assert "/fresh.txt" not in out[2][1]


# --------------------------------------------------------------------------------------------
# write_file
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_write_file(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("write_file", {"file_path": p("/new.txt"), "content": "fresh\n"}),
            ("write_file", {"file_path": p("/notes.txt"), "content": "replaced"}),
            ("write_file", {"file_path": p("/deep/er/file.md"), "content": "# nested\n"}),
        ),
        ai_tool_calls(
            ("read_file", {"file_path": p("/notes.txt")}),
            ("ls", {"path": p("/deep/er")}),
            ("read_file", {"file_path": p("/new.txt")}),
        ),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = tool_results(check(run))
    assert out[0] == ("write_file", f"Updated file {p('/new.txt')}", "success")
    assert out[3][1].endswith("replaced")


# --------------------------------------------------------------------------------------------
# edit_file
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_edit_file(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("edit_file", {"file_path": p("/notes.txt"), "old_string": "beta", "new_string": "BETA"}),
            (
                "edit_file",
                {"file_path": p("/dup.txt"), "old_string": "x = 1", "new_string": "x = 2", "replace_all": True},
            ),
            ("edit_file", {"file_path": p("/src/app.py"), "old_string": "absent", "new_string": "x"}),
        ),
        ai_tool_calls(
            ("edit_file", {"file_path": p("/src/util.py"), "old_string": "hello", "new_string": "bye"}),
            ("edit_file", {"file_path": p("/long.txt"), "old_string": "line 1\n", "new_string": "LINE 1\n"}),
            ("edit_file", {"file_path": p("/empty.txt"), "old_string": "", "new_string": "now full"}),
            ("edit_file", {"file_path": p("/missing.txt"), "old_string": "a", "new_string": "b"}),
        ),
        ai_tool_calls(
            ("edit_file", {"file_path": p("/noeol.txt"), "old_string": "last\n", "new_string": "final\n"}),
            ("edit_file", {"file_path": p("/notes.txt"), "old_string": "", "new_string": "x"}),
            ("edit_file", {"file_path": p("/docs/guide.md"), "old_string": "hello", "new_string": "hello"}),
            ("edit_file", {"file_path": p("/long.txt"), "old_string": "line 2", "new_string": "LINE 2"}),
        ),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = tool_results(check(run))
    assert out[0] == (
        "edit_file",
        f"Successfully replaced 1 instance(s) of the string in '{p('/notes.txt')}'",
        "success",
    )
    assert out[1][1].startswith("Successfully replaced 2 instance(s)")
    assert out[2] == ("edit_file", "Error: String not found in file: 'absent'", "error")
    # ``line 1\n`` is unique where ``line 1`` is not; an empty old_string is refused even on an
    # empty file.
    assert out[4][2] == "success"
    assert (
        out[5]
        == out[8]
        == ("edit_file", "Error: old_string cannot be empty. Provide the exact text to replace.", "error")
    )
    assert out[7][1].startswith("Error: old_string ends with a newline, but the file does not end with a newline.")
    assert out[9][2] == "success"  # old_string == new_string is not refused
    assert out[10][1].startswith("Error: String 'line 2' appears 11 times in file. Use replace_all=True")


# --------------------------------------------------------------------------------------------
# delete
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_delete(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("delete", {"file_path": p("/notes.txt")}),
            ("delete", {"file_path": p("/src")}),
            ("delete", {"file_path": p("/missing.txt")}),
        ),
        ai_tool_calls(("ls", {"path": p("/")}), ("glob", {"pattern": "**/*.py"})),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = tool_results(check(run))
    assert out[0] == ("delete", f"Deleted {p('/notes.txt')}", "success")
    assert out[2][2] == "error"


# --------------------------------------------------------------------------------------------
# glob
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_glob(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("glob", {"pattern": "*.py"}),
            ("glob", {"pattern": "**/*.py"}),
            ("glob", {"pattern": "*.py", "path": p("/src/pkg")}),
            ("glob", {"pattern": "/*.txt"}),
        ),
        ai_tool_calls(
            ("glob", {"pattern": "*.rs"}),
            ("glob", {"pattern": "*.{md,txt}", "path": p("/")}),
            ("glob", {"pattern": "src/*.py"}),
            ("glob", {"pattern": "*.py", "path": p("/nowhere")}),
        ),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = contents(run)
    assert p("/src/pkg/deep.py") in out[0] and out[0] == out[1]
    assert out[2] == f"['{p('/src/pkg/deep.py')}']"
    assert p("/docs/guide.md") not in out[3] and p("/notes.txt") in out[3]
    assert out[4] == "No files found" and out[7] == "No files found"
    assert p("/docs/guide.md") in out[5] and p("/src/pkg/deep.py") not in out[6]


# --------------------------------------------------------------------------------------------
# grep
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_grep(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("grep", {"pattern": "hello"}),
            ("grep", {"pattern": "hello", "glob": "*.py"}),
            ("grep", {"pattern": "hello", "output_mode": "content"}),
            ("grep", {"pattern": "hello", "output_mode": "count", "path": p("/src")}),
        ),
        ai_tool_calls(
            ("grep", {"pattern": "nothing-like-this"}),
            ("grep", {"pattern": "hel+o|world"}),
            ("grep", {"pattern": "line 1", "output_mode": "content", "max_count": 3}),
            ("grep", {"pattern": "print('hello", "path": p("/src/app.py"), "output_mode": "content"}),
        ),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = contents(run)
    assert out[0].split("\n") == [p(f) for f in ("/docs/guide.md", "/src/app.py", "/src/pkg/deep.py", "/src/util.py")]
    assert p("/docs/guide.md") not in out[1] and p("/src/util.py") in out[1]
    assert f"{p('/src/util.py')}:\n  2:     return 'hello'" in out[2]
    assert out[3].split("\n") == [f"{p(f)}: 1" for f in ("/src/app.py", "/src/pkg/deep.py", "/src/util.py")]
    assert out[4] == "No matches found"
    assert out[5].startswith("No matches found\n\nNote: grep matches literal text, not regex")
    assert "Note: the search stopped early" in out[6]
    assert out[7] == f"{p('/src/app.py')}:\n  5:     print('hello world')"


# --------------------------------------------------------------------------------------------
# Paths: validation and normalization (the middleware's, before any backend sees them)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_path_errors(backend, mode: str) -> None:
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": "/src/../notes.txt"}),
            ("ls", {"path": "~"}),
            ("write_file", {"file_path": "~/x.txt", "content": "x"}),
            ("edit_file", {"file_path": "C:\\x", "old_string": "a", "new_string": "b"}),
        ),
        ai_tool_calls(
            ("delete", {"file_path": "../up"}),
            ("glob", {"pattern": "*.py", "path": "/a/../../b"}),
            ("grep", {"pattern": "x", "path": "C:/work"}),
        ),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = tool_results(check(run))
    assert out[0] == ("read_file", "Error: Path traversal not allowed: /src/../notes.txt", "error")
    assert out[1] == ("ls", "Error: Path traversal not allowed: ~", "error")
    assert out[3][1].startswith("Error: Windows absolute paths are not supported: C:\\x.")
    assert [s for _, _, s in out] == ["error"] * 7


@pytest.mark.parametrize("mode", MODES)
def test_relative_paths_are_made_absolute(backend, mode: str) -> None:
    """``notes.txt`` means ``/notes.txt``, and ``/./src//util.py`` means ``/src/util.py``. With
    ``virtual_mode=False`` that is the host's ``/``, so there it only reads (missing) paths."""
    host = backend.name == "fs_real"
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": "parity-missing.txt" if host else "notes.txt"}),
            ("read_file", {"file_path": "/./parity-missing//util.py" if host else "/./src//util.py"}),
            ("ls", {"path": "parity-missing/" if host else "src/"}),
        ),
        *([] if host else [ai_tool_calls(("write_file", {"file_path": "rel/dir/new.txt", "content": "relative\n"}))]),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = tool_results(check(run))
    if host:
        assert out[0] == ("read_file", "Error: File '/parity-missing.txt' not found", "error")
        assert out[2] == ("ls", "Error: Path '/parity-missing': path_not_found", "error")
    else:
        assert out[0][1] == "@@ lines 1-3 of 3 @@\nalpha\nbeta\ngamma"
        assert out[1][1] == "@@ lines 1-2 of 2 @@\ndef helper():\n    return 'hello'"
        assert out[2][1] == "['/src/app.py', '/src/pkg/', '/src/util.py']"
        assert out[3] == ("write_file", "Updated file /rel/dir/new.txt", "success")


@pytest.mark.parametrize("mode", MODES)
def test_dots_inside_a_file_name(backend, mode: str) -> None:
    """``a..b`` is not a traversal for the middleware. ``FilesystemBackend(virtual_mode=True)``
    disagrees and raises ``ValueError('Path traversal not allowed')`` from the tool, which
    deepagents lets out of ``invoke``: its run fails. Deliberately better here: the backend's
    refusal is an error tool result and the run goes on (nothing is written either way)."""
    p = backend.path
    script = [
        ai_tool_calls(("write_file", {"file_path": p("/a..b.txt"), "content": "dots\n"})),
        ai_tool_calls(("read_file", {"file_path": p("/a..b.txt")})),
        "done",
    ]
    run = backend.run(script, mode=mode)
    if backend.name == "fs_virtual":
        error = run.ref.error
        assert isinstance(error, ValueError) and str(error) == "Path traversal not allowed"
        if not REF_ONLY:
            assert tool_results(run.rs.unwrap()) == [
                ("write_file", "Error: Path traversal not allowed", "error"),
                ("read_file", "Error: Path traversal not allowed", "error"),
            ]
            assert run.disk["deepagents_rs"] == run.disk["deepagents"], "disk trees differ"
        return
    out = tool_results(check(run))
    assert out == [
        ("write_file", f"Updated file {p('/a..b.txt')}", "success"),
        ("read_file", "@@ lines 1-1 of 1 @@\ndots", "success"),
    ]


# --------------------------------------------------------------------------------------------
# Parallel mutation guard: one AI message may not mutate the same path twice
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_parallel_mutations_to_one_path(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("write_file", {"file_path": p("/same.txt"), "content": "first"}),
            ("write_file", {"file_path": p("/same.txt"), "content": "second"}),
            ("edit_file", {"file_path": p("/notes.txt"), "old_string": "alpha", "new_string": "A"}),
            ("delete", {"file_path": p("/notes.txt") + "/"}),
            ("read_file", {"file_path": p("/dup.txt")}),
            ("write_file", {"file_path": p("/other.txt"), "content": "fine"}),
        ),
        ai_tool_calls(("write_file", {"file_path": p("/same.txt"), "content": "third"})),
        "done",
    ]
    run = backend.run(script, mode=mode)
    out = tool_results(check(run))
    refused = ("Error: parallel file mutations to the same path are not allowed.", "error")
    assert out[0][1:] == (f"Updated file {p('/same.txt')}", "success")
    assert out[1] == ("write_file", *refused)
    assert out[2][2] == "success" and out[3] == ("delete", *refused)
    assert out[4][2] == "success" and out[5][2] == "success"
    assert out[6] == ("write_file", f"Updated file {p('/same.txt')}", "success")
