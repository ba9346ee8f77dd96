"""``stream`` / ``astream``: the core's raw events shaped into LangGraph's chunks.

The core yields ``(mode, ns, payload)`` items while the run goes, then ``("done", (), state)``.
This module turns them into what LangGraph yields for the same call: the chunk alone for one
mode, ``(mode, chunk)`` for a list of modes, ``(ns, ...)`` in front with ``subgraphs=True``,
and ``{"type", "ns", "data"}`` parts with ``version="v2"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _convert

#: LangGraph's stream modes that deepagents_rs produces: the core's, then those the LangGraph
#: graph that follows the core produces itself (`_threads`).
SUPPORTED_MODES = ("values", "updates", "messages", "custom", "checkpoints", "tasks", "debug")
GRAPH_MODES = ("checkpoints", "tasks", "debug")
REMOVE_ALL_MESSAGES = "__remove_all__"


def asks_graph_modes(stream_mode: Any) -> bool:
    """Whether a stream asks for a mode only the LangGraph graph that follows the core makes."""
    modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode or ())
    return any(m in GRAPH_MODES for m in modes)


def normalize_modes(stream_mode: Any, default: str) -> tuple[list[str], bool]:
    """The modes asked for, and whether a single mode was given (chunks come bare)."""
    if stream_mode is None:
        return [default], True
    single = isinstance(stream_mode, str)
    modes = [stream_mode] if single else list(stream_mode)
    for mode in modes:
        if mode not in SUPPORTED_MODES:
            raise ValueError(f"Invalid stream mode {mode!r}; expected one of {SUPPORTED_MODES}")
    # LangGraph dedupes a repeated mode.
    return list(dict.fromkeys(modes)), single


#: Where a tool's config carries the run's files (a lazy reader) for a `StateBackend()` the
#: tool makes itself.
RUN_FILES_KEY = "__deepagents_rs_files"


#: Configurable keys LangGraph copies into a task's metadata.
_PROPAGATED_KEYS = ("thread_id", "checkpoint_id", "checkpoint_ns", "task_id", "run_id", "assistant_id", "graph_id")


#: Where the run config carries the agent's own metadata (`ls_integration`, `lc_versions`,
#: `lc_agent_name`), for the tasks of its runs and its subagents'.
AGENT_METADATA_KEY = "__deepagents_rs_agent_metadata"
#: deepagents' `ls_integration` on a subagent's runs (LangChain's `create_agent` graph).
_SUBAGENT_INTEGRATION = "langchain_create_agent"


def _tool_task_metadata(
    metadata: dict,
    configurable: dict,
    step: int | None,
    index: int | None,
    namespace: list[str] | None = None,
    subagent: str | None = None,
) -> dict:
    """The metadata of a tool call's task, as LangGraph gives a `tools` task (a `Send` from the
    model's edge): the graph's metadata (a subagent's own inside one), the run's, the
    configurable keys LangGraph propagates, and the task's step, node, trigger, path and
    namespace (under its parents', ``namespace``)."""
    import uuid

    agent = dict(configurable.get(AGENT_METADATA_KEY) or {})
    if subagent is not None:
        agent.update(ls_integration=_SUBAGENT_INTEGRATION, lc_agent_name=subagent)
    out = {**agent, **metadata}
    for key in _PROPAGATED_KEYS:
        if key in configurable and key not in out:
            out[key] = configurable[key]
    if step is not None:
        task = "|".join([*(namespace or ()), f"tools:{uuid.uuid4()}"])
        out.update(
            langgraph_step=step,
            langgraph_node="tools",
            langgraph_triggers=("__pregel_push",),
            langgraph_path=("__pregel_push", index or 0, False),
            langgraph_checkpoint_ns=task,
            # LangGraph keeps the outermost task's namespace here, a subagent's tools included.
            checkpoint_ns=namespace[0] if namespace else task,
        )
    return out


def config_with_writer(
    config: dict | None,
    writer: Callable[[Any], None] | None,
    parent: Any = None,
    files: Any = None,
    step: int | None = None,
    index: int | None = None,
    namespace: list[str] | None = None,
    subagent: str | None = None,
) -> dict | None:
    """The config a tool runs with: LangGraph's runtime in it, with the stream writer when
    ``custom`` is streamed, where ``langgraph.config.get_stream_writer()`` looks for it.
    Without LangGraph installed, no tool can ask for it."""
    try:
        from langgraph._internal._constants import CONFIG_KEY_RUNTIME
        from langgraph.runtime import Runtime
    except ImportError:
        return config
    out = dict(config or {})
    if parent is not None:
        out["callbacks"] = parent.get_child("seq:step:1")
    configurable = dict(out.get("configurable") or {})
    store = configurable.pop("__deepagents_rs_store", None)
    # The run's context (`invoke(..., context=...)`) stays; the store and writer are this run's.
    context = getattr(configurable.get(CONFIG_KEY_RUNTIME), "context", None)
    if writer:
        runtime = Runtime(context=context, store=store, stream_writer=writer)
    else:
        runtime = Runtime(context=context, store=store)
    configurable[CONFIG_KEY_RUNTIME] = runtime
    if files is not None:
        configurable[RUN_FILES_KEY] = files
    out["configurable"] = configurable
    out["metadata"] = _tool_task_metadata(out.get("metadata") or {}, configurable, step, index, namespace, subagent)
    return out


def _messages(raw: list[dict], remove_all: bool) -> list[Any]:
    out = [_convert.from_core(m) for m in raw]
    if remove_all:
        from langchain_core.messages import RemoveMessage

        out.insert(0, RemoveMessage(id=REMOVE_ALL_MESSAGES))
    return out


def _update(payload: Any, core: bool) -> Any:
    if not core or payload is None:
        return payload
    if isinstance(payload, list):
        # One node's several writes (the model step's reply and its middleware commands).
        return [_update(p, True) for p in payload]
    out = dict(payload)
    remove_all = out.pop("__remove_all__", False)
    if "messages" in out:
        out["messages"] = _messages(out["messages"], remove_all)
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
        result: Callable[[dict], dict],
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
        self.final: dict | None = None
        #: LangGraph's `print_mode` (or `debug=True`): these modes' chunks are printed as the
        #: graph prints them, whether or not they are streamed.
        self.print_modes: list[str] = []
        #: The subagents' private state keys (see `_data`).
        self.subgraph_private: frozenset[str] = frozenset()
        #: The caller's ``output_keys``, when not the graph's own (`_output_keys`).
        self.output: Any = None

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
            return self.result(payload)
        if mode == "messages":
            message, meta, is_chunk = payload
            if not is_chunk:
                message = _convert.from_core(message)
            full = {**self.metadata, **meta}
            if self.tags:
                full["tags"] = list(self.tags)
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
        ``values`` (in v2, a values part carrying them)."""
        chunks = []
        for mode in self.modes:
            if mode == "updates":
                data: Any = {"__interrupt__": interrupts}
            elif mode == "values":
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

    def shape(self, item: tuple) -> tuple[bool, Any]:
        """``(True, chunk)`` to yield, or ``(False, None)`` for the final state (kept in
        ``self.final``)."""
        mode, ns, payload = item
        if mode == "done":
            self.final = self.result(payload)
            return False, None
        data = self._data(mode, payload, ns)
        if mode == "values" and self.output is not None and not ns:
            report, data = self.output.values(data)
            if not report:
                return False, None
        if mode in self.print_modes:
            _print_chunk(mode, ns if self.subgraphs else (), data)
        if mode not in self.modes:
            return False, None
        if self.version == "v2":
            part = {"type": mode, "ns": ns, "data": data}
            if mode == "values":
                part["interrupts"] = ()
            return True, part
        if self.subgraphs:
            return True, ((ns, data) if self.single else (ns, mode, data))
        return True, (data if self.single else (mode, data))


def print_modes(kwargs: dict, debug: bool) -> list[str]:
    """LangGraph's ``print_mode`` from a call's ``kwargs`` (taken out of them): the modes whose
    chunks are printed; ``debug`` (the call's or the graph's) prints updates and values."""
    modes = kwargs.pop("print_mode", ())
    if kwargs.pop("debug", None) or debug:
        return ["updates", "values"]
    return [modes] if isinstance(modes, str) else list(modes or ())


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
