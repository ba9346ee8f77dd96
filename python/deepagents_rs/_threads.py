"""Durable threads: runs checkpointed into the user's LangGraph saver, in LangGraph's format.

A checkpointed run is watched by a LangGraph graph of our own (the *thread graph*) with
deepagents' channels (``messages`` and ``files`` as delta channels, the middleware's keys) and
the agent's node names, compiled with the user's saver. The Rust core runs the agent. Each
node of the thread graph takes that node's write from the core's stream and returns it,
routed where the core went next, so LangGraph itself writes every superstep's checkpoint and
task writes, exactly as it writes deepagents' threads, and reads threads back (delta channels
included) the same way: the first node hands the core the thread's state as LangGraph loaded
it. ``get_state``, ``get_state_history`` and ``update_state`` are LangGraph's, on that graph.

The core does not wait for the thread graph: it runs ahead and the graph follows one node
behind, as LangGraph's default ``durability="async"`` lets checkpoints trail the run.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, NotRequired, get_type_hints

from . import _messages_reducer
from ._callbacks import clear_context_handlers, restore_context_handlers
from ._late_subagents import LateSubagents
from ._thread_feed import Feed
from ._thread_graph_parts import graph_part

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

#: Where a thread graph's nodes find their run's feed in the config.
_FEED = "__deepagents_rs_feed"
#: The attribute marking the edges' route function (it goes where the core went): the direct
#: writer makes such an edge's writes itself (`_direct_writer._edge_call`).
FEED_ROUTE = "deepagents_rs_feed_route"
#: Both delta channels snapshot their value this often, as deepagents declares them.
_SNAPSHOT_FREQUENCY = 50


def _files_reducer(state: dict | None, writes: Sequence[dict]) -> dict:
    """``files`` as deepagents merges writes: entries replace by path, ``None`` deletes."""
    out = dict(state or {})
    for w in writes:
        for path, entry in (w or {}).items():
            if entry is None:
                out.pop(path, None)
            else:
                out[path] = entry
    return out


class StateSchemas(NamedTuple):
    """The state schemas of an agent: its middleware's, and the user's ``state_schema`` (a
    ``DeepAgentState`` subclass) taking ``DeepAgentState``'s place, as deepagents passes it to
    ``create_agent``."""

    middleware: Sequence[type]
    base: type | None = None
    #: Whether the state has deepagents' ``files`` channel: only when a ``StateBackend``
    #: holds files (otherwise the file middleware declares just its blob cache).
    files: bool = True


def _state_schemas(schemas: Sequence[type] | StateSchemas) -> tuple[type, type, type]:
    """The thread graph's state, input and output schemas, as ``create_agent`` resolves
    deepagents' (LangChain's resolver, over the same fields in the same order): LangChain's
    agent state, the file middleware's keys, the summarization keys, the user middleware's,
    and ``messages`` last as deepagents' own state schema declares it."""
    from langchain.agents.middleware.types import AgentState, PrivateStateAttr
    from langgraph.channels.delta import DeltaChannel
    from langgraph.channels.untracked_value import UntrackedValue
    from typing_extensions import TypedDict

    from deepagents_rs._langchain_private import _resolve_schemas

    from .backends.protocol import FileData

    # typing_extensions' TypedDict: pydantic reads only that one before Python 3.12 (for the
    # graph's JSON schemas).
    if not isinstance(schemas, StateSchemas):
        schemas = StateSchemas(list(schemas))
    agent = get_type_hints(AgentState, include_extras=True)
    files_channel = {
        "files": Annotated[
            NotRequired[dict[str, FileData]], DeltaChannel(_files_reducer, snapshot_frequency=_SNAPSHOT_FREQUENCY)
        ]
    }
    files = TypedDict(
        "FilesystemState",
        {
            **agent,
            **(files_channel if schemas.files else {}),
            "_blob_payloads": NotRequired[
                Annotated[dict[str, str], UntrackedValue(dict, guard=False), PrivateStateAttr]
            ],
        },
    )
    summary = TypedDict(
        "SummarizationState",
        {
            **agent,
            "_summarization_event": Annotated[NotRequired[Any], PrivateStateAttr],
            "_summarization_session_id": Annotated[NotRequired[str | None], PrivateStateAttr],
        },
    )
    from ._deep_state import DeepAgentState

    return _resolve_schemas([files, summary, *schemas.middleware, schemas.base or DeepAgentState])


