"""Parity: how ``LocalShellBackend.execute`` captures and reports what a command does, now
that the core runs the command: CR/CRLF output, multi-byte text cut at the byte limit,
stderr-only and whitespace-only output, exit codes and signals, output that is not UTF-8,
SIGPIPE back to its default, no inherited descriptors, a session of its own, a missing
working directory, NUL bytes, the caller's and the default timeout (its message
and exit code), a command that closes its streams and keeps running, and a background job
holding the streams open. Compared with deepagents called the same way.
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from .backend_direct import CALL_MODES, Call, same

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="LocalShellBackend runs sh")

_roots = itertools.count()

COMMANDS = [
    "printf 'a\\r\\nb\\rc\\n'",
    "printf 'caf\\303\\251 \\342\\202\\254uro %s' xxxxxxxxxx",
    "printf 'only err\\n\\n' >&2",
    "printf '   \\n' >&2; printf '  '",
    "printf 'x\\n\\n\\n'; exit 3",
    "printf 'out'; printf 'e1\\ne2' >&2; exit 2",
    "kill -9 $$",
    "printf '\\377bad'",
    "printf 'ok'; printf '\\377' >&2",
    "echo 'nul\x00byte'",
    "seq 1 40",
    "yes | head -n 2",
    "ls /proc/self/fd",
    "trap -p; echo $$ > /dev/null; ps -o sid= -p $$ | tr -d ' ' | grep -qx $$ && echo own-session",
    "printf '\\342\\202\\254\\342\\202\\254\\342\\202\\254\\342\\202\\254\\342\\202\\254\\342\\202\\254'",
]


@pytest.mark.parametrize("mode", CALL_MODES)
def test_output_capture(mode: str, tmp_path: Path) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> dict[str, Any]:
        be = a.LocalShellBackend(root_dir=str(tmp_path), max_output_bytes=16, inherit_env=True)
        return {cmd: call(be, "execute", cmd) for cmd in COMMANDS}

    ref = same(scenario, mode)
    assert ref["kill -9 $$"]["exit_code"] == -9
    assert "UnicodeDecodeError" in ref["printf '\\377bad'"]["output"]
    assert ref["seq 1 40"]["truncated"] is True


@pytest.mark.parametrize("mode", CALL_MODES)
def test_working_directory_gone(mode: str, tmp_path: Path) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        root = tmp_path / f"root{next(_roots)}"
        root.mkdir()
        be = a.LocalShellBackend(root_dir=str(root), inherit_env=True)
        root.rmdir()
        out = call(be, "execute", "echo hi")
        return {**out.__dict__, "output": out.output.replace(str(root), "<root>")}

    ref = same(scenario, mode)
    assert ref["exit_code"] == 1 and "FileNotFoundError" in ref["output"]


@pytest.mark.parametrize("mode", CALL_MODES)
@pytest.mark.parametrize(
    ("command", "kwargs", "per_call"),
    [
        ("sleep 3", {"timeout": 1}, None),
        ("sleep 3", {}, 1),
        ("exec >&- 2>&-; sleep 3", {"timeout": 1}, None),
        ("sleep 3 & echo started", {"timeout": 1}, None),
        ("sleep 3", {}, 0.5),
    ],
    ids=["default", "custom", "streams-closed", "background-holds-streams", "float"],
)
def test_timeouts(mode: str, command: str, kwargs: dict[str, Any], per_call: Any, tmp_path: Path) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        be = a.LocalShellBackend(root_dir=str(tmp_path), inherit_env=True, **kwargs)
        started = time.monotonic()
        out = call(be, "execute", command) if per_call is None else call(be, "execute", command, timeout=per_call)
        assert time.monotonic() - started < 2.9
        return out

    ref = same(scenario, mode)
    assert ref["exit_code"] == 124


@pytest.mark.parametrize("timeout", [0, -2])
def test_refused_timeouts(timeout: int, tmp_path: Path) -> None:
    def scenario(a: SimpleNamespace, call: Call) -> Any:
        return call(a.LocalShellBackend(root_dir=str(tmp_path)), "execute", "echo hi", timeout=timeout)

    same(scenario, "sync", raises=True)
