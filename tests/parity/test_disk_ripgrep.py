"""Parity: ``FilesystemBackend.grep`` with ripgrep, the ``rg`` process faked.

``shutil.which`` and ``subprocess.Popen`` are patched on the (shared) standard-library
modules, so both implementations see the same fake ``rg``: its command line, its streamed
``--json`` frames, a hang until the watchdog kills it, a failure to start, a non-zero exit,
a flood on stderr. Compared: the results, the command line and working directory, what
was done to the process, and the backend logger's messages.
"""

from __future__ import annotations

import importlib
import io
import json
import logging
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import IMPLS, Call, paths, same
from .fs_support import Tree

FAKE_RG = "/opt/rg-fake/bin/rg"


def fs_module(impl: str) -> Any:
    return importlib.import_module(f"{impl}.backends.filesystem")


@pytest.fixture(autouse=True)
def fresh_rg_lookup() -> Iterator[None]:
    for impl in IMPLS:
        fs_module(impl)._resolve_ripgrep_path.cache_clear()
    yield
    for impl in IMPLS:
        fs_module(impl)._resolve_ripgrep_path.cache_clear()


def rg_line(path: str, number: int, text: str) -> str:
    body = {"path": {"text": path}, "lines": {"text": text}, "line_number": number}
    return json.dumps({"type": "match", "data": body}) + "\n"


class _Stalling:
    """Stdout that gives its lines, then stays open until the process is stopped."""

    def __init__(self, lines: list[str], stopped: threading.Event) -> None:
        self._lines = list(lines)
        self._stopped = stopped

    def __iter__(self) -> Iterator[str]:
        while self._lines and not self._stopped.is_set():
            yield self._lines.pop(0)
        self._stopped.wait(5)

    def close(self) -> None:
        pass


class FakeRg:
    """What ``subprocess.Popen`` returns in place of ``rg``."""

    def __init__(self, lines: list[str] = (), *, stderr: str = "", code: int = 0, stall: bool = False) -> None:  # type: ignore[assignment]
        self.stopped = threading.Event()
        self.returncode = code
        self.signals: list[str] = []
        self.stdout: Any = _Stalling(list(lines), self.stopped) if stall else io.StringIO("".join(lines))
        self.stderr = io.StringIO(stderr)

    def terminate(self) -> None:
        self.signals.append("terminate")
        self.stopped.set()

    def kill(self) -> None:
        self.signals.append("kill")
        self.returncode = -9
        self.stopped.set()

    def wait(self, timeout: float | None = None) -> int:
        return self.returncode


def install_rg(monkeypatch: pytest.MonkeyPatch, spawn: Callable[..., Any], found: str | None = FAKE_RG) -> dict:
    """``rg`` at ``found``; each start runs ``spawn(argv, **kwargs)``. Returns a record of
    the ``which`` lookups, the starts, and the processes handed out."""
    seen: dict[str, Any] = {"which": 0, "starts": [], "procs": []}

    def which(_name: str) -> str | None:
        seen["which"] += 1
        return found

    def popen(argv: list[str], **kwargs: Any) -> Any:
        seen["starts"].append((list(argv), kwargs.get("cwd"), kwargs.get("text")))
        proc = spawn(argv, **kwargs)
        seen["procs"].append(proc)
        return proc

    monkeypatch.setattr(shutil, "which", which)
    monkeypatch.setattr(subprocess, "Popen", popen)
    return seen


def logged(caplog: pytest.LogCaptureFixture, impl: str) -> list[tuple[str, str]]:
    name = f"{impl}.backends.filesystem"
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == name]


def grep_with(tree: Tree, caplog: pytest.LogCaptureFixture, *runs: dict[str, Any]) -> Callable[..., Any]:
    """A scenario: rebuild the tree, run each ``grep(**kwargs)`` on a host-mode backend and
    return the results plus the logger's records for this implementation."""

    def scenario(a: SimpleNamespace, _call: Call) -> dict[str, Any]:
        tree.reset()
        caplog.clear()
        be = a.FilesystemBackend(root_dir=str(tree.root), virtual_mode=False)
        results = [be.grep(**kw) for kw in runs]
        for result in results:  # a Python search reports files in directory order
            (result.matches or []).sort(key=lambda m: (m["path"], m["line"]))
        return {"results": results, "log": logged(caplog, a.impl)}

    return scenario


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path / "root", {"a.txt": "pin\npin\n", "b.txt": "pin\n", "sub/c.md": "pin\n"})


