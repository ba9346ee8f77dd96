"""Parity: ``FilesystemBackend`` called directly: listing, reading (pagination, binary, video
limits), writing and editing (CRLF, end-of-file newline), upload/download, delete, glob,
symlink loops, path refusals and the path helpers.

Each scenario rebuilds its tree at the same path before each implementation's turn, so host
paths in results compare equal, and most return the tree they leave behind as well. Every
scenario runs sync and async (``a``-prefixed methods). Grep lives in ``test_disk_grep.py``.
"""

from __future__ import annotations

import importlib
import os
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import CALL_MODES, IMPLS, Call, attempt, paths, run_both, same
from .fs_support import Tree


def tried(call: Call, obj: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """One call's result, or the exception it raised (compared like a result)."""
    return attempt(lambda: call(obj, name, *args, **kwargs))


def fs_module(impl: str) -> Any:
    return importlib.import_module(f"{impl}.backends.filesystem")


def looped(root: Path, name: str = "cycle") -> Path:
    link = root / name
    link.symlink_to(link)
    return link


# --------------------------------------------------------------------------------------------
# ls
# --------------------------------------------------------------------------------------------

LISTED = {
    "top.cfg": "cfg\n",
    "pkg/mod.py": "mod\n",
    "pkg/sub/leaf.py": "leaf\n",
    "pkg/sub/twig.py": "twig\n",
    "manual/intro.md": "intro\n",
    "manual/deep/a/b/c.md": "deep\n",
}


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
def test_listing(mode: str, virtual: bool, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, LISTED, dirs=["hollow"])
    p = (lambda v: v) if virtual else (lambda v: f"{root}{v}")
    asked = ["/", "/pkg", "/pkg/", "/pkg/sub/", "/manual/deep/a/b", "/hollow/", "/absent/", "/top.cfg"]

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=virtual)
        return {q: tried(call, be, "ls", p(q)) for q in asked}

    ref = same(scenario, mode)
    assert paths(ref["/"], "entries") == [p("/hollow/"), p("/manual/"), p("/pkg/"), p("/top.cfg")]
    assert paths(ref["/pkg"], "entries") == paths(ref["/pkg/"], "entries") == [p("/pkg/mod.py"), p("/pkg/sub/")]
    assert paths(ref["/pkg/sub/"], "entries") == [p("/pkg/sub/leaf.py"), p("/pkg/sub/twig.py")]
    assert ref["/hollow/"]["entries"] == [] and ref["/hollow/"]["error"] is None
    assert ref["/absent/"]["entries"] is None
    if virtual:
        assert ref["/absent/"]["error"] == "Path '/absent/': path_not_found"
        assert ref["/top.cfg"]["error"] == "Path '/top.cfg': not_a_directory"
        assert not any("\\" in e for e in paths(ref["/manual/deep/a/b"], "entries"))


# --------------------------------------------------------------------------------------------
# read
# --------------------------------------------------------------------------------------------

TEXTS: dict[str, str | bytes] = {
    "five.txt": "alpha\nbeta\ngamma\ndelta\nepsilon",
    "three.txt": "red\ngreen\nblue\n",
    "void.txt": "",
    "gbk.txt": "编码测试".encode("gbk"),
    "pic.png": b"\x89PNG\r\n\x1a\n" + bytes(24),
    "movie.mkv": b"\x81\x82matroska",
    "ended.txt": "first\nsecond\n",
    "open.txt": "first\nsecond",
}

