"""File operations over a `{path: FileData}` dict, shared by `StateBackend` and `StoreBackend`.

Both backends keep a flat map of absolute paths to `FileData` (agent state, or a
LangGraph store namespace); only where the map lives and how a change is
persisted differ, so the path arithmetic and result shaping live here.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from typing import Any

from deepagents_rs import _core
from deepagents_rs.backends.protocol import FileData, GlobResult, LsResult
from deepagents_rs.backends.utils import file_data_to_string, perform_string_replacement, update_file_data

BINARY_EDIT_ERROR = "Error: Cannot edit binary files with text replacements."


def list_directory(keys: Iterable[str], directory: str, load: Callable[[str], FileData | None]) -> LsResult:
    """The entries directly under `directory`, sorted by path.

    A key deeper down shows up as its top-level subdirectory (with a trailing
    `/`); a direct child is listed as a file through `load`, which may return
    `None` to leave it out. Only direct children are loaded, so a broken item
    deeper in the tree cannot spoil the listing.
    """
    return LsResult(entries=_core.files_ls(list(keys), directory, load))


def glob_files(files: dict[str, Any], pattern: str, path: str | None) -> GlobResult:
    """Match `pattern` against the keys of `files` (the shared glob contract).

    A refused pattern comes back as `GlobResult(error=...)`: glob is a tool
    boundary; an unusable search path finds nothing.
    """
    error, entries = _core.files_glob(files, pattern, path)
    return GlobResult(error=error) if error is not None else GlobResult(matches=entries)


def keys_to_delete(keys: Iterable[str], file_path: str) -> list[str]:
    """The keys a recursive delete of `file_path` removes: the path itself and everything below it."""
    target = file_path.rstrip("/")
    below = f"{target}/"
    return [key for key in keys if key == target or key.startswith(below)]


def replace_text(
    file_data: FileData, old_string: str, new_string: str, replace_all: bool
) -> tuple[FileData, int] | str:
    """The edited `FileData` and the number of replacements, or the error text for the model."""
    if file_data.get("encoding") == "base64":
        return BINARY_EDIT_ERROR
    outcome = perform_string_replacement(file_data_to_string(file_data), old_string, new_string, replace_all)
    if isinstance(outcome, str):
        return outcome
    new_content, occurrences = outcome
    return update_file_data(file_data, new_content), int(occurrences)


def decode_upload(content: bytes) -> tuple[str, str]:
    """Uploaded bytes as `(text, encoding)`: UTF-8 text when they decode, base64 otherwise."""
    try:
        return content.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return base64.b64encode(content).decode("ascii"), "base64"


def stored_bytes(file_data: FileData, *, base64_encoded: bool) -> bytes:
    """A stored file's raw bytes; the caller says whether its text is base64."""
    text = file_data_to_string(file_data)
    return base64.standard_b64decode(text) if base64_encoded else text.encode("utf-8")
