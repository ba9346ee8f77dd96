"""Listing, paged reading and the write preflight of `BaseSandbox`, as scripts run by `execute()`.

Each script is a `python3 -c "..."` program inside a shell double-quoted string, so its body
avoids `$`, backticks and double quotes; arguments travel base64-encoded. It prints JSON that
the host-side parser turns into a result object. The scripts, their builders and parsers are
the core's (`files::sandbox`); the read script is deepagents' own, word for word.
"""

from __future__ import annotations

from typing import Final

from deepagents_rs import _core
from deepagents_rs.backends.protocol import (  # FileData, FileInfo: re-exported by `sandbox`
    ExecuteResponse,
    FileData,  # noqa: F401
    FileInfo,  # noqa: F401
    LsResult,
    ReadResult,
    WriteResult,
)
from deepagents_rs.backends.utils import _get_backend_read_file_type, normalize_read_bounds

MAX_BINARY_BYTES: Final = 500 * 1024
"""Largest binary file `read()` returns, base64-encoded; bigger ones get an error instead.

Backends overriding `read()` should reuse it so both paths agree. The read script repeats
the value as a literal, which a test keeps in step.
"""

MAX_OUTPUT_BYTES: Final = 500 * 1024
"""Byte budget of one page of text from `read()`; past it the page ends with `TRUNCATION_MSG`."""


# ---------------------------------------------------------------------------------------------
# ls
# ---------------------------------------------------------------------------------------------

_LS_COMMAND_TEMPLATE: Final = _core.SANDBOX_TEMPLATES["ls"]
"""Lists a folder, one JSON object per entry; placeholder `path_b64`."""


def _build_ls_cmd(path: str) -> str:
    return _core.sandbox_ls_cmd(path)


def _parse_ls_output(output: str, path: str) -> LsResult:
    """One JSON object per entry; an `error` object (the last one wins) fails the listing."""
    entries, error = _core.sandbox_parse_ls(output, path)
    return LsResult(entries=None, error=error) if error is not None else LsResult(entries=entries)


# ---------------------------------------------------------------------------------------------
# read
# ---------------------------------------------------------------------------------------------

# The reply is one JSON object. A text page carries `total_lines` (null when counting would take
# an unbounded second pass), 1-based `start_line`/`end_line` and the 0-based `next_offset` (null
# at the end). Binary files come back whole as base64 without paging keys, and so do the
# empty-file reminder and a zero-line request (`no_lines_requested`). Failures are `{"error": ...}`.
_READ_COMMAND_TEMPLATE: Final = _core.SANDBOX_TEMPLATES["read"]


def _build_read_cmd(file_path: str, offset: int, limit: int) -> str:
    # Clamping is not cosmetic: the script has no guard of its own against a negative offset,
    # and the int() inside normalize_read_bounds is what makes pasting these values safe.
    offset, limit = normalize_read_bounds(offset, limit)
    return _core.sandbox_read_cmd(file_path, _get_backend_read_file_type(file_path), offset, limit)


def _parse_read_output(output: str, file_path: str) -> ReadResult:
    """The script's JSON reply as a `ReadResult`; anything malformed becomes an error result."""
    fields, error = _core.sandbox_parse_read(output, file_path)
    if error is not None:
        return ReadResult(error=error)
    try:
        return ReadResult(**fields)
    except (KeyError, TypeError, ValueError) as exc:
        # Valid JSON with paging keys that ReadResult refuses.
        return ReadResult(error=f"File '{file_path}': unexpected server response: {exc}")


# ---------------------------------------------------------------------------------------------
# write preflight (the content itself goes through upload_files)
# ---------------------------------------------------------------------------------------------

# Line layout matters: a failure prints a traceback that becomes the user's error message.
_WRITE_CHECK_TEMPLATE: Final = _core.SANDBOX_TEMPLATES["write_check"]
"""Creates the parent folders of a file about to be uploaded; placeholder `path_b64`."""


def _build_write_preflight_cmd(file_path: str) -> str:
    return _core.sandbox_write_preflight_cmd(file_path)


def _check_preflight_result(result: ExecuteResponse, file_path: str) -> WriteResult | None:
    """`None` when the parent folders are in place, else the failed `WriteResult`."""
    error = _core.sandbox_preflight_error(result.output, result.exit_code, file_path)
    return None if error is None else WriteResult(error=error)
