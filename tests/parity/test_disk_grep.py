"""Parity: ``FilesystemBackend.grep`` called directly: literal matching, include globs, the
total cap, context lines and how their failures are reported, the Python search's edge cases
(line endings, undecodable and oversized files, timeouts) and ``format_grep_matches``.

Ripgrep is not installed here, so both implementations search without it unless a scenario
stands in for it (``_ripgrep_search`` replaced on the instance); ``test_disk_ripgrep.py``
fakes the ``rg`` process itself. Grep reports files in directory order, so results over
several files are sorted before they are compared.
"""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import CALL_MODES, IMPLS, Call, attempt, paths, run_both, same
from .fs_support import Tree


def ordered(result: Any) -> Any:
    if getattr(result, "matches", None):
        result.matches.sort(key=lambda m: (m["path"], m["line"]))
    return result


def utils(impl: str) -> Any:
    return importlib.import_module(f"{impl}.backends.utils")


def no_ripgrep(be: Any) -> Any:
    be._ripgrep_search = lambda *_a, **_k: (None, False)
    return be


# --------------------------------------------------------------------------------------------
# Literal search, include globs, search roots
# --------------------------------------------------------------------------------------------

SOURCES = {
    "calc.py": "def total(items, *, tax=0.2):\n    return sum(items)\n",
    "types.py": "Value = float | None\nrx = r'\\d+(x)?'\nopen = '['\n",
    "prices.txt": "Lamp: $24.50 (net)\nMail: shop@lamps.example\n",
    "pkg/deep/mod.py": "import json\n",
    "pkg/readme.md": "import guide\n",
    "lib/mod.py": "import os\n",
}
LITERALS = ["[", "total(items", "float | None", "\\d+(x)?", "(x)", "$24.50", "shop@lamps", "a.b", "t*x", "import"]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_patterns_are_literal(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, SOURCES)

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        out = {pat: ordered(call(be, "grep", pat, "/")) for pat in LITERALS}
        out["fallback"] = ordered(call(no_ripgrep(be), "grep", "$24.50", "/"))
        return out

    ref = same(scenario, mode)
    assert paths(ref["total(items"], "matches") == ["/calc.py"] and paths(ref["["], "matches") == ["/types.py"]
    assert paths(ref["\\d+(x)?"], "matches") == paths(ref["(x)"], "matches") == ["/types.py"]
    assert paths(ref["$24.50"], "matches") == paths(ref["fallback"], "matches") == ["/prices.txt"]
    assert ref["a.b"]["matches"] == ref["t*x"]["matches"] == []


