"""Run-scoped access to the agent's `files` state for `StateBackend`.

deepagents' `StateBackend` reads and writes the `files` channel through
LangGraph's config (`CONFIG_KEY_READ` / `CONFIG_KEY_SEND`). deepagents_rs has no
LangGraph graph; instead the Rust core sets `CURRENT_FILES` to an object with
two methods while it calls a Python backend during a run:

- `read() -> dict[str, FileData]`: the run's current files, including updates
  already queued in this step (read-your-writes, like LangGraph's `fresh=True`).
- `send(update: dict[str, FileData | None]) -> None`: queue a partial `files`
  update; a `None` value deletes that path.

`FilesContext` is a simple in-memory implementation usable by the core and by
tests, and `use_files(ctx)` sets/resets the context variable.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from deepagents_rs.backends.protocol import FileData

__all__ = ["CURRENT_FILES", "FilesAccessor", "FilesContext", "LazyFilesContext", "node_files", "use_files"]


@runtime_checkable
class FilesAccessor(Protocol):
    """What `CURRENT_FILES` holds during a run."""

    def read(self) -> dict[str, FileData]:
        """Return the run's current files (pending updates applied)."""
        ...

    def send(self, update: dict[str, FileData | None]) -> None:
        """Queue a partial files update; `None` values delete."""
        ...


CURRENT_FILES: ContextVar[FilesAccessor | None] = ContextVar("deepagents_rs_current_files", default=None)
"""The files accessor of the run currently calling into Python, or `None` outside a run."""


class FilesContext:
    """In-memory `FilesAccessor`: a files dict plus a list of pending updates.

    `read()` returns the files with every pending update applied (so a write
    followed by a read in the same step sees the write). `updates()` returns the
    pending updates merged into one `files` update (later updates win; `None`
    marks a deletion), which is what the run applies to its state. `commit()`
    applies the pending updates to `files` and clears them.
    """

    def __init__(self, files: Mapping[str, Any] | None = None) -> None:
        """Create a context over a copy of `files`."""
        self.files: dict[str, Any] = dict(files or {})
        self.pending: list[dict[str, Any]] = []

    def read(self) -> dict[str, Any]:
        """Return the current files with pending updates applied."""
        if not self.pending:
            return dict(self.files)
        return _apply(self.files, self.updates())

    def send(self, update: Mapping[str, Any]) -> None:
        """Queue a partial files update (`None` values delete)."""
        self.pending.append(dict(update))

    def updates(self) -> dict[str, Any]:
        """Return all pending updates merged into one (later wins, `None` = delete)."""
        merged: dict[str, Any] = {}
        for update in self.pending:
            merged.update(update)
        return merged

    def commit(self) -> dict[str, Any]:
        """Apply pending updates to `files`, clear them, and return the new files."""
        self.files = self.read()
        self.pending.clear()
        return dict(self.files)


class LazyFilesContext(FilesContext):
    """``FilesContext`` over files read only when first asked for (``reader.read()``): a
    tool call gets one, and most tools never look."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._files: dict[str, Any] | None = None
        self.pending = []

    @property
    def files(self) -> dict[str, Any]:  # type: ignore[override]
        if self._files is None:
            self._files = dict(self._reader.read() or {})
        return self._files

    @files.setter
    def files(self, value: dict[str, Any]) -> None:
        self._files = value


def _apply(files: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    result = dict(files)
    for path, value in update.items():
        if value is None:
            result.pop(path, None)
        else:
            result[path] = value
    return result


@contextmanager
def use_files(ctx: FilesAccessor) -> Iterator[FilesAccessor]:
    """Make `ctx` the current run's files accessor for the duration of the block."""
    token = CURRENT_FILES.set(ctx)
    try:
        yield ctx
    finally:
        CURRENT_FILES.reset(token)


@contextmanager
def node_files(state: Mapping[str, Any]) -> Iterator[FilesContext]:
    """The files accessor of a node the core hands to Python middleware (a hook, a model
    call's wrapper): a ``StateBackend`` used there reads the node's input files and queues
    its changes for the node's own write, as deepagents' writes through the node's task."""
    ctx = FilesContext(state.get("files") or {})
    with use_files(ctx):
        yield ctx
