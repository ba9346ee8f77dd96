"""A task's own reads and writes of the agent's state, as LangGraph hands them in the task's
``configurable``: ``__pregel_read`` (``read(select, fresh=False)``: the state as the task's
step started, or with the task's own writes applied when ``fresh``) and ``__pregel_send``
(``send([(channel, value), ...])``: writes applied when the task ends). deepagents'
``StateBackend`` reads and writes ``files`` through them; a user's code may read and write any
channel. The core runs the task, so the writes end up in the task's own update: ``files``
through the call's files context (what our ``StateBackend`` writes to as well), the other
channels beside it. Writes to LangGraph's own channels (``__resume__`` from ``interrupt()``)
go to the graph task that runs the core, when there is one.

Also the rest of LangGraph's loop keys a task's config has: the saver
(``__pregel_checkpointer``), a scratchpad of the task's own when no graph task has one
(``interrupt()`` counts its calls there), ``__pregel_call`` (the functional API's task call),
and the replay/read-state slots LangGraph leaves empty in a node's task.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

from ._files_context import FilesContext

#: LangGraph's configurable keys (``langgraph._internal._constants``), spelled out so the
#: module imports without LangGraph.
SEND_KEY = "__pregel_send"
READ_KEY = "__pregel_read"
CALL_KEY = "__pregel_call"
SCRATCHPAD_KEY = "__pregel_scratchpad"
CHECKPOINTER_KEY = "__pregel_checkpointer"
READ_STATE_KEY = "__pregel_read_state"
REPLAY_STATE_KEY = "__pregel_replay_state"


#: A channel with no value.
_EMPTY = object()

#: How the channels LangGraph adds to a graph's state channels begin (``__start__``,
#: ``__pregel_tasks``, ``branch:to:<node>``): read as empty.
_LANGGRAPH_CHANNELS = ("__", "branch:to:")


class TaskChannels:
    """One task's channel reads and writes over ``files`` (the call's files context) and
    ``state`` (the state as the task started, read when first asked for)."""

    __slots__ = ("_forward", "_state", "_state_of", "files", "keys", "own", "writes")

    def __init__(
        self, files: FilesContext, state_of: Callable[[], Mapping[str, Any]], forward: Callable | None = None
    ) -> None:
        self.files = files
        self._state_of = state_of
        self._state: Mapping[str, Any] | None = None
        self._forward = forward
        #: The task's writes to channels other than ``files``, in order.
        self.writes: list[tuple[str, Any]] = []
        #: The state channels of the task's graph, when known (reading another raises).
        self.keys: frozenset[str] | None = None
        #: The run's own carriers (keys starting ``__deepagents_rs``) its config had: kept
        #: here, out of the configurable user code sees (deepagents has no such keys), for
        #: the code of ours the task calls (`own_value`) and the runs it starts (`with_own`).
        self.own: dict[str, Any] = {}

    def send(self, writes: Sequence[tuple[str, Any]]) -> None:
        """LangGraph's ``__pregel_send``: queue ``(channel, value)`` writes."""
        for channel, value in writes:
            if channel == "files":
                self.files.send(value or {})
            elif channel.startswith("__") and self._forward is not None:
                self._forward([(channel, value)])
            elif self.keys is None or channel in self.keys or channel.startswith(_LANGGRAPH_CHANNELS):
                self.writes.append((channel, value))
            # else: a channel the task's graph does not have, whose write LangGraph's
            # `apply_writes` skips (a subagent's graph without its caller's keys).

    def share(self, task: TaskChannels) -> None:
        """Makes this the channels of one more call of ``task``'s task (a tool inside its
        `wrap_tool_call` middleware): LangGraph gives the task one list of writes, so each
        call's fresh reads see the others' writes, in the order they were made."""
        self.writes = task.writes
        self.files.pending = task.files.pending

    def _value(self, channel: str, fresh: bool) -> Any:
        if self.keys is not None and channel not in self.keys and not channel.startswith(_LANGGRAPH_CHANNELS):
            # LangGraph reads the graph's channel by name.
            raise KeyError(channel)
        if channel == "files":
            return self.files.read() if fresh else dict(self.files.files)
        if self._state is None:
            self._state = dict(self._state_of() or {})
        value = self._state.get(channel, _EMPTY)
        if channel == "messages" and value is not _EMPTY:
            from . import _convert

            value = [_convert.from_core(m) if isinstance(m, dict) else m for m in value]
        written = [v for c, v in self.writes if c == channel] if fresh else []
        if not written:
            return value
        if value is _EMPTY:
            value = None
        if channel == "messages":
            from ._messages_reducer import merge

            return merge(value, written)
        reducers = getattr(self.keys, "reducers", None)
        if reducers is not None and channel in reducers.channels:
            # LangGraph's `local_read` applies the task's writes through the channel.
            old = {} if value is None else {channel: value}
            return reducers.fold(old, [(channel, v, False) for v in written])[channel]
        return written[-1]

    def read(self, select: str | Sequence[str], fresh: bool = False) -> Any:
        """LangGraph's ``__pregel_read``: one channel's value (``None`` when it has none), or
        a dict of several (those with no value left out); ``KeyError`` for a channel the
        graph does not have."""
        if isinstance(select, str):
            value = self._value(select, fresh)
            return None if value is _EMPTY else value
        values = {channel: self._value(channel, fresh) for channel in select}
        return {channel: value for channel, value in values.items() if value is not _EMPTY}

    def check_single_writes(self, update: dict | None) -> None:
        """Raises LangGraph's ``InvalidUpdateError`` when the task wrote a key that takes one
        write per step (a ``LastValue`` channel) more than once, through its sends and its
        returned update together: LangGraph's tool node reads the state with the task's
        writes applied to route on, which raises it inside the task."""
        single = getattr(self.keys, "last_value", None)
        if not single or not self.writes:
            return
        seen: set[str] = set()
        for channel in [c for c, _ in self.writes] + list(update or {}):
            if channel not in single:
                continue
            if channel in seen:
                raise invalid_update(channel)
            seen.add(channel)

    def earlier(self, update: dict | None) -> list[tuple[str, Any]]:
        """The task's writes of keys it wrote again later (through its sends, then ``update``,
        its returned one), in order: ``update(update)`` keeps each key's last; a key with a
        reducer takes every write (the core's `CommandWrite::sent`). ``messages`` (written
        whole) and ``files`` (the files context's) are not among them."""
        writes = [(c, v) for c, v in self.writes if c not in ("messages", "files")]
        if not writes:
            return []
        later = [c for c, _ in writes] + [k for k in update or () if k not in ("messages", "files")]
        return [(c, v) for i, (c, v) in enumerate(writes) if c in later[i + 1 :]]

    def returned(self, update: dict | None) -> dict | None:
        """``update`` (a handler's result, which carries the task's sends among its keys)
        without the keys whose value is an object the task sent there (the tool's last send,
        which later sends of a wrapper may follow): only what the call returned is written
        again after the task's writes."""
        if not update or not self.writes:
            return update
        sent = {(c, id(v)) for c, v in self.writes}
        return {k: v for k, v in update.items() if (k, id(v)) not in sent} or None

    def update(self, update: dict | None) -> dict | None:
        """``update`` (the call's own) with the task's writes under it: a returned
        ``Command``'s keys win, as LangGraph applies them after the writes made during the
        call; written messages come first."""
        if not self.writes:
            return update
        out: dict[str, Any] = {}
        for channel, value in self.writes:
            if channel == "messages":
                out.setdefault("messages", []).extend(value if isinstance(value, list) else [value])
            else:
                out[channel] = value
        for key, value in (update or {}).items():
            if key == "messages" and "messages" in out:
                out["messages"] = [*out["messages"], *(value if isinstance(value, list) else [value])]
            else:
                out[key] = value
        return out


