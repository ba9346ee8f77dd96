"""Parity: ``FilesystemBackend``'s edit, delete, upload and download when things go wrong:
final symlinks (never followed), links out of a virtual root, non-UTF-8 text and names,
directories and special files where a file is expected, names the kernel refuses, and
content that is not bytes. Both implementations run each scenario, sync and async, on a
tree rebuilt at the same path, and must agree on the results, the raises and the tree left.
"""

from __future__ import annotations

import os
from array import array
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import CALL_MODES, Call, attempt, same
from .fs_support import Tree

LATIN1 = "caf\xe9 cr\xe8me\n".encode("latin-1")
ODD_NAME = os.fsdecode(b"odd-\xff.txt")


def tree_at(tmp_path: Path) -> tuple[Path, Tree]:
    root = tmp_path / "root"
    tree = Tree(
        root,
        {
            "doc.txt": "alpha beta\r\nalpha\n",
            "latin.txt": LATIN1,
            "real/keep.txt": "keep\n",
            "tree/a.txt": "a",
            "tree/deep/b.bin": b"\x00\x01",
        },
        dirs=["empty"],
        links={
            "to_doc": "doc.txt",
            "to_real": "real",
            "dangling": "nowhere.txt",
            "escape": str(tmp_path / "outside" / "secret.txt"),
            "escape_dir": str(tmp_path / "outside"),
            "tree/out": str(tmp_path / "outside"),
        },
    )
    return root, tree


