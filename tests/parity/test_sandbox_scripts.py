"""Parity: ``BaseSandbox`` running its scripts for real, on deepagents and deepagents_rs alike.

The sandbox is ``test_files_sandbox.make_local_sandbox``: commands run in a local shell,
uploads and downloads touch local files. Each implementation runs the same operations on
its own fresh copy of one tree (rebuilt at the same path, so absolute paths compare equal),
and must return the same results and leave the same tree behind. This is where the read,
edit, glob and grep scripts are pinned: text/binary detection at the 8 KiB sniffing
boundary, pagination metadata and byte caps, refused patterns, symlinks out of the root.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import CALL_MODES, Call, same
from .fs_support import Tree
from .test_files_sandbox import make_local_sandbox

CAP = 500 * 1024  # MAX_BINARY_BYTES / MAX_OUTPUT_BYTES (compared in test_sandbox_protocol)
BIG = "x" * 50_001  # one byte past the inline edit limit: the upload path

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_permissions = pytest.mark.skipif(AS_ROOT, reason="chmod 000 does not deny access to root")


def run_ops(
    tree: Tree, ops: list[tuple[Any, ...]], mode: str, *, before: Any = None, boxes: list | None = None
) -> dict[str, Any]:
    """Each ``(label, method, *args)`` on a local sandbox over a fresh ``tree``; the results
    by label, the tree left behind under ``"<tree>"``; each implementation's sandbox added to
    ``boxes``."""
    root = tree.root

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        if before is not None:
            before(root)
        box = make_local_sandbox(a, root)
        if boxes is not None:
            boxes.append(box)
        out: dict[str, Any] = {}
        try:
            for label, method, *args in ops:
                out[label] = call(
                    box, method, *[f"{root}{x[1:]}" if isinstance(x, str) and x[:1] == "@" else x for x in args]
                )
        finally:
            for path in root.rglob("*"):
                if not path.is_symlink():
                    path.chmod(0o755)
        out["<tree>"] = tree.snapshot()
        return out

    return same(scenario, mode)


# --------------------------------------------------------------------------------------------
# read
# --------------------------------------------------------------------------------------------

READ_FILES: dict[str, str | bytes] = {
    "cjk.md": b"a" * 8190 + "가나다".encode(),
    "emoji_8189.md": b"a" * 8189 + "😀tail".encode(),
    "emoji_8190.md": b"a" * 8190 + "😀tail".encode(),
    "emoji_8191.md": b"a" * 8191 + "😀tail".encode(),
    "bin.dat": b"\x00\x01\x02\xff\xfe" * 2000,
    "midbad.dat": b"a" * 100 + b"\xff\xff" + b"a" * 9000,
    "ascii.txt": b"hello\n" * 2000,
    "five.txt": "one\ntwo\nthree\nfour\nfive",
    "three.txt": "one\ntwo\nthree",
    "blank.txt": "",
    "tail_invalid.txt": b"first\n" + b"a" * (1024 * 1024) + b"\xff",
    "wide.txt": "\n".join(["x" * 100_000] * 8),
    "one_huge_line.txt": "small0\n" + "y" * 600_000 + "\nsmall2",
    "clip.mkv": b"plain text in a video file",
    "exact.png": b"\x00" * CAP,
    "over.png": b"\x00" * (CAP + 1),
    "crlf.txt": b"a\r\nb\r\nc",
    "sub/inner.txt": "inner",
}

READ_OPS = [
    ("cjk", "read", "@/cjk.md"),
    ("emoji_8189", "read", "@/emoji_8189.md"),
    ("emoji_8190", "read", "@/emoji_8190.md"),
    ("emoji_8191", "read", "@/emoji_8191.md"),
    ("binary", "read", "@/bin.dat"),
    ("bad_utf8_inside_prefix", "read", "@/midbad.dat"),
    ("ascii_past_prefix", "read", "@/ascii.txt", 0, 3),
    ("window", "read", "@/five.txt", 1, 2),
    ("final_window", "read", "@/three.txt", 1, 100),
    ("zero_limit", "read", "@/three.txt", 0, 0),
    ("negative_offset", "read", "@/three.txt", -3, 2),
    ("negative_limit", "read", "@/three.txt", -3, -1),
    ("empty_zero_limit", "read", "@/blank.txt", 0, 0),
    ("empty", "read", "@/blank.txt"),
    ("unread_tail", "read", "@/tail_invalid.txt", 0, 1),
    ("byte_cap", "read", "@/wide.txt", 0, 8),
    ("huge_line", "read", "@/one_huge_line.txt", 1, 5),
    ("directory", "read", "@/sub"),
    ("missing", "read", "@/nope.txt"),
    ("video", "read", "@/clip.mkv"),
    ("binary_at_cap", "read", "@/exact.png"),
    ("binary_over_cap", "read", "@/over.png"),
    ("crlf", "read", "@/crlf.txt"),
]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_read_script(mode: str, tmp_path: Path) -> None:
    ref = run_ops(Tree(tmp_path / "root", READ_FILES), READ_OPS, mode)

    def data(label: str) -> dict[str, Any]:
        return ref[label]["file_data"]

    assert data("cjk")["encoding"] == "utf-8" and data("cjk")["content"].endswith("가나다")
    assert all(data(f"emoji_{n}")["content"].endswith("😀tail") for n in (8189, 8190, 8191))
    assert data("binary")["encoding"] == data("bad_utf8_inside_prefix")["encoding"] == "base64"
    assert data("ascii_past_prefix")["encoding"] == "utf-8"
    window = ref["window"]
    assert (window["total_lines"], window["start_line"], window["end_line"], window["next_offset"]) == (5, 2, 3, 3)
    assert ref["final_window"]["next_offset"] is None and ref["final_window"]["total_lines"] == 3
    assert data("zero_limit") == data("negative_limit") == {"encoding": "utf-8", "content": ""}
    assert ref["zero_limit"]["no_lines_requested"] is True
    assert data("negative_offset")["content"] == "one\ntwo" and ref["negative_offset"]["start_line"] == 1
    assert "empty contents" in data("empty_zero_limit")["content"]
    assert data("unread_tail")["content"] == "first" and ref["unread_tail"]["total_lines"] is None
    cut = ref["byte_cap"]
    assert "truncated" in cut["file_data"]["content"].lower() and cut["end_line"] == cut["next_offset"]
    assert 0 < cut["next_offset"] < 8
    assert (ref["huge_line"]["end_line"], ref["huge_line"]["next_offset"]) == (2, 2)
    assert "not_a_file" in ref["directory"]["error"]
    assert data("video")["encoding"] == "base64"
    assert data("binary_at_cap")["encoding"] == "base64"
    assert "maximum preview size" in ref["binary_over_cap"]["error"]


@needs_permissions
def test_read_script_permission_denied(tmp_path: Path) -> None:
    ops = [("locked", "read", "@/locked.txt")]
    ref = run_ops(
        Tree(tmp_path / "root", {"locked.txt": "secret"}), ops, "sync", before=lambda r: (r / "locked.txt").chmod(0)
    )
    assert "permission_denied" in ref["locked"]["error"]


# --------------------------------------------------------------------------------------------
# edit (inline and through uploaded temp files), write, delete, ls
# --------------------------------------------------------------------------------------------

EDIT_FILES: dict[str, str | bytes] = {
    "hello.txt": "hello world\nhello again\n",
    "once.txt": "alpha {key} beta\n",
    "bin.dat": b"\x80\x81\x82\xff",
    "big_once.txt": f"prefix {BIG} suffix",
    "big_twice.txt": f"a{BIG}b{BIG}c",
    "crlf.txt": b"one\r\ntwo\r\nthree\r\n",
    "dir/keep.txt": "keep",
    "dir/sub/gone.txt": "gone",
}

EDIT_OPS = [
    ("ambiguous", "edit", "@/hello.txt", "hello", "bye"),
    ("all", "edit", "@/hello.txt", "hello", "bye", True),
    ("braces", "edit", "@/once.txt", "{key}", "{value}"),
    ("absent", "edit", "@/once.txt", "zzz", "y"),
    ("missing", "edit", "@/nope.txt", "a", "b"),
    ("directory", "edit", "@/dir", "a", "b"),
    ("binary", "edit", "@/bin.dat", "a", "b"),
    ("crlf", "edit", "@/crlf.txt", "one\ntwo", "1\n2"),
    ("big_once", "edit", "@/big_once.txt", BIG, "new"),
    ("big_ambiguous", "edit", "@/big_twice.txt", BIG, "y"),
    ("big_all", "edit", "@/big_twice.txt", BIG, "y", True),
    ("big_missing", "edit", "@/nope.txt", BIG, "y"),
    ("big_binary", "edit", "@/bin.dat", BIG, "y"),
    ("write_new", "write", "@/made/new.txt", "fresh {content}\n"),
    ("write_existing", "write", "@/once.txt", "replaced"),
    ("ls_root", "ls", "@/dir"),
    ("ls_file", "ls", "@/once.txt"),
    ("ls_missing", "ls", "@/nowhere"),
    ("delete_file", "delete", "@/hello.txt"),
    ("delete_dir", "delete", "@/dir/sub"),
    ("delete_missing", "delete", "@/ghost.txt"),
    ("delete_dangling_link", "delete", "@/dangling"),
]


#: The upload edit path's temp files (deepagents names them in the sandbox's ``/tmp``).
_TEMP_FILE = re.compile(r"/tmp/\.deepagents_edit_\w+")


def _temp_files(boxes: list) -> set[str]:
    """The temp files ``boxes`` were asked to make or touch: only this test's (``/tmp`` is
    shared with other processes running the same scripts)."""
    return {m for box in boxes for text in [*box.uploaded, *box.commands] for m in _TEMP_FILE.findall(text)}


@pytest.mark.parametrize("mode", CALL_MODES)
def test_edit_write_delete_ls(mode: str, tmp_path: Path) -> None:
    boxes: list = []
    tree = Tree(tmp_path / "root", EDIT_FILES, links={"dangling": "/nonexistent/target"})
    ref = run_ops(tree, EDIT_OPS, mode, boxes=boxes)
    disk = ref["<tree>"]
    assert "multiple times" in ref["ambiguous"]["error"].lower() and ref["all"]["occurrences"] == 2
    assert ref["braces"]["occurrences"] == 1 and "not found" in ref["absent"]["error"]
    assert "not found" in ref["missing"]["error"].lower() and "not a regular file" in ref["directory"]["error"].lower()
    assert "not a text file" in ref["binary"]["error"] and "not a text file" in ref["big_binary"]["error"]
    assert ref["big_once"]["occurrences"] == 1 and disk["big_once.txt"] == b"prefix new suffix"
    assert "multiple times" in ref["big_ambiguous"]["error"].lower() and ref["big_all"]["occurrences"] == 2
    assert disk["big_twice.txt"] == b"aybyc" and "not found" in ref["big_missing"]["error"].lower()
    # An LF old_string matches a CRLF file; the replacement takes the file's line endings.
    assert ref["crlf"]["occurrences"] == 1 and disk["crlf.txt"] == b"1\r\n2\r\nthree\r\n"
    assert disk["made/new.txt"] == b"fresh {content}\n" and disk["once.txt"] == b"replaced"
    assert ref["ls_missing"]["entries"] is None and "path_not_found" in ref["ls_missing"]["error"]
    assert "not_a_directory" in ref["ls_file"]["error"]
    assert "hello.txt" not in disk and "dir/sub" not in disk and "dir/keep.txt" in disk
    assert "not found" in ref["delete_missing"]["error"] and "dangling" not in disk
    temps = _temp_files(boxes)
    # Both implementations took the upload path (an old and a new file per large edit).
    assert len(boxes) == 2 and all(_temp_files([box]) for box in boxes), temps
    left = sorted(t for t in temps if Path(t).exists())
    assert not left, f"temp files of the upload edit path were left in /tmp: {left}"


@needs_permissions
def test_edit_script_permission_denied(tmp_path: Path) -> None:
    ops = [("locked", "edit", "@/locked.txt", "old", "new")]
    tree = Tree(tmp_path / "root", {"locked.txt": "old content"})
    ref = run_ops(tree, ops, "sync", before=lambda r: (r / "locked.txt").chmod(0))
    assert "permission" in ref["locked"]["error"].lower()


# --------------------------------------------------------------------------------------------
# glob and grep
# --------------------------------------------------------------------------------------------

SEARCH_FILES: dict[str, str | bytes] = {
    "ws/src/a.py": "alpha needle here\n",
    "ws/src/pkg/b.py": "needle in b\n",
    "ws/src/pkg/c.txt": "needle in c\n",
    "ws/other.py": "needle in other\n",
    "ws/loose/a.py": b"needle",
    "ws/loose/b.py": b"needle",
    "ws/cap/m.py": "needle\n" * 20,
    "ws/lit.py": "def __init__(self):\nx: str | int\n",
    "outside/secret.py": "needle\n",
    "outside/secret.txt": "needle\n",
}

SEARCH_OPS = [
    ("glob_here", "glob", "*.py", "@/ws/src"),
    ("glob_anchored", "glob", "/src/*.py", "@/ws"),
    ("glob_escape", "glob", "../outside/*.py", "@/ws"),
    ("glob_deep", "glob", "**/*.py", "@/ws"),
    ("glob_missing", "glob", "*.py", "@/ws/nowhere"),
    ("grep_tree", "grep", "needle", "@/ws/src", "**/*.py"),
    ("grep_slash_glob", "grep", "needle", "@/ws", "src/**/*.py"),
    ("grep_unterminated", "grep", "needle", "@/ws", "loose/*.py"),
    ("grep_anchored", "grep", "needle", "@/ws", "/*.py"),
    ("grep_escape", "grep", "needle", "@/ws", "../outside/*.txt"),
    ("grep_links", "grep", "needle", "@/ws", "src/*.py"),
    ("grep_basename_glob", "grep", "needle", "@/ws/src", "*.txt"),
    ("grep_parens", "grep", "def __init__(", "@/ws"),
    ("grep_pipe", "grep", "str | int", "@/ws"),
    ("grep_missing_root", "grep", "needle", "@/ws/nowhere"),
]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_glob_and_grep_scripts(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, SEARCH_FILES, links={"ws/src/link.py": str(root / "outside" / "secret.py")})
    ref = run_ops(tree, SEARCH_OPS, mode)

    def hits(label: str) -> list[str] | None:
        items = ref[label]["matches"]
        return None if items is None else [m["path"] for m in items]

    ws = str(root / "ws")
    assert hits("glob_anchored") == [f"{ws}/src/a.py"]
    assert hits("glob_escape") is None and "invalid_pattern" in ref["glob_escape"]["error"]
    assert "path_not_found" in ref["glob_missing"]["error"]
    assert hits("grep_slash_glob") == [f"{ws}/src/a.py", f"{ws}/src/pkg/b.py"]
    assert sorted(hits("grep_unterminated")) == [f"{ws}/loose/a.py", f"{ws}/loose/b.py"]
    # A leading slash is relative to the search root, not the host's root.
    assert hits("grep_anchored") == [f"{ws}/other.py"]
    assert hits("grep_escape") is None and ref["grep_escape"]["error"] == f"Path '{ws}': exit code 2"
    assert hits("grep_basename_glob") == [f"{ws}/src/pkg/c.txt"]
    # The link to a file outside the search root is not followed.
    assert hits("grep_links") == [f"{ws}/src/a.py"] and f"{ws}/src/link.py" not in hits("glob_here")
    assert hits("grep_parens") == [f"{ws}/lit.py"] and hits("grep_pipe") == [f"{ws}/lit.py"]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_grep_cap_probe(mode: str, tmp_path: Path) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        box = make_local_sandbox(a, tree.root)
        ws = str(tree.root / "ws")
        return {
            "slash_glob": call(box, "grep", "needle", ws, "cap/*.py", max_count=2),
            "plain": call(box, "grep", "needle", f"{ws}/cap", max_count=5),
            "roomy": call(box, "grep", "needle", f"{ws}/cap", max_count=20),
        }

    tree = Tree(tmp_path / "root", SEARCH_FILES)
    ref = same(scenario, mode)
    assert len(ref["slash_glob"]["matches"]) == 2 and ref["slash_glob"]["truncated"] is True
    assert len(ref["plain"]["matches"]) == 5 and ref["plain"]["truncated"] is True
    assert len(ref["roomy"]["matches"]) == 20 and ref["roomy"]["truncated"] is False


@needs_permissions
def test_search_scripts_on_an_unreadable_root(tmp_path: Path) -> None:
    ops = [("glob", "glob", "*.py", "@/locked"), ("grep", "grep", "needle", "@/locked", "src/*.py")]
    tree = Tree(tmp_path / "root", {"locked/src/a.py": "needle\n"})
    ref = run_ops(tree, ops, "sync", before=lambda r: (r / "locked").chmod(0))
    assert "permission_denied" in ref["glob"]["error"]
    assert ref["grep"]["matches"] is None and ref["grep"]["error"]
