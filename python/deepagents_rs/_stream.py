"""``stream`` / ``astream``: the core's raw events shaped into LangGraph's chunks.

The core yields ``(mode, ns, payload)`` items while the run goes, then ``("done", (), state)``.
This module turns them into what LangGraph yields for the same call: the chunk alone for one
mode, ``(mode, chunk)`` for a list of modes, ``(ns, ...)`` in front with ``subgraphs=True``,
and ``{"type", "ns", "data"}`` parts with ``version="v2"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _convert, _core, _direct_tools, _task_channels
from ._files_context import LazyFilesContext
from ._message_objects import MessageObjects
from ._pushed_parts import PUSHED_PARTS_KEY
from ._stream_protocol import DROPPED
from ._task_config import execution_info, run_control, step_checkpoint, step_place, task_configurable, tool_task_id

REMOVE_ALL_MESSAGES = "__remove_all__"


#: Configurable keys LangGraph copies into a task's metadata.
_PROPAGATED_KEYS = ("thread_id", "checkpoint_id", "checkpoint_ns", "task_id", "run_id", "assistant_id", "graph_id")
_PROPAGATED_SET = frozenset(_PROPAGATED_KEYS)


#: Where the run config carries the agent's own metadata (`ls_integration`, `lc_versions`,
#: `lc_agent_name`), for the tasks of its runs and its subagents'.
AGENT_METADATA_KEY = "__deepagents_rs_agent_metadata"
#: Where the run config carries the run's store (LangGraph's `Runtime.store`).
STORE_KEY = "__deepagents_rs_store"
#: A tool task's configurable: the namespace of the run the tool is called in.
RUN_NS_KEY = "__deepagents_rs_run_ns"
#: A resumed run's configurable: the step LangGraph's loop resumed at, whose tasks carry
#: LangGraph's ``__pregel_resuming`` (`config_with_writer`).
RESUMING_STEP_KEY = "__deepagents_rs_resuming_step"
#: deepagents' `ls_integration` on a subagent's runs (LangChain's `create_agent` graph).
_SUBAGENT_INTEGRATION = "langchain_create_agent"


def _run_metadata(metadata: dict, configurable: dict, subagent: str | None) -> dict:
    """The metadata a run's tasks start from: the graph's (a subagent's own inside one), the
    run's, and the configurable keys LangGraph propagates (only set ones: a parent graph's
    task config has ``checkpoint_id`` None)."""
    out = dict(configurable.get(AGENT_METADATA_KEY) or {})
    if subagent is not None:
        out.update(ls_integration=_SUBAGENT_INTEGRATION, lc_agent_name=subagent)
    if "lc_versions" in metadata and "lc_versions" in out:
        # LangChain's merge of configs' metadata keeps both sides' package versions.
        from deepagents_rs._langchain_private import _merge_metadata_dicts

        out = _merge_metadata_dicts(out, metadata)
    else:
        out.update(metadata)
    # Looked for one by one (in their order, which the metadata keeps) only when one is there:
    # a run without a thread has none, and this is at every tool call.
    if not _PROPAGATED_SET.isdisjoint(configurable):
        for key in _PROPAGATED_KEYS:
            if key not in out and (value := configurable.get(key)):
                out[key] = value
    return out


def task_metadata(
    metadata: dict,
    configurable: dict,
    step: int,
    node: str,
    task: str,
    subagent: str | None = None,
    index: int | None = None,
) -> dict:
    """The metadata LangGraph gives a task of ``node`` whose namespace is ``task``: the run's
    (`_run_metadata`), and the task's step, node, trigger and path: a `Send` from the model's
    edge (``index``, a tool call's place among its message's calls) or the node's own edge."""
    if index is None:
        triggers: tuple = (f"branch:to:{node}",)
        path: tuple = ("__pregel_pull", node)
    else:
        triggers, path = ("__pregel_push",), ("__pregel_push", index, False)
    return {
        **_run_metadata(metadata, configurable, subagent),
        "langgraph_step": step,
        "langgraph_node": node,
        "langgraph_triggers": triggers,
        "langgraph_path": path,
        "langgraph_checkpoint_ns": task,
    }


