"""The contract every storage backend meets, and the values its operations return.

A backend subclasses `BackendProtocol` (or `SandboxBackendProtocol` when it can run shell
commands) and overrides the operations it supports; whatever it leaves alone raises
`NotImplementedError`. The `a*` variants run their sync twin on a worker thread unless a
backend brings a native async version.
"""

import abc
import inspect
import logging
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Final, Literal, NotRequired

# pydantic needs typing_extensions' TypedDict on Python < 3.12.
from typing_extensions import TypedDict

from deepagents_rs.backends._utils_texts import EXECUTE_UNINSPECTABLE, MAX_COUNT_UNINSPECTABLE

logger = logging.getLogger(__name__)

DEFAULT_GREP_TIMEOUT: Final = 15
"""Seconds one sync grep pass may take."""

ASYNC_GREP_TIMEOUT: Final = 2 * DEFAULT_GREP_TIMEOUT + 5
"""Seconds `agrep` waits: room for two sync passes (ripgrep, then the Python fallback)."""

ASYNC_GLOB_TIMEOUT: Final = 30
"""Seconds a sandbox glob round-trip may take, start-up and transfer included."""

FileOperationError = Literal["file_not_found", "permission_denied", "is_directory", "invalid_path"]
"""The error codes an upload or download reports for failures a model can act on."""

# One name per code, so producers and consumers cannot drift apart on a typo.
FILE_NOT_FOUND: Final = "file_not_found"
PERMISSION_DENIED: Final = "permission_denied"
IS_DIRECTORY: Final = "is_directory"
INVALID_PATH: Final = "invalid_path"

GlobTruncationReason = Literal["budget", "unreadable", "transport"]
"""Why a glob came back incomplete: out of time or matches, an unreadable subtree, or output
clipped in transit. Only the first is helped by a narrower pattern."""


# ---- results of transfers -------------------------------------------------------------------


@dataclass
class FileDownloadResponse:
    """One path of a batch download: its bytes, or why there are none."""

    path: str
    content: bytes | None = None
    error: FileOperationError | str | None = None


@dataclass
class FileUploadResponse:
    """One path of a batch upload, with an error when it was not stored."""

    path: str
    error: FileOperationError | str | None = None


# ---- records --------------------------------------------------------------------------------


class FileInfo(TypedDict):
    """A listing entry: only `path` is guaranteed, the rest is what the backend knows."""

    path: str
    is_dir: NotRequired[bool]
    size: NotRequired[int]
    modified_at: NotRequired[str]


class ContextLine(TypedDict):
    """A line shown around a grep match (1-based number and text)."""

    line: int
    text: str


class GrepMatch(TypedDict):
    """A matching line. The context keys come together, and only when context was asked for."""

    path: str
    line: int
    text: str
    context_before: NotRequired[list[ContextLine]]
    context_after: NotRequired[list[ContextLine]]


class FileData(TypedDict):
    # The docstring is interface: it is the description of `files` in the graph's JSON
    # schemas (LangGraph's server and Studio show it). Text, or base64 for binary, plus
    # ISO-8601 timestamps when known.
    """Data structure for storing file contents with metadata."""

    content: str
    encoding: str
    created_at: NotRequired[str]
    modified_at: NotRequired[str]


# ---- results of operations ------------------------------------------------------------------


def _read_window_fault(result: "ReadResult") -> str | None:
    """The first way `result`'s pagination fields contradict each other, if any.

    A window that does not add up would let the middleware skip unshown lines when it
    pages on, so construction refuses it.
    """
    start, end, total, resume = result.start_line, result.end_line, result.total_lines, result.next_offset
    if (start is None) is not (end is None):
        return "ReadResult.start_line and end_line must be set together or both left unset"
    if result.no_lines_requested and any(v is not None for v in (result.error, start, resume, total)):
        return "ReadResult.no_lines_requested describes an uninspected window; it cannot be combined with error or pagination fields"
    if start is None:
        if resume is not None:
            return "ReadResult.next_offset requires start_line and end_line to be set"
        if total is not None:
            return "ReadResult.total_lines requires start_line and end_line to be set"
        return None
    if not 1 <= start <= end:
        return f"ReadResult window must satisfy 1 <= start_line <= end_line, got start_line={start}, end_line={end}"
    if total is not None and total < end:
        return f"ReadResult.total_lines ({total}) cannot be less than end_line ({end})"
    if resume is not None and resume != end:
        return f"ReadResult.next_offset ({resume}) must equal end_line ({end}), the 0-indexed line after the last shown"
    return None


