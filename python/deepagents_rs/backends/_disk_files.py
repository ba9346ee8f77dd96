"""Reading, writing, editing, deleting and transferring single files on the local disk.

`DiskFileOperations` leaves two things to its subclass: where a path leads
(`_resolve_path`, with whatever confinement applies) and the largest video it may send.
Text goes through the Rust core, which never follows a final symlink and does no newline
translation on write.
"""

from __future__ import annotations

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
    FileOperationError,
    FileUploadResponse,
    ReadResult,
    WriteResult,
)
from deepagents_rs.backends.utils import slice_read_response

if TYPE_CHECKING:
    from pathlib import Path


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
        """Replace `old_string` by `new_string`: its single occurrence, or all with `replace_all`.

        `\r\n` and `\r` in either string count as `\n`, as the file is read.
        """
        try:
            target = self._resolve_path(file_path)
        except (OSError, RuntimeError) as exc:
            return EditResult(error=_failure("editing file", file_path, exc))
        try:
            outcome = _core.disk_edit(target, old_string, new_string, replace_all)
        except (OSError, UnicodeDecodeError, UnicodeEncodeError) as exc:
            return EditResult(error=_failure("editing file", file_path, exc))
        if outcome is None:
            return EditResult(error=f"Error: File '{file_path}' not found")
        if isinstance(outcome, str):
            return EditResult(error=outcome)
        return EditResult(path=file_path, occurrences=outcome)

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
            if not _core.disk_delete(target):
                return DeleteResult(error=f"Error: '{file_path}' not found")
        except OSError as exc:
            return DeleteResult(error=_failure("deleting", file_path, exc))
        return DeleteResult(path=file_path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write each `(path, bytes)` pair, answering for each in order.

        An error the protocol has no code for is raised, not reported.
        """
        responses: list[FileUploadResponse] = []
        for path, content in files:
            try:
                _core.disk_upload(self._resolve_path(path), content)
            except (OSError, ValueError, RuntimeError) as exc:
                responses.append(FileUploadResponse(path=path, error=_error_code(exc)))
            else:
                responses.append(FileUploadResponse(path=path, error=None))
        return responses

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """The bytes of each path (`is_directory` for a directory), answering for each in order.

        An error the protocol has no code for is raised, not reported.
        """
        responses: list[FileDownloadResponse] = []
        for path in paths:
            try:
                content = _core.disk_download(self._resolve_path(path))
            except (OSError, ValueError, RuntimeError) as exc:
                responses.append(FileDownloadResponse(path=path, content=None, error=_error_code(exc)))
            else:
                error = IS_DIRECTORY if content is None else None
                responses.append(FileDownloadResponse(path=path, content=content, error=error))
        return responses


def _error_code(exc: Exception) -> FileOperationError:
    """The protocol's code for a failed transfer; an error it has no code for is raised again."""
    code = _map_exception_to_standard_error(exc)
    if code is None:
        raise exc
    return code
