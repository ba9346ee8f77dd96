"""The changes `ContextHubBackend` has accepted but not yet committed.

Each accepted change keeps what its caller asked for (an intent) next to the changes that
came of it, so that after a conflict the changes can be worked out again on the tree the
hub has now: an overwrite stays as it was, an edit is redone on the new content, and a
removal takes whatever is now under its path.
"""

import threading
from dataclasses import dataclass, field
from typing import Protocol

from deepagents_rs.backends.utils import perform_string_replacement

Changes = dict[str, str | None]
"""New contents by path; `None` removes the path."""

Outcome = tuple[Changes, int | None]
"""The changes an intent makes, and the edit's count of replacements (`None` otherwise)."""


def apply_changes(files: dict[str, str], changes: Changes) -> None:
    """Apply `changes` to `files` in place."""
    for path, content in changes.items():
        if content is None:
            files.pop(path, None)
        else:
            files[path] = content


def paths_under(files: dict[str, str], base: str) -> list[str]:
    """`base` itself and every path below it."""
    below = base + "/"
    return [path for path in files if path == base or path.startswith(below)]


class Intent(Protocol):
    def replay(self, files: dict[str, str]) -> Outcome | None:
        """What this intent does to `files`; `None` when it no longer applies."""
        ...


@dataclass(frozen=True)
class Overwrite:
    changes: Changes

    def replay(self, files: dict[str, str]) -> Outcome:
        return dict(self.changes), None


@dataclass(frozen=True)
class Replace:
    path: str
    old: str
    new: str
    every: bool

    def attempt(self, files: dict[str, str]) -> Outcome | str | None:
        """The edit made on `files`, the replacement's error message, or `None` with no such file."""
        current = files.get(self.path)
        if current is None:
            return None
        outcome = perform_string_replacement(current, self.old, self.new, self.every)
        if isinstance(outcome, str):
            return outcome
        content, count = outcome
        return {self.path: content}, count

    def replay(self, files: dict[str, str]) -> Outcome | None:
        outcome = self.attempt(files)
        return None if isinstance(outcome, str) else outcome


@dataclass(frozen=True)
class RemoveTree:
    path: str

    def replay(self, files: dict[str, str]) -> Outcome:
        return dict.fromkeys(paths_under(files, self.path), None), None


@dataclass
class Mutation:
    """An accepted change; its caller waits on `done`, then looks at `error`."""

    intent: Intent
    changes: Changes
    occurrences: int | None = None
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None


@dataclass
class MutationQueue:
    """Changes waiting for a commit (`pending`) and being committed (`in_flight`).

    These lists, `deadline` (when the waiting batch closes) and the backend's copy of the
    tree are all guarded by `condition`.
    """

    condition: threading.Condition = field(default_factory=threading.Condition)
    pending: list[Mutation] = field(default_factory=list)
    in_flight: list[Mutation] = field(default_factory=list)
    deadline: float | None = None

    def fail_pending(self, error: BaseException) -> list[Mutation]:
        """Take the waiting changes out, each marked with `error`; they still need `release`."""
        failed, self.pending, self.deadline = self.pending, [], None
        for mutation in failed:
            mutation.error = error
        return failed


def replay_all(mutations: list[Mutation], files: dict[str, str], conflict: BaseException) -> dict[str, str]:
    """Work each mutation's changes out again on `files`, in order; the tree with all of them.

    All or nothing: when one no longer applies, `conflict` is raised and none is changed.
    `files` itself is left as it was.
    """
    view = dict(files)
    redone: list[Outcome] = []
    for mutation in mutations:
        outcome = mutation.intent.replay(view)
        if outcome is None:
            raise conflict
        redone.append(outcome)
        apply_changes(view, outcome[0])
    for mutation, (changes, occurrences) in zip(mutations, redone, strict=True):
        mutation.changes, mutation.occurrences = changes, occurrences
    return view


def release(mutations: list[Mutation]) -> None:
    """Wake the callers of `mutations`; done without the lock, which they may want at once."""
    for mutation in mutations:
        mutation.done.set()