def _tool_task_metadata(
    config: dict | None,
    metadata: dict,
    configurable: dict,
    step: int | None,
    index: int | None,
    call_id: str | None,
    namespace: list[str] | None = None,
    subagent: str | None = None,
    known: dict | None = None,
) -> dict:
    """The metadata of a tool call's task as the tool sees it: LangChain's ``ensure_config``
    copies the task's ``checkpoint_ns`` in, LangGraph keeping the outermost task's there (a
    subagent's tools included). ``known``: the step's checkpoint map (`step_place`)."""
    if step is None:
        return _run_metadata(metadata, configurable, subagent)
    checkpoint = step_checkpoint(config, namespace, step, known)
    task_id = tool_task_id(config, namespace, step, call_id, index or 0, checkpoint)
    task = "|".join([*(namespace or ()), f"tools:{task_id}"])
    out = task_metadata(metadata, configurable, step, "tools", task, subagent, index or 0)
    out["checkpoint_ns"] = namespace[0] if namespace else task
    return out


def node_callbacks(callbacks: Any, parent: Any, in_node: bool, asynchronous: bool) -> Any:
    """The callbacks of a task's config: under its node's run (``parent``, when traced), an
    empty manager under a run no handler sees when nobody listens, async under an async run."""
    if parent is not None:
        callbacks = parent.get_child("seq:step:1")
    elif callbacks is None and in_node:
        # Made async at once: the async copy below would make it twice.
        return _unobserved_node_callbacks(asynchronous)
    if asynchronous and callbacks is not None:
        callbacks = _async_manager(callbacks)
    return callbacks


def _unobserved_node_callbacks(asynchronous: bool = False) -> Any:
    """The callbacks of a tool's config when no handler listens: as LangGraph's task config
    has them, an empty manager under the node's run (a run id no handler sees), LangChain's
    async manager under an async run."""
    lc = _direct_tools._langchain()
    manager = lc.AsyncCallbackManager if asynchronous else lc.CallbackManager
    return manager(handlers=[], parent_run_id=lc.uuid7(), tags=["seq:step:1"])


def _async_manager(callbacks: Any) -> Any:
    """A node's callbacks under an async run: LangChain's async manager, as LangGraph's
    async loop hands its tasks (a `ToolRuntime`'s config shows it)."""
    from langchain_core.callbacks import AsyncCallbackManager, CallbackManager

    if type(callbacks) is not CallbackManager:
        return callbacks
    return AsyncCallbackManager(
        handlers=list(callbacks.handlers),
        inheritable_handlers=list(callbacks.inheritable_handlers),
        parent_run_id=callbacks.parent_run_id,
        tags=list(callbacks.tags),
        inheritable_tags=list(callbacks.inheritable_tags),
        metadata=dict(callbacks.metadata),
        inheritable_metadata=dict(callbacks.inheritable_metadata),
    )


#: LangGraph's names a tool's config uses, once found (`_langgraph_names`).
_LANGGRAPH: tuple | None = None


def _langgraph_names() -> tuple | None:
    """LangGraph's runtime keys and ``Runtime``, imported on the first tool call (not at
    start-up) and then kept: import statements cost microseconds at every call. ``None``
    without LangGraph installed (looked for again next time)."""
    global _LANGGRAPH
    if _LANGGRAPH is None:
        try:
            from deepagents_rs._langgraph_private import (
                CONFIG_KEY_RUNTIME,
                CONFIG_KEY_SEND,
                CONFIG_KEY_STREAM,
            )
        except ModuleNotFoundError:
            # LangGraph absent or not importable (an unsupported one raises its ImportError).
            return None
        from langgraph.runtime import Runtime

        _LANGGRAPH = (CONFIG_KEY_RUNTIME, CONFIG_KEY_SEND, CONFIG_KEY_STREAM, Runtime)
    return _LANGGRAPH


