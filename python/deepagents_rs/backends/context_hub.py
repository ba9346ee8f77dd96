"""`ContextHubBackend`: the agent's files live in a LangSmith Hub agent repo.

Reads are served from a local copy of the repo's tree, pulled on first use. A change is
visible to every reader as soon as it is accepted; a background worker commits it,
together with the other changes made within `_BATCH_WINDOW_SECONDS` of the first one, and
the caller returns once that commit is done (or has failed). When the hub reports a
conflict, the tree is pulled again and the accepted changes are re-applied to it: an edit
is replayed against the new content and fails when it no longer applies.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from deepagents_rs import _core
from deepagents_rs.backends import protocol, utils
from deepagents_rs.backends._hub_mutations import (
    Changes,
    Intent,
    Mutation,
    MutationQueue,
    Overwrite,
    RemoveTree,
    Replace,
    apply_changes,
    paths_under,
    release,
    replay_all,
)

# deepagents' module imports these protocol and utils names too (one line each: they are a list).
from deepagents_rs.backends.protocol import FILE_NOT_FOUND, INVALID_PATH, BackendProtocol, DeleteResult, EditResult, FileDownloadResponse, FileInfo, FileUploadResponse, GlobResult, GrepMatch, GrepResult, LsResult, ReadResult, WriteResult  # noqa: F401  # isort: skip  # fmt: skip
from deepagents_rs.backends.utils import InvalidGlobPatternError, _normalize_path, compile_grep_include_glob, create_file_data, perform_string_replacement, slice_read_response  # noqa: F401  # isort: skip  # fmt: skip

if TYPE_CHECKING:
    # At run time `_import_langsmith` sets these as globals before a backend's methods run.
    from langsmith import Client  # noqa: TC004
    from langsmith.schemas import AgentContext, FileEntry  # noqa: TC004
    from langsmith.utils import (  # noqa: TC004
        LangSmithConflictError,
        LangSmithError,
        LangSmithNotFoundError,
        parse_hub_identifier,
    )

logger = logging.getLogger(__name__)

_BATCH_WINDOW_SECONDS = 0.05
"""How long the worker waits after the first change of a batch for others to join it."""

_MAX_CONFLICT_RETRIES = 3
_COMMIT_HASH_RE = re.compile(r"[0-9a-f]{8}")

_TreeSnapshot = tuple[dict[str, str], dict[str, str], str | None]
"""A pulled tree: file contents and linked entries by path, and its commit hash."""


# langsmith is optional here (deepagents depends on it), and slow to import: its names are
# imported into this module when a `ContextHubBackend` is first made (or one of them is read
# from the module), so `import deepagents_rs` does not load it. Without it the package still
# imports, and only constructing a `ContextHubBackend` fails. `Client` stays a module
# attribute so it can be patched where it is looked up.
_LANGSMITH_NAMES = (
    "Client",
    "FileEntry",
    "LangSmithConflictError",
    "LangSmithError",
    "LangSmithNotFoundError",
    "parse_hub_identifier",
)
_langsmith_import_error: ImportError | None = None


def _import_langsmith() -> None:
    """langsmith's names as this module's globals (stand-ins without langsmith); a name
    already set (a patched `Client`) is kept, one missing (a patch undone) is set again."""
    global _langsmith_import_error
    try:
        from langsmith import Client
        from langsmith.schemas import FileEntry
        from langsmith.utils import LangSmithConflictError, LangSmithError, LangSmithNotFoundError, parse_hub_identifier
    except ImportError as exc:  # pragma: no cover - only without langsmith
        _langsmith_import_error = exc
        Client = FileEntry = parse_hub_identifier = None  # type: ignore[assignment,misc]

        class LangSmithError(Exception):  # type: ignore[no-redef]
            """Stands in for langsmith's error classes, so the `except` clauses stay valid."""

        LangSmithConflictError = LangSmithNotFoundError = LangSmithError  # type: ignore[misc]
    found = {
        "Client": Client,
        "FileEntry": FileEntry,
        "LangSmithConflictError": LangSmithConflictError,
        "LangSmithNotFoundError": LangSmithNotFoundError,
        "parse_hub_identifier": parse_hub_identifier,
        "LangSmithError": LangSmithError,
    }
    for name, value in found.items():
        globals().setdefault(name, value)