INCLUDES = [
    ("*.py", "/"),
    ("**/*.py", "/"),
    ("pkg/**/*.py", "/"),
    ("deep/*.py", "/pkg"),
    ("*.md", "/"),
    ("pkg/*.md", "/"),
    ("*.{md,txt}", "/"),
    ("[", "/"),
]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
def test_include_globs(mode: str, virtual: bool, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, SOURCES)
    p = (lambda v: v) if virtual else (lambda v: str(root) + v.rstrip("/"))

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=virtual)
        return {f"{g} {w}": ordered(call(be, "grep", "import", p(w), g)) for g, w in INCLUDES}

    ref = same(scenario, mode)
    assert paths(ref["*.py /"], "matches") == [p("/lib/mod.py"), p("/pkg/deep/mod.py")]
    assert ref["**/*.py /"] == ref["*.py /"]
    assert paths(ref["pkg/**/*.py /"], "matches") == paths(ref["deep/*.py /pkg"], "matches") == [p("/pkg/deep/mod.py")]
    assert paths(ref["pkg/*.md /"], "matches") == [p("/pkg/readme.md")]
    assert ref["*.{md,txt} /"] == ref["*.md /"]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_search_roots_files_and_symlinks(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(
        tmp_path,
        {"root/one.txt": "hello one\n", "shared/s.txt": "hello shared\n", "away/secret.txt": "hello secret\n"},
        links={"root/via": str(tmp_path / "shared"), "root/escape": str(tmp_path / "away")},
    )

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        return {
            "file": call(be, "grep", "hello", str(root / "one.txt")),
            "link dir": call(be, "grep", "hello", str(root / "via")),
            "whole root": ordered(call(be, "grep", "hello", str(root))),
            "missing": call(be, "grep", "hello", str(root / "nope")),
        }

    ref = same(scenario, mode)
    assert paths(ref["file"], "matches") == [str(root / "one.txt")]
    assert paths(ref["link dir"], "matches") == [str(root / "via" / "s.txt")]
    assert not any("secret" in p for p in paths(ref["whole root"], "matches"))
    assert ref["missing"]["matches"] == []


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize(("cap", "found", "cut"), [(4, 4, True), (None, 9, False), (50, 9, False), (9, 9, False)])
def test_total_cap(mode: str, cap: int | None, found: int, cut: bool, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {f"f{i}.txt": "pin\npin\npin\n" for i in range(3)})

    def scenario(a: SimpleNamespace, call: Call) -> Any:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        result = call(be, "grep", "pin", str(root), max_count=cap)
        return len(result.matches), result.truncated, result.error

    assert same(scenario, mode) == [found, cut, None]


# --------------------------------------------------------------------------------------------
# Context lines
# --------------------------------------------------------------------------------------------

CONTEXT_FILES = {
    "edges.txt": "pin first\nb\nc\nd\npin last",
    "pair.txt": "above\npin one\npin two\nbelow\n",
    "groups.txt": "l1\nl2\npin l3\nl4\npin l5\nl6\nl7\nl8\nl9\npin l10\nl11",
    "solo.txt": "pin",
    "other.txt": "north\npin other\nsouth\n",
}


@pytest.mark.parametrize("mode", CALL_MODES)
def test_context_lines(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, CONTEXT_FILES)

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        fmt = utils(a.impl).format_grep_matches
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        out: dict[str, Any] = {}
        for radius in (0, 1, 2, 10**9):
            found = ordered(call(be, "grep", "pin", "/", context_lines=radius))
            out[radius] = found
            out[f"{radius} text"] = {m: fmt(found.matches, m) for m in ("content", "files_with_matches", "count")}
        out["default"] = ordered(call(be, "grep", "pin", "/"))
        out["negative"] = attempt(lambda: call(be, "grep", "pin", "/", context_lines=-1))
        out["python search"] = fmt(
            call(no_ripgrep(be), "grep", "pin", "/other.txt", context_lines=1).matches, "content"
        )
        return out

    ref = same(scenario, mode)
    assert ref["default"] == ref[0] and "context_before" not in ref[0]["matches"][0]
    assert ref["negative"] == ("raised", "ValueError", "context_lines must be non-negative")
    assert ref["1 text"]["files_with_matches"] == ref["0 text"]["files_with_matches"]
    assert ref["1 text"]["count"] == ref["0 text"]["count"]
    pair = [m for m in ref[1]["matches"] if m["path"] == "/pair.txt"]
    # A neighbouring match is not repeated as context.
    assert [(m["context_before"], m["context_after"]) for m in pair] == [
        ([{"line": 1, "text": "above"}], []),
        ([], [{"line": 4, "text": "below"}]),
    ]
    assert (
        "/groups.txt:\n  2- l2\n  3: pin l3\n  4- l4\n  5: pin l5\n  6- l6\n  --\n  9- l9\n" in ref["1 text"]["content"]
    )
    assert "/edges.txt:\n  1: pin first\n  2- b\n  3- c\n  4- d\n  5: pin last\n" in ref["2 text"]["content"]
    assert ref["1000000000 text"]["content"].endswith("/solo.txt:\n  1: pin")
    # Without ripgrep a file path searches its whole directory (as deepagents does).
    assert "/other.txt:\n  1- north\n  2: pin other\n  3- south\n/pair.txt" in ref["python search"]


def hits_from(found: dict[str, list[tuple[int, str]]], partial: bool) -> Any:
    return lambda *_a, **_k: (found, partial)


@pytest.mark.parametrize("mode", CALL_MODES)
def test_context_around_ripgrep_hits(mode: str, tmp_path: Path) -> None:
    """Ripgrep's lines keep ``\\r\\n``; the context read must treat only ``\\n`` as a line end."""
    root = tmp_path / "root"
    tree = Tree(
        root,
        {
            "dos.txt": b"up\r\npin\r\ndown\r\n",
            "mac.txt": b"up\rpin\rdown\r",
            "cut.txt": "a\npin kept\npin dropped\nz\n",
        },
    )
    stand_ins = {
        "dos": ("/dos.txt", {"/dos.txt": [(2, "pin")]}, False, 1),
        "mac": ("/mac.txt", {"/mac.txt": [(1, "up\rpin\rdown\r")]}, False, 1),
        "cut": ("/cut.txt", {"/cut.txt": [(2, "pin kept")]}, True, 2),
    }

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        out = {}
        for name, (where, found, partial, radius) in stand_ins.items():
            be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
            be._ripgrep_search = hits_from(found, partial)
            out[name] = call(be, "grep", "pin", where, context_lines=radius)
        return out

    ref = same(scenario, mode)
    assert ref["dos"]["matches"][0]["context_after"] == [{"line": 3, "text": "down"}]
    assert ref["mac"]["matches"][0]["context_before"] == ref["mac"]["matches"][0]["context_after"] == []
    assert ref["cut"]["truncated"] is True
    assert ref["cut"]["matches"][0]["context_after"] == [{"line": 4, "text": "z"}]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_context_that_cannot_be_read(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {"fine.txt": "up\npin\ndown\n", "latin.txt": b"pin\n\xe9t\xe9\n"})

    def resolver_failing_for(be: Any, target: str) -> Any:
        resolve = be._resolve_path

        def patched(key: str) -> Path:
            if key == target:
                raise RuntimeError("loop while resolving")
            return resolve(key)

        return patched

    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        tree.reset()
        new = lambda: a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        out = {"latin read": new()._read_grep_context("/latin.txt", [(1, 2)])}
        be = new()
        be._read_grep_context = lambda *_a, **_k: ({}, False)
        out["read fails"] = call(be, "grep", "pin", "/fine.txt", context_lines=1)
        be = new()
        be._resolve_path = resolver_failing_for(be, "/fine.txt")
        out["resolve fails"] = call(be, "grep", "pin", "/", "fine.txt", context_lines=1)
        out["undecodable"] = ordered(call(new(), "grep", "pin", "/", context_lines=1))
        be = new()
        be._add_grep_context = lambda *_a, **_k: ["/fine.txt"]
        hits = [{"path": "/fine.txt", "line": 2, "text": "pin"}]
        out["appended"] = be._apply_grep_context(hits, 1, "Error: earlier trouble", "pin", newline="\n")
        return out

    ref = same(scenario, mode)
    assert ref["latin read"] == [{}, False]
    for key in ("read fails", "resolve fails"):
        assert ref[key]["matches"] == [
            {"path": "/fine.txt", "line": 2, "text": "pin", "context_before": [], "context_after": []}
        ]
        assert "could not read context" in ref[key]["error"] and "/fine.txt" in ref[key]["error"]
    assert ref["appended"].startswith("Error: earlier trouble\n") and "/fine.txt" in ref["appended"]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_agrep_context_runs_against_a_deadline(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {"s.txt": "up\npin\ndown\n"})
    for impl in IMPLS:
        monkeypatch.setattr(importlib.import_module(f"{impl}.backends.filesystem"), "ASYNC_GREP_TIMEOUT", 0.01)

    def scenario(a: SimpleNamespace, _call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        in_time = asyncio.run(be.agrep("pin", "/", "*.txt"))
        be.grep = lambda *_a, **_k: time.sleep(0.3)
        return {"in time": in_time, "late": asyncio.run(be.agrep("pin", "/", context_lines=1))}

    ref = same(scenario, mode)
    assert paths(ref["in time"], "matches") == ["/s.txt"]
    assert ref["late"]["matches"] is None and "timed out" in ref["late"]["error"]


# --------------------------------------------------------------------------------------------
# The Python search
# --------------------------------------------------------------------------------------------

PY_FILES: dict[str, str | bytes] = {
    "code.py": "x = [0-9]\nmatch pin\n",
    "dos.txt": b"pin here\r\nnot\r\n",
    "mac.txt": b"pin mac\rnot\r",
    "raw.bin": b"\xfe\xff pin \x00\x91",
    "many.txt": "pin\nno\npin\nno\npin\n",
    "docs/a.md": "pin doc\n",
    "src/b.md": "pin src\n",
}
PY_SEARCHES: list[tuple[str, str | None, dict[str, Any]]] = [
    ("pin", None, {}),
    ("[0-9]", None, {}),
    ("p.n", None, {}),
    ("pi*n", None, {}),
    ("pin", "*.md", {}),
    ("pin", "docs/*.md", {}),
    ("pin", None, {"timeout": 0}),
]


@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
def test_python_search(virtual: bool, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, PY_FILES)

    def scenario(a: SimpleNamespace, _call: Call) -> dict[str, Any]:
        tree.reset()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=virtual)
        out = {}
        for pat, glob, kw in PY_SEARCHES:
            found, truncated, error = be._python_search(pat, root, glob, **kw)
            out[f"{pat} {glob} {kw}"] = (dict(sorted(found.items())), truncated, error)
        be.max_file_size_bytes = 4
        out["size limit"] = be._python_search("pin", root, None)
        return out

    ref = same(scenario, "sync")
    k = (lambda v: v) if virtual else (lambda v: str(root) + v)
    everything = ref["pin None {}"]
    assert everything[1:] == [False, None]
    assert everything[0][k("/dos.txt")] == [[1, "pin here"]] and everything[0][k("/mac.txt")] == [[1, "pin mac"]]
    assert everything[0][k("/many.txt")] == [[1, "pin"], [3, "pin"], [5, "pin"]]
    assert k("/raw.bin") not in everything[0]
    assert list(ref["[0-9] None {}"][0]) == [k("/code.py")]
    assert ref["p.n None {}"][0] == ref["pi*n None {}"][0] == {}
    assert list(ref["pin docs/*.md {}"][0]) == [k("/docs/a.md")]
    assert ref["pin None {'timeout': 0}"][1:] == [True, None]
    assert ref["size limit"] == [{}, False, None]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_partial_python_search_is_flagged_truncated(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    tree = Tree(root, {"f.txt": "pin\n"})

    def scenario(a: SimpleNamespace, call: Call) -> Any:
        tree.reset()
        be = no_ripgrep(a.FilesystemBackend(root_dir=str(root), virtual_mode=True))
        be._python_search = lambda *_a, **_k: ({"/f.txt": [(1, "pin")]}, True, None)
        return call(be, "grep", "pin", "/")

    ref = same(scenario, mode)
    assert (paths(ref, "matches"), ref["truncated"], ref["error"]) == (["/f.txt"], True, None)


# --------------------------------------------------------------------------------------------
# format_grep_matches
# --------------------------------------------------------------------------------------------


class CountingList(list):
    """A match list that counts how often it is iterated."""

    passes = 0

    def __iter__(self) -> Iterator[Any]:
        self.passes += 1
        return super().__iter__()


def test_content_format_sorts_by_path_in_a_fixed_number_of_passes() -> None:
    def scenario(a: SimpleNamespace, _call: Call) -> dict[str, Any]:
        fmt = utils(a.impl).format_grep_matches
        bare = [{"path": p, "line": 3, "text": p[1]} for p in ("/y.txt", "/b.txt", "/m.txt")]
        with_context = [{**m, "context_before": [], "context_after": []} for m in bare]
        big = CountingList(
            {"path": f"/n{i:03}.txt", "line": 1, "text": "pin", "context_before": [], "context_after": []}
            for i in range(150)
        )
        text = fmt(big, "content")
        return {"bare": fmt(bare, "content"), "context": fmt(with_context, "content"), "big": (big.passes, text)}

    out = run_both(scenario)
    assert out["deepagents_rs"]["bare"] == out["deepagents"]["bare"]
    assert (
        out["deepagents_rs"]["context"]
        == out["deepagents"]["context"]
        == "/b.txt:\n  3: b\n/m.txt:\n  3: m\n/y.txt:\n  3: y"
    )
    for impl in IMPLS:
        passes, text = out[impl]["big"]
        assert passes < 10 and text.count(":\n  1: pin") == 150, impl
    assert out["deepagents_rs"]["big"][1] == out["deepagents"]["big"][1]
