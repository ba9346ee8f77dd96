"""`BaseSandbox`: the whole backend protocol on top of a sandbox's `execute()` and file transfer.

A concrete sandbox supplies `execute()`, `upload_files()`, `download_files()` and `id`. Every
other operation is a script sent through `execute()` (listing, paged reads, grep, glob, small
edits) or an upload (the content of `write()`, the strings of large edits). The core runs
each operation (`src/files/sandbox_ops.rs`), calling back the subclass's primitives: the sync
ones on the caller's thread, the async ones on the caller's loop. The `_sandbox_*` modules
hold deepagents' module-level names for the scripts and their parsers; this module
re-exports them.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Any

from deepagents_rs import _core
from deepagents_rs.backends import protocol as _protocol
from deepagents_rs.backends._sandbox_capture import (
    _EXECUTE_CAPTURE_CLIP_NOTICE,
    _EXECUTE_CAPTURE_CLIP_NOTICE_CAPPED,
    _EXECUTE_CAPTURE_EXCERPT_CLIP_NOTICE,
    _EXECUTE_CAPTURE_HEAD_BYTES,
    _EXECUTE_CAPTURE_HEAD_LINES,
    _EXECUTE_CAPTURE_MAX_BYTES,
    _EXECUTE_CAPTURE_META_FIELDS,
    _EXECUTE_CAPTURE_SENTINEL,
    _EXECUTE_CAPTURE_TAIL_BYTES,
    _EXECUTE_CAPTURE_TAIL_LINES,
    TRUNCATION_MARKER_TEMPLATE,
    _build_capture_execute_cmd,
    _parse_capture_execute_output,
    execute_accepts_timeout,
)
from deepagents_rs.backends._sandbox_edit import (
    _EDIT_COMMAND_TEMPLATE,
    _EDIT_INLINE_MAX_BYTES,
    _EDIT_TMPFILE_TEMPLATE,
    EMPTY_OLD_STRING_ERROR,
    _build_edit_inline_cmd,
    _build_edit_tmpfile_cmd,
    _map_edit_error,
    _parse_edit_output,
)
from deepagents_rs.backends._sandbox_files import (
    _READ_COMMAND_TEMPLATE,
    _WRITE_CHECK_TEMPLATE,
    MAX_BINARY_BYTES,
    MAX_OUTPUT_BYTES,
    FileData,
    FileInfo,
    _build_ls_cmd,
    _build_read_cmd,
    _build_write_preflight_cmd,
    _check_preflight_result,
    _get_backend_read_file_type,
    _parse_ls_output,
    _parse_read_output,
    normalize_read_bounds,
)
from deepagents_rs.backends._sandbox_glob import (
    _GLOB_COMMAND_TEMPLATE,
    ASYNC_GLOB_TIMEOUT,
    _absolutize_glob_path,
    _build_glob_cmd,
    _glob_search_root,
    _parse_glob_output,
)
from deepagents_rs.backends._sandbox_grep import (
    _GREP_PATH_GLOB_TEMPLATE,
    ASYNC_GREP_TIMEOUT,
    _build_grep_cmd,
    _grep_excluded_dirs,
    _parse_grep_output,
)
from deepagents_rs.backends._sandbox_texts import TRUNCATION_MSG
from deepagents_rs.backends.protocol import (
    DeleteResult,
    EditResult,
    ExecuteOffloadResult,
    ExecuteResponse,
    FileDownloadResponse,
    GlobResult,
    GlobTruncationReason,
    GrepMatch,
    GrepResult,
    ReadResult,
    SandboxBackendProtocol,
    WriteResult,
)

logger = logging.getLogger(__name__)

# Re-exported as deepagents' module has them.
FileUploadResponse = _protocol.FileUploadResponse
LsResult = _protocol.LsResult


class BaseSandbox(SandboxBackendProtocol, ABC):
    """A sandbox backend built on its `execute()` and file transfer primitives.

    Reads, listings and searches are scripts sent through `execute()`; reads are paged on the
    sandbox side, so only the requested lines travel. `write()` makes the parent folders, then
    uploads. `edit()` replaces on the sandbox side, sending large strings as temp files.

    !!! note

        These helpers do not narrow what `execute()` can do: whoever may call them already
        holds the shell access the backend exposes.

    Subclasses implement `execute()`, `upload_files()`, `download_files()` and `id`.
    """

    grep_exclude_dirs: tuple[str, ...] = (".git",)
    """Folder names `grep` skips at any depth (`()` searches everything).

    `.git` by default: compressed packs with no useful literal hits, yet most of a
    checkout's bytes. A search rooted at one of these folders still searches it.
    """

    enable_capture_offload: bool = False
    """Whether `execute_with_offload` wraps commands to keep large output in the sandbox.

    Off by default, since the wrapper needs a POSIX shell and coreutils that not every image
    has; compatible subclasses turn it on. Off, commands run as given and the middleware
    falls back to inline output plus its generic eviction.
    """

    # -- primitives subclasses provide ---------------------------------------------------------

    @abstractmethod
    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run `command` in the sandbox's shell.

        Args:
            command: The shell command line.
            timeout: Seconds to wait at most; `None` for the backend's default.

        Returns:
            `ExecuteResponse` with the combined output, exit code and truncation flag.
        """

    @property
    @abstractmethod
    def id(self) -> str:
        """Identifies this sandbox."""

    @abstractmethod
    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Store each `(path, bytes)` pair in the sandbox, making parent folders as allowed.

        A failure for one file is reported in its `FileUploadResponse`, not raised.
        """

    @abstractmethod
    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Fetch each path from the sandbox; a failure for one is reported in its response, not raised."""

    # -- execute with capture at source --------------------------------------------------------

    def execute_with_offload(
        self, command: str, capture_path: str, *,
        max_inline_bytes: int, max_capture_bytes: int | None = None, timeout: int | None = None,
    ) -> ExecuteOffloadResult:  # fmt: skip
        """Run `command`, leaving output over `max_inline_bytes` at `capture_path` in the sandbox.

        Small output comes back whole; larger output stays in the file and only a preview is
        returned. Saving stops at `max_capture_bytes` (default `_EXECUTE_CAPTURE_MAX_BYTES`)
        without killing the command, so its exit code survives. With `enable_capture_offload`
        off the command runs as given and its full output comes back (`offloaded=False`).

        Returns:
            `ExecuteOffloadResult`: `offloaded=True` when `response.output` is only a preview
                of the file (`preview_has_truncation_marker` telling whether middle lines were
                dropped), `offloaded=False` when it is the whole output.
        """
        return _core.sandbox_offload(
            self, command, capture_path, max_inline_bytes, max_capture_bytes, timeout, is_async=False
        )

    async def aexecute_with_offload(
        self, command: str, capture_path: str, *,
        max_inline_bytes: int, max_capture_bytes: int | None = None, timeout: int | None = None,
    ) -> ExecuteOffloadResult:  # fmt: skip
        """`execute_with_offload` through `aexecute`."""
        return await _stepped(
            _core.sandbox_offload(
                self, command, capture_path, max_inline_bytes, max_capture_bytes, timeout, is_async=True
            )
        )

    # -- ls and read ---------------------------------------------------------------------------

    def ls(self, path: str) -> LsResult:
        """The entries directly under `path`, each flagged as folder or not."""
        return _core.sandbox_ls(self, path, is_async=False)

    async def als(self, path: str) -> LsResult:
        """`ls` through `aexecute`."""
        return await _stepped(_core.sandbox_ls(self, path, is_async=True))

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """One page of a file, cut out on the sandbox side so only that page is sent back.

        Text pages stop at about 500 KiB (`MAX_OUTPUT_BYTES`) and then end with a note to read
        on from another `offset` or with a smaller `limit`. Files that are not UTF-8 text come
        back whole, base64-encoded.

        Args:
            file_path: Absolute path of the file.
            offset: First line to return, from 0; negative means 0. Text files only.
            limit: Most lines to return. Text files only: zero or less gives empty content
                without paging fields, though an empty file still gives its reminder.

        Returns:
            `ReadResult` with `file_data` and paging fields, or `error`.
        """
        offset, limit = normalize_read_bounds(offset, limit)
        return _core.sandbox_read(self, file_path, offset, limit, is_async=False)

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """`read` through `aexecute`."""
        offset, limit = normalize_read_bounds(offset, limit)
        return await _stepped(_core.sandbox_read(self, file_path, offset, limit, is_async=True))

    # -- write, edit, delete -------------------------------------------------------------------

    def _write_preflight(self, file_path: str) -> WriteResult | None:
        """Make the parent folders of `file_path`; `None` on success, else the failed result.

        A subclass with its own `write()` transport calls this first to keep `write()`'s
        folder creation. Nothing stops the tree changing between the two calls.
        """
        return _core.sandbox_preflight(self, file_path, is_async=False)

    async def _awrite_preflight(self, file_path: str) -> WriteResult | None:
        """`_write_preflight` through `aexecute`."""
        return await _stepped(_core.sandbox_preflight(self, file_path, is_async=True))

    def write(self, file_path: str, content: str) -> WriteResult:
        """Create or overwrite `file_path` with the UTF-8 text `content`.

        Returns:
            `WriteResult` with `path`, or `error`.
        """
        # `_overrides` inlined and the arguments positional: each costs a measurable share
        # of a write to a fast sandbox.
        if type(self)._write_preflight is not BaseSandbox._write_preflight:
            failed = self._write_preflight(file_path)
            if failed is not None:
                return failed
            return _core.sandbox_write(self, file_path, content, False, False)
        return _core.sandbox_write(self, file_path, content, False)

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """`write` through `aexecute` and `aupload_files`."""
        if _overrides(self, "_awrite_preflight"):
            failed = await self._awrite_preflight(file_path)
            if failed is not None:
                return failed
            return await _stepped(_core.sandbox_write(self, file_path, content, is_async=True, preflight=False))
        return await _stepped(_core.sandbox_write(self, file_path, content, is_async=True))

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Replace `old_string` with `new_string` in a file, on the sandbox side.

        Up to `_EDIT_INLINE_MAX_BYTES` of strings travel inside one command; more are uploaded
        as temp files first. The file itself is never downloaded.

        `read()` hands out LF text, so `old_string` is tried as given, then with CRLF and with
        LF endings; the first form found sets the endings of `new_string`. In a file with
        mixed endings `replace_all=True` therefore only covers the first form found.

        Args:
            file_path: Absolute path of the file.
            old_string: Exact text to find; must not be empty.
            new_string: Its replacement.
            replace_all: Replace every occurrence; if `False` (default), more than one is an
                error.

        Returns:
            `EditResult` with `path` and `occurrences`, or `error`.
        """
        way = _edit_way(self, old_string, new_string, "_edit_inline", "_edit_via_upload")
        if way is not None:
            return getattr(self, way)(file_path, old_string, new_string, replace_all)
        return _core.sandbox_edit(self, file_path, old_string, new_string, replace_all, is_async=False)

    async def aedit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """`edit` through `aexecute` and `aupload_files`."""
        way = _edit_way(self, old_string, new_string, "_aedit_inline", "_aedit_via_upload")
        if way is not None:
            return await getattr(self, way)(file_path, old_string, new_string, replace_all)
        return await _stepped(_core.sandbox_edit(self, file_path, old_string, new_string, replace_all, is_async=True))

    def _edit_inline(self, file_path: str, old_string: str, new_string: str, replace_all: bool) -> EditResult:
        """The replacement as one command through `execute()`, both strings inside it."""
        return _core.sandbox_edit(self, file_path, old_string, new_string, replace_all, is_async=False, way="inline")

    async def _aedit_inline(self, file_path: str, old_string: str, new_string: str, replace_all: bool) -> EditResult:
        """`_edit_inline` through `aexecute`."""
        return await _stepped(
            _core.sandbox_edit(self, file_path, old_string, new_string, replace_all, is_async=True, way="inline")
        )

    def _edit_via_upload(self, file_path: str, old_string: str, new_string: str, replace_all: bool) -> EditResult:
        """The strings uploaded as temp files, then replaced in place by a script; the file stays in the sandbox."""
        return _core.sandbox_edit(self, file_path, old_string, new_string, replace_all, is_async=False, way="upload")

    async def _aedit_via_upload(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool
    ) -> EditResult:
        """`_edit_via_upload` through `aexecute` and `aupload_files`."""
        return await _stepped(
            _core.sandbox_edit(self, file_path, old_string, new_string, replace_all, is_async=True, way="upload")
        )

    def delete(self, file_path: str) -> DeleteResult:
        """Remove a file, or a folder with everything in it, with `rm -rf` in the sandbox.

        A path that neither exists nor is a dangling symlink is reported not found, as other
        backends do. A failing probe cannot tell "absent" from "cannot stat", and an unknown
        probe status does not count as absent. A recursive delete may fail halfway; a non-zero
        `rm` is reported.

        Returns:
            `DeleteResult` with `path`, or `error`.
        """
        # The path is quoted as one literal argument; that confines nothing. This deletes
        # whatever the sandbox shell can reach.
        return _core.sandbox_delete(self, file_path)

    # -- grep and glob -------------------------------------------------------------------------

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None,
        *, max_count: int | None = None,
    ) -> GrepResult:  # fmt: skip
        """Lines containing the literal text `pattern` (not a regex).

        Args:
            pattern: Text to look for.
            path: File or folder to search; `"."` when not given.
            glob: Files to search. Without a `/` (`'*.py'`) it matches basenames at any
                depth; with one (`'src/**/*.py'`) it matches the path below the search root.
            max_count: Most matches to return in all; past it the result is `truncated`.

        Returns:
            `GrepResult` with `GrepMatch` dicts, or `error`.
        """
        return _core.sandbox_grep(self, pattern, path, glob, max_count, is_async=False)

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None,
        *, max_count: int | None = None,
    ) -> GrepResult:  # fmt: skip
        """`grep` through `aexecute`, given up after `ASYNC_GREP_TIMEOUT` seconds."""
        return await _stepped(
            _core.sandbox_grep(self, pattern, path, glob, max_count, is_async=True, seconds=ASYNC_GREP_TIMEOUT)
        )

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Regular files matching `pattern` below `path` (default `/`), as absolute paths.

        Absolute because permission `deny` rules only match absolute paths.
        """
        return _core.sandbox_glob(self, pattern, path, is_async=False)

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """`glob` through `aexecute`, given up after `ASYNC_GLOB_TIMEOUT` seconds.

        The script's own time budget covers only its walk; a stuck sandbox needs this bound.
        """
        return await _stepped(_core.sandbox_glob(self, pattern, path, is_async=True, seconds=ASYNC_GLOB_TIMEOUT))


