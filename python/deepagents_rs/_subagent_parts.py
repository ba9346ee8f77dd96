"""A compiled subagent's own stream parts, as LangGraph streams a subgraph's.

deepagents' `task` tool runs a ``CompiledSubAgent`` inside its `tools` task, so a LangGraph
graph given as one finds its caller's stream in the task's config and streams its own parts
there (with ``subgraphs=True``), under the task's namespace: the loop's modes through
``configurable["__pregel_stream"]`` (its ``values``, ``updates``, ``custom``, ``tasks``...),
and ``messages`` / ``tools`` through the callback handlers LangGraph attaches to the run. The
core runs the `task` call; here the runnable gets the same: a stream protocol, LangGraph's own
handlers and a stream writer, each putting LangGraph's ``(namespace, mode, payload)`` chunk
into the core's stream (``GraphParts``), where the shaper passes it on in order with the
rest (``_stream.Shaper``).
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

#: LangGraph's modes a graph's loop streams itself; ``messages`` and ``tools`` come from
#: callback handlers instead.
_LOOP_MODES = frozenset({"values", "updates", "custom", "tasks", "checkpoints", "debug"})


@dataclass(frozen=True)
class Streamed:
    """What the caller's stream asks of subgraphs: its modes, and whether its ``messages``
    are content-block protocol events (v3)."""

    modes: tuple[str, ...]
    protocol: bool


#: Set in the contextvars a run starts with when the caller streams subgraphs.
STREAMED: contextvars.ContextVar[Streamed | None] = contextvars.ContextVar("deepagents_rs_streamed", default=None)


def streamed(modes: list[str], subgraphs: bool, protocol: bool) -> Streamed | None:
    """What to set in ``STREAMED`` for a stream of ``modes``: nothing without subgraphs."""
    return Streamed(tuple(modes), protocol) if subgraphs else None


def child_config(config: dict, parts: Any) -> dict:
    """``config`` (the caller's, inside the `task` call's task: `_compiled_subagent._in_task`)
    as LangGraph's task config hands it to a subgraph the caller streams, with the caller's
    stream and handlers putting the subgraph's parts into ``parts``. A config without a task
    stays so: LangGraph streams such a graph's parts under the caller's root namespace, and
    makes up no task for it."""
    wanted = STREAMED.get()
    if parts is None or wanted is None:
        return config
    from langchain_core.callbacks import CallbackManager
    from langchain_core.runnables.config import ensure_config, get_callback_manager_for_config
    from langgraph.pregel.protocol import StreamProtocol
    from langgraph.runtime import DEFAULT_RUNTIME

    from deepagents_rs._langgraph_private import CONFIG_KEY_RUNTIME, CONFIG_KEY_STREAM

    configurable = dict(config.get("configurable") or {})
    modes = set(wanted.modes)
    configurable[CONFIG_KEY_STREAM] = StreamProtocol(parts, modes & _LOOP_MODES)
    # A subgraph streaming into its caller's stream writes `custom` through the caller's
    # runtime: with the mode asked for, LangGraph's writer for the writing task's namespace.
    runtime = configurable.get(CONFIG_KEY_RUNTIME) or DEFAULT_RUNTIME
    if "custom" in modes:
        runtime = runtime.override(stream_writer=_custom_writer(parts))
    configurable[CONFIG_KEY_RUNTIME] = runtime
    out = ensure_config({**config, "configurable": configurable})
    handlers = _handlers(parts, modes, wanted.protocol)
    if handlers:
        manager = get_callback_manager_for_config(out)
        if not isinstance(manager, CallbackManager):  # pragma: no cover - LangChain's own type
            return out
        for handler in handlers:
            manager.add_handler(handler, inherit=True)
        out["callbacks"] = manager
    return out


def _handlers(parts: Any, modes: set[str], protocol: bool) -> list[Any]:
    """LangGraph's handlers for the ``messages`` and ``tools`` modes, as its loop attaches
    them to a run streaming subgraphs."""
    from deepagents_rs._langgraph_private import StreamMessagesHandler, StreamMessagesHandlerV2, StreamToolCallHandler

    out: list[Any] = []
    if "messages" in modes:
        out.append((StreamMessagesHandlerV2 if protocol else StreamMessagesHandler)(parts, True))
    if "tools" in modes:
        out.append(StreamToolCallHandler(parts, True))
    return out


def _custom_writer(parts: Any) -> Any:
    """LangGraph's ``custom`` writer: a payload under the namespace of the task writing it."""

    def write(value: Any) -> None:
        from langgraph.config import get_config

        from deepagents_rs._langgraph_private import CONFIG_KEY_CHECKPOINT_NS, NS_SEP

        ns = get_config()["configurable"][CONFIG_KEY_CHECKPOINT_NS].split(NS_SEP)[:-1]
        parts((tuple(ns), "custom", value))

    return write
