"""Parity: where ``FilesystemBackend`` paths lead, and what ``ls`` and ``glob`` show, over a
tree of symlinks (inside and outside the root, chained, followed by ``..``, dangling,
looping), a FIFO and names that need quoting.

deepagents resolves with Python's ``Path.resolve()``; ours walks the same way in the core. Each
scenario rebuilds the tree at the same path before each implementation's turn, so host paths
compare equal; logs at DEBUG and above are compared too.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import CALL_MODES, Call, attempt, paths, same
from .fs_support import Tree


def linked_tree(tmp_path: Path) -> tuple[Path, Tree]:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text("secret\n")
    tree = Tree(
        root,
        {"a/b/file.txt": "one\n", "top.py": "print()\n", 'it\'s "odd".txt': "q\n", "sp ace/x.py": "x\n"},
        dirs=["empty"],
        links={
            "to_a": "a",
            "to_b": "a/b",
            "chain": "to_b",
            "up_link": "a/b/..",
            "out_dir": str(outside),
            "out_file": str(outside / "secret.txt"),
            "dangling": "nowhere/at/all",
            "cycle": "cycle",
            "ping": "pong",
            "pong": "ping",
            "a/back": "../top.py",
        },
    )
    return root, tree


KEYS = [
    "",
    "/",
    ".",
    "/a",
    "/a/b/",
    "//a//b/./file.txt",
    "/to_a/b/file.txt",
    "/chain/file.txt",
    "/to_b/../b/file.txt",
    "/up_link/b",
    "/missing/deeper/file.txt",
    "/to_a/missing/../b",
    "/a/back",
    "/out_dir/secret.txt",
    "/out_file",
    "/dangling",
    "/dangling/below",
    "/cycle",
    "/cycle/below",
    "/ping/x",
    "/a..b",
    "/a/../top.py",
    "to_a/b",
    '/it\'s "odd".txt',
]


def resolved_and_display(be: Any, key: str) -> Any:
    resolved = attempt(lambda: be._resolve_path(key))
    return str(resolved) if isinstance(resolved, Path) else resolved


@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
def test_resolve_path(virtual: bool, tmp_path: Path) -> None:
    root, tree = linked_tree(tmp_path)
    keys = KEYS if virtual else [*KEYS, str(root / "to_a/b"), str(root) + "//to_b/./file.txt", "//x/y", "rel/../x"]

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=virtual)
        return {key: resolved_and_display(be, key) for key in keys}

    ref = same(scenario)
    if virtual:
        assert ref["/chain/file.txt"] == str(root / "a/b/file.txt")
        assert ref["/a..b"] == ("raised", "ValueError", "Path traversal not allowed")
        assert ref["/out_file"][1] == "ValueError"
        assert ref["/cycle"][1] == "RuntimeError"


@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
def test_real_path(virtual: bool, tmp_path: Path) -> None:
    """`_real_path`, what the permission rules match: links followed to their end (a loop's
    rest kept as written), the root shown as `/`, refusals raised as deepagents raises them."""
    root, tree = linked_tree(tmp_path)
    out_file = str(root / "out_file")
    keys = KEYS if virtual else [*KEYS, out_file, str(root / "cycle/x/../y"), "//x/y", "rel/../x", "/"]

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=virtual)
        return {key: attempt(lambda key=key: be._real_path(key)) for key in keys}

    ref = same(scenario)
    if virtual:
        assert ref["/chain/file.txt"] == "/a/b/file.txt"
        assert ref["/"] == "/"
    else:
        assert ref[out_file] == f"{tmp_path.resolve()}/outside/secret.txt"


def test_real_path_of_a_resolved_path_outside_the_root(tmp_path: Path) -> None:
    """A subclass whose `_resolve_path` leaves the root: `relative_to`'s `ValueError`."""
    root, tree = linked_tree(tmp_path)

    def scenario(a: SimpleNamespace, call: Call) -> Any:
        tree.reset()

        class Elsewhere(a.FilesystemBackend):
            def _resolve_path(self, key: str) -> Path:
                return tmp_path / "outside" / key.lstrip("/")

        return Elsewhere(root_dir=str(root), virtual_mode=True)._real_path("/secret.txt")

    assert same(scenario, raises=True)[1] == "ValueError"


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
def test_listing_and_glob_through_links(
    mode: str, virtual: bool, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root, tree = linked_tree(tmp_path)
    asked = ["/", "/to_a", "/chain", "/a", "/out_dir", "/dangling", "/empty"]
    p = (lambda v: v) if virtual else (lambda v: str(root) + v if v != "/" else str(root))
    caplog.set_level(logging.DEBUG)

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        os.mkfifo(root / "fifo")
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=virtual)
        caplog.clear()
        out: dict[str, Any] = {f"ls {q}": attempt(lambda q=q: call(be, "ls", p(q))) for q in asked}
        for pattern in ["**/*", "*.txt", "**/*.py", "to_a/**"]:
            out[f"glob {pattern}"] = attempt(lambda pattern=pattern: call(be, "glob", pattern, p("/")))
        prefix = f"{a.impl}.backends.filesystem"
        out["log"] = sorted(
            (r.levelname, r.getMessage()) for r in caplog.records if r.name == prefix and r.levelno >= logging.DEBUG
        )
        return out

    ref = same(scenario, mode)
    listed = paths(ref["ls /"], "entries")
    assert p("/a/") in listed and p("/top.py") in listed and p("/fifo") not in listed
    assert "child error:" in ref["ls /"]["error"]
    if virtual:
        # A link out of the root is left out of a virtual listing; one inside shows where it leads.
        assert "/out_file" not in listed and "/secret.txt" not in listed
        assert "/a/b/" in listed


# Modification times in nanoseconds, set on every file: listings show them to the microsecond in
# local time, rounded as Python rounds `st_mtime` (halves included).
STAMPS_NS = [1_700_000_000_123_456_500, 1_700_000_000_000_000_000, 1_000_000_000_999_999_999, 1_700_000_000_000_000_499]


@pytest.mark.parametrize("stamp_ns", STAMPS_NS)
def test_listed_times_are_exact(stamp_ns: int, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {"f.txt": "x\n", "d/g.txt": "y\n"})

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        for path in [root / "f.txt", root / "d", root / "d/g.txt"]:
            os.utime(path, ns=(stamp_ns, stamp_ns))
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        listed = be.ls("/").entries
        globbed = be.glob("**/*.txt").matches
        return {"raw": repr((listed, globbed))}

    ref = same(scenario)
    assert "modified_at" in ref["raw"]
