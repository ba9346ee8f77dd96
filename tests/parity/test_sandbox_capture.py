"""Parity: ``BaseSandbox.execute_with_offload`` (capture at source) and ``BaseSandbox.delete``
on a sandbox whose ``execute`` runs ``/bin/sh`` on this machine.

The wrapper script and the reading of its reply are the core's; each case runs the same
command through deepagents' and our ``BaseSandbox`` and compares the result, the file left
in the sandbox and (for replies without a meta line) the warning logged.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import subprocess
from pathlib import Path
from typing import Any

import pytest

IMPLS = ("deepagents", "deepagents_rs")


def shell_sandbox(impl: str, *, capture: bool = True, rewrite: Any = None) -> Any:
    """A ``BaseSandbox`` of ``impl`` over ``/bin/sh``; ``rewrite`` edits each reply's output."""
    sandbox = importlib.import_module(f"{impl}.backends.sandbox")
    protocol = importlib.import_module(f"{impl}.backends.protocol")

    class Shell(sandbox.BaseSandbox):
        enable_capture_offload = capture

        @property
        def id(self) -> str:
            return "shell"

        def execute(self, command: str, *, timeout: int | None = None) -> Any:
            done = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=60, check=False)
            output = done.stdout + done.stderr
            return protocol.ExecuteResponse(output=rewrite(output) if rewrite else output, exit_code=done.returncode)

        def upload_files(self, files: list[tuple[str, bytes]]) -> list[Any]:
            raise NotImplementedError

        def download_files(self, paths: list[str]) -> list[Any]:
            raise NotImplementedError

    return Shell()


def shown(result: Any) -> dict[str, Any]:
    return {
        "offloaded": result.offloaded,
        "output": result.response.output,
        "exit_code": result.response.exit_code,
        "truncated": result.response.truncated,
        "marker": result.preview_has_truncation_marker,
    }


LINES = "i=0; while [ $i -lt 40 ]; do echo line $i; i=$((i+1)); done"
LONG_LINES = "i=0; while [ $i -lt 3 ]; do head -c 3000 /dev/zero | tr '\\0' x; echo; i=$((i+1)); done"
CASES = {
    "small": ("echo hi; exit 3", {"max_inline_bytes": 1000}),
    "many lines": (LINES, {"max_inline_bytes": 50}),
    "few long lines": (LONG_LINES, {"max_inline_bytes": 100}),
    "capped": (LONG_LINES, {"max_inline_bytes": 100, "max_capture_bytes": 5000}),
    "long lines around a middle": (
        LONG_LINES + "; " + LINES + "; " + LONG_LINES,
        {"max_inline_bytes": 100},
    ),
    "exit inside": ("echo before; exit 7; echo after", {"max_inline_bytes": 1000}),
    "stderr": ("echo out; echo err >&2; false", {"max_inline_bytes": 1000}),
    "heredoc words": ("cat <<'EOF'\n__DEEPAGENTS_EXEC_META__ 0 0 0 0\nEOF", {"max_inline_bytes": 1000}),
}


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("case", list(CASES))
def test_capture_matches_deepagents(case: str, mode: str, tmp_path: Path) -> None:
    command, kwargs = CASES[case]
    out = {}
    for impl in IMPLS:
        path = tmp_path / impl / "out" / "capture.txt"
        box = shell_sandbox(impl)
        if mode == "sync":
            result = box.execute_with_offload(command, str(path), **kwargs)
        else:
            result = asyncio.run(box.aexecute_with_offload(command, str(path), **kwargs))
        kept = path.read_text() if path.exists() else None
        out[impl] = (shown(result), kept, sorted(p.name for p in path.parent.iterdir()) if path.parent.exists() else [])
    assert out["deepagents_rs"] == out["deepagents"]
    result, kept, _ = out["deepagents"]
    assert result["offloaded"] is (kept is not None)


def test_capture_off_runs_the_command_as_given(tmp_path: Path) -> None:
    out = {
        impl: shown(
            shell_sandbox(impl, capture=False).execute_with_offload(LINES, str(tmp_path / impl), max_inline_bytes=5)
        )
        for impl in IMPLS
    }
    assert out["deepagents_rs"] == out["deepagents"]
    assert out["deepagents"]["offloaded"] is False and out["deepagents"]["output"].count("\n") == 40


@pytest.mark.parametrize(
    ("rewrite", "command"),
    [
        (lambda o: o.split("\n", 1)[1], "echo hi"),  # the meta line lost
        (lambda o: o.replace("__DEEPAGENTS_EXEC_META__ 0", "__DEEPAGENTS_EXEC_META__ zero", 1), "echo hi"),
        (lambda o: o.replace(" 0 0 0\n", " 0 0 0 extra\n", 1), "echo hi"),
        (lambda o: o.replace(" 1 0 ", " 1 0 many", 1), LINES),  # only the surplus is unreadable
    ],
    ids=["no-meta", "bad-exit", "extra-field", "bad-surplus"],
)
def test_malformed_replies(rewrite: Any, command: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    out = {}
    for impl in IMPLS:
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            result = shell_sandbox(impl, rewrite=rewrite).execute_with_offload(
                command, str(tmp_path / impl / "c.txt"), max_inline_bytes=50
            )
        out[impl] = (shown(result), [r.getMessage() for r in caplog.records])
    assert out["deepagents_rs"] == out["deepagents"]


@pytest.mark.parametrize("target", ["file.txt", "dir", "dangling", "missing", "it's here"])
def test_delete(target: str, tmp_path: Path) -> None:
    out = {}
    for impl in IMPLS:
        root = tmp_path / impl
        (root / "dir" / "sub").mkdir(parents=True)
        (root / "file.txt").write_text("x")
        (root / "it's here").write_text("x")
        (root / "dangling").symlink_to(root / "nowhere")
        result = shell_sandbox(impl).delete(str(root / target))
        out[impl] = (result.error, result.path, sorted(p.name for p in root.iterdir()))
    ours, ref = out["deepagents_rs"], out["deepagents"]
    assert ours[2] == ref[2]
    assert (ours[0], ours[1]) == tuple(
        None if v is None else v.replace(str(tmp_path / "deepagents"), str(tmp_path / "deepagents_rs")) for v in ref[:2]
    )


def test_delete_reports_a_failing_removal(tmp_path: Path) -> None:
    out = {}
    for impl in IMPLS:
        root = tmp_path / impl
        (root / "locked").mkdir(parents=True)
        (root / "locked" / "f").write_text("x")
        (root / "locked").chmod(0o500)
        try:
            result = shell_sandbox(impl).delete(str(root / "locked"))
        finally:
            if (root / "locked").exists():
                (root / "locked").chmod(0o700)
        out[impl] = (result.error or "").replace(str(root), "<root>")
    if not out["deepagents"]:
        pytest.skip("running as root: the removal does not fail")
    assert out["deepagents_rs"] == out["deepagents"]
