"""String replacement inside a sandbox file, done by a script on the sandbox side.

Small edits send the whole request in one `execute()` call (base64 JSON on a heredoc). Large
ones first upload `old`/`new` as temp files, since some providers cap the size of a command;
either way the file being edited never leaves the sandbox. Both scripts share the same
replacement code and reply with one JSON object: `{"count": N}` or `{"error": code}`. The
scripts, the reading of their replies and the sequence of requests are the core's
(`files::sandbox`, `files::sandbox_ops`).
"""

from __future__ import annotations

from typing import Final

from deepagents_rs import _core
from deepagents_rs.backends.protocol import EditResult
from deepagents_rs.backends.utils import EMPTY_OLD_STRING_ERROR  # noqa: F401  (re-exported by `sandbox`)

_EDIT_INLINE_MAX_BYTES: Final = 50_000
"""Largest `old_string` + `new_string` (UTF-8 bytes) sent inside the command itself."""

_EDIT_COMMAND_TEMPLATE: Final = _core.SANDBOX_TEMPLATES["edit"]
"""Inline edit; placeholder `payload_b64` (base64 JSON with `path`, `old`, `new`, `replace_all`)."""

_EDIT_TMPFILE_TEMPLATE: Final = _core.SANDBOX_TEMPLATES["edit_tmpfile"]
"""Edit from uploaded temp files; placeholders `old_path_b64`, `new_path_b64`, `target_b64`, `replace_all`.

Besides the inline script's replies it can answer `{"error": "temp_read_failed", "detail": ...}`.
"""


def _build_edit_inline_cmd(file_path: str, old_string: str, new_string: str, *, replace_all: bool) -> str:
    return _core.sandbox_edit_inline_cmd(file_path, old_string, new_string, replace_all)


def _build_edit_tmpfile_cmd(file_path: str, old_tmp: str, new_tmp: str, *, replace_all: bool) -> str:
    return _core.sandbox_edit_tmpfile_cmd(file_path, old_tmp, new_tmp, replace_all)


def _map_edit_error(error: str, file_path: str, old_string: str) -> EditResult:
    """The message the model sees for an error code of the edit scripts."""
    return EditResult(error=_core.sandbox_edit_error(error, file_path, old_string))


def _parse_edit_output(output: str, file_path: str, old_string: str) -> EditResult:
    _, occurrences, error = _core.sandbox_edit_result(output, file_path, old_string)
    return EditResult(error=error) if error is not None else EditResult(path=file_path, occurrences=occurrences)
