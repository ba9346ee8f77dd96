"""The stream parts LangGraph makes from callbacks inside its own loop, made from the core's
events: the ``tools`` stream mode, and what ``stream_events(version="v3")`` reads.

LangGraph's ``stream_events(version="v3")`` runs on top of ``stream``: it asks it for
``values``, ``messages``, ``tasks`` and ``tools`` parts (``version="v2"``, ``subgraphs=True``),
with ``CONFIG_KEY_STREAM_MESSAGES_V2`` in the configurable, and builds its run projections
(``run.values``, ``run.messages``, ``run.tool_calls``, ``run.subgraphs``, ``run.subagents``,
``run.lifecycle``) from them with its own transformers. Inside LangGraph's loop those parts
come from callback handlers (``StreamToolCallHandler``, ``StreamMessagesHandlerV2``) and the
loop's task events; here the core reports the same moments (a step's tool calls, a subagent's
start, each tool's result), and this module turns them into the parts those handlers make:

* ``tools``: ``tool-started`` when a step's calls are routed, ``tool-finished`` with the
  tool's output (its ``ToolMessage``; a ``Command`` for ``task`` and for tools whose result
  writes other keys).
* ``tasks`` for the v3 projections: the events LangGraph's lifecycle transformers read to find
  a subagent (the ``tools`` task that hosts it, the subagent graph's first task, with its
  ``lc_agent_name``, and the hosting task's result or interrupt). The tasks of other nodes are
  not made: the v3 transformers fold ``tasks`` events away and read only these.
* ``messages`` under v3: the chat model runs through LangChain's content-block event path (a
  ``_V2StreamingCallbackHandler`` is attached, as LangGraph attaches one), and each protocol
  event is carried through the core like a chunk (``ProtocolEvent``), in order with the rest.
"""

from __future__ import annotations

import contextvars
import uuid
from collections.abc import Callable
from typing import Any

from ._native_events import NativeCallEvents

#: Set in the contextvars a run starts with when its model calls report protocol events
#: (the v3 ``messages`` mode); read by the model adapter when it makes a call's callbacks.
PROTOCOL_EVENTS: contextvars.ContextVar[bool] = contextvars.ContextVar("deepagents_rs_protocol_events", default=False)

#: LangGraph's configurable key that asks ``messages`` for content-block protocol events.
MESSAGES_V2_KEY = "__pregel_stream_messages_v2"


def wants_protocol_events(config: dict | None, version: str) -> bool:
    """Whether a stream's ``messages`` parts are protocol events, as LangGraph decides it."""
    return version == "v2" and bool(((config or {}).get("configurable") or {}).get(MESSAGES_V2_KEY))


def start_run(protocol: bool, start: Callable[..., Any], *args: Any, streamed: Any = None, **kwargs: Any) -> Any:
    """``start(*args, **kwargs)``, with ``PROTOCOL_EVENTS`` and what the stream asks of
    subgraphs (``streamed``, `_subagent_parts`) set in the contextvars the core captures for
    the run (a copy: the caller's own stay as they are)."""
    if not protocol and streamed is None:
        return start(*args, **kwargs)
    from ._subagent_parts import STREAMED

    context = contextvars.copy_context()
    context.run(PROTOCOL_EVENTS.set, protocol)
    context.run(STREAMED.set, streamed)
    return context.run(start, *args, **kwargs)


#: A ``messages`` payload a v3 stream does not show (see `ProtocolMessages`).
DROPPED = object()


class ProtocolEvent:
    """One content-block event of a model call (``message-start``, ``content-block-delta``,
    ...), with the call's run id, carried through the core as a chunk."""

    __slots__ = ("event", "run_id")

    def __init__(self, event: dict, run_id: Any) -> None:
        self.event = event
        self.run_id = run_id


def protocol_forwarder(on_chunk: Callable[[Any], None]) -> Any:
    """A callback handler that makes LangChain run the model through its content-block event
    path and hands each event to the core (``on_chunk``) as it comes."""
    from langchain_core.callbacks import BaseCallbackHandler

    from deepagents_rs._langchain_private import _V2StreamingCallbackHandler

    class EventForwarder(BaseCallbackHandler, _V2StreamingCallbackHandler):
        run_inline = True

        def on_stream_event(self, event: dict, *, run_id: Any, **kwargs: Any) -> None:
            on_chunk(ProtocolEvent(event, run_id))

    return EventForwarder()


