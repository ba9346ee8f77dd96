"""String replacement inside a sandbox file, done by a script on the sandbox side.

Small edits send the whole request in one `execute()` call (base64 JSON on a heredoc). Large
ones first upload `old`/`new` as temp files, since some providers cap the size of a command;
either way the file being edited never leaves the sandbox. Both scripts share the same
replacement code and reply with one JSON object: `{"count": N}` or `{"error": code}`.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import shlex
from collections.abc import Generator
from typing import Any, Final

from deepagents_rs.backends._sandbox_texts import EDIT_ERROR_OTHER, EDIT_ERRORS
from deepagents_rs.backends.protocol import EditResult, ExecuteResponse, FileUploadResponse
from deepagents_rs.backends.utils import EMPTY_OLD_STRING_ERROR

logger = logging.getLogger("deepagents_rs.backends.sandbox")

_EDIT_INLINE_MAX_BYTES: Final = 50_000
"""Largest `old_string` + `new_string` (UTF-8 bytes) sent inside the command itself."""

# Shared by both edit scripts (doubled braces: the templates go through str.format).
_REPLACE_CODE: Final = """
def line_ending_forms(old, new):
    # read() gives the model LF text, so old may not occur as sent in a CRLF file. The first
    # form that does occur shows the file's line endings, and new is rewritten to match.
    cr, lf = chr(13), chr(10)
    as_lf = lambda s: s.replace(cr + lf, lf)
    as_crlf = lambda s: as_lf(s).replace(lf, cr + lf)
    return ((old, new), (as_crlf(old), as_crlf(new)), (as_lf(old), as_lf(new)))


def replace_in(target, old, new, replace_all):
    info = os.stat(target)
    if not stat.S_ISREG(info.st_mode):
        return {{'error': 'not_a_file'}}
    with open(target, 'rb') as fh:
        raw = fh.read()
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError:
        return {{'error': 'not_a_text_file'}}
    for find, put in line_ending_forms(old, new):
        count = text.count(find)
        if count:
            break
    else:
        return {{'error': 'string_not_found'}}
    if count > 1 and not replace_all:
        return {{'error': 'multiple_occurrences', 'count': count}}
    with open(target, 'wb') as fh:
        fh.write(text.replace(find, put, -1 if replace_all else 1).encode('utf-8'))
    return {{'count': count}}


def edit(target, old, new, replace_all):
    try:
        return replace_in(target, old, new, replace_all)
    except FileNotFoundError:
        return {{'error': 'file_not_found'}}
    except PermissionError:
        return {{'error': 'permission_denied'}}
"""

_EDIT_COMMAND_TEMPLATE: Final = (
    """python3 -c "
import base64, json, os, stat, sys
"""
    + _REPLACE_CODE
    + """
request = json.loads(base64.b64decode(sys.stdin.read().strip()).decode('utf-8'))
target, old, new = request['path'], request['old'], request['new']
print(json.dumps(edit(target, old, new, request.get('replace_all', False))))
" 2>&1 <<'__DEEPAGENTS_EDIT_EOF__'
{payload_b64}
__DEEPAGENTS_EDIT_EOF__
"""
)
"""Inline edit; placeholder `payload_b64` (base64 JSON with `path`, `old`, `new`, `replace_all`).

The newline after the heredoc terminator stays: some integrations wait for it to see the end
of input.
"""

_EDIT_TMPFILE_TEMPLATE: Final = (
    """python3 -c "
import base64, json, os, stat, sys
"""
    + _REPLACE_CODE
    + """
old_path = base64.b64decode('{old_path_b64}').decode('utf-8')
new_path = base64.b64decode('{new_path_b64}').decode('utf-8')
target = base64.b64decode('{target_b64}').decode('utf-8')
replace_all = {replace_all}


def uploaded(name):
    with open(name, 'rb') as fh:
        return fh.read().decode('utf-8')


reply = None
try:
    old, new = uploaded(old_path), uploaded(new_path)
except Exception as exc:
    reply = {{'error': 'temp_read_failed', 'detail': str(exc)}}
finally:
    # The uploads serve this one edit; remove them whatever happened.
    for name in (old_path, new_path):
        try:
            os.remove(name)
        except OSError:
            pass
print(json.dumps(reply or edit(target, old, new, replace_all)))
" 2>&1"""
)
"""Edit from uploaded temp files; placeholders `old_path_b64`, `new_path_b64`, `target_b64`, `replace_all`.

Besides the inline script's replies it can answer `{"error": "temp_read_failed", "detail": ...}`.
"""


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _build_edit_inline_cmd(file_path: str, old_string: str, new_string: str, *, replace_all: bool) -> str:
    request = {"path": file_path, "old": old_string, "new": new_string, "replace_all": replace_all}
    return _EDIT_COMMAND_TEMPLATE.format(payload_b64=_b64(json.dumps(request)))


def _build_edit_tmpfile_cmd(file_path: str, old_tmp: str, new_tmp: str, *, replace_all: bool) -> str:
    return _EDIT_TMPFILE_TEMPLATE.format(
        old_path_b64=_b64(old_tmp), new_path_b64=_b64(new_tmp), target_b64=_b64(file_path), replace_all=replace_all
    )


def _map_edit_error(error: str, file_path: str, old_string: str) -> EditResult:
    """The message the model sees for an error code of the edit scripts."""
    template = EDIT_ERRORS.get(error)
    if template is None:
        return EditResult(error=EDIT_ERROR_OTHER.format(file_path=file_path, error=error))
    return EditResult(error=template.format(file_path=file_path, old_string=old_string))


_NOT_JSON: Final = object()


def _load_reply(output: str) -> Any:
    try:
        return json.loads(output)
    except ValueError:
        return _NOT_JSON


def _edit_result(reply: Any, output: str, file_path: str, old_string: str) -> EditResult:
    if not isinstance(reply, dict):
        detail = output[:200] if output else "(empty)"
        return EditResult(error=f"Error editing file '{file_path}': unexpected server response: {detail}")
    if "error" in reply:
        return _map_edit_error(reply["error"], file_path, old_string)
    return EditResult(path=file_path, occurrences=reply.get("count", 1))


def _parse_edit_output(output: str, file_path: str, old_string: str) -> EditResult:
    output = output.rstrip()
    return _edit_result(_load_reply(output), output, file_path, old_string)


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
    output = reply.output.rstrip()
    decoded = _load_reply(output)
    if decoded is _NOT_JSON:
        # The script may have died before its cleanup ran; remove the uploads ourselves.
        cleanup: ExecuteResponse = yield RUN, f"rm -f {shlex.quote(old_tmp)} {shlex.quote(new_tmp)}"
        if cleanup.exit_code != 0:
            logger.warning("Failed to clean up temp files for edit %s: %s", file_path, cleanup.output[:200])
    return _edit_result(decoded, output, file_path, old_string)
