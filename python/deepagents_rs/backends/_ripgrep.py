"""Literal search with ripgrep for `FilesystemBackend.grep`: the command line and the reading
of its JSON frames are the core's (`src/files/ripgrep.rs`); the process runs from here, through
`subprocess`, which callers (and deepagents' tests) patch.

`rg --json -F` runs as a child process whose match frames are read as they arrive, so the
total cap can stop it early and a watchdog can stop it when it runs out of time. Every
answer either stands (complete or flagged partial) or asks the caller to search in Python.
"""

import functools
import logging
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from deepagents_rs import _core

# The records belong to the backend: operators watch (and tests capture) one logger name.
logger = logging.getLogger("deepagents_rs.backends.filesystem")

_STDERR_KEPT_CHARS = 500
_STDERR_CHUNK_CHARS = 8192
_EXIT_GRACE_SECONDS = 5

Hits = dict[str, list[tuple[int, str]]]
"""Matching `(line number, text)` pairs by the path a result shows."""


@functools.cache
def find_ripgrep() -> str | None:
    """Where `rg` is on `PATH`, looked up once per process (the cache is cleared when it fails to start)."""
    found = shutil.which("rg")
    if found is None:
        logger.info(
            "ripgrep ('rg') not found on PATH; using Python grep fallback. "
            "Install ripgrep for faster searches and automatic .gitignore handling."
        )
    return found


def ripgrep_command(
    rg: str, pattern: str, base: Path, include_glob: str | None, max_count: int | None
) -> tuple[list[str], str | None]:
    """The argument list and working directory for a literal search of `base` (the core's)."""
    return _core.ripgrep_command(rg, pattern, str(base), include_glob, max_count)


def parse_match_frame(line: str) -> tuple[str, int, str] | None:
    """`(path as rg printed it, line number, text)` of a match frame; `None` for other lines."""
    frame = _core.ripgrep_frame(line)
    if frame is None:
        return None
    kind, payload = frame
    if kind == "error":
        # A file rg could not read (often a binary one): worth a trace, not a warning.
        logger.debug("ripgrep per-file error frame: %s", payload)
        return None
    return payload


def run_ripgrep(
    argv: list[str],
    cwd: str | None,
    *,
    timeout: float,
    max_count: int | None,
    place: Callable[[str], str | None],
) -> tuple[Hits | None, bool]:
    """Run rg and gather its matches under the keys `place` gives (`None` drops a match).

    Returns `(hits, partial)`, or `(None, False)` when rg could not start, failed, or ran
    out of time before finding anything.
    """
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
        # `rg` was found but would not start (removed, made unexecutable): look again next time.
        logger.warning("ripgrep subprocess failed (%s: %s); using Python grep fallback", type(exc).__name__, exc)
        find_ripgrep.cache_clear()
        return None, False

    stderr_head: list[str] = []
    drainer = threading.Thread(target=_drain_stderr, args=(proc, stderr_head), daemon=True)
    drainer.start()
    expired = threading.Event()

    def expire() -> None:
        # Reading stdout blocks, so only killing rg can end a search that outlives its budget.
        expired.set()
        proc.kill()

    watchdog = threading.Timer(timeout, expire)
    watchdog.start()
    hits: Hits = {}
    try:
        capped = _gather(proc, proc.stdout or (), hits, place, max_count)
    finally:
        watchdog.cancel()
        _close_and_wait(proc)
        drainer.join()
        if proc.stderr is not None:
            proc.stderr.close()

    if expired.is_set():
        if hits:
            logger.warning("ripgrep timed out after %ds; returning partial results", timeout)
            return hits, True
        logger.warning("ripgrep timed out after %ds with no output; using Python grep fallback", timeout)
        return None, False
    if capped:
        return hits, True
    if proc.returncode not in (0, 1):
        # 0 and 1 are "found" and "found nothing"; anything else is a hard error, after
        # which the matches so far would pass for a complete answer.
        stderr = "".join(stderr_head).strip()[:_STDERR_KEPT_CHARS]
        logger.warning("ripgrep exited %d (stderr=%r); using Python grep fallback", proc.returncode, stderr)
        return None, False
    return hits, False


def _gather(
    proc: "subprocess.Popen[str]",
    lines: Iterable[str],
    hits: Hits,
    place: Callable[[str], str | None],
    max_count: int | None,
) -> bool:
    """Fill `hits` from rg's output; `True` when the cap stopped rg with more matches left."""
    kept = 0
    for line in lines:
        frame = parse_match_frame(line)
        if frame is None:
            continue
        key = place(frame[0])
        if key is None:
            continue
        if max_count is not None and kept >= max_count:
            proc.terminate()
            return True
        hits.setdefault(key, []).append(frame[1:])
        kept += 1
    return False


def _drain_stderr(proc: "subprocess.Popen[str]", head: list[str]) -> None:
    """Read rg's stderr to the end (a full pipe would stall rg), keeping its first characters."""
    stream = proc.stderr
    if stream is None:
        return
    room = _STDERR_KEPT_CHARS
    try:
        while chunk := stream.read(_STDERR_CHUNK_CHARS):
            if room > 0:
                head.append(chunk[:room])
                room -= len(head[-1])
    except (OSError, ValueError):
        logger.debug("Failed to read ripgrep stderr", exc_info=True)


def _close_and_wait(proc: "subprocess.Popen[str]") -> None:
    """Close rg's stdout and wait for it to exit, killing it if it lingers.

    Both waits are bounded: a process stuck in uninterruptible I/O can outlive even a
    kill, and the search must not hang with it.
    """
    if proc.stdout is not None:
        proc.stdout.close()
    for attempt in range(2):
        try:
            proc.wait(timeout=_EXIT_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            if attempt == 0:
                proc.kill()
        else:
            return
    logger.warning("ripgrep did not exit after SIGKILL; abandoning process handle")