#: LangGraph's config key for the task a graph runs in: set when the agent runs as a node of
#: a parent graph (``langgraph._internal._constants.CONFIG_KEY_TASK_ID``).
_PARENT_TASK = "__pregel_task_id"


def parent_control(config: dict | None) -> Any:
    """The run control of the LangGraph graph this run is a subgraph of, if any: LangGraph
    hands a parent's control down to its subgraphs."""
    runtime = ((config or {}).get("configurable") or {}).get("__pregel_runtime")
    return getattr(runtime, "control", None)


def in_parent_graph(config: dict | None) -> bool:
    """Whether the run is a node of a parent LangGraph graph (a subgraph)."""
    return bool(config) and _PARENT_TASK in (config.get("configurable") or {})


def inherits_saver(config: dict | None) -> bool:
    """Whether a parent graph hands its saver down in ``config`` (LangGraph's
    ``CONFIG_KEY_CHECKPOINTER``)."""
    return bool(config) and (config.get("configurable") or {}).get("__pregel_checkpointer") is not None


def task_keys(config: dict) -> dict:
    """What LangGraph's ``interrupt()`` reads from a task's config (its scratchpad, its write
    channel, its namespace): handed to the tools the core calls, whose config is the run's,
    so that an ``interrupt()`` in a tool pauses the task that started the core's run."""
    from deepagents_rs._langgraph_private import (
        CONFIG_KEY_CHECKPOINT_NS,
        CONFIG_KEY_SCRATCHPAD,
        CONFIG_KEY_SEND,
    )

    configurable = config.get("configurable") or {}
    keys = (CONFIG_KEY_SCRATCHPAD, CONFIG_KEY_SEND, CONFIG_KEY_CHECKPOINT_NS)
    return {k: configurable[k] for k in keys if k in configurable}


def feed_of(task_config: dict) -> Feed:
    """The feed a thread graph's task reads (a subagent's graph reads it through a view)."""
    reader = (task_config.get("configurable") or {})[_FEED]
    return getattr(reader, "feed", reader)


def finished_calls(snapshot: Any) -> tuple[list[str], list[dict]]:
    """The calls of a `tools` step that had finished before it stopped (LangGraph keeps their
    writes and hands them back instead of running them again), and those writes."""
    finished = [t.result for t in snapshot.tasks if t.name == "tools" and t.result is not None]
    answered: list[str] = []
    for writes in finished:
        messages = writes.get("messages") or []
        messages = messages if isinstance(messages, list) else [messages]
        answered.extend(m.tool_call_id for m in messages if getattr(m, "type", None) == "tool")
    return answered, finished


def core_state(thread_state: dict) -> dict:
    """The thread's state as the core takes it: the messages as LangGraph stored them (ids
    already given, or for tuple and str input left out: nothing to stamp). A message object
    (what LangGraph's channel holds) is handed over as it is: the core reads its fields
    (`src/python/input_objects.rs`, else `_convert.to_core`'s dict of it, the same message)
    and hands it back while the run leaves it as it was, as LangGraph's channel would;
    anything else is `to_core`'s dict (a plain dict read by the core would get a fresh id)."""
    from . import _convert

    messages = thread_state.get("messages") or []
    # A loaded history is message objects of a few classes: checked by class, in C.
    if set(map(type, messages)) <= _MESSAGE_CLASSES:
        core_messages = list(messages)
    else:
        core_messages = [m if _message_object(m) else _convert.to_core(m) for m in messages]
    state: dict[str, Any] = {"messages": core_messages}
    for key, value in thread_state.items():
        if key not in ("messages", "jump_to"):
            state[key] = value
    return state


#: The classes `_message_object` found are message classes (`_convert._is_message_object`).
_MESSAGE_CLASSES: set[type] = set()


def _message_object(m: Any) -> bool:
    if type(m) in _MESSAGE_CLASSES:
        return True
    from . import _convert

    if type(m) is dict or not _convert._is_message_object(m):
        return False
    _MESSAGE_CLASSES.add(type(m))
    return True