def build(root: Path, tree: Tree) -> None:
    """The tree afresh, with a loop, a non-UTF-8 name and a file outside it (the host-mode
    scenarios may change that one too)."""
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    for entry in outside.iterdir():
        entry.unlink()
    (outside / "secret.txt").write_text("secret value\n")
    tree.reset()
    (root / "cycle").symlink_to(root / "cycle")
    (root / ODD_NAME).write_bytes(b"odd alpha\n")


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
def test_edits_that_fail_or_refuse(mode: str, virtual: bool, tmp_path: Path) -> None:
    root, tree = tree_at(tmp_path)
    p = (lambda v: v) if virtual else (lambda v: f"{root}{v}")
    asks = {
        "through a link": ("/to_doc", "alpha", "omega"),
        "dangling link": ("/dangling", "a", "b"),
        "a link out": ("/escape", "secret", "public"),
        "a directory": ("/empty", "a", "b"),
        "a loop": ("/cycle", "a", "b"),
        "not utf-8": ("/latin.txt", "caf", "tea"),
        "non-utf-8 name": (f"/{ODD_NAME}", "alpha", "omega"),
        "under a file": ("/doc.txt/inner", "a", "b"),
        "missing": ("/absent.txt", "a", "b"),
        "empty old": ("/doc.txt", "", "b"),
        "crlf unique": ("/doc.txt", "beta\r\n", "gamma\r\n"),
        "ambiguous": ("/doc.txt", "alpha", "omega"),
        "surrogate old": ("/doc.txt", "\udcff", "x"),
        # Python empties the file, then fails to encode the new text.
        "surrogate new": ("/tree/a.txt", "a", "b\udcffc"),
        "dotdot": ("/../outside/secret.txt", "secret", "x"),
    }

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        build(root, tree)
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=virtual)
        out = {name: attempt(lambda ask=ask: call(be, "edit", p(ask[0]), *ask[1:])) for name, ask in asks.items()}
        out["disk"] = tree.snapshot()
        out["outside"] = (tmp_path / "outside" / "secret.txt").read_text()
        return out

    ref = same(scenario, mode)
    if not virtual:
        # Host mode takes an absolute path as written, `..` and all.
        assert ref["dotdot"]["occurrences"] == 1
    # A virtual path is resolved through its links first; a host path is opened as given,
    # and a final symlink is never followed.
    if not virtual:
        assert "Too many levels of symbolic links" in ref["through a link"]["error"]
    assert ref["a directory"]["error"] == f"Error: File '{p('/empty')}' not found"
    assert "can't decode byte 0xe9" in ref["not utf-8"]["error"]
    assert ref["crlf unique"]["occurrences"] == 1 and ref["disk"]["doc.txt"] == b"alpha gamma\nalpha\n"
    assert ref["non-utf-8 name"]["occurrences"] == 1
    assert ref["surrogate old"]["error"] == "Error: String not found in file: '\udcff'"
    assert "can't encode character '\\udcff' in position 1" in ref["surrogate new"]["error"]
    assert ref["disk"]["tree/a.txt"] == b""
    assert ref["outside"] == ("secret value\n" if virtual else "x value\n")


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
def test_deletes_of_links_trees_and_odd_names(mode: str, virtual: bool, tmp_path: Path) -> None:
    root, tree = tree_at(tmp_path)
    p = (lambda v: v) if virtual else (lambda v: f"{root}{v}")
    asked = ["/to_real", "/dangling", "/cycle", "/escape", "/escape_dir", "/tree", f"/{ODD_NAME}", "/doc.txt/x"]

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        build(root, tree)
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=virtual)
        out = {q: attempt(lambda q=q: call(be, "delete", p(q))) for q in asked}
        out["disk"] = tree.snapshot()
        out["outside"] = sorted(os.listdir(tmp_path / "outside"))
        return out

    ref = same(scenario, mode)
    # The tree's link out was removed as a link; what it pointed to is untouched.
    assert ref["outside"] == ["secret.txt"]
    # In virtual mode the link is resolved first, so its target goes; in host mode the link.
    assert ("real/keep.txt" in ref["disk"]) is not virtual
    assert "tree/a.txt" not in ref["disk"]
    # A dangling link: deleted as a link on the host; in virtual mode its missing target.
    assert (ref["/dangling"]["path"] == p("/dangling")) is not virtual


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
def test_transfers_that_fail(mode: str, virtual: bool, tmp_path: Path) -> None:
    root, tree = tree_at(tmp_path)
    p = (lambda v: v) if virtual else (lambda v: f"{root}{v}")
    uploads = [
        ("/to_doc", b"through a link"),
        ("/dangling", b"x"),
        ("/cycle", b"x"),
        ("/empty", b"onto a dir"),
        ("/doc.txt/inner", b"under a file"),
        ("/to_real/new.bin", b"into a linked dir"),
        ("/made/deep/er.bin", bytearray(b"a bytearray")),
        ("/view.bin", memoryview(b"a memoryview")),
        ("/ints.bin", array("B", [1, 2, 3])),
        (f"/{ODD_NAME}", b"odd name"),
    ]
    downloads = ["/to_doc", "/dangling", "/cycle", "/empty", "/to_real", "/doc.txt/inner", "/latin.txt", f"/{ODD_NAME}"]

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        build(root, tree)
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=virtual)
        out = {
            "up": call(be, "upload_files", [(p(q), data) for q, data in uploads]),
            "down": call(be, "download_files", [p(q) for q in downloads]),
            # A name the kernel refuses has no code: the OSError is raised.
            "up long": attempt(lambda: call(be, "upload_files", [(p("/" + "n" * 300), b"x")])),
            "down long": attempt(lambda: call(be, "download_files", [p("/" + "n" * 300)])),
            # Content that is not bytes-like raises once the file is made.
            "up text": attempt(lambda: call(be, "upload_files", [(p("/text.bin"), "text")])),
            "up none": attempt(lambda: call(be, "upload_files", [(p("/none.bin"), None)])),
        }
        out["disk"] = tree.snapshot()
        return out

    ref = same(scenario, mode)
    codes = [r["error"] for r in ref["up"]]
    through_links = [None, None] if virtual else ["invalid_path", "invalid_path"]
    assert codes[:5] == [*through_links, "invalid_path", "is_directory", "invalid_path"]
    assert ref["disk"]["ints.bin"] == b"\x01\x02\x03" and ref["disk"]["text.bin"] == b""
    assert ref["up text"][:2] == ("raised", "TypeError")
    assert ref["down long"][:2] == ("raised", "OSError")
    # In virtual mode the upload through the dangling link made its target.
    through_links = [None, None] if virtual else ["invalid_path", "invalid_path"]
    assert [r["error"] for r in ref["down"]][:5] == [*through_links, "invalid_path", "is_directory", "is_directory"]