def config_with_writer(*args: Any, place: tuple[list[str], dict | None] | None = None) -> Any:
    """An async tool's config, given `full_config`'s arguments (``_task_config.acall_placed``;
    a sync tool's job makes its own in the core): a `PlainCall` (nothing built yet) when the
    run's plain calls can make their config from the run's shared part (`_plain_tool_calls`,
    the core's `_plain_call` deciding as for a sync tool), else `full_config`'s config.
    ``place``: see `full_config` (given, the config is made now)."""
    if place is None and len(args) == 10:
        call = _core._plain_call(args)
        if call is not None:
            return call
    return full_config(*args, place=place)


def full_config(
    config: dict | None,
    writer: Callable[[Any], None] | None,
    parent: Any = None,
    files: Any = None,
    step: int | None = None,
    index: int | None = None,
    call_id: str | None = None,
    namespace: list[str] | None = None,
    subagent: str | None = None,
    asynchronous: bool = False,
    place: tuple[list[str], dict | None] | None = None,
) -> dict | None:
    """The config a tool runs with: LangGraph's runtime in it, with the stream writer when
    ``custom`` is streamed, where ``langgraph.config.get_stream_writer()`` looks for it.
    Without LangGraph installed, no tool can ask for it. ``place``: the call's `step_place`,
    when the caller waited for it already (an async tool's, off the loop)."""
    names = _langgraph_names()
    if names is None:
        return config
    CONFIG_KEY_RUNTIME, CONFIG_KEY_SEND, CONFIG_KEY_STREAM, Runtime = names
    out = dict(config or {})
    out["callbacks"] = node_callbacks(out.get("callbacks"), parent, step is not None, asynchronous)
    out.setdefault("tags", [])
    configurable = dict(out.get("configurable") or {})
    store = configurable.pop(STORE_KEY, None)
    resuming_step = configurable.pop(RESUMING_STEP_KEY, None)
    if writer is not None and not getattr(writer, "custom", True):
        # The core's writer when only pushed tasks' parts are streamed: not the tool's.
        configurable[PUSHED_PARTS_KEY] = writer
        writer = None
    elif writer is not None and getattr(writer, "parts", False):
        configurable[PUSHED_PARTS_KEY] = writer
    # The run's context (`invoke(..., context=...)`) stays; the store and writer are this run's.
    context = getattr(configurable.get(CONFIG_KEY_RUNTIME), "context", None)
    if writer is None and CONFIG_KEY_STREAM in configurable:
        # A run inside a parent graph's task that was not asked for `custom` itself writes
        # through the task's runtime, as a LangGraph subgraph does (`Pregel.stream`).
        writer = getattr(configurable.get(CONFIG_KEY_RUNTIME), "stream_writer", None)
    known = None
    if step is not None:
        namespace, known = place or step_place(configurable, list(namespace or ()), step)
    out["metadata"] = _tool_task_metadata(
        config, out.get("metadata") or {}, configurable, step, index, call_id, namespace, subagent, known
    )
    task_ns = out["metadata"].get("langgraph_checkpoint_ns")
    fields: dict[str, Any] = {"context": context, "store": store}
    if task_ns is not None:
        run_ns = configurable.get("checkpoint_ns")
        configurable = task_configurable(config, configurable, task_ns, step, known)
        # The run's own namespace, which a tool's `Command.PARENT` is addressed from.
        configurable[RUN_NS_KEY] = run_ns
        if subagent is not None:
            # deepagents' `task` tool marks a subagent's runs for tracing, in the configurable
            # its tasks inherit.
            configurable["ls_agent_type"] = "subagent"
        fields["execution_info"] = execution_info(configurable)
        if step is not None and step == resuming_step:
            configurable["__pregel_resuming"] = True
    if writer:
        fields["stream_writer"] = writer
    fields["control"] = run_control(config)
    configurable[CONFIG_KEY_RUNTIME] = Runtime(**fields)
    if files is not None:
        channels = _task_channels.TaskChannels(LazyFilesContext(files), files.state, configurable.get(CONFIG_KEY_SEND))
        _task_channels.loop_keys(
            configurable, channels, step, out.get("recursion_limit"), out["metadata"], asynchronous
        )
        _task_channels.share_task(config, task_ns, channels)
    out["configurable"] = configurable
    return out


