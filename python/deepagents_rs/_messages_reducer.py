"""``messages`` merged as deepagents' delta channel merges it (``_messages_delta_reducer``, the
name deepagents gives its batch reducer; code building its own state on deepagents' channel
imports it from here), and the ids a run's thread graph knows its history holds.

A delta channel reduces each step's writes onto the history the reducer returned at the
previous step. Scanning that history for its ids at every step would make a step cost the
history's length; so a run keeps the id set of the history it got back last (`HistoryIds`),
and a step's write costs what it writes. The set is the run's own: it lives in the run's
stepping (`_threads._WithoutAmbient` makes it current on the thread stepping the run, one
step at a time), so runs in other threads or tasks, and anything else calling the reducer
(a tool reading its channel, a hook's write), never see it, and it dies with the run.
"""

from __future__ import annotations

import contextvars
import operator
import threading
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["_messages_delta_reducer"]


class HistoryIds:
    """One run's memory of the history the reducer returned last: the list, its length then,
    and the ids of its messages. Current (`CURRENT`) only while its run steps, and only on
    the thread stepping it (`owner`): a copy of the run's context in another thread (a tool
    the core calls) does not use it."""

    __slots__ = ("history", "ids", "length", "owner")

    def __init__(self) -> None:
        self.history: list | None = None
        self.ids: set = set()
        self.length = 0
        self.owner: int | None = None

    def known(self, state: list) -> set | None:
        """The ids ``state`` holds, if it is the history returned last, unchanged."""
        if self.history is state and self.length == len(state):
            return self.ids
        return None

    def keep(self, history: list, ids: set) -> None:
        self.history, self.ids, self.length = history, ids, len(history)

    def clear(self) -> None:
        """Forgets the history (its run is over)."""
        self.history, self.ids, self.length = None, set(), 0


#: The `HistoryIds` of the run stepping on this thread and in this context, if any.
CURRENT: contextvars.ContextVar[HistoryIds | None] = contextvars.ContextVar("deepagents_rs_history_ids", default=None)


def _messages_reducer(state: list | None, writes: Sequence[Any]) -> list:
    """``messages`` as deepagents' reducer merges writes, over a batch of them: by id (a known
    id replaces in place, ``RemoveMessage`` deletes one it holds, ``REMOVE_ALL_MESSAGES``
    clears what came before), anything else appended. The channel's reducer: a stepping
    run's `HistoryIds` spares it the history's scan."""
    memory = CURRENT.get()
    if memory is not None and memory.owner != threading.get_ident():
        memory = None
    return merge(state, writes, memory)


_messages_delta_reducer = _messages_reducer


def merge(state: list | None, writes: Sequence[Any], memory: HistoryIds | None = None) -> list:
    """`_messages_reducer` with ``memory`` (none: the history is scanned when a write needs
    its ids)."""
    message_types, remove, convert, remove_all = _MESSAGE_NAMES or _message_names()
    written: list[Any] = []
    for w in writes:
        if isinstance(w, list):
            written.extend(w)
        else:
            written.append(w)
    state = state or []
    # The history this run's reducer returned last: its ids are known, and it holds
    # messages only.
    known = memory.known(state) if memory is not None else None
    if known is not None:
        # (Not copied yet: the usual append makes the new history in one allocation,
        # ``state + new``, where a copy then extended would be grown by a ``realloc``
        # copying the history's pointers again; a replacement or removal copies it first.)
        current = state
    else:
        # The channel's own value is messages already: converting it again would cost a
        # call per message of the history at every write.
        types = set(map(type, state))
        if types <= message_types:
            current = list(state)
        elif all(issubclass(t, message_types.base) for t in types):
            message_types.update(types)
            current = list(state)
        else:
            current = list(convert(state))
    # The writes are messages already too, as a rule (a node's, or a loaded checkpoint's
    # replayed writes: a whole history's input among them): checked by class, in C, not
    # converted one call a message.
    written_types = set(map(type, written))
    if written_types <= message_types or all(issubclass(t, message_types.base) for t in written_types):
        message_types.update(written_types)
        new = written
    else:
        new = list(convert(written))
        written_types = set(map(type, new))
    # (The classes seen to be no ``RemoveMessage`` are not asked again: a generator each
    # write otherwise.)
    if written_types <= _NOT_REMOVE:
        removes = []
    elif any(issubclass(t, remove) for t in written_types):
        removes = [i for i, m in enumerate(new) if isinstance(m, remove)]
    else:
        _NOT_REMOVE.update(written_types)
        removes = []
    if removes:
        cut = max((i for i in removes if new[i].id == remove_all), default=None)
        if cut is not None:
            current, new = [], new[cut + 1 :]
            removes = [i for i, m in enumerate(new) if isinstance(m, remove)]
    # Usually every write is a message the history does not hold: appended, with no index
    # of the history built.
    ids = list(map(_written_id, new))
    if None in ids:
        ids = [i for i in ids if i is not None]
    if not removes and len(set(ids)) == len(ids):
        if known is None:
            known = set(map(_message_id, current))
            known.discard(None)
        if known.isdisjoint(ids):
            if current is state:
                current = state + new
            else:
                current.extend(new)
            if memory is not None:
                # The set moves to the new history (the one it was known for is
                # superseded): a step's write costs what it writes, not the history's length.
                known.update(ids)
                memory.keep(current, known)
            return current
    if current is state:
        current = list(state)
    position = {m.id: i for i, m in enumerate(current) if m.id is not None}
    for m in new:
        at = position.get(m.id) if m.id is not None else None
        if isinstance(m, remove):
            # deepagents' reducer ignores an id it does not hold.
            if at is not None:
                current[at] = None
                position.pop(m.id)
        elif at is not None:
            current[at] = m
        else:
            if m.id is not None:
                position[m.id] = len(current)
            current.append(m)
    return [m for m in current if m is not None]


#: Message classes found not to be (subclasses of) ``RemoveMessage``.
_NOT_REMOVE: set[type] = set()


class _MessageTypes(set):
    """The message classes a history was seen to hold (``BaseMessage`` subclasses), so that
    a history is known to be messages by one set comparison."""

    base: type


#: LangChain's names the reducer uses, imported at its first call (see `_message_names`).
_MESSAGE_NAMES: tuple[_MessageTypes, type, Callable[..., Any], str] | None = None


def _message_names() -> tuple[_MessageTypes, type, Callable[..., Any], str]:
    global _MESSAGE_NAMES
    from langchain_core.messages import BaseMessage, RemoveMessage, convert_to_messages
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    types = _MessageTypes()
    types.base = BaseMessage
    _MESSAGE_NAMES = (types, RemoveMessage, convert_to_messages, REMOVE_ALL_MESSAGES)
    return _MESSAGE_NAMES


_message_id = operator.attrgetter("id")
#: The same read of a written message's id (kept apart: `_message_id` reads are the
#: history's scans, which a stepping run's `HistoryIds` spares).
_written_id = operator.attrgetter("id")