class ThreadGraph:
    """The LangGraph graph that checkpoints one agent's runs into ``checkpointer``."""

    def __init__(
        self,
        node_names: list[str],
        schemas: Sequence[type],
        checkpointer: Any,
        name: str | None,
        metadata: dict,
        route_after: Callable[[str, dict], Any],
        subagents: Any = None,
        registered: Sequence[str] = (),
    ) -> None:
        """``route_after(node, state)`` is the core's edge out of ``node``, as LangGraph's edge
        result: what a write made as that node outside a run (``update_state(as_node=...)``)
        routes by. In a run, each node goes where the core went. ``registered``: the nodes
        in the order LangChain adds them (see `registration_order`)."""
        from langgraph.graph import START, StateGraph

        state, input_schema, output_schema = _state_schemas(schemas)
        builder = StateGraph(state, input_schema=input_schema, output_schema=output_schema)
        for node in registration_order(node_names, registered):
            builder.add_node(node, _node(node))
            builder.add_conditional_edges(node, _edge(node, route_after))
        builder.add_edge(START, node_names[0])
        # The agent's metadata as deepagents' graph carries it: in every task and checkpoint,
        # `update_state`'s included.
        graph = builder.compile(checkpointer=checkpointer, name=name or "LangGraph")
        _read_state_on_demand(graph)
        self.graph = graph.with_config(metadata=dict(metadata))
        self.node_names = list(node_names)
        self.checkpointer = checkpointer
        #: The subagents followed as subgraphs of their tasks (`_subagent_threads`).
        self.subagents = subagents

    def run(
        self,
        input: dict,
        config: dict,
        start: Callable[..., Any],
        forward: Callable[[tuple], None],
        durability: str | None,
        graph_modes: Sequence[str] = (),
        stops: tuple[list[str], list[str]] = ([], []),
        whole_run: bool = False,
        control: Any = None,
        late: LateSubagents | None = None,
        subgraphs: bool = False,
    ) -> Iterator[Any]:
        """Runs the thread graph beside the core's run, yielding after each superstep (the
        caller's stream items arrive through ``forward`` meanwhile, the graph's own
        ``graph_modes`` chunks as ``("graph", mode, chunk, ns)``, with ``subgraphs`` those
        of the graphs following subagents too). A run that stops for an interrupt yields
        ``Interrupted`` last. ``whole_run``: an ``invoke``. ``late``: see ``Feed``."""
        feed = Feed(start, forward, self.subagents, late)
        try:
            with _untraced():
                chunks = self._chunks(
                    "stream",
                    input,
                    _graph_config(config, feed, self.checkpointer),
                    durability,
                    graph_modes,
                    stops,
                    whole_run,
                    control,
                    subgraphs,
                )
                stepped = _run_without_ambient if whole_run else _stepped_without_ambient
                for item in stepped(iter(chunks)):
                    yield _graph_item(item, feed, graph_modes)
            feed.drain()
        finally:
            feed.close()

    async def arun(
        self,
        input: dict,
        config: dict,
        start: Callable[..., Any],
        forward: Callable[[tuple], None],
        durability: str | None,
        graph_modes: Sequence[str] = (),
        stops: tuple[list[str], list[str]] = ([], []),
        whole_run: bool = False,
        control: Any = None,
        late: LateSubagents | None = None,
        subgraphs: bool = False,
    ) -> AsyncIterator[Any]:
        feed = Feed(start, forward, self.subagents, late)
        try:
            with _untraced():
                chunks = self._chunks(
                    "astream",
                    input,
                    _graph_config(config, feed, self.checkpointer),
                    durability,
                    graph_modes,
                    stops,
                    whole_run,
                    control,
                    subgraphs,
                )
                async for item in _astepped_without_ambient(aiter(chunks)):
                    yield _graph_item(item, feed, graph_modes)
            await feed.adrain()
        finally:
            await feed.aclose()

    def _chunks(
        self,
        method: str,
        input: Any,
        config: dict,
        durability: str | None,
        graph_modes: Sequence[str],
        stops: tuple[list[str], list[str]],
        whole_run: bool,
        control: Any,
        subgraphs: bool = False,
    ) -> Any:
        """The thread graph's run (``method``: ``stream`` or ``astream``): written by
        `_direct_writer` when the run needs nothing of LangGraph's runner, by LangGraph's
        ``Pregel`` otherwise."""
        # LangGraph's `invoke` reports the output channels' updates only (what a parent
        # graph streams of this graph as a subgraph).
        output_keys = self.graph.output_channels if whole_run else None
        if _direct(graph_modes, stops, control, config):
            from . import _direct_writer

            return getattr(_direct_writer, method)(self.graph, input, config, durability, output_keys, whole_run)
        return getattr(self.graph, method)(
            input,
            config,
            stream_mode=["updates", *graph_modes],
            durability=durability,
            interrupt_before=_breakpoints(stops[0]),
            interrupt_after=_breakpoints(stops[1]),
            output_keys=output_keys,
            control=control,
            # The graphs following subagents stream their own parts of `graph_modes` (their
            # tasks, checkpoints) into this graph's stream, under their tasks' namespaces.
            subgraphs=subgraphs and bool(graph_modes),
        )


