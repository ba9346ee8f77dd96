"""Reading, writing, editing, deleting and transferring single files on the local disk.

`DiskFileOperations` leaves two things to its subclass: where a path leads
(`_resolve_path`, with whatever confinement applies) and the largest video it may send.
Text goes through the Rust core, which never follows a final symlink and does no newline
translation on write.
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

from deepagents_rs import _core
from deepagents_rs.backends._fs_errors import _map_exception_to_standard_error
from deepagents_rs.backends.protocol import (
    IS_DIRECTORY,
    BackendProtocol,
    DeleteResult,
    EditResult,
    FileData,
    FileDownloadResponse,
    FileUploadResponse,
    ReadResult,
    WriteResult,
)
from deepagents_rs.backends.utils import perform_string_replacement, slice_read_response

if TYPE_CHECKING:
    from pathlib import Path

_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _unix_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _failure(action: str, path: str, exc: BaseException) -> str:
    return f"Error {action} '{path}': {exc}"


class DiskFileOperations(BackendProtocol):
    """The single-file half of a backend whose files live on this machine's disk."""

    def _resolve_path(self, key: str) -> Path:
        """The on-disk path `key` leads to; raises when the backend refuses it."""
        raise NotImplementedError

    def _video_size_limit(self) -> int:
        """The largest video, in bytes, that `read` sends."""
        raise NotImplementedError

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """The lines `offset` to `offset + limit` of a text file, or a whole binary file as base64.

        Text is paginated and bounded the way every backend does it (`slice_read_response`);
        an empty file answers with the empty-file reminder; a video over the size limit is
        refused before it is read. Line numbers are added by the middleware.
        """
        try:
            target = self._resolve_path(file_path)
        except (OSError, RuntimeError) as exc:
            return ReadResult(error=_failure("reading file", file_path, exc))
        try:
            found = _core.disk_read(str(target), file_path, self._video_size_limit())
        except (OSError, UnicodeDecodeError) as exc:
            return ReadResult(error=_failure("reading file", file_path, exc))
        if isinstance(found, str):
            # The shared slicer also keeps whether the file ends with a newline, which `edit`
            # relies on to catch an `old_string` that disagrees about it.
            return slice_read_response(FileData(content=found, encoding="utf-8"), offset, limit)
        return ReadResult(**found)

    def write(self, file_path: str, content: str) -> WriteResult:
        """Create or replace a text file, making its parent directories as needed."""
        try:
            target = self._resolve_path(file_path)
        except (OSError, RuntimeError) as exc:
            return WriteResult(error=_failure("writing file", file_path, exc))
        try:
            _core.disk_write(str(target), content)
        except (OSError, UnicodeEncodeError) as exc:
            return WriteResult(error=_failure("writing file", file_path, exc))
        return WriteResult(path=file_path)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Replace `old_string` by `new_string`: its single occurrence, or all with `replace_all`."""
        try:
            target = self._resolve_path(file_path)
        except (OSError, RuntimeError) as exc:
            return EditResult(error=_failure("editing file", file_path, exc))
        try:
            if not (target.exists() and target.is_file()):
                return EditResult(error=f"Error: File '{file_path}' not found")
            content = _core.disk_read_text(str(target))
            # The file was read with universal newlines; strings copied from a byte-exact
            # download may still carry "\r\n" or "\r", which would then never match.
            outcome = perform_string_replacement(
                content, _unix_newlines(old_string), _unix_newlines(new_string), replace_all
            )
            if isinstance(outcome, str):
                return EditResult(error=outcome)
            updated, occurrences = outcome
            _core.disk_write_text(str(target), updated, create=False)
        except (OSError, UnicodeDecodeError, UnicodeEncodeError) as exc:
            return EditResult(error=_failure("editing file", file_path, exc))
        return EditResult(path=file_path, occurrences=int(occurrences))

    def delete(self, file_path: str) -> DeleteResult:
        """Remove a file, or a directory with everything in it.

        A symlink is removed itself, never followed. A directory removal that fails partway
        may already have removed some of its entries.
        """
        try:
            target = self._resolve_path(file_path)
        except (OSError, RuntimeError) as exc:
            return DeleteResult(error=_failure("deleting", file_path, exc))
        try:
            if target.is_symlink():
                target.unlink()
            elif not target.exists():
                return DeleteResult(error=f"Error: '{file_path}' not found")
            elif target.is_dir():
                shutil.rmtree(target)
            else:
                target.unlink()
        except (OSError, RuntimeError) as exc:
            return DeleteResult(error=_failure("deleting", file_path, exc))
        return DeleteResult(path=file_path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write each `(path, bytes)` pair, answering for each in order.

        An error the protocol has no code for is raised, not reported.
        """
        responses: list[FileUploadResponse] = []
        for path, content in files:
            try:
                target = self._resolve_path(path)
                target.parent.mkdir(parents=True, exist_ok=True)
                flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NO_FOLLOW
                with os.fdopen(os.open(target, flags, 0o644), "wb") as handle:
                    handle.write(content)
            except (OSError, ValueError, RuntimeError) as exc:
                code = _map_exception_to_standard_error(exc)
                if code is None:
                    raise
                responses.append(FileUploadResponse(path=path, error=code))
            else:
                responses.append(FileUploadResponse(path=path, error=None))
        return responses

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """The bytes of each path, answering for each in order."""
        responses: list[FileDownloadResponse] = []
        for path in paths:
            try:
                target = self._resolve_path(path)
                if target.is_dir():
                    responses.append(FileDownloadResponse(path=path, content=None, error=IS_DIRECTORY))
                    continue
                with os.fdopen(os.open(target, os.O_RDONLY | _NO_FOLLOW), "rb") as handle:
                    content = handle.read()
            except (OSError, ValueError, RuntimeError) as exc:
                code = _map_exception_to_standard_error(exc)
                if code is None:
                    raise
                responses.append(FileDownloadResponse(path=path, content=None, error=code))
            else:
                responses.append(FileDownloadResponse(path=path, content=content, error=None))
        return responses