@dataclass
class ReadResult:
    """A read window: the file data and where the window sits, or an error.

    `start_line`/`end_line` are 1-based and inclusive, `next_offset` is the 0-based line to
    resume from (unset on the last page), and `no_lines_requested` marks a read that asked
    for no lines and so never looked at the file.
    """

    error: str | None = None
    file_data: FileData | None = None
    total_lines: int | None = None
    start_line: int | None = None
    end_line: int | None = None
    next_offset: int | None = None
    no_lines_requested: bool = False

    def __post_init__(self) -> None:
        fault = _read_window_fault(self)
        if fault is not None:
            raise ValueError(fault)


@dataclass
class WriteResult:
    """The written path, or an error."""

    error: str | None = None
    path: str | None = None


@dataclass
class EditResult:
    """The edited path and how many replacements were made, or an error."""

    error: str | None = None
    path: str | None = None
    occurrences: int | None = None


@dataclass
class DeleteResult:
    """The removed path, or an error."""

    error: str | None = None
    path: str | None = None


@dataclass
class LsResult:
    """A directory's entries, or an error."""

    error: str | None = None
    entries: list[FileInfo] | None = None


@dataclass
class GrepResult:
    """Matches of a search; `truncated` says the search stopped early and they are partial.

    `matches` is `None` only when the search failed outright.
    """

    error: str | None = None
    matches: list[GrepMatch] | None = None
    truncated: bool = False


@dataclass
class GlobResult:
    """Files a glob matched; `truncated` (with a reason when known) says the walk stopped
    early and they are partial. `matches` is `None` only when the glob failed outright."""

    error: str | None = None
    matches: list[FileInfo] | None = None
    truncated: bool = False
    truncation_reason: GlobTruncationReason | None = None


def _apply_grep_max_count(result: GrepResult, max_count: int | None) -> GrepResult:
    """Trims `result` to `max_count` matches, flagging it truncated when anything was cut."""
    # No cap: the result passes through untouched, even one that is not a GrepResult (an
    # older backend's error string).
    if max_count is None:
        return result
    matches = result.matches
    if matches is None or len(matches) <= max_count:
        return result
    return GrepResult(error=result.error, matches=matches[:max_count], truncated=True)


# ---- the backend contract -------------------------------------------------------------------