class ProtocolMessages:
    """The ``messages`` parts of a v3 stream, as LangGraph's ``StreamMessagesHandlerV2``
    makes them: a model call's protocol events with the call's ``run_id`` in the metadata, or
    the whole AI message of a call that did not stream. Tool messages belong to the ``tools``
    parts there. A native client's chunks are made into the events LangChain's bridge makes
    of a provider's chunks as they arrive (``ready``); its closing events once the call has
    ended (what comes next in its namespace)."""

    def __init__(self) -> None:
        # A native call under way in each namespace: its id, metadata and events maker.
        self.native: dict[tuple, tuple[str, dict, NativeCallEvents]] = {}
        #: ``(ns, data)`` of the events made of the native chunks shaped so far (`take_ready`).
        self.ready: list[tuple[tuple, Any]] = []

    def shape(self, message: Any, metadata: dict, ns: tuple) -> Any:
        if isinstance(message, ProtocolEvent):
            return message.event, {**metadata, "run_id": str(message.run_id)}
        if type(message).__name__ == "AIMessageChunk":
            call = self.native.get(ns)
            if call is None:
                call = self.native[ns] = (message.id, metadata, NativeCallEvents(message.id))
            self.ready.extend(self._parts(ns, call, message))
            return DROPPED
        if getattr(message, "type", None) != "ai":
            return DROPPED
        return message, metadata

    def take_ready(self) -> list[tuple[tuple, Any]]:
        out, self.ready = self.ready, []
        return out

    @staticmethod
    def _parts(ns: tuple, call: tuple, chunk: Any) -> list[tuple[tuple, Any]]:
        call_id, metadata, events = call
        meta = {**metadata, "run_id": call_id.removeprefix("lc_run--")}
        return [(ns, (event, meta)) for event in events.feed(chunk)]

    def ended(self, item: tuple) -> list[tuple[tuple, Any]]:
        """``(ns, data)`` of the closing events of each native call that ``item`` shows has
        ended: anything in its namespace but its next chunk, and the run's end."""
        if not self.native:
            return []
        mode, ns, payload = item
        ns = tuple(ns)
        if mode == "done":
            ended = list(self.native)
        elif ns in self.native and not (
            mode == "messages" and type(payload[0]).__name__ == "AIMessageChunk" and payload[0].id == self.native[ns][0]
        ):
            ended = [ns]
        else:
            return []
        out = []
        for at in ended:
            out.extend(self._parts(at, self.native.pop(at), None))
        return out


def _tool_call(call: dict) -> dict:
    return {"name": call.get("name"), "args": call.get("args") or {}, "id": call.get("id"), "type": "tool_call"}