def __getattr__(name: str) -> Any:
    if name in _LANGSMITH_NAMES:
        _import_langsmith()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _require_langsmith() -> None:
    _import_langsmith()
    if _langsmith_import_error is not None:
        msg = (
            "ContextHubBackend requires the `langsmith` package, which is not installed. "
            "Install it with `pip install langsmith`."
        )
        raise ImportError(msg) from _langsmith_import_error


def _hub_path(path: str) -> str:
    return path.lstrip("/")


def _seconds_left(deadline: float | None) -> float:
    if deadline is None:
        msg = "Context Hub mutation deadline is missing"
        raise RuntimeError(msg)
    return deadline - time.monotonic()


def _glob_root(path: str | None) -> str | None:
    """The normalized directory a glob searches; `None` when `path` cannot be one."""
    try:
        return utils._normalize_path(path)
    except ValueError:
        return None


def _fnmatch_filter(glob: str | None) -> Callable[[str], bool]:
    if not glob:
        return lambda _path: True
    compiled = re.compile(fnmatch.translate(os.path.normcase(glob)))
    return lambda path: compiled.match(os.path.normcase(path)) is not None


class ContextHubBackend(protocol.BackendProtocol):
    """Backend whose files are committed to a LangSmith Hub agent repo (persistent)."""

    def __init__(self, identifier: str, *, client: Client | None = None) -> None:
        """Serve the files of the hub repo `identifier` (`"owner/name"` or `"-/name"`).

        Args:
            identifier: The agent repo.
            client: The LangSmith client to use; a new `Client()` when not given.
        """
        _require_langsmith()
        self._client = client if client is not None else Client()
        self._identifier = identifier
        self._mutations = MutationQueue()
        self._worker: threading.Thread | None = None
        # The tree as last committed or pulled (`None` until the first pull), with its hash.
        self._cache: dict[str, str] | None = None
        self._commit_hash: str | None = None
        self._linked_entries: dict[str, str] = {}

    # The local copy of the tree

    def _pull(self) -> _TreeSnapshot:
        """The repo's tree as the hub has it now; a repo that does not exist yet is empty."""
        try:
            context: AgentContext = self._client.pull_agent(self._identifier)
        except LangSmithNotFoundError:
            return {}, {}, None
        files: dict[str, str] = {}
        links: dict[str, str] = {}
        for path, entry in context.files.items():
            if isinstance(entry, FileEntry):
                files[path] = entry.content
            else:
                links[path] = entry.repo_handle
        return files, links, context.commit_hash

    def _committed_locked(self) -> dict[str, str]:
        """The committed tree, pulled first if need be (under the lock, so only once)."""
        if self._cache is None:
            self._cache, self._linked_entries, self._commit_hash = self._pull()
        return self._cache

    def _visible_locked(self) -> dict[str, str]:
        """The committed tree with every accepted change applied, in order."""
        view = dict(self._committed_locked())
        for mutation in (*self._mutations.in_flight, *self._mutations.pending):
            apply_changes(view, mutation.changes)
        return view

    def _visible(self) -> dict[str, str]:
        with self._mutations.condition:
            return self._visible_locked()

    def get_linked_entries(self) -> dict[str, str]:
        """The repo's linked entries: path to the handle of the repo it links to."""
        with self._mutations.condition:
            self._committed_locked()
            return dict(self._linked_entries)

    def has_prior_commits(self) -> bool:
        """Whether the hub repo exists and has at least one commit."""
        with self._mutations.condition:
            self._committed_locked()
            return self._commit_hash is not None

    def _unavailable(self, action: str, exc: LangSmithError) -> str:
        logger.exception("Hub %s failed for %r", action, self._identifier)
        return f"Hub unavailable: {exc}"

    # Accepting changes

    def _queue_changes_locked(
        self, changes: Changes, *, intent: Intent | None = None, occurrences: int | None = None
    ) -> Mutation:
        """Accept `changes` (the lock is held): visible at once, committed by the worker."""
        # The worker comes first: when it cannot be started, nothing has been queued.
        self._start_worker_locked()
        queue = self._mutations
        if not queue.pending:
            # The window opens with a batch's first change; later ones do not extend it.
            queue.deadline = time.monotonic() + _BATCH_WINDOW_SECONDS
        mutation = Mutation(intent or Overwrite(dict(changes)), dict(changes), occurrences)
        queue.pending.append(mutation)
        queue.condition.notify_all()
        return mutation

    def _start_worker_locked(self) -> None:
        if self._worker is None:
            # It blocks on the lock held here until the caller has queued its change.
            worker = threading.Thread(target=self._drain_mutations, name="context-hub-mutations", daemon=True)
            worker.start()
            self._worker = worker

    @staticmethod
    def _wait_for_mutation(mutation: Mutation) -> None:
        """Block until `mutation` is committed; raise what stopped it otherwise."""
        mutation.done.wait()
        if mutation.error is not None:
            raise mutation.error

    def _submit_changes(self, changes: Changes) -> None:
        with self._mutations.condition:
            self._committed_locked()
            mutation = self._queue_changes_locked(changes)
        self._wait_for_mutation(mutation)

    # The worker

    def _drain_mutations(self) -> None:
        """Commit batch after batch until none is waiting."""
        while True:
            batch: list[Mutation] | None = None
            try:
                batch = self._take_batch()
                if batch is None:
                    return
                changes, commit_hash, snapshot = self._push_batch(batch)
                drained = self._complete_batch(batch, changes, commit_hash, snapshot)
            except BaseException as exc:  # noqa: BLE001  # every waiting caller must get an answer
                self._fail_all(batch or [], exc)
                return
            if drained:
                return

    def _take_batch(self) -> list[Mutation] | None:
        """Wait for the batch window to close and move the waiting changes in flight.

        `None` when nothing waits; the worker is then forgotten, under the lock, so the next
        change starts a new one.
        """
        queue = self._mutations
        with queue.condition:
            while queue.pending:
                left = _seconds_left(queue.deadline)
                if left > 0:
                    queue.condition.wait(timeout=left)
                    continue
                queue.in_flight, queue.pending, queue.deadline = queue.pending, [], None
                return queue.in_flight
            self._worker = None
            return None

    def _push_batch(self, batch: list[Mutation]) -> tuple[Changes, str | None, _TreeSnapshot | None]:
        """Commit the batch's combined changes: `(changes, new commit hash, pulled tree or None)`.

        A conflict pulls the tree, re-applies the accepted changes and tries again, up to
        `_MAX_CONFLICT_RETRIES` times. When the hub's answer does not name the commit, the
        tree is pulled and its hash taken; that tree then replaces the local copy.
        """
        conflicts = 0
        while True:
            with self._mutations.condition:
                changes: Changes = {}
                for mutation in batch:
                    changes.update(mutation.changes)
                parent = self._commit_hash
            if not changes:
                return changes, parent, None
            files = {
                path: None if content is None else FileEntry(type="file", content=content)
                for path, content in changes.items()
            }
            try:
                url = self._client.push_agent(self._identifier, files=files, parent_commit=parent)
            except LangSmithConflictError as conflict:
                conflicts += 1
                if conflicts > _MAX_CONFLICT_RETRIES:
                    raise
                self._reload_after_conflict(conflict)
                continue
            commit_hash = self._commit_hash_in(url)
            if commit_hash is not None:
                return changes, commit_hash, None
            snapshot = self._pull()
            if snapshot[2] is None:
                msg = "Context Hub commit succeeded but its hash could not be resolved"
                raise RuntimeError(msg)
            return changes, snapshot[2], snapshot

    def _commit_hash_in(self, url: str) -> str | None:
        """The commit hash at the end of a push's URL, when the URL has the expected shape."""
        try:
            url_path = urlsplit(url).path
            owner, name, _ = parse_hub_identifier(self._identifier)
        except ValueError:
            return None
        for prefix in (f"/context/{name}/", f"/hub/{owner}/{name}:"):
            tail = url_path.removeprefix(prefix)
            if tail != url_path and _COMMIT_HASH_RE.fullmatch(tail):
                return tail
        return None

    def _reload_after_conflict(self, conflict: LangSmithConflictError) -> None:
        """Adopt the hub's current tree, the accepted changes re-applied to it.

        The batch in flight must still apply (otherwise `conflict` fails it); waiting
        changes that no longer apply fail on their own.
        """
        snapshot = self._pull()
        failed: list[Mutation] = []
        with self._mutations.condition:
            queue = self._mutations
            after_batch = replay_all(queue.in_flight, snapshot[0], conflict)
            try:
                replay_all(queue.pending, after_batch, conflict)
            except LangSmithConflictError as exc:
                failed = queue.fail_pending(exc)
            self._cache, self._linked_entries, self._commit_hash = snapshot
        release(failed)

    def _complete_batch(
        self, batch: list[Mutation], changes: Changes, commit_hash: str | None, snapshot: _TreeSnapshot | None
    ) -> bool:
        """Record a committed batch and answer its callers; whether nothing else waits."""
        failed: list[Mutation] = []
        with self._mutations.condition:
            queue = self._mutations
            if snapshot is None:
                committed = dict(self._committed_locked())
                apply_changes(committed, changes)
                self._cache = committed
            else:
                # The pulled tree may hold more than this batch: replay what waits on top.
                if queue.pending:
                    msg = "Context Hub changed before a pending mutation could be applied"
                    try:
                        replay_all(queue.pending, snapshot[0], LangSmithConflictError(msg))
                    except LangSmithConflictError as exc:
                        failed = queue.fail_pending(exc)
                self._cache, self._linked_entries = snapshot[0], snapshot[1]
            self._commit_hash = commit_hash
            queue.in_flight = []
            drained = not queue.pending
            if drained:
                self._worker = None
        release(batch + failed)
        return drained

    def _fail_all(self, batch: list[Mutation], error: BaseException) -> None:
        """Fail every accepted change with `error` and forget the local tree."""
        with self._mutations.condition:
            queue = self._mutations
            affected = batch + queue.fail_pending(error)
            for mutation in batch:
                mutation.error = error
            queue.in_flight = []
            self._cache, self._linked_entries, self._commit_hash = None, {}, None
            self._worker = None
        release(affected)

    # The file operations

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> protocol.ReadResult:
        """The lines `offset` to `offset + limit` of a file, paginated like every backend's."""
        try:
            files = self._visible()
        except LangSmithError as exc:
            return protocol.ReadResult(error=self._unavailable("pull", exc))
        content = files.get(_hub_path(file_path))
        if content is None:
            return protocol.ReadResult(error=f"File '{file_path}' not found")
        return utils.slice_read_response(utils.create_file_data(content), offset, limit)

    def write(self, file_path: str, content: str) -> protocol.WriteResult:
        """Commit `content` as the file at `file_path`."""
        try:
            self._submit_changes({_hub_path(file_path): content})
        except LangSmithError as exc:
            return protocol.WriteResult(error=self._unavailable("write", exc))
        return protocol.WriteResult(path=file_path)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> protocol.EditResult:
        """Replace `old_string` by `new_string` and commit; the count is the one finally committed."""
        hub_path = _hub_path(file_path)
        intent = Replace(hub_path, old_string, new_string, replace_all)
        try:
            with self._mutations.condition:
                outcome = intent.attempt(self._visible_locked())
                if outcome is None:
                    return protocol.EditResult(error=f"Error: File '{file_path}' not found")
                if isinstance(outcome, str):
                    return protocol.EditResult(error=outcome)
                changes, count = outcome
                mutation = self._queue_changes_locked(changes, intent=intent, occurrences=count)
            self._wait_for_mutation(mutation)
        except LangSmithError as exc:
            return protocol.EditResult(error=self._unavailable("edit", exc))
        return protocol.EditResult(path=file_path, occurrences=mutation.occurrences)

    def delete(self, file_path: str) -> protocol.DeleteResult:
        """Commit the removal of `file_path` and of everything under `file_path + "/"`.

        An error when nothing is stored at or under the path, or the hub is unavailable.
        """
        base = _hub_path(file_path).rstrip("/")
        try:
            with self._mutations.condition:
                doomed = paths_under(self._visible_locked(), base)
                if not doomed:
                    return protocol.DeleteResult(error=f"Error: File '{file_path}' not found")
                mutation = self._queue_changes_locked(dict.fromkeys(doomed, None), intent=RemoveTree(base))
            self._wait_for_mutation(mutation)
        except LangSmithError as exc:
            return protocol.DeleteResult(error=self._unavailable("delete", exc))
        return protocol.DeleteResult(path=file_path)

    def ls(self, path: str = "/") -> protocol.LsResult:
        """The files and subdirectories directly under `path`, in the tree's order."""
        prefix = _hub_path(path).rstrip("/")
        try:
            files = self._visible()
        except LangSmithError as exc:
            return protocol.LsResult(error=self._unavailable("pull", exc))
        entries: list[protocol.FileInfo] = []
        listed_dirs: set[str] = set()
        for hub_path in files:
            if not prefix:
                rest = hub_path
            elif hub_path.startswith(prefix + "/"):
                rest = hub_path[len(prefix) + 1 :]
            else:
                continue
            head, sep, _ = rest.partition("/")
            if not sep:
                if rest:
                    entries.append(protocol.FileInfo(path=f"/{hub_path}", is_dir=False))
                continue
            directory = f"{prefix}/{head}" if prefix else head
            if directory not in listed_dirs:
                listed_dirs.add(directory)
                entries.append(protocol.FileInfo(path=f"/{directory}", is_dir=True))
        return protocol.LsResult(entries=entries)

    def grep(
        self,
        pattern: str,  # literal text, never a regex
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
    ) -> protocol.GrepResult:
        """The lines holding `pattern` in files whose path starts with `path`.

        Unlike `glob` here, the `glob` filter is `fnmatch` on the whole path (its `*`
        crosses `/`, case follows the platform), so the two can disagree on a pattern.
        With `max_count`, a match past the cap stops the search and flags `truncated`.
        """
        try:
            files = self._visible()
        except LangSmithError as exc:
            return protocol.GrepResult(error=self._unavailable("pull", exc))
        prefix = _hub_path(path).rstrip("/") if path else ""
        selected = _fnmatch_filter(glob)
        found: list[protocol.GrepMatch] = []
        for hub_path, content in files.items():
            if not hub_path.startswith(prefix) or not selected(hub_path):
                continue
            for number, line in enumerate(content.splitlines(), 1):
                if pattern not in line:
                    continue
                if max_count is not None and len(found) >= max_count:
                    return protocol.GrepResult(matches=found, truncated=True)
                found.append(protocol.GrepMatch(path=f"/{hub_path}", line=number, text=line))
        return protocol.GrepResult(matches=found)

    def glob(self, pattern: str, path: str | None = None) -> protocol.GlobResult:
        """The files under `path` matching `pattern` by the shared glob rules.

        The pattern is tried on the path relative to `path`, and also on the path from the
        repo root, which keeps patterns that spell out their directory working. When `path`
        names a file, only that file is considered.
        """
        try:
            files = self._visible()
        except LangSmithError as exc:
            return protocol.GlobResult(error=self._unavailable("pull", exc))
        try:
            matches = utils.compile_grep_include_glob(pattern)
        except utils.InvalidGlobPatternError as exc:
            logger.warning("Refused glob pattern %r for %r: %s", pattern, self._identifier, exc)
            return protocol.GlobResult(error=str(exc))
        root = _glob_root(path)
        if root is None:
            return protocol.GlobResult(matches=[])
        candidates = _core.files_under_root([f"/{hub_path}" for hub_path in files], root)
        return protocol.GlobResult(
            matches=[
                protocol.FileInfo(path=candidate, is_dir=False)
                for candidate, relative in candidates
                if matches(relative) or matches(candidate[1:])
            ]
        )

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[protocol.FileUploadResponse]:
        """Commit the UTF-8 files together; any other bytes are refused file by file."""
        decoded: list[tuple[str, str | None]] = []
        accepted: Changes = {}
        for path, raw in files:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            else:
                accepted[_hub_path(path)] = text  # the last upload of a path wins
            decoded.append((path, text))
        failure: str | None = None
        if accepted:
            try:
                self._submit_changes(accepted)
            except LangSmithError as exc:
                # Not one of the protocol's codes: the protocol allows a backend's own text.
                failure = self._unavailable("batch upload", exc)
        return [
            protocol.FileUploadResponse(path=path, error=protocol.INVALID_PATH if text is None else failure)
            for path, text in decoded
        ]

    def download_files(self, paths: list[str]) -> list[protocol.FileDownloadResponse]:
        """Each file's bytes; a missing path gets `file_not_found`."""
        try:
            files = self._visible()
        except LangSmithError as exc:
            failure = self._unavailable("pull", exc)
            return [protocol.FileDownloadResponse(path=path, error=failure) for path in paths]
        responses: list[protocol.FileDownloadResponse] = []
        for path in paths:
            content = files.get(_hub_path(path))
            if content is None:
                responses.append(protocol.FileDownloadResponse(path=path, error=protocol.FILE_NOT_FOUND))
            else:
                responses.append(protocol.FileDownloadResponse(path=path, content=content.encode("utf-8")))
        return responses
