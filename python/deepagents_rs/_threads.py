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

import inspect
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, NotRequired, get_type_hints

if TYPE_CHECKING:
    import asyncio

    from langchain_core.runnables import RunnableConfig

#: Where a thread graph's nodes find their run's feed in the config.
_FEED = "__deepagents_rs_feed"
#: Both delta channels snapshot their value this often, as deepagents declares them.
_SNAPSHOT_FREQUENCY = 50


def _messages_reducer(state: list | None, writes: Sequence[Any]) -> list:
    """``messages`` as LangGraph's ``add_messages`` merges writes, over a batch of them: by id
    (a known id replaces in place, ``RemoveMessage`` deletes, ``REMOVE_ALL_MESSAGES`` clears
    what came before), anything else appended."""
    from langchain_core.messages import RemoveMessage, convert_to_messages
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    written: list[Any] = []
    for w in writes:
        written.extend(w if isinstance(w, list) else [w])
    current = list(convert_to_messages(state or []))
    new = list(convert_to_messages(written))
    cut = max(
        (i for i, m in enumerate(new) if isinstance(m, RemoveMessage) and m.id == REMOVE_ALL_MESSAGES), default=None
    )
    if cut is not None:
        current, new = [], new[cut + 1 :]
    position = {m.id: i for i, m in enumerate(current) if m.id is not None}
    for m in new:
        at = position.get(m.id) if m.id is not None else None
        if isinstance(m, RemoveMessage):
            if at is None:
                raise ValueError(f"Attempting to delete a message with an ID that doesn't exist ('{m.id}')")
            current[at] = None
            position.pop(m.id)
        elif at is not None:
            current[at] = m
        else:
            if m.id is not None:
                position[m.id] = len(current)
            current.append(m)
    return [m for m in current if m is not None]


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