def test_missing_rg_is_logged_once(
    tree: Tree, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = install_rg(monkeypatch, lambda *_a, **_k: pytest.fail("rg started"), found=None)
    caplog.set_level(logging.INFO)
    ask = {"pattern": "pin", "path": str(tree.root)}
    ref = same(grep_with(tree, caplog, ask, ask))
    assert [level for level, msg in ref["log"] if msg.startswith("ripgrep ('rg') not found on PATH")] == ["INFO"]
    assert ref["results"][0] == ref["results"][1] and len(ref["results"][0]["matches"]) == 4
    assert seen["which"] == 2  # once per implementation


@pytest.mark.parametrize(
    "ask",
    [
        {"pattern": "pin"},
        {"pattern": "-e x", "glob": "sub/*.md"},
        {"pattern": "pin", "max_count": 5},
        {"pattern": "pin", "file": "a.txt"},
    ],
    ids=str,
)
def test_command_line(
    ask: dict[str, Any], tree: Tree, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = install_rg(monkeypatch, lambda *_a, **_k: FakeRg())
    kw = {k: v for k, v in ask.items() if k != "file"}
    kw["path"] = str(tree.root / ask.get("file", ""))
    ref = same(grep_with(tree, caplog, kw))
    ref_start, rs_start = seen["starts"]
    assert rs_start == ref_start
    argv, cwd, text = ref_start
    assert argv[:3] == [FAKE_RG, "--json", "-F"] and text is True
    assert argv[argv.index("--") + 1] == ask["pattern"]
    if "max_count" in ask:
        assert argv[argv.index("-m") + 1] == str(ask["max_count"] + 1)
    assert cwd == (None if "file" in ask else str(tree.root))
    assert ref["results"][0]["matches"] == []


def test_frames_become_matches_and_the_cap_stops_rg(
    tree: Tree, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    frames = [rg_line("a.txt", 1, "pin\n"), rg_line("a.txt", 2, "pin\n"), rg_line("b.txt", 1, "pin\n")]
    seen = install_rg(monkeypatch, lambda *_a, **_k: FakeRg(frames))
    root = str(tree.root)
    ref = same(
        grep_with(
            tree,
            caplog,
            {"pattern": "pin", "path": root, "max_count": 2},
            {"pattern": "pin", "path": root, "max_count": 3},
            {"pattern": "pin", "path": root, "max_count": 40},
            {"pattern": "pin", "path": root},
        )
    )
    cut, exact, below, uncapped = ref["results"]
    assert (len(cut["matches"]), cut["truncated"]) == (2, True)
    assert [(len(r["matches"]), r["truncated"]) for r in (exact, below, uncapped)] == [(3, False)] * 3
    assert uncapped["matches"][0] == {"path": f"{root}/a.txt", "line": 1, "text": "pin"}
    signals = [p.signals for p in seen["procs"]]
    assert signals[:4] == signals[4:] and signals[0] == ["terminate"] and signals[1:4] == [[], [], []]


@pytest.mark.parametrize("partial", [False, True], ids=["silent", "partial"])
def test_watchdog_kills_a_stalled_rg(
    partial: bool, tree: Tree, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [rg_line("b.txt", 1, "pin\n")] if partial else []
    seen = install_rg(monkeypatch, lambda *_a, **_k: FakeRg(lines, stall=True))
    for impl in IMPLS:
        monkeypatch.setattr(fs_module(impl), "DEFAULT_GREP_TIMEOUT", 0.05)
    caplog.set_level(logging.WARNING)
    ref = same(grep_with(tree, caplog, {"pattern": "pin", "path": str(tree.root)}))
    [result] = ref["results"]
    assert [p.signals[:1] for p in seen["procs"]] == [["kill"], ["kill"]]
    assert any("timed out" in msg for _, msg in ref["log"])
    if partial:
        assert (paths(result, "matches"), result["truncated"], result["error"]) == ([f"{tree.root}/b.txt"], True, None)
    else:  # the Python search ran instead
        assert len(result["matches"]) == 4 and result["truncated"] is False


def test_rg_that_fails_to_start_is_looked_up_again(
    tree: Tree, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def vanished(argv: list[str], **_kwargs: Any) -> Any:
        raise FileNotFoundError(2, "No such file or directory", argv[0])

    seen = install_rg(monkeypatch, vanished)
    caplog.set_level(logging.WARNING)
    ask = {"pattern": "pin", "path": str(tree.root)}
    ref = same(grep_with(tree, caplog, ask, ask))
    failures = [msg for _, msg in ref["log"] if "ripgrep subprocess failed" in msg]
    assert len(failures) == 2 and "FileNotFoundError" in failures[0] and "No such file or directory" in failures[0]
    assert seen["which"] == 4  # both implementations looked again for the second grep
    assert len(ref["results"][1]["matches"]) == 4


@pytest.mark.parametrize("streamed", [0, 1])
def test_rg_error_exit_falls_back_to_a_full_python_search(
    streamed: int, tree: Tree, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [rg_line("a.txt", 1, "pin\n")] * streamed
    install_rg(monkeypatch, lambda *_a, **_k: FakeRg(lines, stderr="rg: bad glob 'x/[': unclosed class", code=2))
    caplog.set_level(logging.WARNING)
    ref = same(grep_with(tree, caplog, {"pattern": "pin", "path": str(tree.root)}))
    warnings = [msg for _, msg in ref["log"] if "ripgrep exited 2" in msg]
    assert warnings and "bad glob" in warnings[0]
    [result] = ref["results"]
    assert len(result["matches"]) == 4 and result["error"] is None


def test_a_flood_on_stderr_does_not_block_the_stream(
    tree: Tree, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = rg_line("b.txt", 7, "only rg sees this\n")
    child = f"import sys\nsys.stderr.write('!' * 2_000_000)\nsys.stderr.flush()\nsys.stdout.write({frame!r})\n"
    real_popen = subprocess.Popen

    def noisy(_argv: list[str], **kwargs: Any) -> Any:
        return real_popen([sys.executable, "-c", child], **kwargs)

    install_rg(monkeypatch, noisy)
    for impl in IMPLS:
        monkeypatch.setattr(fs_module(impl), "DEFAULT_GREP_TIMEOUT", 5)
    ref = same(grep_with(tree, caplog, {"pattern": "only rg", "path": str(tree.root)}))
    [result] = ref["results"]
    assert result["matches"] == [{"path": f"{tree.root}/b.txt", "line": 7, "text": "only rg sees this"}]
    assert result["truncated"] is False


def test_matches_through_a_symlink_out_of_the_search_root_are_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = Tree(
        tmp_path,
        {"root/in.txt": "pin\n", "away/secret.txt": "pin secret\n"},
        links={"root/out": str(tmp_path / "away")},
    )
    root = tmp_path / "root"
    frames = [rg_line("in.txt", 1, "pin\n"), rg_line("out/secret.txt", 1, "pin secret\n")]
    install_rg(monkeypatch, lambda *_a, **_k: FakeRg(frames))

    def scenario(a: SimpleNamespace, _call: Call) -> dict[str, Any]:
        layout.reset()
        host = a.FilesystemBackend(root_dir=str(root), virtual_mode=False)
        virt = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        return {"host": host.grep("pin", str(root)), "virtual": virt.grep("pin", "/")}

    ref = same(scenario)
    assert paths(ref["host"], "matches") == [str(root / "in.txt")]
    assert paths(ref["virtual"], "matches") == ["/in.txt"]


@pytest.mark.parametrize("virtual", [True, False], ids=["virtual", "host"])
def test_reported_paths_are_placed_under_the_search_base(
    virtual: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """How each path rg prints is shown: `./` and `..` forms, an absolute path, a link to a
    file inside, a link out of the root, one that is gone. (rg prints a name that is not
    UTF-8 as base64 bytes, which neither implementation reads.)"""
    layout = Tree(
        tmp_path,
        {"root/in.txt": "pin\n", "root/sub/deep.txt": "pin\n", "away/secret.txt": "pin\n"},
        links={"root/alias.txt": "in.txt", "root/out.txt": str(tmp_path / "away" / "secret.txt")},
    )
    root = tmp_path / "root"
    reported = ["./in.txt", "sub/../in.txt", "sub/./deep.txt", str(root / "in.txt"), "alias.txt"]
    reported += ["out.txt", "gone.txt", "sub//deep.txt"]
    frames = [rg_line(name, 1, "pin\n") for name in reported]
    install_rg(monkeypatch, lambda *_a, **_k: FakeRg(frames))
    caplog.set_level(logging.DEBUG)

    def scenario(a: SimpleNamespace, _call: Call) -> dict[str, Any]:
        layout.reset()
        caplog.clear()
        be = a.FilesystemBackend(root_dir=str(root), virtual_mode=virtual)
        result = be.grep("pin", "/" if virtual else str(root))
        return {"result": result, "log": logged(caplog, a.impl)}

    ref = same(scenario)
    shown = paths(ref["result"], "matches")
    if virtual:
        # Links are resolved: the alias shows as its target; the link out is dropped.
        assert shown.count("/in.txt") >= 3 and "/out.txt" not in shown and "/gone.txt" in shown
    else:
        assert str(root / "alias.txt") in shown and str(root / "out.txt") not in shown
    assert any("outside search root" in message for _, message in ref["log"])