READS: list[tuple[str, dict[str, int]]] = [
    ("five.txt", {"offset": 1, "limit": 2}),
    ("five.txt", {"offset": 3, "limit": 10}),
    ("five.txt", {"offset": 42, "limit": 5}),
    ("five.txt", {"offset": -4, "limit": 2}),
    # Python's ints are unbounded: past 64 bits an offset is still only past the end.
    ("five.txt", {"offset": 2**70, "limit": 5}),
    ("five.txt", {"offset": -(2**70), "limit": 2**64}),
    ("three.txt", {"offset": 0, "limit": 0}),
    ("three.txt", {"offset": 0, "limit": -2}),
    ("void.txt", {"offset": 0, "limit": 10}),
    ("void.txt", {"offset": 0, "limit": 0}),
    ("gbk.txt", {}),
    ("pic.png", {"offset": 0, "limit": 0}),
    ("movie.mkv", {}),
    ("ended.txt", {}),
    ("open.txt", {}),
]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_reads(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, TEXTS)

    def scenario(a: SimpleNamespace, call: Call) -> list[Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        return [tried(call, be, "read", str(root / name), **kw) for name, kw in READS]

    ref = same(scenario, mode)
    by = dict(zip([f"{n} {kw}" for n, kw in READS], ref, strict=True))
    window = by["five.txt {'offset': 1, 'limit': 2}"]
    assert (window["start_line"], window["end_line"], window["total_lines"], window["next_offset"]) == (2, 3, 5, 3)
    assert by["five.txt {'offset': 3, 'limit': 10}"]["next_offset"] is None
    assert by["five.txt {'offset': 42, 'limit': 5}"]["error"] == "Line offset 42 exceeds file length (5 lines)"
    assert by["five.txt {'offset': -4, 'limit': 2}"]["file_data"]["content"] == "alpha\nbeta\n"
    assert by[f"five.txt {{'offset': {2**70}, 'limit': 5}}"]["error"].startswith(f"Line offset {2**70} exceeds")
    assert by[f"five.txt {{'offset': {-(2**70)}, 'limit': {2**64}}}"]["total_lines"] == 5
    assert by["three.txt {'offset': 0, 'limit': 0}"]["file_data"]["content"] == ""
    assert "empty contents" in by["void.txt {'offset': 0, 'limit': 0}"]["file_data"]["content"]
    assert "gbk.txt" in by["gbk.txt {}"]["error"]
    assert by["pic.png {'offset': 0, 'limit': 0}"]["file_data"]["encoding"] == "base64"
    assert by["movie.mkv {}"]["file_data"] == {"content": "gYJtYXRyb3NrYQ==", "encoding": "base64"}
    assert by["ended.txt {}"]["file_data"]["content"] == "first\nsecond\n"
    assert by["open.txt {}"]["file_data"]["content"] == "first\nsecond"


@pytest.mark.parametrize("mode", CALL_MODES)
def test_video_size_limit_is_checked_before_reading(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {"clip.mp4": b"12345", "clip.mkv": b"12345", "small.webm": b"12"})
    for impl in IMPLS:
        monkeypatch.setattr(fs_module(impl), "MAX_VIDEO_INPUT_BYTES", 4)

    def scenario(a: SimpleNamespace, call: Call) -> list[Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        return [call(be, "read", f"/{name}") for name in ("clip.mp4", "clip.mkv", "small.webm")]

    ref = same(scenario, mode)
    assert [r["error"] for r in ref[:2]] == ["Video file exceeds maximum input size of 4 bytes"] * 2
    assert ref[2]["error"] is None


# --------------------------------------------------------------------------------------------
# write and edit
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", CALL_MODES)
def test_writes_and_edits(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {"twice.txt": "cat dog cat emu", "tail.md": "# Role\nbe kind"})
    log = "## Log\n\nUser: hi\nBot: hey\n\n"

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        out = {
            "ambiguous": call(be, "edit", "/twice.txt", "cat", "yak"),
            "all": call(be, "edit", "/twice.txt", "cat", "yak", replace_all=True),
            "unique": call(be, "edit", "/twice.txt", "dog", "owl"),
            "after": call(be, "read", "/twice.txt"),
            "new": call(be, "write", "/made/new.txt", "draft"),
            "overwrite": call(be, "write", "/made/new.txt", "one\ntwo\nthree\n"),
            "crlf old": call(be, "edit", "/made/new.txt", "one\r\ntwo\r\n", "uno\n"),
            "crlf new": call(be, "edit", "/made/new.txt", "three", "tres\r\n"),
            "crlf all": None,
            "log": call(be, "write", "/log.md", log),
            "log edit": call(be, "edit", "/log.md", log.replace("\n", "\r\n"), log + "## Log 2\n"),
            "eof": call(be, "edit", "/tail.md", "# Role\nbe kind\n", "# Role\nbe kinder\n"),
        }
        host = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        out["host write"] = call(host, "write", str(root / "host.txt"), "on the host\n")
        out["host edit"] = call(host, "edit", str(root / "host.txt"), "host", "disk")
        call(be, "write", "/rep.txt", "ab\ncd\nab\n")
        out["crlf all"] = call(be, "edit", "/rep.txt", "ab\r\n", "zz\n", replace_all=True)
        out["disk"] = tree.snapshot()
        return out

    ref = same(scenario, mode)
    assert "appears 2 times" in ref["ambiguous"]["error"]
    assert ref["all"]["occurrences"] == 2 and ref["unique"]["occurrences"] == 1
    assert ref["after"]["file_data"]["content"] == "yak owl yak emu"
    assert ref["overwrite"]["error"] is None and ref["overwrite"]["path"] == "/made/new.txt"
    assert ref["crlf old"]["occurrences"] == 1 and ref["crlf all"]["occurrences"] == 2
    assert ref["log edit"]["error"] is None
    assert "old_string ends with a newline" in ref["eof"]["error"]
    disk = ref["disk"]
    assert disk["made/new.txt"] == b"uno\ntres\n\n" and b"\r" not in disk["made/new.txt"]
    assert disk["rep.txt"] == b"zz\ncd\nzz\n" and disk["tail.md"] == b"# Role\nbe kind"
    assert disk["log.md"].endswith(b"## Log 2\n")
    assert ref["host write"]["path"] == str(root / "host.txt") and disk["host.txt"] == b"on the disk\n"


@pytest.mark.parametrize("mode", CALL_MODES)
def test_reads_and_writes_that_fail(mode: str, tmp_path: Path) -> None:
    """Writes whose directories cannot be made (the error names the one that failed), writes
    and reads through links, reads of what is not a regular file, and blank text files."""
    root = tmp_path / "root"
    tree = Tree(
        root,
        {"plain": "p\n", "blank.txt": " \x1c\x1f\t\n", "a.txt": "a\n"},
        dirs=["dir"],
        links={"to_a": "a.txt", "dangling": "nowhere", "to_dir": "dir"},
    )

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        os.mkfifo(root / "fifo")
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        asks = {
            "under a file": ("write", str(root / "plain/x.txt"), "x"),
            "deep under a file": ("write", str(root / "plain/x/y/z.txt"), "x"),
            "deep new dirs": ("write", str(root / "n1/n2/n3/f.txt"), "deep"),
            "onto a dir": ("write", str(root / "dir"), "x"),
            "through a link": ("write", str(root / "to_a"), "x"),
            "through a dangling link": ("write", str(root / "dangling"), "x"),
            "into a linked dir": ("write", str(root / "to_dir/f.txt"), "linked"),
            "read a dir": ("read", str(root / "dir")),
            "read a fifo": ("read", str(root / "fifo")),
            "read a link": ("read", str(root / "to_a")),
            "read a dangling link": ("read", str(root / "dangling")),
            "read blank": ("read", str(root / "blank.txt")),
            "read under a file": ("read", str(root / "plain/x.txt")),
        }
        out = {name: tried(call, be, ask[0], *ask[1:]) for name, ask in asks.items()}
        (root / "fifo").unlink()  # a snapshot would wait on it
        out["disk"] = tree.snapshot()
        return out

    ref = same(scenario, mode)
    assert ref["under a file"]["error"].startswith(f"Error writing file '{root / 'plain/x.txt'}': [Errno 17]")
    assert "Not a directory" in ref["deep under a file"]["error"]
    assert ref["disk"]["n1/n2/n3/f.txt"] == b"deep" and ref["disk"]["dir/f.txt"] == b"linked"
    assert "Symlink" in ref["read a link"]["error"] or "symbolic" in ref["read a link"]["error"]
    assert ref["read a fifo"]["error"] == f"File '{root / 'fifo'}' not found"
    assert "empty contents" in ref["read blank"]["file_data"]["content"]


# --------------------------------------------------------------------------------------------
# upload / download
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", CALL_MODES)
def test_upload_and_download(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {"have.bin": b"\x00\x01have", "plain.txt": "not a dir\n"}, dirs=["folder"])
    every_byte = bytes(range(256))

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        out = {
            "up": call(
                be,
                "upload_files",
                [("/u1.bin", b"one"), ("/../escape.bin", b"no"), ("/nest/u2.bin", every_byte), ("/folder", b"x")],
            ),
            "up under file": call(be, "upload_files", [("/plain.txt/inner.bin", b"x")]),
            "down": call(
                be,
                "download_files",
                ["/have.bin", "/nest/u2.bin", "/missing.bin", "/folder", "/../etc/passwd", "/u1.bin"],
            ),
        }
        out["disk"] = tree.snapshot()
        return out

    ref = same(scenario, mode)
    assert [r["error"] for r in ref["up"][:3]] == [None, "invalid_path", None]
    assert [r["path"] for r in ref["up"]] == ["/u1.bin", "/../escape.bin", "/nest/u2.bin", "/folder"]
    assert ref["up under file"][0]["error"] is not None
    assert [r["error"] for r in ref["down"]] == [None, None, "file_not_found", "is_directory", "invalid_path", None]
    assert [r["content"] for r in ref["down"]][:3] == [b"\x00\x01have", every_byte, None]
    assert ref["disk"]["nest/u2.bin"] == every_byte and "escape.bin" not in str(ref["disk"])


# --------------------------------------------------------------------------------------------
# delete
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", CALL_MODES)
def test_delete(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(
        root,
        {"stay.txt": "s", "go.txt": "g", "tree/a.txt": "a", "tree/inner/b.txt": "b", "real/keep.txt": "k"},
        dirs=["bare"],
        links={"alias": str(root / "real")},
    )

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        host = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        out = {t: call(be, "delete", t) for t in ("/go.txt", "/nothing.txt", "/bare", "/tree")}
        out["link"] = call(host, "delete", str(root / "alias"))
        out["disk"] = tree.snapshot()
        return out

    ref = same(scenario, mode)
    assert [ref[t]["path"] for t in ("/go.txt", "/bare", "/tree")] == ["/go.txt", "/bare", "/tree"]
    assert ref["/nothing.txt"]["path"] is None and "not found" in ref["/nothing.txt"]["error"]
    assert sorted(ref["disk"]) == ["real", "real/keep.txt", "stay.txt"]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_delete_failures_are_reported(mode: str, tmp_path: Path) -> None:
    """Removals the kernel refuses (even to root: entries of /proc), and a failing resolve."""
    root = tmp_path / "root"
    tree = Tree(root, {"held.txt": "h"})

    def boom(*_args: Any, **_kwargs: Any) -> None:
        raise OSError("refused by test")

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        host = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        out = {"unlink": call(host, "delete", "/proc/self/status"), "rmtree": call(host, "delete", "/proc/self/fd")}
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        be._resolve_path = boom
        return {**out, "resolve": call(be, "delete", "/held.txt"), "disk": tree.snapshot()}

    ref = same(scenario, mode)
    for key in ("unlink", "rmtree", "resolve"):
        assert ref[key]["path"] is None and "Error deleting" in ref[key]["error"]
    # The tree's top is named by its path, an entry inside it by its own name.
    assert ref["unlink"]["error"].endswith("Operation not permitted: '/proc/self/status'")
    assert ref["rmtree"]["error"].endswith("Operation not permitted: '0'")
    assert ref["disk"] == {"held.txt": b"h"}


# --------------------------------------------------------------------------------------------
# glob
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", CALL_MODES)
def test_glob(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(
        tmp_path,
        {
            "root/lib/core.py": "c",
            "root/lib/util/tool.py": "t",
            "root/tests/check.py": "k",
            "root/notes.rst": "n",
            "root/doc.md": "d",
            "root/.secret": "s",
            "root/.dot.py": "d",
            "root/.ci/flows/run.yml": "r",
            "stray.py": "outside the root",
        },
    )
    asks = [
        ("**/*.py", "/"),
        ("*.{py,md}", "/"),
        ("*", "/"),
        (".*", "/"),
        (".*.py", "/"),
        ("**/*.yml", "/"),
        (".ci/**/*.yml", "/"),
        ("*.py", "/lib"),
    ]

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        virt = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        host = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        out = {f"{pat} {where}": call(virt, "glob", pat, where) for pat, where in asks}
        out["host default"] = call(host, "glob", "**/*.py")
        out["host /"] = call(host, "glob", "**/*.py", "/")
        return out

    ref = same(scenario, mode)
    assert paths(ref["**/*.py /"], "matches") == ["/lib/core.py", "/lib/util/tool.py", "/tests/check.py"]
    # A slashless pattern matches base names at any depth.
    assert paths(ref["*.{py,md} /"], "matches") == ["/doc.md", *paths(ref["**/*.py /"], "matches")]
    assert paths(ref["*.py /lib"], "matches") == ["/lib/core.py", "/lib/util/tool.py"]
    # A bare ``*`` skips hidden names; ``.*`` reaches them.
    assert "/.secret" not in paths(ref["* /"], "matches") and "/.ci/flows/run.yml" in paths(ref["* /"], "matches")
    assert paths(ref[".* /"], "matches") == ["/.dot.py", "/.secret"]
    assert paths(ref[".*.py /"], "matches") == ["/.dot.py"]
    assert paths(ref["**/*.yml /"], "matches") == [] and paths(ref[".ci/**/*.yml /"], "matches") == [
        "/.ci/flows/run.yml"
    ]
    assert ref["host default"] == ref["host /"]
    assert str(tmp_path / "stray.py") not in paths(ref["host default"], "matches")


@pytest.mark.parametrize("mode", CALL_MODES)
def test_glob_out_of_time_is_truncated_not_an_error(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {"x.py": "x", "y.py": "y", "sub/z.txt": "z"})
    for impl in IMPLS:
        monkeypatch.setattr(fs_module(impl), "_DEFAULT_GLOB_TIMEOUT", -1)

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        return {"hits": call(be, "glob", "*.py"), "none": call(be, "glob", "nothing-matches")}

    ref = same(scenario, mode)
    assert ref["hits"]["truncated"] is True and ref["hits"]["error"] is None
    assert (ref["none"]["matches"], ref["none"]["truncated"], ref["none"]["error"]) == ([], True, None)


def test_glob_budget_is_below_the_tool_deadline() -> None:
    budgets = {}
    for impl in IMPLS:
        tool_deadline = importlib.import_module(f"{impl}.middleware.filesystem").GLOB_TIMEOUT
        budgets[impl] = (fs_module(impl)._DEFAULT_GLOB_TIMEOUT, tool_deadline)
    assert budgets["deepagents_rs"] == budgets["deepagents"]
    assert budgets["deepagents"][0] < budgets["deepagents"][1]


# --------------------------------------------------------------------------------------------
# Refusals, symlink loops
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", CALL_MODES)
def test_virtual_paths_refuse_dotdot(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {"in.txt": "inside\n"})
    (tmp_path / "out.txt").write_text("outside\n")
    calls = [
        ("read", "/../out.txt"),
        ("read", "/sub/../../out.txt"),
        ("write", "/../new.txt", "x"),
        ("edit", "/../out.txt", "outside", "changed"),
        ("ls", "/../"),
        ("glob", "*", "/../"),
        ("grep", "outside", "/../"),
        ("delete", "/../out.txt"),
    ]

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        out = {" ".join(c): tried(call, be, *c) for c in calls}
        out["outside"] = (tmp_path / "out.txt").read_text()
        out["disk"] = tree.snapshot()
        return out

    ref = same(scenario, mode)
    assert ref["read /../out.txt"] == ("raised", "ValueError", "Path traversal not allowed")
    assert ref["write /../new.txt x"][0] == "raised"
    assert ref["outside"] == "outside\n" and ref["disk"] == {"in.txt": b"inside\n"}


@pytest.mark.parametrize("mode", CALL_MODES)
def test_symlink_loops_are_errors_not_raises(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        Tree(root, {"ok.txt": "ok\n"}).reset()
        looped(root)
        host = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        virt = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        return {
            "ls": call(host, "ls", "cycle"),
            "ls virtual root": call(virt, "ls", "/"),
            "read": call(host, "read", "cycle"),
            "write": call(host, "write", "cycle", "content"),
            "edit": call(host, "edit", "cycle", "a", "b"),
            "grep": call(host, "grep", "needle", "cycle"),
            "glob": call(host, "glob", "*", "cycle"),
            "upload": call(host, "upload_files", [("cycle", b"x")]),
            "download": call(host, "download_files", ["cycle"]),
        }

    ref = same(scenario, mode)
    assert "Cannot list 'cycle'" in ref["ls"]["error"] and ref["ls"]["entries"] is None
    # The loop is reported; the other entries are still listed.
    assert "child error:" in ref["ls virtual root"]["error"]
    assert paths(ref["ls virtual root"], "entries") == ["/ok.txt"]
    for key, phrase in [
        ("read", "Error reading file 'cycle'"),
        ("write", "Error writing file 'cycle'"),
        ("edit", "Error editing file 'cycle'"),
        ("grep", "Error searching path 'cycle'"),
        ("glob", "Error globbing path 'cycle'"),
    ]:
        assert phrase in ref[key]["error"], key
    assert ref["upload"][0]["error"] == ref["download"][0]["error"] == "invalid_path"


# --------------------------------------------------------------------------------------------
# Construction and path helpers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{}, {"virtual_mode": True}, {"virtual_mode": False}], ids=str)
def test_construction_warns_nothing(kwargs: dict[str, Any], tmp_path: Path) -> None:
    seen = {}
    for impl in IMPLS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            be = fs_module(impl).FilesystemBackend(root_dir=str(tmp_path), **kwargs)
        seen[impl] = ([str(w.message) for w in caught], be.virtual_mode, be.cwd)
    assert seen["deepagents_rs"] == seen["deepagents"]
    assert seen["deepagents"] == ([], kwargs.get("virtual_mode", True), tmp_path.resolve())


def test_virtual_and_display_paths(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "pkg").mkdir(parents=True)

    def scenario(a: SimpleNamespace, _call: Call) -> dict[str, Any]:
        virt = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        host = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        targets = [root / "pkg" / "m.py", root, tmp_path / "elsewhere" / "leak.txt", Path("/")]
        return {
            "virtual": [attempt(lambda t=t: virt._to_virtual_path(t)) for t in targets],
            "display": [virt._display_path(t) for t in targets],
            "host display": [host._display_path(t) for t in targets],
        }

    out = run_both(scenario)
    ref = out["deepagents"]
    assert out["deepagents_rs"]["virtual"] == ref["virtual"]
    assert ref["virtual"][:2] == ["/pkg/m.py", "/."]
    assert all(v[:2] == ("raised", "ValueError") and "is not in the subpath of" in v[2] for v in ref["virtual"][2:])
    assert out["deepagents_rs"]["display"] == ref["display"] == ["/pkg/m.py", "/.", "leak.txt", "/"]
    assert (
        out["deepagents_rs"]["host display"]
        == ref["host display"]
        == [str(t) for t in [root / "pkg" / "m.py", root, tmp_path / "elsewhere" / "leak.txt", Path("/")]]
    )