def _messages(raw: list[dict], remove_all: bool, removed: list | None = None, made: list | None = None) -> list[Any]:
    """The write's messages as objects: ``made``, those the core made of ``raw`` (see
    `_update`; copied: each reader of the item gets a list of its own), else made here."""
    out = with_removals(made.copy() if made is not None else [_convert.from_core(m) for m in raw], removed)
    if remove_all:
        from langchain_core.messages import RemoveMessage

        out.insert(0, RemoveMessage(id=REMOVE_ALL_MESSAGES))
    return out


def with_removals(messages: list[Any], removed: list | None) -> list[Any]:
    """A tool's write as it gave it: its ``RemoveMessage``s (the core's ``(index, id)``,
    each before the ``index``-th message) back among its messages."""
    if not removed:
        return messages
    from langchain_core.messages import RemoveMessage

    out: list[Any] = []
    pending = list(removed)
    for index in range(len(messages) + 1):
        while pending and pending[0][0] <= index:
            out.append(RemoveMessage(id=pending.pop(0)[1]))
        if index < len(messages):
            out.append(messages[index])
    return out


def _update(payload: Any, core: Any) -> Any:
    """A node's write as the core streams it (``core`` true: its messages as the core's
    dicts) made LangGraph's. The core's stream gives as ``core`` a tuple of each write's
    messages as the objects it made of them (`stream_payloads.rs`' `written_objects`), one
    per write of a list; ``True`` from elsewhere (those are made here)."""
    if not core or payload is None:
        return payload
    made = core if type(core) is tuple else None
    if isinstance(payload, list):
        # One node's several writes (the model step's reply and its middleware commands).
        if made is not None:
            return [_update_one(p, (m,)) for p, m in zip(payload, made, strict=True)]
        return [_update(p, True) for p in payload]
    return _update_one(payload, made)


def _update_one(payload: Any, made: tuple | None) -> Any:
    out = dict(payload)
    remove_all = out.pop("__remove_all__", False)
    removed = out.pop("__removed__", None)
    if "messages" in out:
        out["messages"] = _messages(out["messages"], remove_all, removed, made[0] if made is not None else None)
    if "pinned_skills" in out:
        out["pinned_skills"] = _overwrite(out["pinned_skills"])
    return out


def _overwrite(value: Any) -> Any:
    """The core's write of `pinned_skills` (skills clearing the names they pinned) replaces
    the key's value past its adding reducer, as deepagents' `Overwrite` does."""
    try:
        from langgraph.types import Overwrite
    except ImportError:
        return value
    return Overwrite(value)


