"""Backends with canned answers and the inputs (permissions, a symlinked tree) that drive deepagents'
filesystem tools to each text of ``texts.rs``, and helpers that run a tool or catch an error's text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from deepagents.backends import FilesystemBackend
from deepagents.backends.protocol import (
    BackendProtocol,
    DeleteResult,
    EditResult,
    ExecuteResponse,
    GlobResult,
    GrepResult,
    LsResult,
    ReadResult,
    SandboxBackendProtocol,
    WriteResult,
)
from deepagents.middleware import filesystem as fs

# --------------------------------------------------------------------------------------------
# Fakes
# --------------------------------------------------------------------------------------------

RUNTIME = SimpleNamespace(tool_call_id="call_1")


class FakeBackend(BackendProtocol):
    """Answers every operation with a canned result (or raises a canned exception)."""

    def __init__(self, **results: Any) -> None:
        self.results = results

    def _get(self, key: str, default: Any) -> Any:
        value = self.results.get(key, default)
        if isinstance(value, BaseException):
            raise value
        return value

    def ls(self, path: str) -> LsResult:
        return self._get("ls", LsResult(entries=[]))

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        return self._get("read", ReadResult())

    def write(self, file_path: str, content: str) -> WriteResult:
        return WriteResult(path=file_path)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        return EditResult(path=file_path, occurrences=3)

    def delete(self, file_path: str) -> DeleteResult:
        return DeleteResult(path=file_path)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        return self._get("glob", GlobResult(matches=[]))

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        return self._get("grep", GrepResult(matches=[]))


class FakeSandbox(SandboxBackendProtocol, FakeBackend):
    @property
    def id(self) -> str:
        return "fake"

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        return self._get("execute", ExecuteResponse(output="out", exit_code=0, truncated=False))


class NoTimeoutSandbox(FakeSandbox):
    def execute(self, command: str) -> ExecuteResponse:  # type: ignore[override]
        return ExecuteResponse(output="out", exit_code=0, truncated=False)


def run_tool(backend: BackendProtocol, name: str, **args: Any) -> str:
    mw = fs.FilesystemMiddleware(backend=backend)
    tool = next(t for t in mw.tools if t.name == name)
    return tool.func(runtime=RUNTIME, **args).content


def error_of(fn: Callable[[], Any]) -> str:
    with pytest.raises(ValueError) as info:
        fn()
    return str(info.value)


DENY_SECRET_READ = [fs.FilesystemPermission(operations=["read"], paths=["/secret/**"], mode="deny")]
DENY_SECRET_WRITE = [fs.FilesystemPermission(operations=["write"], paths=["/secret/**"], mode="deny")]
MATCH = {"path": "/a", "line": 1, "text": "x"}


def _symlinked_fs_backend(tmp_path: Path) -> FilesystemBackend:
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "a.txt").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "secret")
    outside = tmp_path.parent / f"{tmp_path.name}_outside"
    outside.mkdir(exist_ok=True)
    (tmp_path / "escape").symlink_to(outside)
    return FilesystemBackend(root_dir=tmp_path / "", virtual_mode=True)


def _header_of(result: str) -> str:
    return next(line for line in result.split("\n") if line.startswith("@@ "))


def _glob_pathless_denied() -> str:
    mw = fs.FilesystemMiddleware(
        backend=FakeBackend(), permissions=[fs.FilesystemPermission(operations=["read"], paths=["/"], mode="deny")]
    )
    tool = next(t for t in mw.tools if t.name == "glob")
    return tool.func(pattern="*", runtime=RUNTIME).content
