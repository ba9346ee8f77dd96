"""File search by glob in a sandbox: the walking script `BaseSandbox.glob` runs, and its parser.

The script follows the glob contract shared by every backend: a pattern without `/` matches
basenames at any depth, one with `/` matches the path relative to the root (`**` included),
and a leading-dot name only matches a pattern segment that starts with a dot. It prints one
JSON line per regular file, then `warning` lines when the result is partial; a failure before
the walk is a single `error` line instead.
"""

from __future__ import annotations

import logging
from typing import Final

from deepagents_rs import _core
from deepagents_rs.backends.protocol import (
    ASYNC_GLOB_TIMEOUT,  # noqa: F401  (re-exported by `sandbox`)
    ExecuteResponse,
    GlobResult,
)

logger = logging.getLogger("deepagents_rs.backends.sandbox")

_GLOB_COMMAND_TEMPLATE: Final = _core.SANDBOX_TEMPLATES["glob"]
"""Walking glob; placeholders `path_b64` (search root) and `pattern_b64`.

Errors: `path_not_found`, `not_a_directory`, `permission_denied`, `invalid_pattern` (a `..`
segment), `pattern_too_broad` (too many brace alternatives) and `internal_error: ...`.
Warnings: `walk_errors` (unreadable subtrees, with a count and a sample; narrowing the search
will not help) and `truncated` (time or match budget spent; narrowing will).
"""


def _build_glob_cmd(pattern: str, search_path: str) -> str:
    return _core.sandbox_glob_cmd(pattern, search_path)


def _glob_search_root(path: str | None) -> str:
    """The search root as an absolute path (default `/`).

    Matches are joined onto it, and permission `deny` rules only ever match absolute paths:
    a relative root would let its matches slip past them when `glob` is called directly.
    """
    return _core.sandbox_glob_search_root(path)


def _absolutize_glob_path(search_path: str, rel_path: str) -> str:
    """A match reported relative to the root, made absolute (`glob` promises absolute paths)."""
    return _core.sandbox_absolutize_glob_path(search_path, rel_path)


_LOG_LEVELS: Final = {"debug": logging.DEBUG, "warning": logging.WARNING, "error": logging.ERROR}


def _parse_glob_output(result: ExecuteResponse, search_path: str) -> GlobResult:
    """The script's output as a `GlobResult` with absolute paths.

    Lines that are not the script's JSON fail the search rather than being skipped: stderr is
    merged in, so skipping them would turn a crash into a confident "no files". A non-zero
    exit fails it for the same reason, and empty output keeps the transport's truncation flag.
    """
    matches, error, truncated, reason, logs = _core.sandbox_parse_glob(
        result.output, result.exit_code, bool(result.truncated), search_path
    )
    for level, text in logs:
        logger.log(_LOG_LEVELS[level], "%s", text)
    if error is not None:
        return GlobResult(matches=None, error=error)
    return GlobResult(matches=matches, truncated=truncated, truncation_reason=reason)
