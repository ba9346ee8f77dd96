"""Listing, paged reading and the write preflight of `BaseSandbox`, as scripts run by `execute()`.

Each script is a `python3 -c "..."` program inside a shell double-quoted string, so its body
avoids `$`, backticks and double quotes; arguments travel base64-encoded. It prints JSON that
the host-side parser below turns into a result object. The read script is deepagents' own,
word for word (see `_sandbox_texts`).
"""

from __future__ import annotations

import base64
import json
from typing import Any, Final

from deepagents_rs.backends._sandbox_texts import READ_COMMAND_TEMPLATE
from deepagents_rs.backends.protocol import ExecuteResponse, FileData, FileInfo, LsResult, ReadResult, WriteResult
from deepagents_rs.backends.utils import _get_backend_read_file_type, normalize_read_bounds

MAX_BINARY_BYTES: Final = 500 * 1024
"""Largest binary file `read()` returns, base64-encoded; bigger ones get an error instead.

Backends overriding `read()` should reuse it so both paths agree. The read script repeats
the value as a literal, which a test keeps in step.
"""

MAX_OUTPUT_BYTES: Final = 500 * 1024
"""Byte budget of one page of text from `read()`; past it the page ends with `TRUNCATION_MSG`."""


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _bad_reply(output: str) -> str:
    """The start of an output that was not the JSON the script prints."""
    return output[:200] if output else "(empty)"


# ---------------------------------------------------------------------------------------------
# ls
# ---------------------------------------------------------------------------------------------

_LS_COMMAND_TEMPLATE: Final = """python3 -c "
import base64, json, os

folder = base64.b64decode('{path_b64}').decode('utf-8')
problems = ((FileNotFoundError, 'path_not_found'), (NotADirectoryError, 'not_a_directory'),
            (PermissionError, 'permission_denied'))
try:
    with os.scandir(folder) as listing:
        for item in listing:
            row = {{'path': os.path.join(folder, item.name), 'is_dir': item.is_dir(follow_symlinks=False)}}
            print(json.dumps(row))
except OSError as exc:
    code = next((name for kind, name in problems if isinstance(exc, kind)), None)
    if code is None:
        raise
    print(json.dumps({{'error': code}}))
" 2>/dev/null"""


def _build_ls_cmd(path: str) -> str:
    return _LS_COMMAND_TEMPLATE.format(path_b64=_b64(path))


def _parse_ls_output(output: str, path: str) -> LsResult:
    """One JSON object per entry; an `error` object (the last one wins) fails the listing."""
    entries: list[FileInfo] = []
    failure: Any = None
    for line in filter(None, output.strip().split("\n")):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and "error" in row:
            failure = row["error"]
        else:
            entries.append({"path": row["path"], "is_dir": row["is_dir"]})
    if failure is not None:
        return LsResult(entries=None, error=f"Path '{path}': {failure}")
    return LsResult(entries=entries)


# ---------------------------------------------------------------------------------------------
# read
# ---------------------------------------------------------------------------------------------

# The reply is one JSON object. A text page carries `total_lines` (null when counting would take
# an unbounded second pass), 1-based `start_line`/`end_line` and the 0-based `next_offset` (null
# at the end). Binary files come back whole as base64 without paging keys, and so do the
# empty-file reminder and a zero-line request (`no_lines_requested`). Failures are `{"error": ...}`.
_READ_COMMAND_TEMPLATE: Final = READ_COMMAND_TEMPLATE


def _build_read_cmd(file_path: str, offset: int, limit: int) -> str:
    # Clamping is not cosmetic: the script has no guard of its own against a negative offset,
    # and the int() inside normalize_read_bounds is what makes pasting these values safe.
    offset, limit = normalize_read_bounds(offset, limit)
    return _READ_COMMAND_TEMPLATE.format(
        path_b64=_b64(file_path), file_type=_get_backend_read_file_type(file_path), offset=offset, limit=limit
    )


def _parse_read_output(output: str, file_path: str) -> ReadResult:
    """The script's JSON reply as a `ReadResult`; anything malformed becomes an error result."""
    output = output.rstrip()
    try:
        reply = json.loads(output)
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        return ReadResult(error=f"File '{file_path}': unexpected server response: {_bad_reply(output)}")
    if "error" in reply:
        return ReadResult(error=f"File '{file_path}': {reply['error']}")
    try:
        return ReadResult(
            file_data=FileData(content=reply["content"], encoding=reply.get("encoding", "utf-8")),
            total_lines=reply.get("total_lines"),
            start_line=reply.get("start_line"),
            end_line=reply.get("end_line"),
            next_offset=reply.get("next_offset"),
            no_lines_requested=bool(reply.get("no_lines_requested")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        # Valid JSON with missing content or paging keys that ReadResult refuses.
        return ReadResult(error=f"File '{file_path}': unexpected server response: {exc}")


# ---------------------------------------------------------------------------------------------
# write preflight (the content itself goes through upload_files)
# ---------------------------------------------------------------------------------------------

# Line layout matters: a failure prints a traceback that becomes the user's error message.
_WRITE_CHECK_TEMPLATE: Final = """python3 -c "
import os, base64

path = base64.b64decode('{path_b64}').decode('utf-8')
os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
" 2>&1"""
"""Creates the parent folders of a file about to be uploaded; placeholder `path_b64`."""


def _build_write_preflight_cmd(file_path: str) -> str:
    return _WRITE_CHECK_TEMPLATE.format(path_b64=_b64(file_path))


def _check_preflight_result(result: ExecuteResponse, file_path: str) -> WriteResult | None:
    """`None` when the parent folders are in place, else the failed `WriteResult`."""
    if result.exit_code == 0 and "Error:" not in result.output:
        return None
    return WriteResult(error=result.output.strip() or f"Failed to write file '{file_path}'")