#: A task of the step a resumed run starts at, as the core takes it (`StartTask`).
StartTask = tuple[str, dict | None, bool, dict | None]


def kept_writes(snapshot: Any, config: dict) -> bool:
    """Whether a resumed step has tasks that finished before it stopped (an `interrupt()` in
    another), other than the model's calls: LangGraph keeps their writes and does not run
    them again. A replay from a past checkpoint runs every task again."""
    if (config.get("configurable") or {}).get("checkpoint_id"):
        return False
    return any(t.result is not None and t.name != "tools" for t in snapshot.tasks)


def _kept_write(task: Any, kept: bool) -> dict | None:
    """A finished task's kept write, in the form the core reads a hook's write."""
    if not kept or task.result is None or task.name == "tools":
        return None
    from . import _convert

    out: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in task.result.items():
        if key == "messages":
            out["messages"] = [_convert.to_core(m) for m in (value if isinstance(value, list) else [value])]
        elif key in ("files", "jump_to"):
            out[key] = value
        else:
            extra[key] = value
    if extra:
        out["extra"] = extra
    return out


def step_tasks(snapshot: Any, sends: Sequence[Any], kept: bool = False) -> list[StartTask] | None:
    """The tasks of the step a resumed or replayed run starts at, as the core takes them
    (``(node, the state a Send gave it, whether a `tools` task runs on the whole state, the
    kept write of one that had finished)``, in LangGraph's task order), or ``None`` when the
    step is one node on the thread's state or the model's calls (a `tools` task each, which
    the core runs as one node). ``kept``: see `kept_writes`."""
    from deepagents_rs._langgraph_private import PUSH

    tasks: list[StartTask] = []
    calls = False
    for task in snapshot.tasks:
        if task.path[:1] != (PUSH,):
            # A node named by an edge or a goto: `tools` so named runs on the whole state.
            tasks.append((task.name, None, task.name == "tools", _kept_write(task, kept)))
            continue
        index = task.path[1] if len(task.path) > 1 and isinstance(task.path[1], int) else -1
        arg = getattr(sends[index], "arg", None) if 0 <= index < len(sends) else None
        if task.name == "tools" and not isinstance(arg, dict):
            # LangChain's `Send("tools", [call])`: the model's calls, one node to the core.
            if not calls:
                tasks.append(("tools", None, False, None))
                calls = True
            continue
        tasks.append((task.name, core_state(arg if isinstance(arg, dict) else {}), False, _kept_write(task, kept)))
    if len(tasks) == 1 and tasks[0][1] is None and not tasks[0][2]:
        return None
    return tasks


def _direct(graph_modes: Sequence[str], stops: tuple[list[str], list[str]], control: Any, config: dict) -> bool:
    """Whether a run's supersteps are written by `_direct_writer` rather than LangGraph's
    runner: LangGraph's own stream modes, breakpoints, run control and a parent graph need
    its runner (see `_direct_writer`)."""
    # Imported with the first run: it loads asyncio (and ssl), which `import deepagents_rs`
    # need not.
    from . import _direct_writer

    return (
        _direct_writer.ENABLED
        and not graph_modes
        and not any(stops)
        and control is None
        and not in_parent_graph(config)
    )