# Nothing is abstract: a backend implements the subset of operations it can serve.
class BackendProtocol(abc.ABC):
    """Base class of the file backends (agent state, a store, a directory, a sandbox...).

    Every operation returns a result object rather than raising for ordinary failures, and
    paths are absolute. The file tools go through these methods, not through a shell, so a
    backend without one (state, store) still supports search: `grep` matches literal text
    and `glob` follows the include-glob rules of `compile_grep_include_glob`. Every path a
    backend reports must be absolute, or permission rules cannot match it.
    """

    def ls(self, path: str) -> LsResult:
        """The entries directly under the directory `path`."""
        raise NotImplementedError

    async def als(self, path: str) -> LsResult:
        """`ls` on a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.ls, path)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Up to `limit` raw lines of a file from the 0-based line `offset`.

        A negative offset reads from the top and a non-positive limit reads nothing (see
        `normalize_read_bounds`); a window of text must carry `start_line`. Numbering the
        lines is the middleware's job, not the backend's.
        """
        raise NotImplementedError

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """`read` on a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.read, file_path, offset, limit)

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """The lines containing the literal text `pattern` (not a regex).

        `path` narrows the search to a directory, `glob` to the files it includes, and
        `max_count` caps the total number of matches: when more exist, the result is
        flagged truncated.
        """
        raise NotImplementedError

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """`grep` on a worker thread, given up after `ASYNC_GREP_TIMEOUT` seconds.

        The cap goes to `grep` when it takes one and is applied afterwards either way, so
        backends with the older signature honour it too. A timeout stops the wait, not the
        thread.
        """
        import asyncio

        accepts_cap = _method_accepts_max_count(type(self), "grep")
        search = partial(self.grep, pattern, path, glob, **({"max_count": max_count} if accepts_cap else {}))
        try:
            result = await asyncio.wait_for(asyncio.to_thread(search), timeout=ASYNC_GREP_TIMEOUT)
        except TimeoutError:
            logger.warning(
                "agrep timed out after %ds (pattern=%r, path=%r, glob=%r)", ASYNC_GREP_TIMEOUT, pattern, path, glob
            )
            return GrepResult(
                error=f"Error: grep timed out after {ASYNC_GREP_TIMEOUT}s. Try a more specific pattern or a narrower path."
            )
        return _apply_grep_max_count(result, max_count)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """The regular files under `path` matching `pattern`, with absolute paths.

        The rules are `compile_grep_include_glob`'s. A pattern the matcher refuses comes back
        as an error, not an exception.
        """
        raise NotImplementedError

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """`glob` on a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.glob, pattern, path)

    def write(self, file_path: str, content: str) -> WriteResult:
        """Stores `content` at `file_path`, replacing any file already there."""
        raise NotImplementedError

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """`write` on a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.write, file_path, content)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Replaces the exact text `old_string` with `new_string`; unless `replace_all`, the
        text must occur exactly once."""
        raise NotImplementedError

    async def aedit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """`edit` on a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.edit, file_path, old_string, new_string, replace_all)

    def delete(self, file_path: str) -> DeleteResult:
        """Removes `file_path` and everything under it (optional: see `_supports_delete`)."""
        raise NotImplementedError

    async def adelete(self, file_path: str) -> DeleteResult:
        """`delete` on a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.delete, file_path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Stores each `(path, bytes)` pair; one response per pair, in order."""
        raise NotImplementedError

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """`upload_files` on a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.upload_files, files)

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Fetches each path's bytes; one response per path, in order."""
        raise NotImplementedError

    async def adownload_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """`download_files` on a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.download_files, paths)


# ---- shell execution ------------------------------------------------------------------------


@dataclass
class ExecuteResponse:
    """What a shell command printed (stdout and stderr together), its exit code (`None` when
    unknown), and whether the backend cut the output."""

    output: str
    exit_code: int | None = None
    truncated: bool = False


class ExecuteArtifact(TypedDict):
    """Machine-readable facts about an `execute` run, kept on the tool message's artifact.

    A command that ran is a successful tool call whatever its exit code: read `exit_code`.
    """

    exit_code: NotRequired[int]
    truncated: NotRequired[bool]
    output_file: NotRequired[str]


@dataclass(frozen=True, slots=True)
class ExecuteOffloadResult:
    """A command run by `BaseSandbox.execute_with_offload`.

    `offloaded`: the full output stayed in a file on the sandbox and `response.output` is a
    preview. `preview_has_truncation_marker`: the preview builder put a lines-truncated
    marker in it (the output itself may contain look-alike lines, so never scan for it).
    """

    offloaded: bool
    response: ExecuteResponse
    preview_has_truncation_marker: bool = False


class SandboxBackendProtocol(BackendProtocol):
    """A backend that can also run shell commands (a container, a VM, a remote host)."""

    @property
    def id(self) -> str:
        """Identifies this sandbox instance."""
        raise NotImplementedError

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Runs `command` in a shell; `timeout` (seconds, `None` for the backend's default)."""
        raise NotImplementedError

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """`execute` on a worker thread; the timeout is dropped for backends whose `execute`
        predates it."""
        import asyncio

        if timeout is None or not execute_accepts_timeout(type(self)):
            return await asyncio.to_thread(self.execute, command)
        return await asyncio.to_thread(self.execute, command, timeout=timeout)


# ---- capability probes ----------------------------------------------------------------------


@lru_cache(maxsize=256)
def _method_accepts_max_count(cls: type[BackendProtocol], method_name: Literal["grep", "agrep"]) -> bool:
    """Whether `cls.<method_name>` takes `max_count` (by name or through `**kwargs`)."""
    try:
        params = inspect.signature(getattr(cls, method_name)).parameters
    except (AttributeError, ValueError, TypeError):
        logger.warning(MAX_COUNT_UNINSPECTABLE, cls.__qualname__, method_name, exc_info=True)
        return False
    return "max_count" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


@lru_cache(maxsize=128)
def execute_accepts_timeout(cls: type[SandboxBackendProtocol]) -> bool:
    """Whether `cls.execute` names a `timeout` parameter; backends built against older
    releases do not. Cached per class."""
    try:
        params = inspect.signature(cls.execute).parameters
    except (ValueError, TypeError):
        logger.warning(EXECUTE_UNINSPECTABLE, cls.__qualname__, exc_info=True)
        return False
    return "timeout" in params


def _supports_delete(backend: BackendProtocol) -> bool:
    """Whether `backend`'s class overrides the default `delete`, which only raises."""
    return type(backend).delete is not BackendProtocol.delete
