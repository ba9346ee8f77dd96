"""`FilesystemBackend`: the agent's files are files on this machine's disk.

Reading, writing, listing and the glob and grep walks go through the Rust core
(`deepagents_rs._core.disk_*`); ripgrep, when installed, does the literal searches.
"""

from __future__ import annotations

import logging
import shutil  # noqa: F401  # patched through this module (`filesystem.shutil.which`)
import subprocess  # noqa: F401  # patched through this module (`filesystem.subprocess.Popen`)
import time  # noqa: F401  # patched through this module (`filesystem.time.monotonic`)
from pathlib import Path

from deepagents_rs import _core
from deepagents_rs.backends._disk_files import DiskFileOperations
from deepagents_rs.backends._fs_errors import _map_exception_to_standard_error  # noqa: F401  # imported from here
from deepagents_rs.backends._ripgrep import Hits, find_ripgrep, ripgrep_command, run_ripgrep

# deepagents' module imports these protocol and utils names too (one line each: they are a list).
from deepagents_rs.backends.protocol import ASYNC_GREP_TIMEOUT, DEFAULT_GREP_TIMEOUT, FILE_NOT_FOUND, INVALID_PATH, IS_DIRECTORY, PERMISSION_DENIED, BackendProtocol, ContextLine, DeleteResult, EditResult, FileData, FileDownloadResponse, FileInfo, FileOperationError, FileUploadResponse, GlobResult, GrepMatch, GrepResult, LsResult, ReadResult, WriteResult  # noqa: F401  # isort: skip  # fmt: skip
from deepagents_rs.backends.utils import MAX_VIDEO_INPUT_BYTES, InvalidGlobPatternError, _get_backend_read_file_type, check_empty_content, compile_grep_include_glob, perform_string_replacement, slice_read_response  # noqa: F401  # isort: skip  # fmt: skip

logger = logging.getLogger(__name__)

# The cached `rg` lookup, reachable here for `cache_clear()`.
_resolve_ripgrep_path = find_ripgrep

_DEFAULT_GLOB_TIMEOUT = 5
"""Seconds one `glob` walk may take before it returns what it has, flagged truncated.

It stays below the middleware's own glob deadline (`GLOB_TIMEOUT`, 10 s), so the partial
answer arrives before the middleware gives up on the call.
"""


