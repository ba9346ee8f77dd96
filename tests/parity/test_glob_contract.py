"""Parity: the glob contract every backend shares, on one tree, in both implementations.

A pattern without ``/`` matches basenames at any depth (leading-dot directories included,
leading-dot names only for a pattern that starts with a dot); a pattern with ``/`` matches
the path relative to the search root, and its ``**`` does not enter leading-dot directories
unless a segment names one; a leading ``/`` anchors at the search root.

Each pattern runs through ``_glob_search_files``, ``StateBackend``, ``StoreBackend``,
``FilesystemBackend`` (virtual mode) and the sandbox's remote glob script, for deepagents
and for deepagents_rs; every backend of both must give the same set (the expected one).
The remote script's own limits (brace expansion, time budget, symlinks leaving the root,
unreadable directories, shell quoting) are compared script against script.
"""

from __future__ import annotations

import base64
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from .backend_direct import IMPLS

TREE = {
    "/top.rs": "fn top",
    "/src/lib.rs": "fn lib",
    "/src/deep/mod.rs": "fn deep",
    "/guide.txt": "guide",
    "/.env.rs": "secret",
    "/.cache/tmp.rs": "cached",
    "/.cache/old/stale.rs": "stale",
    "/.config/app/settings.toml": "[app]",
}

EVERY_RS = {"/top.rs", "/src/lib.rs", "/src/deep/mod.rs", "/.cache/tmp.rs", "/.cache/old/stale.rs"}
WALKED_RS = {"/top.rs", "/src/lib.rs", "/src/deep/mod.rs"}
NOT_DOT = set(TREE) - {"/.env.rs"}

#: (pattern, search root, expected absolute paths)
CONTRACT = [
    ("*.rs", "/", EVERY_RS),
    ("**/*.rs", "/", WALKED_RS),
    ("*.txt", "/", {"/guide.txt"}),
    ("src/*.rs", "/", {"/src/lib.rs"}),
    ("src/**/*.rs", "/", {"/src/lib.rs", "/src/deep/mod.rs"}),
    ("/*.rs", "/", {"/top.rs"}),
    ("/src/**/*.rs", "/", {"/src/lib.rs", "/src/deep/mod.rs"}),
    ("top.rs/**", "/", set()),
    ("*.rs", "/src", {"/src/lib.rs", "/src/deep/mod.rs"}),
    ("deep/*.rs", "/src", {"/src/deep/mod.rs"}),
    ("/*.rs", "/src/", {"/src/lib.rs"}),
    # Leading dots: reached by bare patterns and by naming the segment, not by **.
    ("*.toml", "/", {"/.config/app/settings.toml"}),
    ("**/*.toml", "/", set()),
    (".config/**/*.toml", "/", {"/.config/app/settings.toml"}),
    (".cache/*.rs", "/", {"/.cache/tmp.rs"}),
    (".cache/**/*.rs", "/", {"/.cache/tmp.rs", "/.cache/old/stale.rs"}),
    (".env.rs", "/", {"/.env.rs"}),
    (".*.rs", "/", {"/.env.rs"}),
    ("*", "/", NOT_DOT),
    # Braces, single characters, classes (negated with ! or ^).
    ("*.{rs,txt}", "/", EVERY_RS | {"/guide.txt"}),
    ("*.{toml,ini}", "/", {"/.config/app/settings.toml"}),
    ("{top,lib}.rs", "/", {"/top.rs", "/src/lib.rs"}),
    ("{top,{lib,mod}}.rs", "/", {"/top.rs", "/src/lib.rs", "/src/deep/mod.rs"}),
    ("???.rs", "/", {"/top.rs", "/src/lib.rs", "/src/deep/mod.rs", "/.cache/tmp.rs"}),
    ("[lm]*.rs", "/", {"/src/lib.rs", "/src/deep/mod.rs"}),
    ("[!t]*.rs", "/", EVERY_RS - {"/top.rs", "/.cache/tmp.rs"}),
    ("[^t]*.rs", "/", EVERY_RS - {"/top.rs", "/.cache/tmp.rs"}),
    # Odd shapes: a trailing slash matches no file; an empty segment collapses.
    ("src/", "/", set()),
    ("*.rs/", "/", set()),
    ("src//lib.rs", "/", {"/src/lib.rs"}),
    ("*.zip", "/", set()),
]


