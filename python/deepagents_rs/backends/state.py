"""`StateBackend`: files kept in the agent's `files` state key, for one thread only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from deepagents_rs._files_context import CURRENT_FILES
from deepagents_rs.backends._file_dict import (
    decode_upload,
    glob_files,
    keys_to_delete,
    list_directory,
    replace_text,
    stored_bytes,
)
from deepagents_rs.backends._store_state_texts import STATE_OUTSIDE_GRAPH
from deepagents_rs.backends.protocol import (
    BackendProtocol,
    DeleteResult,
    EditResult,
    FileDownloadResponse,
    FileUploadResponse,
    ReadResult,
    WriteResult,
)
from deepagents_rs.backends.utils import (
    _copy_file_data_with_content,
    _get_backend_read_file_type,
    create_file_data,
    file_data_to_string,
    grep_matches_from_files,
    slice_read_response,
    update_file_data,
)

if TYPE_CHECKING:
    from deepagents_rs._files_context import FilesAccessor
    from deepagents_rs.backends.protocol import FileData, GlobResult, GrepResult, LsResult


class StateBackend(BackendProtocol):
    """Files in agent state: they live as long as the conversation thread.

    The backend holds nothing itself. While the Rust core runs a tool it sets
    `deepagents_rs._files_context.CURRENT_FILES`; every call reads the run's
    files there and queues its changes as partial `files` updates, so callers
    never deal with state updates themselves.
    """

    def __init__(self) -> None:
        """Create the backend; it needs no configuration."""

    def _accessor(self) -> FilesAccessor:
        accessor = CURRENT_FILES.get()
        if accessor is None:
            raise RuntimeError(STATE_OUTSIDE_GRAPH)
        return accessor

    def _read_files(self) -> dict[str, Any]:
        """The run's files, updates queued earlier in the same step included."""
        return self._accessor().read() or {}

    def _send_files_update(self, update: dict[str, Any]) -> None:
        """Queue changed paths for the `files` key; it merges them, and a `None` value deletes."""
        self._accessor().send(update)

    def _store(self, file_path: str, file_data: FileData) -> None:
        self._send_files_update({file_path: dict(file_data)})

    def ls(self, path: str) -> LsResult:
        """The files and subdirectories directly under `path` (subdirectories end in `/`)."""
        files = self._read_files()
        return list_directory(files, path, files.__getitem__)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """The raw lines `offset` to `offset + limit` of a text file, or a whole media file.

        Line numbers and the status header are the middleware's business.
        """
        file_data = self._read_files().get(file_path)
        if file_data is None:
            return ReadResult(error=f"File '{file_path}' not found")
        if _get_backend_read_file_type(file_path) == "text":
            return slice_read_response(file_data, offset, limit)
        # A copy, so legacy list content is joined without rewriting the stored file.
        return ReadResult(file_data=_copy_file_data_with_content(file_data, file_data_to_string(file_data)))

    def write(self, file_path: str, content: str) -> WriteResult:
        """Create or replace a text file (an existing file keeps its creation time)."""
        previous = self._read_files().get(file_path)
        file_data = create_file_data(content) if previous is None else update_file_data(previous, content)
        file_data["encoding"] = "utf-8"
        self._store(file_path, file_data)
        return WriteResult(path=file_path)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Replace `old_string` by `new_string` in a text file (once, or everywhere with `replace_all`)."""
        file_data = self._read_files().get(file_path)
        if file_data is None:
            return EditResult(error=f"Error: File '{file_path}' not found")
        edited = replace_text(file_data, old_string, new_string, replace_all)
        if isinstance(edited, str):
            return EditResult(error=edited)
        new_data, occurrences = edited
        self._store(file_path, new_data)
        return EditResult(path=file_path, occurrences=occurrences)

    def delete(self, file_path: str) -> DeleteResult:
        """Remove a file, or a directory with everything below it."""
        doomed = keys_to_delete(self._read_files(), file_path)
        if not doomed:
            return DeleteResult(error=f"Error: File '{file_path}' not found")
        self._send_files_update(dict.fromkeys(doomed))
        return DeleteResult(path=file_path)

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """Literal-text search of the files under `path` (the root by default)."""
        root = "/" if path is None else path
        return grep_matches_from_files(self._read_files(), pattern, root, glob, max_count=max_count)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """The files matching `pattern` (see `BackendProtocol.glob`); a refused pattern is an error result."""
        return glob_files(self._read_files(), pattern, path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Store raw bytes: UTF-8 text as such, anything else base64-encoded.

        All files go out in one update; a re-uploaded file keeps its creation time.
        """
        current = self._read_files()
        update: dict[str, Any] = {}
        for path, content in files:
            text, encoding = decode_upload(content)
            created_at = (current.get(path) or {}).get("created_at")
            update[path] = dict(create_file_data(text, created_at=created_at, encoding=encoding))
        if update:
            self._send_files_update(update)
        return [FileUploadResponse(path=path, error=None) for path, _ in files]

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """The raw bytes of each path, in order; a missing one reports `file_not_found`."""
        files = self._read_files()
        return [self._download(path, files.get(path)) for path in paths]

    @staticmethod
    def _download(path: str, file_data: FileData | None) -> FileDownloadResponse:
        if file_data is None:
            return FileDownloadResponse(path=path, content=None, error="file_not_found")
        # Anything not marked UTF-8 is taken to be base64, as deepagents does.
        binary = file_data.get("encoding", "utf-8") != "utf-8"
        return FileDownloadResponse(path=path, content=stored_bytes(file_data, base64_encoded=binary), error=None)