def _breakpoints(nodes: list[str]) -> Any:
    """LangGraph's form of a breakpoint list: ``"*"`` for every node."""
    return "*" if "*" in nodes else (nodes or None)


def _graph_item(item: tuple, feed: Feed, graph_modes: Sequence[str]) -> Any:
    """A chunk of the thread graph's stream, ``(mode, chunk)`` or with subgraphs ``(ns,
    mode, chunk)``: an update (a stop), or a part of its own (`_thread_graph_parts`)."""
    ns, mode, chunk = item if len(item) == 3 else ((), *item)
    if mode != "updates" or ns:
        return graph_part(ns, mode, chunk, graph_modes)
    if "__interrupt__" in chunk:
        return Interrupted(chunk["__interrupt__"], feed=feed)
    return chunk


#: Where a node's edge finds LangGraph's reader of the state it routes by (see
#: `_read_state_on_demand`).
_STATE_READER = "__deepagents_rs_state_reader"


def _read_state_on_demand(graph: Any) -> None:
    """The nodes' edges read the state only when they route by it (a write made with
    ``update_state``): LangGraph hands a conditional edge the state with the node's writes
    applied, which costs a run of every channel's reducer (``messages``' over the whole
    history) after each node, while in a run the edge takes where the core went. So the
    reader LangGraph attached to each edge is moved where the edge's path finds it."""
    from deepagents_rs._langgraph_private import BranchSpec

    for node in graph.nodes.values():
        for writer in node.writers:
            owner = getattr(getattr(writer, "func", None), "__self__", None)
            kwargs = getattr(writer, "kwargs", None)
            if isinstance(owner, BranchSpec) and isinstance(kwargs, dict) and kwargs.get("reader") is not None:
                owner.path.kwargs[_STATE_READER] = kwargs["reader"]
                kwargs["reader"] = None


def registration_order(node_names: Sequence[str], registered: Sequence[str]) -> list[str]:
    """``node_names`` (in running order) in the order LangChain's ``create_agent`` adds them
    (``registered``): LangGraph lists a graph's nodes, and the tasks of a saved step (a
    snapshot's ``next``), in that order."""
    rank = {name: i for i, name in enumerate(registered)}
    return sorted(node_names, key=lambda name: rank.get(name, len(rank)))


def _edge(name: str, route_after: Callable[[str, dict], Any]) -> Any:
    from langchain_core.runnables import RunnableConfig

    from deepagents_rs._langgraph_private import RunnableCallable

    def route(state, config, **kwargs):  # annotated below, with the real class

        feed = (config.get("configurable") or {}).get(_FEED)
        if feed is not None:
            known, goto = feed.take_route(config)
            if known:
                return goto
        reader = kwargs.get(_STATE_READER)
        return route_after(name, reader(config) if reader is not None else state)

    # LangGraph reads the path function's hints (for its possible targets), and hands the
    # config to a parameter typed as LangChain's `RunnableConfig`.
    route.__annotations__ = {"state": dict, "config": RunnableConfig}
    setattr(route, FEED_ROUTE, True)
    return RunnableCallable(route, name=f"{name}:edge", trace=False, recurse=False)


def _node(name: str) -> Any:
    # LangGraph's own light runnable (what StateGraph wraps a function in), untraced: no
    # callbacks and no per-call signature inspection, which a RunnableLambda costs.
    from deepagents_rs._langgraph_private import RunnableCallable

    def run(arg: Any, config: RunnableConfig) -> Any:
        return config["configurable"][_FEED].take(name, arg, config)

    async def arun(arg: Any, config: RunnableConfig) -> Any:
        return await config["configurable"][_FEED].atake(name, arg, config)

    return RunnableCallable(run, arun, name=name, trace=False, recurse=False)


class Interrupted:
    """A run that stopped for ``interrupts``; ``state`` is the core's state when it stopped
    (the raw dict a failed run carries), if the core ran: read from ``feed`` when asked, once
    the core's stream is drained (a paused subagent's task stops before the core's run ends)."""

    def __init__(self, interrupts: tuple, state: dict | None = None, feed: Feed | None = None) -> None:
        self.interrupts = tuple(interrupts)
        self._state = state
        self._feed = feed

    @property
    def state(self) -> dict | None:
        return self._feed.error_state() if self._feed is not None else self._state

    @classmethod
    def joined(cls, stops: Sequence[Interrupted]) -> Interrupted:
        """A step whose tasks stopped one by one (subagents side by side): their
        interrupts together, as LangGraph's ``invoke`` gathers them."""
        if len(stops) == 1:
            return stops[0]
        return cls(tuple(i for s in stops for i in s.interrupts), stops[-1].state)