class FilesystemBackend(DiskFileOperations):
    """Files read from and written to a directory of the local disk.

    The agent gets real read and write access to the machine: secrets it can read can
    leave with it, and what it changes stays changed. Meant for local development tools
    and CI, behind human review of sensitive calls or inside a sandbox; a server should
    use `StateBackend`, `StoreBackend` or a sandbox backend instead.

    With `virtual_mode=True` (the default) every path is read as a path under `root_dir`:
    `..` is refused and a path that resolves outside the root (through a symlink, say) is
    refused too. That is a guard on paths, not isolation of the process.
    """

    def __init__(
        self,
        root_dir: str | Path | None = None,
        virtual_mode: bool = True,
        max_file_size_mb: int = 10,
    ) -> None:
        """Serve files under `root_dir` (the working directory when not given).

        Args:
            root_dir: The root of virtual paths, or, with `virtual_mode=False`, the base
                of relative paths only.
            virtual_mode: Confine every path to `root_dir`. Without it absolute paths are
                taken as they are and `..` may leave the root.
            max_file_size_mb: Files larger than this are skipped by the Python search.
        """
        self.cwd = Path(root_dir).resolve() if root_dir else Path.cwd()
        self.virtual_mode = virtual_mode
        self.max_file_size_bytes = max_file_size_mb * 1024 * 1024

    # Paths

    def _resolve_path(self, key: str) -> Path:
        """The absolute on-disk path for `key`.

        In virtual mode `key` is read under the root; otherwise an absolute key is taken
        as written and a relative one resolved against the root.

        Raises:
            ValueError: In virtual mode, when `key` holds `..` or resolves outside the root.
            OSError: When the path is a symlink loop.
        """
        return Path(_core.disk_resolve(str(self.cwd), self.virtual_mode, key))

    def _real_path(self, key: str) -> str:
        """Where `key` leads once symlinks are followed, as the permission rules see it.

        A virtual path in virtual mode; otherwise the real path without its drive.
        """
        return _core.disk_real_path(self.cwd, self.virtual_mode, self._resolve_path(key))

    def _to_virtual_path(self, path: Path) -> str:
        """`path` as a virtual path (`/.` for the root itself).

        Raises:
            ValueError: When `path` resolves outside the root.
        """
        return _core.disk_virtual_path(self.cwd, path)

    def _display_path(self, path: Path) -> str:
        """`path` as a message may show it: in virtual mode never the host path of the root."""
        if self.virtual_mode:
            try:
                return self._to_virtual_path(path)
            except (ValueError, OSError, RuntimeError):
                return path.name or "/"
        return str(path)

    def _video_size_limit(self) -> int:
        # Looked up on every read, so the limit can be changed on this module.
        return MAX_VIDEO_INPUT_BYTES

    # Listing

    def ls(self, path: str) -> LsResult:
        """The files and directories directly in `path`; directories end with `/`.

        A missing path or a file gives an error and no entries. Entries that cannot be
        examined are left out and named in `error`, alongside the rest.
        """
        try:
            directory = self._resolve_path(path)
            if not directory.exists():
                return LsResult(error=f"Path '{path}': path_not_found", entries=None)
            if not directory.is_dir():
                return LsResult(error=f"Path '{path}': not_a_directory", entries=None)
        except (OSError, RuntimeError) as exc:
            message = f"Cannot list '{path}': {exc}"
            logger.warning("%s", message)
            return LsResult(error=message, entries=None)
        try:
            entries, problems, outside = _core.disk_ls(str(self.cwd), self.virtual_mode, str(directory))
        except OSError as exc:
            # The directory itself failed mid-read: what was gathered is not the whole listing.
            entries, problems, outside = [], [f"Listing of '{path}' aborted: {exc}"], []
        for child in outside:
            logger.debug("Skipping path outside root: %s", child)
        for problem in problems:
            logger.warning("%s", problem)
        # The order of a directory's entries depends on the filesystem; the answer should not.
        return LsResult(error="\n".join(sorted(problems)) if problems else None, entries=entries)

    # Searching

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """The regular files under `path` (the root by default) matching `pattern`.

        The pattern follows the shared contract of `compile_grep_include_glob`: without a
        `/` it matches names at any depth, with one it matches the path relative to `path`;
        a leading dot must be written out, and `**` does not enter dot-directories. A
        refused pattern comes back as an error, never raised. The walk has a time budget;
        past it the matches so far come back with `truncated=True`.
        """
        try:
            compile_grep_include_glob(pattern)
        except InvalidGlobPatternError as exc:
            # A property of the pattern alone, reported before the disk is touched.
            return GlobResult(error=str(exc), matches=None)
        shown = path if path is not None else "<default>"
        try:
            root = self.cwd if path in (None, "/") else self._resolve_path(path)
            if not (root.exists() and root.is_dir()):
                return GlobResult(matches=[])
        except (OSError, RuntimeError) as exc:
            return GlobResult(error=f"Error globbing path '{shown}': {exc}", matches=[])

        # Matches that resolve outside a virtual root, or not at all, are left out silently.
        matches, truncated = _core.disk_glob_entries(
            str(self.cwd), self.virtual_mode, str(root), pattern, max(0.0, float(_DEFAULT_GLOB_TIMEOUT))
        )
        if truncated:
            logger.warning(
                "Glob of '%s' timed out after %ss with %d match(es); returning partial results",
                shown,
                _DEFAULT_GLOB_TIMEOUT,
                len(matches),
            )
        return GlobResult(matches=matches, truncated=truncated, truncation_reason="budget" if truncated else None)

    def grep(
        self,
        pattern: str,  # literal text, never a regex
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        context_lines: int = 0,  # backend-only: the agent's grep tool never sets it
    ) -> GrepResult:
        """The lines holding `pattern` (a literal string, not a regex) in files under `path`.

        Ripgrep searches when it is installed, the Rust core otherwise. `glob` filters
        files; `max_count` caps the total, flagging `truncated` when more exist.
        `context_lines` adds that many lines around each match; it is a backend-only option,
        the agent's grep tool never asks for it. Files whose context cannot be read keep
        their matches and are named in `error`.

        Raises:
            ValueError: If `context_lines` is negative.
        """
        _check_context_lines(context_lines)
        if glob is not None:
            # Refused here on both engines: ripgrep would silently match nothing.
            try:
                compile_grep_include_glob(glob)
            except InvalidGlobPatternError as exc:
                return GrepResult(error=str(exc), matches=[])
        try:
            base = self._resolve_path(path or ".")
            if not base.exists():
                return GrepResult(matches=[])
        except ValueError:
            return GrepResult(matches=[])
        except (OSError, RuntimeError) as exc:
            return GrepResult(error=f"Error searching path '{path or '.'}': {exc}", matches=[])

        hits, truncated = self._ripgrep_search(pattern, base, glob, max_count)
        problem: str | None = None
        # Ripgrep keeps "\r\n" line ends in its text; the Python side reads universal newlines.
        newline: str | None = "\n"
        if hits is None:
            hits, truncated, problem = self._python_search(pattern, base, glob, max_count=max_count)
            newline = None
        matches: list[GrepMatch] = [
            {"path": shown, "line": int(number), "text": text}
            for shown, lines in hits.items()
            for number, text in lines
        ]
        if context_lines:
            problem = self._apply_grep_context(matches, context_lines, problem, pattern, newline=newline)
        return GrepResult(error=problem, matches=matches, truncated=truncated)

    async def agrep(
        self,
        pattern: str,  # literal text, never a regex
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        context_lines: int = 0,  # backend-only: the agent's grep tool never sets it
    ) -> GrepResult:
        """`grep` on a worker thread; a timeout ends the wait, not the thread.

        Raises:
            ValueError: If `context_lines` is negative (before any thread is started).
        """
        import asyncio

        _check_context_lines(context_lines)
        if not context_lines:
            return await super().agrep(pattern, path, glob, max_count=max_count)
        search = asyncio.to_thread(self.grep, pattern, path, glob, max_count=max_count, context_lines=context_lines)
        try:
            return await asyncio.wait_for(search, timeout=ASYNC_GREP_TIMEOUT)
        except TimeoutError:
            logger.warning(
                "agrep timed out after %ds (pattern=%r, path=%r, glob=%r)", ASYNC_GREP_TIMEOUT, pattern, path, glob
            )
            return GrepResult(
                error=f"Error: grep timed out after {ASYNC_GREP_TIMEOUT}s. Try a more specific pattern or a narrower path."
            )

    def _ripgrep_search(
        self, pattern: str, base: Path, include: str | None, cap: int | None = None
    ) -> tuple[Hits | None, bool]:
        """Ripgrep's matches by shown path and whether they are partial.

        `(None, False)` means ripgrep is missing, failed, or found nothing in its time: search
        in Python instead. A match whose real path lies outside `base` (a symlink out) is
        dropped in every mode.
        """
        rg = _resolve_ripgrep_path()
        if rg is None:
            return None, False
        argv, cwd = ripgrep_command(rg, pattern, base, include, cap)
        real_base = base.resolve()

        def place(reported: str) -> str | None:
            shown, skipped = _core.disk_rg_place(self.cwd, self.virtual_mode, base, real_base, reported)
            if skipped == "search":
                logger.warning("Skipping ripgrep result outside search root: path=%s root=%s", base / reported, base)
            elif skipped == "root":
                logger.debug("Skipping grep result outside root: %s", base / reported)
            elif skipped == "unresolved":
                logger.warning("Could not resolve grep result path: %s", base / reported)
            return shown

        return run_ripgrep(argv, cwd, timeout=DEFAULT_GREP_TIMEOUT, max_count=cap, place=place)

    def _python_search(
        self,
        pattern: str,
        base: Path,
        include: str | None,
        *,
        max_count: int | None = None,
        timeout: float = DEFAULT_GREP_TIMEOUT,
    ) -> tuple[Hits, bool, str | None]:
        """The search without ripgrep, done by the Rust core (`disk_grep`).

        It reads the regular UTF-8 files under `base` (a file stands for its whole
        directory, as in deepagents), skipping those over `max_file_size_bytes` and those
        that do not decode from the start, and stops at `max_count` matches or `timeout`
        seconds. Returns `(hits, truncated, error)`; `error` names files that could be
        searched only in part.
        """
        if include:
            compile_grep_include_glob(include)  # raises for a refused pattern
        root = base if base.is_dir() else base.parent
        hits, truncated, unreadable, outside, unresolved = _core.disk_grep_shown(
            self.cwd, self.virtual_mode, root, pattern, include, self.max_file_size_bytes, max_count, float(timeout)
        )
        for found in outside:
            logger.debug("Skipping grep result outside root: %s", found)
        for found in unresolved:
            logger.warning("Could not resolve grep result path: %s", found)
        if not unreadable:
            return hits, truncated, None
        return hits, truncated, "One or more files could not be fully searched:\n" + "\n".join(unreadable)

    # Context around grep matches

    def _apply_grep_context(
        self, matches: list[GrepMatch], radius: int, error: str | None, pattern: str, *, newline: str | None
    ) -> str | None:
        """Add context to `matches`; the error to report, unreadable files appended to `error`."""
        unreadable = self._add_grep_context(matches, radius, pattern, newline=newline)
        if not unreadable:
            return error
        listed = ", ".join(sorted(unreadable))
        note = f"Error: could not read context for {len(unreadable)} file(s) (non-UTF-8 or unreadable): {listed}"
        return note if not error else f"{error}\n{note}"

    def _add_grep_context(
        self, matches: list[GrepMatch], radius: int, pattern: str, *, newline: str | None
    ) -> list[str]:
        """Fill in `context_before`/`context_after` in place; the files that could not be read."""
        unreadable: list[str] = []
        by_file: dict[str, list[GrepMatch]] = {}
        for match in matches:
            by_file.setdefault(match["path"], []).append(match)
        for shown, file_matches in by_file.items():
            numbers = [match["line"] for match in file_matches]
            lines, ok = self._read_grep_context(shown, _core.grep_context_spans(numbers, radius), newline=newline)
            if not ok:
                unreadable.append(shown)
            for match, (before, after) in zip(
                file_matches, _core.grep_context_attach(numbers, lines, radius, pattern), strict=True
            ):
                match["context_before"], match["context_after"] = before, after
        return unreadable

    def _read_grep_context(
        self, file_path: str, line_ranges: list[tuple[int, int]], *, newline: str | None = None
    ) -> tuple[dict[int, str], bool]:
        """The lines of `file_path` inside the ascending `line_ranges`, and whether the read worked.

        `newline` as `open` takes it: `None` for universal newlines, `"\\n"` for ripgrep's
        reading (only `\\n` ends a line). A file the search just matched should be readable;
        when it is not (not UTF-8, a symlink loop, gone meanwhile) the caller says so rather
        than dropping it quietly.
        """
        try:
            target = self._resolve_path(file_path)
            return _core.disk_context_lines(str(target), line_ranges, newline is None), True
        except (OSError, RuntimeError, ValueError) as exc:
            logger.debug("Could not read grep context for %s: %s", file_path, exc)
            return {}, False


def _check_context_lines(context_lines: int) -> None:
    if context_lines < 0:
        msg = "context_lines must be non-negative"
        raise ValueError(msg)