def stamp(content: str) -> dict[str, Any]:
    return {
        "content": content,
        "encoding": "utf-8",
        "created_at": "2022-02-02T00:00:00",
        "modified_at": "2022-02-02T00:00:00",
    }


def write_tree(root: Path, files: dict[str, str] = TREE) -> None:
    for path, content in files.items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)


def extract_script(impl: str, pattern: str, root: str) -> str:
    cmd = importlib.import_module(f"{impl}.backends.sandbox")._build_glob_cmd(pattern, root)
    _, _, tail = cmd.partition('python3 -c "')
    script, _, _ = tail.partition('" 2>&1')
    assert script, cmd[:200]
    return script


def run_script(
    impl: str, root: Path, pattern: str, *, budget: float | None = None, argv: list[str] | None = None
) -> list:
    """The JSON lines printed by ``impl``'s remote glob script run on ``root``."""
    script = extract_script(impl, pattern, str(root))
    if budget is not None:
        assert "TIME_BUDGET = 5.0" in script
        script = script.replace("TIME_BUDGET = 5.0", f"TIME_BUDGET = {budget!r}", 1)
    proc = subprocess.run([*(argv or [sys.executable]), "-c", script], capture_output=True, text=True, check=False)
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def script_paths(rows: list[dict[str, Any]], root: str) -> set[str]:
    assert all("path" in r and r["is_dir"] is False for r in rows), rows
    prefix = "/" if root == "/" else root.rstrip("/") + "/"
    return {prefix + r["path"] for r in rows}


def in_every_backend(impl: str, disk: Path, pattern: str, path: str) -> dict[str, set[str]]:
    backends = importlib.import_module(f"{impl}.backends")
    utils = importlib.import_module(f"{impl}.backends.utils")
    files = {p: stamp(c) for p, c in TREE.items()}

    found = utils._glob_search_files(files, pattern, path)
    out = {"utils": set() if found == "No files found" else set(found.split("\n"))}

    state = backends.StateBackend()
    state._read_files = lambda: files
    store = backends.StoreBackend(store=InMemoryStore(), namespace=lambda _rt: ("globs",))
    for p, c in TREE.items():
        assert store.write(p, c).error is None
    disk_backend = backends.FilesystemBackend(root_dir=str(disk), virtual_mode=True)
    for name, backend in (("state", state), ("store", store), ("disk", disk_backend)):
        result = backend.glob(pattern, path=path)
        assert result.error is None, (name, result.error)
        out[name] = {m["path"] for m in result.matches or []}

    root = disk / path.lstrip("/") if path != "/" else disk
    out["sandbox_script"] = script_paths(run_script(impl, root, pattern), path)
    return out


@pytest.mark.parametrize(("pattern", "path", "expect"), CONTRACT)
def test_glob_contract(tmp_path: Path, pattern: str, path: str, expect: set[str]) -> None:
    write_tree(tmp_path)
    out = {impl: in_every_backend(impl, tmp_path, pattern, path) for impl in IMPLS}
    assert out["deepagents_rs"] == out["deepagents"]
    assert out["deepagents"] == dict.fromkeys(out["deepagents"], expect)


# --------------------------------------------------------------------------------------------
# The remote glob script on its own
# --------------------------------------------------------------------------------------------


def both_scripts(root: Path, pattern: str, **kwargs: Any) -> list[dict[str, Any]]:
    rows = {impl: run_script(impl, root, pattern, **kwargs) for impl in IMPLS}
    key = lambda r: json.dumps(r, sort_keys=True)
    assert sorted(rows["deepagents_rs"], key=key) == sorted(rows["deepagents"], key=key)
    return rows["deepagents"]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("pattern", ["*.rs", "/*.rs", "**/x", "ü/*.rs", "a'b\"c$d`e\\f"])
def test_script_carries_the_pattern_verbatim_and_shell_safe(impl: str, pattern: str) -> None:
    cmd = importlib.import_module(f"{impl}.backends.sandbox")._build_glob_cmd(pattern, "/work space")
    assert base64.b64encode(pattern.encode()).decode() in cmd
    assert base64.b64encode(b"/work space").decode() in cmd
    if pattern == "*.rs":
        # The host does not widen a bare pattern into a recursive one; the script does.
        assert base64.b64encode(b"**/*.rs").decode() not in cmd
    # The body sits inside sh double quotes: these would be rewritten by the shell.
    script = extract_script(impl, pattern, "/work space")
    assert not set(script) & set('$`"\\')