def _overrides(sandbox: BaseSandbox, name: str) -> bool:
    """Whether the subclass has its own `name`; only then does the operation go through it,
    as deepagents' does, and otherwise the core runs the whole operation in one go."""
    return getattr(type(sandbox), name) is not getattr(BaseSandbox, name)


def _edit_way(sandbox: BaseSandbox, old: str, new: str, inline: str, upload: str) -> str | None:
    """The method `edit` goes through when the subclass overrides either way, else `None`
    (the core chooses). An empty `old` is the core's error either way."""
    if not old or not (_overrides(sandbox, inline) or _overrides(sandbox, upload)):
        return None
    return inline if len(old.encode("utf-8")) + len(new.encode("utf-8")) <= _EDIT_INLINE_MAX_BYTES else upload


async def _stepped(task: Any) -> Any:
    """Runs an async operation of the core (`_core.SandboxTask`) in the calling task: awaits
    each sandbox call it asks for and sends back what came of it, exception included."""
    done, out = task.step()
    while not done:
        try:
            value = await out
        except BaseException as exc:  # noqa: BLE001 - the operation decides; it re-raises what it does not handle
            done, out = task.step(None, exc)
        else:
            done, out = task.step(value)
    return out


# Everything this module offered before its scripts moved to the `_sandbox_*` modules.
__all__ = [
    "ASYNC_GLOB_TIMEOUT",
    "ASYNC_GREP_TIMEOUT",
    "EMPTY_OLD_STRING_ERROR",
    "MAX_BINARY_BYTES",
    "MAX_OUTPUT_BYTES",
    "TRUNCATION_MARKER_TEMPLATE",
    "TRUNCATION_MSG",
    "_EDIT_COMMAND_TEMPLATE",
    "_EDIT_INLINE_MAX_BYTES",
    "_EDIT_TMPFILE_TEMPLATE",
    "_EXECUTE_CAPTURE_CLIP_NOTICE",
    "_EXECUTE_CAPTURE_CLIP_NOTICE_CAPPED",
    "_EXECUTE_CAPTURE_EXCERPT_CLIP_NOTICE",
    "_EXECUTE_CAPTURE_HEAD_BYTES",
    "_EXECUTE_CAPTURE_HEAD_LINES",
    "_EXECUTE_CAPTURE_MAX_BYTES",
    "_EXECUTE_CAPTURE_META_FIELDS",
    "_EXECUTE_CAPTURE_SENTINEL",
    "_EXECUTE_CAPTURE_TAIL_BYTES",
    "_EXECUTE_CAPTURE_TAIL_LINES",
    "_GLOB_COMMAND_TEMPLATE",
    "_GREP_PATH_GLOB_TEMPLATE",
    "_READ_COMMAND_TEMPLATE",
    "_WRITE_CHECK_TEMPLATE",
    "BaseSandbox",
    "DeleteResult",
    "EditResult",
    "ExecuteOffloadResult",
    "ExecuteResponse",
    "FileData",
    "FileDownloadResponse",
    "FileInfo",
    "FileUploadResponse",
    "GlobResult",
    "GlobTruncationReason",
    "GrepMatch",
    "GrepResult",
    "LsResult",
    "ReadResult",
    "SandboxBackendProtocol",
    "WriteResult",
    "_absolutize_glob_path",
    "_build_capture_execute_cmd",
    "_build_edit_inline_cmd",
    "_build_edit_tmpfile_cmd",
    "_build_glob_cmd",
    "_build_grep_cmd",
    "_build_ls_cmd",
    "_build_read_cmd",
    "_build_write_preflight_cmd",
    "_check_preflight_result",
    "_get_backend_read_file_type",
    "_glob_search_root",
    "_grep_excluded_dirs",
    "_map_edit_error",
    "_parse_capture_execute_output",
    "_parse_edit_output",
    "_parse_glob_output",
    "_parse_grep_output",
    "_parse_ls_output",
    "_parse_read_output",
    "execute_accepts_timeout",
    "normalize_read_bounds",
]