class ToolEvents:
    """Turns the core's raw items into ``tools`` parts and the v3 lifecycle's ``tasks`` parts.

    ``observe`` returns ``(before, after)``: parts to yield before and after the item's own
    chunk, each ``(mode, ns, data)``. It needs the core's ``routes`` and ``updates`` items (and
    ``values`` for the order of a subagent's first task)."""

    def __init__(self, tools: bool, tasks: bool, agent_name: str | None, shape_update: Callable[[Any], Any]) -> None:
        self.tools = tools
        self.tasks = tasks
        self.agent_name = agent_name
        self.shape_update = shape_update
        # The calls routed and not answered yet, by (namespace, call id).
        self.calls: dict[tuple, dict] = {}
        # Subagents started and not finished: the hosting task's id by (namespace, call id).
        self.hosts: dict[tuple, str] = {}
        # A subagent's namespace -> its first task, held until its input values are out.
        self.first_tasks: dict[tuple, dict] = {}
        # Each namespace's agent name, for the tasks' metadata.
        self.names: dict[tuple, str | None] = {(): agent_name}
        # The calls of each namespace's last AI message, by (namespace, call id): a resumed
        # run starts inside a step whose calls were routed by the run that stopped.
        self.state_calls: dict[tuple, dict] = {}
        # The results of tasks whose subagents stopped, held for `closing`.
        self.paused: list = []
        # The starts of each namespace's routed calls, held until they are under way: the
        # core routes a step's calls before a breakpoint can stop the run there.
        self.waiting: dict[tuple, list] = {}
        # The chunks of a call's `ToolMessage` (`messages` mode), by (namespace, call id),
        # held until the call's update has reported its end (`hold`).
        self.held: dict[tuple, list] = {}

    def observe(self, item: tuple) -> tuple[list, list]:
        mode, ns, payload = item
        ns = tuple(ns)
        before: list = self._flush_waiting(ns) if self.waiting else []
        after: list = []
        if ns in self.first_tasks and mode != "routes":
            # LangGraph streams a subgraph's input values, then its first task.
            held = [("tasks", ns, self.first_tasks.pop(ns))]
            if mode == "values":
                after.extend(held)
            else:
                before.extend(held)
        if mode == "routes":
            node, kind, value = payload
            if kind == "calls":
                self.waiting.setdefault(ns, []).extend(self._started(ns, value))
            elif kind == "subagent":
                before.extend(self._subagent_started(ns, value))
            elif kind == "paused":
                before.extend(self._subagent_paused(ns, value))
        elif mode == "updates":
            node, value, core = payload
            if node == "tools" and core and isinstance(value, dict):
                before.extend(self._finished(ns, value))
        elif mode == "values" and isinstance(payload, dict):
            self._remember_calls(ns, payload.get("messages") or ())
        return before, after

    def hold(self, item: tuple, chunks: list) -> bool:
        """Whether ``chunks`` (a ``messages`` item's) wait for their call's end: LangGraph's
        tool handler reports a call's end (``tool-finished``) when the tool returns, and its
        messages handler streams the call's ``ToolMessage`` when the ``tools`` task ends,
        after it; the core streams the message before the task's update."""
        mode, ns, payload = item
        if not self.tools or mode != "messages" or not chunks:
            return False
        message = payload[0]
        if not isinstance(message, dict) or message.get("type") != "tool":
            return False
        key = (tuple(ns), message.get("tool_call_id"))
        if key not in self.calls and key not in self.state_calls:
            return False
        self.held.setdefault(key, []).extend(chunks)
        return True

    def released(self, item: tuple | None) -> list:
        """The held chunks whose calls ``item`` ends (``None``: the run's end, all of them)."""
        if not self.held:
            return []
        if item is None:
            out = [c for chunks in self.held.values() for c in chunks]
            self.held.clear()
            return out
        mode, ns, payload = item
        if mode != "updates" or payload[0] != "tools" or not isinstance(payload[1], dict):
            return []
        ids = [m.get("tool_call_id") for m in payload[1].get("messages") or () if isinstance(m, dict)]
        return [c for call_id in ids for c in self.held.pop((tuple(ns), call_id), ())]

    def stopped(self, interrupted: bool) -> list:
        """When the run stopped: the starts of the calls a tool's interrupt stopped (a run
        stopped at a breakpoint before its tools started none)."""
        waiting = [p for parts in self.waiting.values() for p in parts] if interrupted else []
        self.waiting.clear()
        return waiting

    def closing(self) -> list:
        """The parts held until the run's own end: the results of the tasks whose subagents
        stopped for an interrupt (LangGraph reports them after the run's interrupt)."""
        out, self.paused = self.paused, []
        return out

    def _flush_waiting(self, ns: tuple) -> list:
        """The starts of the calls routed in ``ns`` or a graph above it: something of theirs
        is under way, so their tools started."""
        out = []
        for at in [at for at in self.waiting if ns[: len(at)] == at]:
            out.extend(self.waiting.pop(at))
        return out

    def _remember_calls(self, ns: tuple, messages: Any) -> None:
        for message in reversed(messages):
            # A dict, or the caller's own message object the run left as given.
            if isinstance(message, dict):
                kind, calls = message.get("type"), message.get("tool_calls")
            else:
                kind, calls = getattr(message, "type", None), getattr(message, "tool_calls", None)
            if kind == "ai":
                for call in calls or ():
                    self.state_calls[(ns, call.get("id"))] = call
                return

    def _started(self, ns: tuple, calls: list) -> list:
        out = []
        for call in calls:
            self.calls[(ns, call.get("id"))] = call
            if self.tools:
                data = {
                    "event": "tool-started",
                    "tool_call_id": call.get("id"),
                    "tool_name": call.get("name") or "",
                    "input": call.get("args") or {},
                }
                out.append(("tools", ns, data))
        return out

    def compiled_part(self, origin: tuple, call_id: str, ns: tuple) -> list:
        """A part a compiled subagent streamed itself (its graph makes its own tasks): the
        first from it starts its `task` call's hosting task, as a subagent's start does."""
        child = ns[: len(origin) + 1]
        if len(child) <= len(origin) or (origin, call_id) in self.hosts:
            return []
        return self._host_started(child, call_id)

    def _subagent_started(self, child: tuple, value: tuple) -> list:
        call_id, state, nodes, _name = value
        out = self._host_started(child, call_id)
        if not self.tasks:
            return out
        first = nodes[0] if nodes else "model"
        self.first_tasks[child] = {
            "id": str(uuid.uuid4()),
            "name": first,
            "input": state,
            "triggers": (f"branch:to:{first}",),
            "metadata": {"ls_integration": "langchain_create_agent", "lc_agent_name": self.names[child]},
        }
        return out

    def _host_started(self, child: tuple, call_id: str) -> list:
        """The start of the `tools` task hosting the subagent at ``child`` for ``call_id``
        (and of the call itself, when the run resumed inside its step)."""
        parent = child[:-1]
        task_id = child[-1].partition(":")[2]
        self.hosts[(parent, call_id)] = task_id
        call = (
            self.calls.get((parent, call_id))
            or self.state_calls.get((parent, call_id))
            or {"name": "task", "args": {}, "id": call_id}
        )
        name = (call.get("args") or {}).get("subagent_type")
        self.names[child] = name
        # A resumed run starts inside the step: the call runs again, as its tool does there.
        started = [] if (parent, call_id) in self.calls else self._started(parent, [call])
        if not self.tasks:
            return started
        host = {
            "id": task_id,
            "name": "tools",
            "input": [_tool_call(call)],
            "triggers": ("__pregel_push",),
            "metadata": {"lc_agent_name": self.names.get(parent)},
        }
        return [*started, ("tasks", parent, host)]

    def _subagent_paused(self, child: tuple, value: tuple) -> list:
        call_id, error = value
        parent = child[:-1]
        task_id = self.hosts.pop((parent, call_id), None)
        self.first_tasks.pop(child, None)
        if not self.tasks or task_id is None:
            return []
        interrupts = error.args[0] if getattr(error, "args", None) else ()
        data = {
            "id": task_id,
            "name": "tools",
            "error": None,
            "result": {},
            "interrupts": list(interrupts) if isinstance(interrupts, (list, tuple)) else [error],
        }
        self.paused.append(("tasks", parent, data))
        return []

    def _finished(self, ns: tuple, value: dict) -> list:
        out = []
        for message in value.get("messages") or ():
            if not isinstance(message, dict) or message.get("type") != "tool":
                continue
            call_id = message.get("tool_call_id")
            if (ns, call_id) not in self.calls and (ns, call_id) in self.state_calls:
                # A call of the step a resumed run starts in: it ran again, from its start.
                out.extend(self._started(ns, [self.state_calls[(ns, call_id)]]))
            call = self.calls.pop((ns, call_id), None)
            task_id = self.hosts.pop((ns, call_id), None)
            if self.tools and call is not None:
                out.append(("tools", ns, self._finished_part(call, message, value)))
            if self.tasks and task_id is not None:
                result = {"id": task_id, "name": "tools", "error": None, "result": {}, "interrupts": []}
                out.append(("tasks", ns, result))
        return out

    def _finished_part(self, call: dict, message: dict, value: dict) -> dict:
        from langchain_core.messages import ToolMessage

        from . import _convert

        # A tool that returned a `Command` (`task`, or one writing state keys of its own, as
        # `write_todos`) is reported with it; a file tool's `files` write goes to the state
        # beside its message, as deepagents' backends send it.
        writes_more = any(k not in ("messages", "files") for k in value) or len(value.get("messages") or ()) > 1
        if call.get("name") == "task" or writes_more:
            from langgraph.types import Command

            update = self.shape_update(value)
            for m in update.get("messages") or ():
                if isinstance(m, ToolMessage) and call.get("name") == "task":
                    # `task` builds its message without a name or an id.
                    m.name = None
                    m.id = None
            output: Any = Command(update=update)
        else:
            # The message as the tool made it: LangGraph's reducer gives it its id afterwards.
            output = _convert.from_core({**message, "id": None})
        return {"event": "tool-finished", "tool_call_id": call.get("id"), "output": output}

    def failed(self, error: BaseException) -> list:
        """The parts LangGraph streams when a run fails inside tools: ``tool-error`` for each
        call still running (the innermost first), and the failed result of each task hosting
        a subagent. An interrupt is no failure (LangGraph reports a paused tool nowhere)."""
        # The calls routed last were under way: their tools started.
        out = [p for parts in self.waiting.values() for p in parts]
        self.waiting.clear()
        pending = sorted(self.calls.items(), key=lambda entry: -len(entry[0][0]))
        for (ns, call_id), _call in pending:
            if self.tools:
                out.append(("tools", ns, {"event": "tool-error", "tool_call_id": call_id, "message": str(error)}))
            task_id = self.hosts.pop((ns, call_id), None)
            if self.tasks and task_id is not None:
                result = {"id": task_id, "name": "tools", "error": error, "result": {}, "interrupts": []}
                out.append(("tasks", ns, result))
        self.calls.clear()
        return out