@contextmanager
def task_writes(run: Any, config: Mapping[str, Any]) -> Iterator[TaskChannels | None]:
    """The channels of the task ``config`` (a tool call wrapper's) describes, sharing the
    writes of the task's outer wrapper, or the task's channels the tool and inner wrappers
    share while this block runs (the outermost wrapper's)."""
    channels = of(config.get("configurable") or {})
    tasks = getattr(run, "tasks", None)
    task_ns = (config.get("configurable") or {}).get("checkpoint_ns")
    if channels is None or tasks is None or task_ns is None:
        yield channels
        return
    first = tasks.setdefault(task_ns, channels)
    if first is not channels:
        channels.share(first)
        yield channels
        return
    try:
        yield channels
    finally:
        tasks.pop(task_ns, None)


def share_task(run: Any, task_ns: str | None, channels: TaskChannels) -> None:
    """Has the tool's ``channels`` share its task's writes with the wrappers running it."""
    found = getattr(run, "tasks", {}).get(task_ns)
    if found is not None:
        channels.share(found)


def of(configurable: Mapping[str, Any]) -> TaskChannels | None:
    """The ``TaskChannels`` a task's configurable sends through, if it is one of ours."""
    owner = getattr(configurable.get(SEND_KEY), "__self__", None)
    return owner if isinstance(owner, TaskChannels) else None


