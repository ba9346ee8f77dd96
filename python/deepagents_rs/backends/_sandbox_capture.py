"""Capture at source for `BaseSandbox.execute_with_offload`: the wrapper script and the
reading of its reply are the core's (`src/files/sandbox_capture.rs`), and so is running the
wrapped command through the sandbox's own `execute` (`src/files/sandbox_ops.rs`).

The wrapper saves the command's combined output to a file in the sandbox and prints one meta
line, `<sentinel> <exit_code> <offloaded> <capped> <surplus_lines>`, then the whole output
(small) or a preview of it (large; the file stays for `read_file`).
"""

from __future__ import annotations

import logging

from deepagents_rs import _core
from deepagents_rs.backends.protocol import ExecuteOffloadResult, ExecuteResponse, execute_accepts_timeout
from deepagents_rs.backends.utils import TRUNCATION_MARKER_TEMPLATE

logger = logging.getLogger("deepagents_rs.backends.sandbox")

_CAPTURE = _core.SANDBOX_CAPTURE
_EXECUTE_CAPTURE_SENTINEL: str = _CAPTURE["_EXECUTE_CAPTURE_SENTINEL"]
_EXECUTE_CAPTURE_META_FIELDS: int = _CAPTURE["_EXECUTE_CAPTURE_META_FIELDS"]
_EXECUTE_CAPTURE_CLIP_NOTICE: str = _CAPTURE["_EXECUTE_CAPTURE_CLIP_NOTICE"]
_EXECUTE_CAPTURE_CLIP_NOTICE_CAPPED: str = _CAPTURE["_EXECUTE_CAPTURE_CLIP_NOTICE_CAPPED"]
_EXECUTE_CAPTURE_EXCERPT_CLIP_NOTICE: str = _CAPTURE["_EXECUTE_CAPTURE_EXCERPT_CLIP_NOTICE"]
_EXECUTE_CAPTURE_HEAD_LINES: int = _CAPTURE["_EXECUTE_CAPTURE_HEAD_LINES"]
_EXECUTE_CAPTURE_TAIL_LINES: int = _CAPTURE["_EXECUTE_CAPTURE_TAIL_LINES"]
_EXECUTE_CAPTURE_HEAD_BYTES: int = _CAPTURE["_EXECUTE_CAPTURE_HEAD_BYTES"]
_EXECUTE_CAPTURE_TAIL_BYTES: int = _CAPTURE["_EXECUTE_CAPTURE_TAIL_BYTES"]
_EXECUTE_CAPTURE_MAX_BYTES: int = _CAPTURE["_EXECUTE_CAPTURE_MAX_BYTES"]
"""Default cap on the output saved in the sandbox; the rest is drained unsaved and flagged."""


def _build_capture_execute_cmd(
    command: str, capture_path: str, *, inline_budget: int, max_capture_bytes: int | None = None
) -> str:
    """The wrapper script around `command`: output up to `inline_budget` bytes comes back
    whole; past `max_capture_bytes` (default `_EXECUTE_CAPTURE_MAX_BYTES`) it is no longer
    saved and the result says so."""
    return _core.sandbox_capture_cmd(command, capture_path, inline_budget, max_capture_bytes)


def _parse_capture_execute_output(response: ExecuteResponse) -> ExecuteOffloadResult:
    """The wrapper's reply as an `ExecuteOffloadResult`.

    Output without a well-formed meta line (the wrapper was off, or the transport cut it) is
    returned as is with `offloaded=False`, and logged, since a preview may then pass for the
    whole output; the command must not be run again. `truncated` is set when capture hit its
    cap or the transport truncated.
    """
    warning, parsed = _core.sandbox_parse_capture(response.output)
    if warning is not None:
        logger.warning("%s", warning)
    if parsed is None:
        return ExecuteOffloadResult(offloaded=False, response=response)
    output, exit_code, offloaded, capped, marker = parsed
    return ExecuteOffloadResult(
        offloaded=offloaded,
        response=ExecuteResponse(output=output, exit_code=exit_code, truncated=capped or response.truncated),
        preview_has_truncation_marker=marker,
    )


__all__ = [
    "TRUNCATION_MARKER_TEMPLATE",
    "_build_capture_execute_cmd",
    "_parse_capture_execute_output",
    "execute_accepts_timeout",
]