@pytest.mark.parametrize(
    ("files", "pattern", "expect"),
    [
        # A brace group that expands past the cap is refused with its own code ...
        ({"probe.rs": "x"}, "{q,}" * 18 + "probe.rs", [{"error": "pattern_too_broad"}]),
        # ... distinct from a traversing pattern.
        ({"probe.rs": "x"}, "../*.rs", [{"error": "invalid_pattern"}]),
        ({"probe.rs": "x"}, "src/../../*.rs", [{"error": "invalid_pattern"}]),
        ({"probe.rs": "x"}, "{q,}" * 3 + "probe.rs", [{"path": "probe.rs", "is_dir": False}]),
        # Braces that expand nothing are literal; a literal group does not stop the next one.
        ({"{probe}.rs": "x"}, "{probe}.rs", [{"path": "{probe}.rs", "is_dir": False}]),
        ({"{k}1.rs": "", "{k}2.rs": "", "{k}3.rs": ""}, "{k}{1,2}.rs", ["{k}1.rs", "{k}2.rs"]),
        ({"p.rs": "", "q.rs": "", "r.rs": "", "s.rs": ""}, "{p,{q,r}}.rs", ["p.rs", "q.rs", "r.rs"]),
    ],
)
def test_script_brace_limits_and_refusals(tmp_path: Path, files: dict[str, str], pattern: str, expect: list) -> None:
    write_tree(tmp_path, files)
    rows = both_scripts(tmp_path, pattern)
    if expect and isinstance(expect[0], str):
        assert sorted(r["path"] for r in rows) == expect
    else:
        assert rows == expect


def test_script_stops_at_the_time_budget(tmp_path: Path) -> None:
    # Directories only: the budget must be checked while walking, not only per file.
    (tmp_path / "x" / "y" / "z").mkdir(parents=True)
    assert both_scripts(tmp_path, "*", budget=-1.0) == [{"warning": "truncated"}]


def test_script_keeps_symlinks_inside_the_root(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    write_tree(outside, {"leak.rs": "secret"})
    write_tree(root, {"lib/ok.rs": "fine", "lib/inner.rs": "fine"})
    (root / "lib" / "out.rs").symlink_to(outside / "leak.rs")
    (root / "lib" / "alias.rs").symlink_to(root / "lib" / "inner.rs")
    (root / "escape").symlink_to(outside, target_is_directory=True)
    # A link to a file inside the root is kept; links (and linked directories) leading out are not.
    assert {r["path"] for r in both_scripts(root, "*.rs")} == {"lib/ok.rs", "lib/inner.rs", "lib/alias.rs"}


@pytest.fixture
def unprivileged() -> Iterator[tuple[list[str] | None, Path]]:
    """An interpreter that cannot read a ``chmod 000`` directory, and a tree it may read."""
    argv = None
    if os.geteuid() == 0:
        python = shutil.which("python3", path="/usr/bin:/bin")
        if shutil.which("setpriv") is None or python is None:
            pytest.skip("needs setpriv and a system python3 to drop root")
        argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python]
    base = Path(tempfile.mkdtemp(dir="/tmp"))
    base.chmod(0o755)
    try:
        yield argv, base
    finally:
        for path in base.rglob("*"):
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(base)


def test_script_reports_an_unreadable_directory(unprivileged: tuple[list[str] | None, Path]) -> None:
    argv, root = unprivileged
    write_tree(root, {"ok.rs": "ok", "shut/inside.rs": "x"})
    (root / "shut").chmod(0)
    rows = {impl: run_script(impl, root, "*.rs", argv=argv) for impl in IMPLS}
    assert rows["deepagents_rs"] == rows["deepagents"]
    # A partial walk says so instead of looking complete.
    warning = {"warning": "walk_errors", "count": 1, "sample": ["PermissionError:./shut"]}
    assert rows["deepagents"] == [{"path": "ok.rs", "is_dir": False}, warning]