#: The prefix of our own configurable keys.
OWN_PREFIX = "__deepagents_rs"
#: Whether a configurable key is one of ours (called by `filter` at every tool call: no
#: bytecode per key).
_OWN_KEY = operator.methodcaller("startswith", OWN_PREFIX)


def own_value(configurable: Mapping[str, Any], key: str) -> Any:
    """Our carrier ``key`` of a run's or a task's configurable (a task's keeps it in its
    channels)."""
    if key in configurable:
        return configurable[key]
    channels = of(configurable)
    return None if channels is None else channels.own.get(key)


def with_own(configurable: dict) -> dict:
    """A configurable a run starts from (a task's, when the run is started inside one) with
    the carriers the task kept out of sight back in it, as the run's own config has them."""
    channels = of(configurable)
    if channels is None or not channels.own:
        return configurable
    return {**channels.own, **configurable}


def loop_keys(
    configurable: dict,
    channels: TaskChannels,
    step: int | None,
    limit: int | None,
    metadata: Mapping | None = None,
    asynchronous: bool | None = None,
) -> None:
    """Puts LangGraph's loop keys in a task's ``configurable``: its reads and writes through
    ``channels``, a scratchpad (the graph task's running the core, else one of its own), the
    saver a parent graph handed down (or none), and the functional API's call; and moves our
    own carriers out of it, into ``channels``. ``metadata`` (the task's) tells whose graph's
    channels the task reads; ``asynchronous``, whether the run is (``None``: not known)."""
    names = _loop_names()
    channels.keys = names.graph_keys(configurable, metadata)
    for key in list(filter(_OWN_KEY, configurable)):
        channels.own[key] = configurable.pop(key)
    configurable[SEND_KEY] = channels.send
    configurable[READ_KEY] = channels.read
    configurable.setdefault(CHECKPOINTER_KEY, None)
    configurable[READ_STATE_KEY] = None
    configurable.setdefault(REPLAY_STATE_KEY, None)
    if configurable.get(SCRATCHPAD_KEY) is None:
        configurable[SCRATCHPAD_KEY] = _scratchpad(step or 0, limit)
    configurable[CALL_KEY] = names.Caller(configurable, dict(metadata or {}), asynchronous).call


@functools.cache
def _loop_names() -> SimpleNamespace:
    """The names `loop_keys` uses, imported on the first tool call (LangGraph's, and ours that
    import this module) and then kept: an import statement costs about a microsecond each
    time, and a call made four."""
    from deepagents_rs._langgraph_private import LazyAtomicCounter, PregelScratchpad

    from ._task_calls import Caller
    from ._tool_commands import graph_keys

    return SimpleNamespace(
        PregelScratchpad=PregelScratchpad, LazyAtomicCounter=LazyAtomicCounter, Caller=Caller, graph_keys=graph_keys
    )


def _no_resume(consume: bool = False) -> None:
    """A scratchpad's ``get_null_resume`` when the run cannot be resumed: no value."""


def _scratchpad(step: int, limit: int | None) -> Any:
    """A task's scratchpad when no graph task runs the core: no resume values (a run without
    a saver cannot be resumed), counters of its own."""
    names = _loop_names()
    counter = names.LazyAtomicCounter
    return names.PregelScratchpad(
        step=step,
        stop=step + (25 if limit is None else int(limit)) + 1,
        call_counter=counter(),
        interrupt_counter=counter(),
        get_null_resume=_no_resume,
        resume=[],
        subgraph_counter=counter(),
    )


def invalid_update(key: str) -> Exception:
    """LangGraph's error for a ``LastValue`` channel written more than once in a step."""
    from langgraph.errors import ErrorCode, InvalidUpdateError, create_error_message

    return InvalidUpdateError(
        create_error_message(
            message=f"At key '{key}': Can receive only one value per step. Use an Annotated key to handle multiple values.",
            error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
        )
    )