def _state_schemas(schemas: Sequence[type] | StateSchemas) -> tuple[type, type, type]:
    """The thread graph's state, input and output schemas, as ``create_agent`` resolves
    deepagents' (LangChain's resolver, over the same fields in the same order): LangChain's
    agent state, the file middleware's keys, the summarization keys, the user middleware's,
    and ``messages`` last as deepagents' own state schema declares it."""
    from langchain.agents.factory import _resolve_schemas
    from langchain.agents.middleware.types import AgentState, PrivateStateAttr
    from langgraph.channels.delta import DeltaChannel
    from langgraph.channels.untracked_value import UntrackedValue
    from typing_extensions import TypedDict

    from .backends.protocol import FileData

    # typing_extensions' TypedDict: pydantic reads only that one before Python 3.12 (for the
    # graph's JSON schemas).
    agent = get_type_hints(AgentState, include_extras=True)
    files = TypedDict(
        "FilesystemState",
        {
            **agent,
            "files": Annotated[
                NotRequired[dict[str, FileData]], DeltaChannel(_files_reducer, snapshot_frequency=_SNAPSHOT_FREQUENCY)
            ],
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

    if not isinstance(schemas, StateSchemas):
        schemas = StateSchemas(list(schemas))
    return _resolve_schemas([files, summary, *schemas.middleware, schemas.base or DeepAgentState])


class _Feed:
    """One run's stream from the core, read by the thread graph's nodes: each takes its own
    node's write, and where the core went after it. Every item also goes to ``forward`` (the
    caller's stream)."""

    def __init__(self, start: Callable[[str, Any, int, dict], Any], forward: Callable[[tuple], None]) -> None:
        self._start = start
        #: The run's exception: raised by the node the core was in when it failed.
        self._error: BaseException | None = None
        self._error_raised = False
        self._forward = forward
        self._events: Any = None
        #: The core's node writes and routes, in order: `("update", node, write)` and
        #: `("route", node, (kind, value))`.
        self._entries: list[tuple[str, str, Any]] = []
        self._taken: set[int] = set()
        #: Where each task the core ran goes next, by task id.
        self.routes: dict[str, Any] = {}
        self._ended = False
        self._lock = threading.Lock()
        self._alock: asyncio.Lock | None = None

    # -- reading the core's stream

    def _accept(self, item: tuple) -> None:
        mode, ns, payload = item
        if mode == "done":
            self._ended = True
        elif mode == "updates" and ns == ():
            node, value, core = payload
            from ._stream import _update

            self._entries.append(("update", node, _update(value, core)))
        elif mode == "routes" and ns == ():
            node, kind, value = payload
            self._entries.append(("route", node, (kind, value)))
        self._forward(item)

    def _pull(self) -> bool:
        if self._ended:
            return False
        try:
            item = next(self._events)
        except StopIteration:
            self._ended = True
            return False
        except Exception as exc:  # noqa: BLE001 - raised again by the node that failed
            self._error, self._ended = exc, True
            return False
        self._accept(item)
        return True

    async def _apull(self) -> bool:
        if self._ended:
            return False
        try:
            item = await self._events.__anext__()
        except StopAsyncIteration:
            self._ended = True
            return False
        except Exception as exc:  # noqa: BLE001 - raised again by the node that failed
            self._error, self._ended = exc, True
            return False
        self._accept(item)
        return True

    # -- what a node asks

    def _find(self, node: str, call_id: str | None) -> int | None:
        for i, (kind, name, update) in enumerate(self._entries):
            if kind != "update" or i in self._taken or name != node:
                continue
            if call_id is None or call_id in _answered(update):
                return i
        return None

    def _route(self, index: int) -> tuple[bool, Any]:
        """Where the core went after the write at ``index``: ``(known, goto)``. The core
        reports it before it runs the next node."""
        node = self._entries[index][1]
        for _kind, name, (route, value) in (e for e in self._entries[index + 1 :] if e[0] == "route"):
            if name == node:
                return True, goto_of(route, value)
        # A run that ended without a route (it failed in between) goes nowhere.
        return self._ended, _END

    def _keep_route(self, config: dict, goto: Any) -> None:
        """Where this task goes, for the node's edge to read (see `ThreadGraph`)."""
        self.routes[_task_id(config)] = goto

    def take_route(self, config: dict) -> tuple[bool, Any]:
        task = _task_id(config)
        if task in self.routes:
            return True, self.routes.pop(task)
        return False, None

    def _begin(self, node: str, arg: Any, config: dict) -> Any:
        """Starts the core's run at the first node that asks, numbering its steps on from the
        thread's (an awaitable under `astream` when the start reads the checkpoint)."""
        step = (config.get("metadata") or {}).get("langgraph_step", 1)
        return self._start(node, arg, max(step - 1, 0), config)

    def _taken_write(self, node: str, arg: Any) -> int | None:
        """The index of ``node``'s write, once it has arrived."""
        index = self._find(node, _call_id(node, arg))
        if index is not None:
            self._taken.add(index)
        return index

    def take(self, node: str, arg: Any, config: dict) -> Any:
        with self._lock:
            if self._events is None:
                self._events = self._begin(node, arg, config)
            while (index := self._taken_write(node, arg)) is None:
                if not self._pull():
                    raise self._missing(node, config)
            while not (route := self._route(index))[0]:
                self._pull()
            self._keep_route(config, route[1])
            return _command(self._entries[index][2])

    async def atake(self, node: str, arg: Any, config: dict) -> Any:
        import asyncio

        if self._alock is None:
            self._alock = asyncio.Lock()
        async with self._alock:
            if self._events is None:
                events = self._begin(node, arg, config)
                self._events = await events if inspect.isawaitable(events) else events
            while (index := self._taken_write(node, arg)) is None:
                if not await self._apull():
                    raise self._missing(node, config)
            while not (route := self._route(index))[0]:
                await self._apull()
            self._keep_route(config, route[1])
            return _command(self._entries[index][2])

    def _missing(self, node: str, config: dict) -> BaseException:
        if self._error is not None:
            self._error_raised = True
            return _in_task(self._error, config)
        return RuntimeError(f"deepagents_rs: the run ended without the thread's node {node!r} (a bug)")

    def error_state(self) -> dict | None:
        """The core's state when its run failed (or stopped for an interrupt)."""
        state = getattr(self._error, "partial_state", None)
        return state if isinstance(state, dict) else None

    def drain(self) -> None:
        """Reads what is left of the core's stream (the run's last items)."""
        if self._events is not None:
            while self._pull():
                pass
        self._raise_unraised()

    async def adrain(self) -> None:
        if self._events is not None:
            while await self._apull():
                pass
        self._raise_unraised()

    def _raise_unraised(self) -> None:
        """A failure no node of the graph took up (it had already ended) still ends the run."""
        if self._error is not None and not self._error_raised:
            self._error_raised = True
            raise self._error

    def close(self) -> None:
        if self._events is not None and hasattr(self._events, "close"):
            self._events.close()

    async def aclose(self) -> None:
        if self._events is not None and hasattr(self._events, "aclose"):
            await self._events.aclose()


_END = "__end__"


#: LangGraph's config key for the task a graph runs in: set when the agent runs as a node of
#: a parent graph (``langgraph._internal._constants.CONFIG_KEY_TASK_ID``).
_PARENT_TASK = "__pregel_task_id"


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
    from langgraph._internal._constants import CONFIG_KEY_CHECKPOINT_NS, CONFIG_KEY_SCRATCHPAD, CONFIG_KEY_SEND

    configurable = config.get("configurable") or {}
    keys = (CONFIG_KEY_SCRATCHPAD, CONFIG_KEY_SEND, CONFIG_KEY_CHECKPOINT_NS)
    return {k: configurable[k] for k in keys if k in configurable}


def _in_task(error: BaseException, config: dict) -> BaseException:
    """The run's failure as the thread graph's task raises it. An ``interrupt()`` the core's
    host code called (a human-in-the-loop hook, a tool) is LangGraph's ``GraphInterrupt``,
    whose ids LangGraph derives from the interrupting task's namespace: the core called it
    ahead of this task, so the ids are derived again from this task's."""
    from langgraph.errors import GraphInterrupt

    if not isinstance(error, GraphInterrupt) or not error.args:
        return error
    from langgraph._internal._constants import CONFIG_KEY_CHECKPOINT_NS
    from langgraph.types import Interrupt, _interrupt_id

    ns = (config.get("configurable") or {}).get(CONFIG_KEY_CHECKPOINT_NS)
    if not ns:
        return error
    interrupts = tuple(
        Interrupt(value=i.value, id=_interrupt_id(ns, n), response_schema=getattr(i, "response_schema", None))
        for n, i in enumerate(error.args[0])
    )
    return GraphInterrupt(interrupts)


def _update_messages(update: Any) -> list[Any]:
    writes = update if isinstance(update, list) else [update]
    out: list[Any] = []
    for w in writes:
        if isinstance(w, dict) and isinstance(w.get("messages"), list):
            out.extend(w["messages"])
    return out


def _answered(update: Any) -> list[str]:
    return [m.tool_call_id for m in _update_messages(update) if getattr(m, "type", None) == "tool"]


def _call_id(node: str, arg: Any) -> str | None:
    """A `tools` task sent one call (LangChain's `Send("tools", [call])`) answers that call."""
    if node == "tools" and isinstance(arg, list) and len(arg) == 1 and isinstance(arg[0], dict):
        return arg[0].get("id")
    return None


def _task_id(config: dict) -> Any:
    from langgraph._internal._constants import CONFIG_KEY_TASK_ID

    return (config.get("configurable") or {}).get(CONFIG_KEY_TASK_ID)


def _command(update: Any) -> Any:
    from langgraph.types import Command

    if isinstance(update, list):
        # One node's several writes, in order.
        update = [(k, v) for w in update if isinstance(w, dict) for k, v in w.items()]
    return Command(update=update)


def goto_of(kind: str, value: Any) -> Any:
    """A route the core reports (`Event::Route`) as LangGraph's edge result."""
    if kind == "node":
        return value
    if kind == "calls":
        from langgraph.types import Send

        # LangChain's edge: one `tools` task per pending call.
        return [Send("tools", [call]) for call in value]
    return _END


def core_state(thread_state: dict) -> dict:
    """The thread's state as the core takes it: the messages as LangGraph stored them (ids
    already given, or for tuple and str input left out: nothing to stamp)."""
    from . import _convert

    state: dict[str, Any] = {"messages": [_convert.to_core(m) for m in thread_state.get("messages") or []]}
    for key, value in thread_state.items():
        if key not in ("messages", "jump_to"):
            state[key] = value
    return state


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
    ) -> None:
        """``route_after(node, state)`` is the core's edge out of ``node``, as LangGraph's edge
        result: what a write made as that node outside a run (``update_state(as_node=...)``)
        routes by. In a run, each node goes where the core went."""
        from langgraph.graph import START, StateGraph

        state, input_schema, output_schema = _state_schemas(schemas)
        builder = StateGraph(state, input_schema=input_schema, output_schema=output_schema)
        for node in node_names:
            builder.add_node(node, _node(node))
            builder.add_conditional_edges(node, _edge(node, route_after))
        builder.add_edge(START, node_names[0])
        # The agent's metadata as deepagents' graph carries it: in every task and checkpoint,
        # `update_state`'s included.
        graph = builder.compile(checkpointer=checkpointer, name=name or "LangGraph")
        self.graph = graph.with_config(metadata=dict(metadata))
        self.node_names = list(node_names)
        self.checkpointer = checkpointer

    def run(
        self,
        input: dict,
        config: dict,
        start: Callable[[str, Any, int, dict], Any],
        forward: Callable[[tuple], None],
        durability: str | None,
        graph_modes: Sequence[str] = (),
        stops: tuple[list[str], list[str]] = ([], []),
        whole_run: bool = False,
    ) -> Iterator[Any]:
        """Runs the thread graph beside the core's run, yielding after each superstep (the
        caller's stream items arrive through ``forward`` meanwhile, the graph's own
        ``graph_modes`` chunks as ``("graph", mode, chunk)``). A run that stops for an
        interrupt yields ``Interrupted`` last. ``whole_run``: an ``invoke``."""
        feed = _Feed(start, forward)
        try:
            with _untraced():
                chunks = self.graph.stream(
                    input,
                    _graph_config(config, feed, self.checkpointer),
                    stream_mode=["updates", *graph_modes],
                    durability=durability,
                    interrupt_before=_breakpoints(stops[0]),
                    interrupt_after=_breakpoints(stops[1]),
                    # LangGraph's `invoke` reports the output channels' updates only (what a
                    # parent graph streams of this graph as a subgraph).
                    output_keys=self.graph.output_channels if whole_run else None,
                )
                for mode, chunk in chunks:
                    yield _graph_item(mode, chunk, feed)
            feed.drain()
        finally:
            feed.close()

    async def arun(
        self,
        input: dict,
        config: dict,
        start: Callable[[str, Any, int, dict], Any],
        forward: Callable[[tuple], None],
        durability: str | None,
        graph_modes: Sequence[str] = (),
        stops: tuple[list[str], list[str]] = ([], []),
        whole_run: bool = False,
    ) -> AsyncIterator[Any]:
        feed = _Feed(start, forward)
        try:
            with _untraced():
                chunks = self.graph.astream(
                    input,
                    _graph_config(config, feed, self.checkpointer),
                    stream_mode=["updates", *graph_modes],
                    durability=durability,
                    interrupt_before=_breakpoints(stops[0]),
                    interrupt_after=_breakpoints(stops[1]),
                    # LangGraph's `invoke` reports the output channels' updates only (what a
                    # parent graph streams of this graph as a subgraph).
                    output_keys=self.graph.output_channels if whole_run else None,
                )
                async for mode, chunk in chunks:
                    yield _graph_item(mode, chunk, feed)
            await feed.adrain()
        finally:
            await feed.aclose()


def _breakpoints(nodes: list[str]) -> Any:
    """LangGraph's form of a breakpoint list: ``"*"`` for every node."""
    return "*" if "*" in nodes else (nodes or None)


#: Stream modes the thread graph produces itself (LangGraph's own payloads).
GRAPH_MODES = ("checkpoints", "tasks", "debug")


def _graph_item(mode: str, chunk: Any, feed: _Feed) -> Any:
    if mode != "updates":
        return ("graph", mode, chunk)
    if "__interrupt__" in chunk:
        return Interrupted(chunk["__interrupt__"], feed.error_state())
    return chunk


def _edge(name: str, route_after: Callable[[str, dict], Any]) -> Any:
    from langchain_core.runnables import RunnableConfig
    from langgraph._internal._runnable import RunnableCallable

    def route(state, config):  # annotated below, with the real class

        feed = (config.get("configurable") or {}).get(_FEED)
        if feed is not None:
            known, goto = feed.take_route(config)
            if known:
                return goto
        return route_after(name, state)

    # LangGraph reads the path function's hints (for its possible targets), and hands the
    # config to a parameter typed as LangChain's `RunnableConfig`.
    route.__annotations__ = {"state": dict, "config": RunnableConfig}
    return RunnableCallable(route, name=f"{name}:edge", trace=False, recurse=False)


def _node(name: str) -> Any:
    # LangGraph's own light runnable (what StateGraph wraps a function in), untraced: no
    # callbacks and no per-call signature inspection, which a RunnableLambda costs.
    from langgraph._internal._runnable import RunnableCallable

    def run(arg: Any, config: RunnableConfig) -> Any:
        return config["configurable"][_FEED].take(name, arg, config)

    async def arun(arg: Any, config: RunnableConfig) -> Any:
        return await config["configurable"][_FEED].atake(name, arg, config)

    return RunnableCallable(run, arun, name=name, trace=False, recurse=False)


class Interrupted:
    """A run that stopped for ``interrupts``; ``state`` is the core's state when it stopped
    (the raw dict a failed run carries), if the core ran."""

    def __init__(self, interrupts: tuple, state: dict | None) -> None:
        self.interrupts = tuple(interrupts)
        self.state = state


def _graph_config(config: dict, feed: _Feed, checkpointer: Any) -> dict:
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
