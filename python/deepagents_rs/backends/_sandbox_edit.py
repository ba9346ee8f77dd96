"""String replacement inside a sandbox file, done by a script on the sandbox side.

Small edits send the whole request in one `execute()` call (base64 JSON on a heredoc). Large
ones first upload `old`/`new` as temp files, since some providers cap the size of a command;
either way the file being edited never leaves the sandbox. Both scripts share the same
replacement code and reply with one JSON object: `{"count": N}` or `{"error": code}`. The
scripts and the reading of their replies are the core's (`files::sandbox`); this module
sequences the requests.
"""

from __future__ import annotations

import base64
import logging
import os
import shlex
from collections.abc import Generator
from typing import Any, Final

from deepagents_rs import _core
from deepagents_rs.backends.protocol import EditResult, ExecuteResponse, FileUploadResponse
from deepagents_rs.backends.utils import EMPTY_OLD_STRING_ERROR

logger = logging.getLogger("deepagents_rs.backends.sandbox")

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


def _edit_outcome(output: str, file_path: str, old_string: str) -> tuple[bool, EditResult]:
    """Whether the reply was JSON at all, and the result it means."""
    was_json, occurrences, error = _core.sandbox_edit_result(output, file_path, old_string)
    result = EditResult(error=error) if error is not None else EditResult(path=file_path, occurrences=occurrences)
    return was_json, result


def _parse_edit_output(output: str, file_path: str, old_string: str) -> EditResult:
    return _edit_outcome(output, file_path, old_string)[1]


# ---------------------------------------------------------------------------------------------
# The edit as a sequence of sandbox requests, run by BaseSandbox's sync or async driver
# ---------------------------------------------------------------------------------------------

RUN: Final = "run"
UPLOAD: Final = "upload"

EditSteps = Generator[tuple[str, Any], Any, EditResult]
"""Yields `(RUN, command)` or `(UPLOAD, files)`, is sent the reply, returns the result."""


def _temp_pair() -> tuple[str, str]:
    """Two sandbox temp paths for an upload-based edit, told apart by 80 random bits."""
    tag = base64.b32encode(os.urandom(10)).decode("ascii").lower()
    stem = f"/tmp/.deepagents_edit_{tag}"
    return f"{stem}_old", f"{stem}_new"


def _upload_failure(file_path: str, responses: list[FileUploadResponse]) -> EditResult | None:
    if len(responses) < 2:
        return EditResult(error=f"Error editing file '{file_path}': upload returned no response")
    problem = next((r.error for r in responses if r.error), None)
    return None if problem is None else EditResult(error=f"Error editing file '{file_path}': {problem}")


def edit_steps(file_path: str, old_string: str, new_string: str, replace_all: bool) -> EditSteps:
    """`BaseSandbox.edit`, written once for both drivers."""
    if not old_string:
        return EditResult(error=EMPTY_OLD_STRING_ERROR)
    old_bytes, new_bytes = old_string.encode("utf-8"), new_string.encode("utf-8")
    if len(old_bytes) + len(new_bytes) <= _EDIT_INLINE_MAX_BYTES:
        reply: ExecuteResponse = yield (
            RUN,
            _build_edit_inline_cmd(file_path, old_string, new_string, replace_all=replace_all),
        )
        return _parse_edit_output(reply.output, file_path, old_string)

    old_tmp, new_tmp = _temp_pair()
    failed = _upload_failure(file_path, (yield UPLOAD, [(old_tmp, old_bytes), (new_tmp, new_bytes)]))
    if failed is not None:
        return failed
    reply = yield RUN, _build_edit_tmpfile_cmd(file_path, old_tmp, new_tmp, replace_all=replace_all)
    was_json, result = _edit_outcome(reply.output, file_path, old_string)
    if not was_json:
        # The script may have died before its cleanup ran; remove the uploads ourselves.
        cleanup: ExecuteResponse = yield RUN, f"rm -f {shlex.quote(old_tmp)} {shlex.quote(new_tmp)}"
        if cleanup.exit_code != 0:
            logger.warning("Failed to clean up temp files for edit %s: %s", file_path, cleanup.output[:200])
    return result