def _graph_config(config: dict, feed: Feed, checkpointer: Any) -> dict:
    """The thread graph's config: the caller's thread, its metadata and limit; no callbacks
    (the core reports the run's own)."""
    configurable = {k: v for k, v in (config.get("configurable") or {}).items() if not k.startswith("__deepagents_rs")}
    if checkpointer not in (None, True, False) and not configurable:
        # LangGraph's check, word for word: it looks before the feed is added.
        raise ValueError(
            "Checkpointer requires one or more of the following 'configurable' "
            "keys: thread_id, checkpoint_ns, checkpoint_id"
        )
    out: dict[str, Any] = {"configurable": {**configurable, _FEED: feed}}
    for key in ("metadata", "recursion_limit", "tags"):
        if key in config:
            out[key] = config[key]
    # The core counts the same steps and stops first; the graph must not stop before it.
    out["recursion_limit"] = int(config.get("recursion_limit", 25)) + 1
    return out


class _untraced:
    """No LangSmith tracing of the thread graph: the core traces the run itself."""

    def __enter__(self) -> None:
        try:
            from langsmith.run_helpers import tracing_context
        except ImportError:
            self._cm = None
            return
        self._cm = tracing_context(enabled=False)
        self._cm.__enter__()

    def __exit__(self, *exc: object) -> None:
        if self._cm is not None:
            self._cm.__exit__(*exc)


# Inside a parent graph's task LangGraph would take that task's callbacks from LangChain's
# context (``ensure_config``), and a context handler (``collect_runs()``) from its configure
# hooks, so every chain event would be reported twice; the graph's
# config has every other key of it already (``DeepAgent`` merged it in). The context is
# emptied only while the graph steps, never across a yield: the consumer between chunks (a
# node of the parent graph) keeps its own config.
_DONE = object()


class _WithoutAmbient:
    """LangChain's ambient config and context handlers emptied for one step of the graph (a
    class, not a generator: it is entered for every chunk); the run's own `HistoryIds` made
    current meanwhile, on this thread only (see `_messages_reducer`)."""

    __slots__ = ("ambient", "handlers", "history", "history_token", "token")

    def __init__(self) -> None:
        from langchain_core.runnables.config import var_child_runnable_config

        self.ambient = var_child_runnable_config
        self.history = _messages_reducer.HistoryIds()

    def __enter__(self) -> None:
        self.token = self.ambient.set(None)
        self.history.owner = threading.get_ident()
        self.history_token = _messages_reducer.CURRENT.set(self.history)
        self.handlers = clear_context_handlers()

    def __exit__(self, *exc: object) -> None:
        restore_context_handlers(self.handlers)
        _messages_reducer.CURRENT.reset(self.history_token)
        self.history.owner = None
        self.ambient.reset(self.token)


def _stepped_without_ambient(chunks: Iterator[Any]) -> Iterator[Any]:
    without = _WithoutAmbient()
    try:
        while True:
            with without:
                item = next(chunks, _DONE)
            if item is _DONE:
                return
            yield item
    finally:
        # Copies of the run's context (the core's threads keep one) hold its `HistoryIds`:
        # the history it remembers is let go with the run.
        without.history.clear()


def _run_without_ambient(chunks: Iterator[Any]) -> Iterator[Any]:
    """`_stepped_without_ambient` for an ``invoke``: the context emptied once for the whole
    run, not at each chunk. Its caller runs nothing but the loop taking the chunks (see
    `_thread_runs`); the caller's own code (a parent graph's node) resumes only once the run
    is over, its context restored."""
    without = _WithoutAmbient()
    try:
        with without:
            yield from chunks
    finally:
        without.history.clear()


async def _astepped_without_ambient(chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
    without = _WithoutAmbient()
    try:
        while True:
            with without:
                item = await anext(chunks, _DONE)
            if item is _DONE:
                return
            yield item
    finally:
        without.history.clear()