class Shaper:
    """Shapes one stream's raw items."""

    def __init__(
        self,
        modes: list[str],
        single: bool,
        subgraphs: bool,
        version: str,
        metadata: dict,
        tags: list[str] | None,
        result: Callable[..., dict],
    ) -> None:
        if version not in ("v1", "v2"):
            raise ValueError(f"Unknown version {version!r}; expected 'v1' or 'v2'")
        self.modes = modes
        self.single = single
        self.subgraphs = subgraphs
        self.version = version
        self.metadata = metadata
        self.tags = tags
        self.result = result
        #: The root's state as its ``values`` stream shows it (every channel written, private
        #: ones included); ``result`` by default. A subagent's values are its ``result``: it
        #: runs inside a task, which streams its output channels only.
        self.root_values: Callable[[dict], dict] = result
        #: The root's final state as the run's result (``result`` by default).
        self.root_result: Callable[[dict], dict] = result
        #: The root's message objects, kept across its states (see `MessageObjects`).
        self.message_objects = MessageObjects()
        #: Each subagent's, by namespace.
        self.subgraph_objects: dict[tuple, MessageObjects] = {}
        self.final: dict | None = None
        #: The core's final state, shown as ``final_values`` only when asked for.
        self._final_raw: dict | None = None
        #: LangGraph's `print_mode` (or `debug=True`): these modes' chunks are printed as the
        #: graph prints them, whether or not they are streamed.
        self.print_modes: list[str] = []
        #: The subagents' private state keys (see `_data`).
        self.subgraph_private: frozenset[str] = frozenset()
        #: Whether ``messages`` parts are content-block protocol events (v3), and their maker
        #: (see `_stream_protocol`).
        self.protocol = False
        self.protocol_messages: Any = None
        #: The maker of ``tools`` and v3 ``tasks`` parts (`follow_tools`).
        self.tool_events: Any = None
        #: Each subagent's last values chunk, by namespace (see `_subgraph_interrupt`).
        self.last_values: dict[tuple, Any] = {}
        #: The caller's ``output_keys``, when not the graph's own (`_output_keys`).
        self.output: Any = None

    @property
    def final_values(self) -> dict | None:
        """The final state as ``root_values`` shows it (an interrupted run's last values)."""
        return None if self._final_raw is None else self.root_values(self._final_raw)

    def follow_tools(self, protocol: bool) -> None:
        """Makes ``tools`` parts (and under v3, the ``tasks`` parts its projections read) from
        the core's events, when they are asked for."""
        from ._stream_protocol import ProtocolMessages, ToolEvents

        self.protocol = protocol
        if protocol:
            self.protocol_messages = ProtocolMessages()
        tools = "tools" in self.modes
        tasks = protocol and "tasks" in self.modes
        if tools or tasks:
            agent = self.metadata.get("lc_agent_name")
            self.tool_events = ToolEvents(tools, tasks, agent, lambda value: _update(value, True))

    def reads_routes(self) -> bool:
        """Whether the core's ``routes`` items make any chunk here: only for the ``tools``
        parts and the v3 protocol's events (``routes`` is no stream mode a caller asks for,
        so `shape` drops them)."""
        return self.tool_events is not None or self.protocol_messages is not None

    def _data(self, mode: str, payload: Any, ns: tuple = ()) -> Any:
        if mode == "updates":
            node, value, core = payload
            value = _update(value, core)
            if ns and isinstance(value, dict) and self.subgraph_private:
                # A subagent's graph streams its output channels only: its middleware's
                # private keys stay out of its updates.
                value = {k: v for k, v in value.items() if k not in self.subgraph_private}
            if self.output is not None and not ns:
                value = self.output.update(value)
            return {node: value}
        if mode == "values":
            if not ns:
                return self.root_values(payload)
            # Each subagent's states reuse its own message objects, as the root's do.
            value = self.result(payload, self.subgraph_objects.setdefault(tuple(ns), MessageObjects()))
            if self.subgraph_private:
                value = {k: v for k, v in value.items() if k not in self.subgraph_private}
            return value
        if mode == "messages":
            message, meta, is_chunk = payload
            if not is_chunk:
                message = _convert.from_core(message)
            full = {**self.metadata, **meta}
            if self.tags:
                full["tags"] = list(self.tags)
            if self.protocol_messages is not None:
                return self.protocol_messages.shape(message, full, tuple(ns))
            return message, full
        return payload

    def wrap(self, mode: str, data: Any) -> Any:
        """A chunk of the graph's own, in the shape asked for."""
        if self.version == "v2":
            return {"type": mode, "ns": (), "data": data}
        if self.subgraphs:
            return ((), data) if self.single else ((), mode, data)
        return data if self.single else (mode, data)

    def interrupted(self, interrupts: tuple, values: dict) -> list[Any]:
        """The chunks a run that stopped for ``interrupts`` ends with, as LangGraph yields
        them: ``{"__interrupt__": interrupts}`` in ``updates``, the state with that key in
        ``values`` (in v2, a values part carrying them); a breakpoint (no interrupts) streams
        no values again."""
        chunks = []
        # LangGraph writes the interrupts as an update first, then the values with them,
        # whatever order the modes were asked in.
        for mode in sorted(self.modes, key=lambda m: m != "updates"):
            if mode == "updates":
                data: Any = {"__interrupt__": interrupts}
            elif mode == "values" and interrupts:
                data = {**values, "__interrupt__": interrupts}
            else:
                continue
            if self.version == "v2":
                part = {"type": mode, "ns": (), "data": data}
                if mode == "values":
                    part["data"] = values
                    part["interrupts"] = interrupts
                chunks.append(part)
            elif self.subgraphs:
                chunks.append(((), data) if self.single else ((), mode, data))
            else:
                chunks.append(data if self.single else (mode, data))
        return chunks

    def chunks(self, item: tuple) -> list[Any]:
        """The chunks to yield for one of the core's raw items: its own (see ``shape``) and
        the ``tools`` / ``tasks`` parts made from it (`_stream_protocol`); under v3, first the
        closing events of a native client's call that ``item`` shows has ended, and the
        events made of a native client's chunk."""
        if self.protocol_messages is None:
            return self._chunks(item)
        ended = self._protocol_parts(self.protocol_messages.ended(item))
        own = self._chunks(item)
        # A native client's chunk: the events made of it.
        return ended + own + self._protocol_parts(self.protocol_messages.take_ready())

    def _protocol_parts(self, events: list[tuple[tuple, Any]]) -> list[Any]:
        return [
            self.part("messages", ns, data)
            for ns, data in events
            if "messages" in self.modes and (not ns or self.subgraphs)
        ]

    def streamed(self) -> Any:
        """What this stream asks of the graphs compiled subagents run (`_subagent_parts`)."""
        from ._subagent_parts import streamed

        # LangGraph's graph streams the modes it prints too.
        return streamed(list(dict.fromkeys([*self.modes, *self.print_modes])), self.subgraphs, self.protocol)

    def _graph_part(self, item: tuple) -> list[Any]:
        """A compiled subagent's own part (``graph``): LangGraph's chunk, shaped as asked,
        after the root's parts its start makes (its `task` call's start, its hosting task)."""
        _mode, origin, (call_id, (ns, mode, data)) = item
        parts = []
        if not call_id:
            # A task a tool pushed (`_pushed_parts`): a part of the tool's graph, shown as
            # its graph's own (a subagent's with `subgraphs=True` only).
            if ns and not self.subgraphs:
                return []
        elif self.tool_events is not None:
            before, after = self.tool_events.observe(item)
            parts = [*before, *after, *self.tool_events.compiled_part(tuple(origin), call_id, tuple(ns))]
        out = [self.part(*p) for p in parts]
        if mode in self.print_modes:
            _print_chunk(mode, tuple(ns), data)
        if mode in self.modes:
            out.append(self._shaped(mode, tuple(ns), data))
        return out

    def _chunks(self, item: tuple) -> list[Any]:
        if item[0] == "graph":
            return self._graph_part(item)
        if item[1] and not self.subgraphs and item[0] != "done":
            # A subagent's event, not asked for itself: only the root's parts made from it
            # (its `task` call under way) are.
            if self.tool_events is None:
                return []
            before, after = self.tool_events.observe(item)
            return [self.part(*p) for p in [*before, *after] if not p[1]]
        if item[0] == "done":
            emit, chunk = self.shape(item)
            held = self.tool_events.released(None) if self.tool_events is not None else []
            return held + ([chunk] if emit else [])
        if self.tool_events is None:
            emit, chunk = self.shape(item)
            return ([chunk] if emit else []) + self._subgraph_interrupt(item)
        before, after = self.tool_events.observe(item)
        emit, chunk = self.shape(item)
        parts = [self.part(*p) for p in before]
        # A tool's message waits for its call's end (`tool-finished`, in `before`).
        parts.extend(self.tool_events.released(item))
        if emit and not self.tool_events.hold(item, [chunk]):
            parts.append(chunk)
        parts.extend(self.part(*p) for p in after)
        return parts + self._subgraph_interrupt(item)

    def _subgraph_interrupt(self, item: tuple) -> list[Any]:
        """A subagent stopped for an interrupt (its ``__interrupt__`` update, `_subagent_threads`):
        LangGraph streams the subgraph's last values again, with the interrupts."""
        mode, ns, payload = item
        if mode != "updates" or not ns or payload[0] != "__interrupt__" or "values" not in self.modes:
            return []
        values = self.last_values.get(tuple(ns))
        if values is None:
            return []
        if self.version == "v2":
            return [{"type": "values", "ns": ns, "data": values, "interrupts": payload[1]}]
        return [self._shaped("values", ns, {**values, "__interrupt__": payload[1]})]

    def stopped(self, stops: list[tuple[tuple, dict]]) -> list[Any]:
        """The chunks of a run that stopped, for each stop ``(interrupts, state)``, in
        LangGraph's order: the starts of tool calls an interrupt stopped, each stop's
        interrupt on its own, then the stop of each subagent that stopped for it
        (`_stream_protocol`)."""
        interrupted = any(interrupts for interrupts, _state in stops)
        parts = self.tool_events.stopped(interrupted) if self.tool_events is not None else []
        held = self.tool_events.released(None) if self.tool_events is not None else []
        chunks = held + [self.part(*p) for p in parts if not p[1] or self.subgraphs]
        for interrupts, state in stops:
            chunks.extend(self.interrupted(interrupts, state))
        parts = self.tool_events.closing() if self.tool_events is not None else []
        return chunks + [self.part(*p) for p in parts if not p[1] or self.subgraphs]

    def failed(self, error: BaseException) -> list[Any]:
        """The chunks LangGraph streams before a run's error: its tool callbacks' reports of
        the calls the error stopped (`_stream_protocol`)."""
        if self.tool_events is None:
            return []
        held = self.tool_events.released(None)
        parts = self.tool_events.failed(error)
        return held + [self.part(*p) for p in parts if not p[1] or self.subgraphs]

    def part(self, mode: str, ns: tuple, data: Any) -> Any:
        """A chunk of ``mode`` made here, in the shape asked for."""
        return self._shaped(mode, ns, data)

    def shape(self, item: tuple) -> tuple[bool, Any]:
        """``(True, chunk)`` to yield, or ``(False, None)`` for the final state (kept in
        ``self.final``)."""
        mode, ns, payload = item
        if mode == "done":
            self.final = self.root_result(payload)
            self._final_raw = payload
            return False, None
        # The updates tell a caller's `output_keys` which channels each step wrote.
        read_for_output = mode == "updates" and self.output is not None
        if mode not in self.modes and mode not in self.print_modes and not read_for_output:
            # Read for the parts made from it (the core streams it for them), not shown.
            return False, None
        data = self._data(mode, payload, ns)
        if mode == "values" and ns:
            self.last_values[tuple(ns)] = data
        if mode == "values" and self.output is not None and not ns:
            report, data = self.output.values(data)
            if not report:
                return False, None
        if mode in self.print_modes and data is not DROPPED:
            _print_chunk(mode, ns if self.subgraphs else (), data)
        if mode not in self.modes or data is DROPPED:
            return False, None
        return True, self._shaped(mode, ns, data)

    def _shaped(self, mode: str, ns: tuple, data: Any) -> Any:
        if self.version == "v2":
            part = {"type": mode, "ns": ns, "data": data}
            if mode == "values":
                part["interrupts"] = ()
            return part
        if self.subgraphs:
            return (ns, data) if self.single else (ns, mode, data)
        return data if self.single else (mode, data)


def _print_chunk(mode: str, ns: tuple, data: Any) -> None:
    """A chunk as LangGraph's loop prints it."""
    from langgraph.pregel.debug import get_bolded_text, get_colored_text

    parts = [get_bolded_text(f"[{mode}]")]
    if ns:
        parts.append(get_colored_text(f"[graph={ns}]", color="yellow"))
    # LangGraph's debug output goes to stdout.
    print(" ".join([*parts, repr(data)]))


def native_chunk(fields: dict) -> Any:
    """A chunk the core made from a native provider's stream, as LangChain's
    ``AIMessageChunk`` (the light message class without LangChain)."""
    try:
        from langchain_core.messages import AIMessageChunk
    except ImportError:
        from .messages import AIMessage

        return AIMessage(**{k: v for k, v in fields.items() if k in ("content", "id", "response_metadata")})
    return AIMessageChunk(**fields)
