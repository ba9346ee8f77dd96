"""Literal-text search in a sandbox: the shell command `BaseSandbox.grep` runs, and its parser.

Every route prints GNU `grep -HnFZ` records, `path NUL line_number : text`, one per line.
A basename glob (no `/`) goes to ripgrep when it is installed and reads the glob the way GNU
grep would, else to GNU grep's `--include`. A glob with a `/` cannot be an `--include`
(which only ever sees basenames), so a small Python script resolves it against the root.
"""

from __future__ import annotations

from typing import Final

from deepagents_rs import _core
from deepagents_rs.backends.protocol import ASYNC_GREP_TIMEOUT, ExecuteResponse, GrepResult  # noqa: F401

_GREP_PATH_GLOB_TEMPLATE: Final = _core.SANDBOX_TEMPLATES["grep_path_glob"]
"""Search through a path glob; placeholders `path_b64`, `glob_b64`, `pattern_b64`, `exclude_b64`
(NUL-joined folder names to skip) and `max_count` (an int or `None`)."""


def _grep_excluded_dirs(path: str | None, exclude_dirs: tuple[str, ...]) -> tuple[str, ...]:
    """`exclude_dirs` without the name of the search root itself.

    GNU `--exclude-dir` also drops a matching root, so searching inside `.git` explicitly would
    otherwise find nothing.
    """
    return tuple(_core.sandbox_grep_excluded_dirs(path, list(exclude_dirs)))


def _build_grep_cmd(
    pattern: str, path: str | None, glob: str | None, max_count: int | None = None,
    *, exclude_dirs: tuple[str, ...] = (),
) -> str:  # fmt: skip
    """The shell command for `BaseSandbox.grep`; see the module docstring for the routes."""
    return _core.sandbox_grep_cmd(
        pattern, path, glob, None if max_count is None else int(max_count), list(exclude_dirs)
    )


def _parse_grep_output(result: ExecuteResponse, path: str | None, max_count: int | None = None) -> GrepResult:
    """Records into a `GrepResult`; junk lines only fail the search when nothing else matched."""
    matches, error, truncated = _core.sandbox_parse_grep(result.output, result.exit_code, path, max_count)
    if error is not None:
        return GrepResult(error=error)
    return GrepResult(matches=matches, truncated=truncated) if truncated else GrepResult(matches=matches)
