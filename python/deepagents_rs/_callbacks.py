"""LangChain callbacks and LangSmith tracing for a run, as LangGraph raises them.

The core reports each run it starts (the invocation, each node, the tools and model calls it
executes itself, a subagent inside its ``task`` tool run) to a ``RunTracer``, which drives
LangChain's own callback managers: ``CallbackManager.configure`` with the run config's
``callbacks``, tags and metadata, then ``get_child("graph:step:N")`` per node as LangGraph does.
LangChain models and tools are handed their node's ``get_child("seq:step:1")`` and raise their
own events. With ``LANGSMITH_TRACING`` set, ``configure`` adds LangSmith's tracer as usual.
"""

from __future__ import annotations

import contextvars
import functools
from typing import Any

from . import _convert

#: The LangChain chat model class deepagents builds for each native provider.
_CHAT_MODEL_CLASSES = {"anthropic": "ChatAnthropic", "openai": "ChatOpenAI"}

#: deepagents' metadata on a subagent's runs (LangGraph's ``create_agent`` graph).
SUBAGENT_INTEGRATION = "langchain_create_agent"


def tracing_enabled(config: dict) -> bool:
    """Whether a run needs a tracer: callbacks given, a LangChain context handler listening
    (``collect_runs()``, ``get_usage_metadata_callback()``...: LangChain's configure adds it
    to every run), or LangSmith tracing on."""
    if config.get("callbacks") or context_handlers():
        return True
    tracing_is_enabled = _langsmith_tracing()
    return tracing_is_enabled is not None and bool(tracing_is_enabled())


@functools.cache
def _langsmith_tracing() -> Any:
    """LangSmith's ``tracing_is_enabled`` (None without LangSmith): imported at the first run
    and kept, as every run asks (an import statement at each call costs microseconds)."""
    try:
        from langsmith.utils import tracing_is_enabled
    except ImportError:
        return None
    return tracing_is_enabled


def child_callbacks(run: Any) -> Any:
    """The callbacks a model or tool inside ``run`` (a node's run manager) is called with. Its
    metadata has the node's task namespace as ``checkpoint_ns``, as LangGraph's config for a
    call inside a task carries it."""
    child = run.get_child("seq:step:1")
    namespace = (getattr(run, "inheritable_metadata", None) or {}).get("langgraph_checkpoint_ns")
    if namespace and "checkpoint_ns" not in (child.inheritable_metadata or {}):
        child.add_metadata({"checkpoint_ns": namespace})
    return child


@functools.cache
def _hooks() -> list:
    """LangChain's configure hooks (``_langchain_private._configure_hooks``, the same list
    LangChain adds to), none without LangChain: imported at the first call and kept (the
    answer without LangChain too), as every step of a run asks (an import at each call
    costs more than a microsecond)."""
    try:
        from deepagents_rs._langchain_private import _configure_hooks
    except ModuleNotFoundError:
        return []
    return _configure_hooks


def context_handlers() -> list[tuple[Any, bool]]:
    """The handlers LangChain's ``CallbackManager.configure`` adds from context variables
    (its configure hooks: ``collect_runs()``, ``get_usage_metadata_callback()``...) set in
    the current context, each with whether children inherit it."""
    _configure_hooks = _hooks()
    return [(var.get(), inheritable) for var, inheritable, *_ in _configure_hooks if var.get() is not None]


#: The context handlers `clear_context_handlers` unset, by their variables: for the core's
#: run started inside the graph that ran without them (`with_cleared_handlers`).
_CLEARED: contextvars.ContextVar[tuple] = contextvars.ContextVar("deepagents_rs_cleared_handlers", default=())


def clear_context_handlers() -> list[tuple[Any, Any]]:
    """Unsets the context handlers (see `context_handlers`) in the current context, for a
    graph of ours whose own runs nobody sees (the core reports the run); the tokens to
    `restore_context_handlers` with."""
    _configure_hooks = _hooks()
    cleared = tuple((var, var.get()) for var, *_ in _configure_hooks if var.get() is not None)
    if not cleared:
        return []
    return [(_CLEARED, _CLEARED.set(cleared)), *((var, var.set(None)) for var, _ in cleared)]


def restore_context_handlers(tokens: list[tuple[Any, Any]]) -> None:
    for var, token in reversed(tokens):
        var.reset(token)


def with_cleared_handlers(start: Any, *args: Any, **kwargs: Any) -> Any:
    """``start(*args, **kwargs)`` (the core's run, which keeps the contextvars it starts
    with) with the context handlers `clear_context_handlers` unset back: the run's models
    and tools report to them as the caller's own runs do."""
    cleared = _CLEARED.get()
    if not cleared:
        return start(*args, **kwargs)
    context = contextvars.copy_context()
    for var, value in cleared:
        context.run(var.set, value)
    context.run(_CLEARED.set, ())
    return context.run(start, *args, **kwargs)


def _with_handlers(manager: Any, handlers: list[tuple[Any, bool]]) -> Any:
    """``manager`` with ``handlers`` (see `context_handlers`) it lacks added, as LangChain's
    configure adds them to the manager of each run it configures."""
    for handler, inheritable in handlers:
        if not any(h is handler for h in manager.handlers):
            manager.add_handler(handler, inheritable)
    return manager


#: The configurable keys LangGraph copies into a run's metadata (when set and not there).
_PROPAGATED_TO_METADATA = (
    "thread_id",
    "checkpoint_id",
    "checkpoint_ns",
    "task_id",
    "run_id",
    "assistant_id",
    "graph_id",
)
#: Words that keep a configurable value out of LangSmith's metadata.
_SECRET_WORDS = ("key", "token", "secret", "password", "auth")


def _run_metadata(metadata: dict, configurable: dict) -> dict:
    """The invocation's metadata with LangGraph's configurable keys added."""
    out = dict(metadata)
    for key in _PROPAGATED_TO_METADATA:
        if key not in out and configurable.get(key):
            out[key] = configurable[key]
    return out


def _langsmith_metadata(configurable: dict) -> dict | None:
    """What LangGraph shows LangSmith's tracer alone of the configurable: plain values whose
    names are neither internal nor secret-like."""
    shown = {
        key: value
        for key, value in configurable.items()
        if not key.startswith("__")
        and isinstance(value, (str, int, float, bool))
        and not any(word in key.casefold() for word in _SECRET_WORDS)
    }
    return shown or None


def callbacks_inside(run: Any) -> Any:
    """The callbacks of a call made inside ``run``: a node's ``seq:step:1`` child, or a tool
    run's plain child (what LangChain hands a tool's function, ``compact_conversation``'s)."""
    from langchain_core.callbacks import CallbackManagerForToolRun

    return run.get_child() if isinstance(run, CallbackManagerForToolRun) else child_callbacks(run)


def _messages(raw: list) -> list:
    return [_convert.from_core(m) for m in raw]


def _state(raw: dict, result: Any) -> dict:
    return result(raw) if result is not None else {**raw, "messages": _messages(raw.get("messages", []))}


class RunTracer:
    """One invocation's tracer; see the module docstring."""

    def __init__(self, config: dict, metadata: dict, root_input: Any, result: Any) -> None:
        self.config = config
        self.metadata = _run_metadata(metadata, config.get("configurable") or {})
        # Inside a parent LangGraph graph the nodes' namespaces continue the parent task's
        # (LangGraph's messages stream reads a run's subgraph from there).
        configurable = config.get("configurable") or {}
        self._parent_ns = (configurable.get("checkpoint_ns") or "") if "__pregel_task_id" in configurable else ""
        self.root_input = root_input
        self.result = result
        #: The caller's context handlers, for the runs the core reports from its threads.
        self._context_handlers = context_handlers()
        # The invocation's own run. A stream opens it before its first chunk and ends it after
        # its last one, as LangGraph's loop does (LangChain's event stream drops the chunks
        # of a run it has not seen start, or has seen end).
        self._root: Any = None
        self._root_end: tuple | None = None
        self._holds_root_end = False
        self._root_closed = False
        # Set by a stream whose caller is LangChain's event stream (see `_lockstep`).
        self.lockstep: Any = None
        # Graph nodes' runs (a subagent's included), and the invocation's own nodes'.
        self._node_runs: set = set()
        self._top_nodes: set = set()
        #: The task namespace of each node run (and of the tool and subagent runs inside it).
        self._namespaces: dict[Any, str] = {}
        #: Tool call ids by their place among their reply's calls (see `_note_calls`).
        self._call_index: dict[Any, int] = {}
        #: The run's config as the core hands it to the run's tasks (a `RunConfig`, which
        #: carries the ids made for them), set once the run has it.
        self.run: Any = None

    def open_root(self, name: str) -> None:
        """Starts the invocation's run now, and holds its end until ``close_root``."""
        self._holds_root_end = True
        self.chain_start(None, name, None, None)

    def close_root(self, error: BaseException | None = None, outputs: Any = None) -> None:
        """Ends the invocation's run opened by ``open_root``: with the end the core reported,
        or else with ``error`` or ``outputs`` (a run the core never started)."""
        if self._root is None or self._root_closed:
            return
        self._root_closed = True
        if self._root_end is not None and error is None:
            method, args = self._root_end
            getattr(self._root, method)(*args)
        elif error is not None:
            self._root.on_chain_error(error)
        else:
            self._root.on_chain_end(outputs)

    # -- chains ---------------------------------------------------------------------------

    def chain_start(self, parent: Any, name: str, step: int | None, inputs: Any, namespace: Any = ()) -> Any:
        from langchain_core.callbacks import CallbackManager

        if parent is None and self._root is not None:
            return self._root
        if parent is None:
            manager = CallbackManager.configure(
                inheritable_callbacks=self.config.get("callbacks"),
                inheritable_tags=self.config.get("tags"),
                inheritable_metadata=self.metadata,
                langsmith_inheritable_metadata=_langsmith_metadata(self.config.get("configurable") or {}),
            )
            _with_handlers(manager, self._context_handlers)
            self._root = manager.on_chain_start(
                None,
                self.root_input,
                name=self.config.get("run_name") or name,
                run_id=self.config.get("run_id"),
            )
            return self._root
        if step is None:
            # A subagent, inside its `task` tool run: deepagents' create_agent graph.
            # Its graph configures its run as any LangChain runnable does (with the
            # context's handlers).
            manager = _with_handlers(parent.get_child(), self._context_handlers)
            manager.add_metadata({"ls_integration": SUBAGENT_INTEGRATION, "lc_agent_name": name})
            _mark_subagent_for_langsmith(manager)
            state = _state(inputs, None)
            # deepagents hands the subagent fresh messages: their ids come with its first step.
            for m in state["messages"]:
                m.id = None
            run = manager.on_chain_start(None, state, name=name)
            # Its nodes' tasks run under the `task` call's.
            self._namespaces[run.run_id] = self._namespaces.get(parent.run_id, self._parent_ns)
            return run
        if self.lockstep is not None and parent is self._root:
            self.lockstep.before_node()
        manager = parent.get_child(f"graph:step:{step}")
        pull = name != "tools"
        # A `tools` task is the model edge's send of one call: its place among the reply's calls.
        call_id = inputs.get("id") if isinstance(inputs, dict) else None
        index = self._call_index.get(call_id, 0)
        namespace = self._task_namespace(namespace, step, name, call_id, index)
        manager.add_metadata(
            {
                "langgraph_step": step,
                "langgraph_node": name,
                "langgraph_triggers": (f"branch:to:{name}",) if pull else ("__pregel_push",),
                "langgraph_path": ("__pregel_pull", name) if pull else ("__pregel_push", index, False),
                "langgraph_checkpoint_ns": namespace,
            }
        )
        if isinstance(inputs, dict) and "name" in inputs and "args" in inputs:
            payload: Any = [inputs]  # a `tools` task traces the call it runs
        else:
            payload = _state(inputs, None)
        run = manager.on_chain_start(None, payload, name=name)
        self._namespaces[run.run_id] = namespace
        self._node_runs.add(run.run_id)
        if parent is self._root:
            self._top_nodes.add(run.run_id)
        return run

    def _task_namespace(self, core_ns: Any, step: int, name: str, call_id: str | None, index: int) -> str:
        """The namespace of the task running node ``name``: LangGraph's derived task id, the
        one the code in the node sees (see `_task_config.node_task`), under its graph's."""
        from ._task_config import traced_namespace

        return traced_namespace(self.run, list(core_ns), step, name, call_id, index)

    def _note_calls(self, outputs: Any) -> None:
        """Each tool call's place among the calls of the model's reply in ``outputs``."""
        for write in outputs if isinstance(outputs, list) else [outputs]:
            for message in (write or {}).get("messages") or () if isinstance(write, dict) else ():
                calls = message.get("tool_calls") if isinstance(message, dict) else None
                for i, call in enumerate(calls or ()):
                    self._call_index[call.get("id")] = i

    def chain_end(self, run: Any, name: str, outputs: Any, kind: str) -> None:
        if name == "model" and kind in ("delta", "writes"):
            self._note_calls(outputs)
        value = self._outputs(name, outputs, kind)
        if run is self._root and self._holds_root_end:
            self._root_end = ("on_chain_end", (value,))
            return
        if run.run_id in self._node_runs:
            _stream_node_output(run, value)
        run.on_chain_end(value)
        if self.lockstep is not None and run.run_id in self._top_nodes:
            self.lockstep.node_ended()

    def chain_error(self, run: Any, error: BaseException) -> None:
        if run is self._root and self._holds_root_end:
            self._root_end = ("on_chain_error", (error,))
            return
        run.on_chain_error(error)

    def _outputs(self, name: str, outputs: Any, kind: str) -> Any:
        if kind == "root":
            return self.result(outputs)
        if kind == "state":
            return _state(outputs, None)
        if kind == "message":
            return _convert.from_core(outputs)
        if kind == "host" or outputs is None:
            return outputs
        if kind == "writes":
            # The model node's list of commands: the reply's write, then each middleware's.
            from langgraph.types import Command

            return [Command(update=self._update(w)[0]) for w in outputs]
        update, command = self._update(outputs)
        if name == "tools" and not command:
            # A file tool's write reaches the state beside its result (deepagents' backends
            # send it to the channel); the tool node's own output is the message alone.
            update.pop("files", None)
        if name == "model" or command:
            from langgraph.types import Command

            return [Command(update=update)]
        return update

    @staticmethod
    def _update(outputs: Any) -> tuple[dict, bool]:
        update = dict(outputs)
        command = update.pop("__command__", False)
        remove_all = update.pop("__remove_all__", False)
        removed = update.pop("__removed__", None)
        if "messages" in update:
            from ._stream import with_removals

            update["messages"] = with_removals(_messages(update["messages"]), removed)
            if remove_all:
                from langchain_core.messages import RemoveMessage

                update["messages"].insert(0, RemoveMessage(id="__remove_all__"))
        return update, command

    # -- tools the core runs itself (`task`) ----------------------------------------------

    def tool_start(self, node: Any, call: dict, description: str) -> Any:
        # As a LangChain tool configures its run: the caller's context handlers join the
        # node's (the core reports from threads of its own, outside the caller's context).
        manager = _with_handlers(child_callbacks(node), self._context_handlers)
        args = call.get("args") or {}
        run = manager.on_tool_start(
            {"name": call["name"], "description": description},
            str(args),
            name=None,
            inputs=args,
            color="green",
            tool_call_id=call.get("id"),
        )
        if node.run_id in self._namespaces:
            self._namespaces[run.run_id] = self._namespaces[node.run_id]
        return run

    def tool_end(self, run: Any, message: dict, command: bool) -> None:
        from langchain_core.messages import ToolMessage

        output: Any = ToolMessage(
            content=message.get("content", ""),
            tool_call_id=message.get("tool_call_id", ""),
            status=message.get("status", "success"),
        )
        if command:
            from langgraph.types import Command

            output = Command(update={"messages": [output]})
        run.on_tool_end(output, name=message.get("name"), color="green")

    def tool_error(self, run: Any, error: BaseException, call_id: str | None = None) -> None:
        run.on_tool_error(error, tool_call_id=call_id)

    # -- models that do not report themselves (native clients) ---------------------------

    def llm_start(self, node: Any, params: dict, messages: list) -> Any:
        manager = child_callbacks(node)
        manager.add_metadata(params)
        # The run is named after the LangChain class deepagents would call for this provider.
        provider = params.get("ls_provider")
        serialized = {"name": _CHAT_MODEL_CLASSES.get(provider) or params.get("ls_model_name") or "chat_model"}
        (run,) = manager.on_chat_model_start(
            serialized,
            [_messages(messages)],
            invocation_params={"_type": params.get("ls_provider"), "stop": None},
            options={"stop": None},
            batch_size=1,
        )
        return run

    def llm_end(self, run: Any, message: dict) -> None:
        from langchain_core.outputs import ChatGeneration, LLMResult

        msg = _convert.from_core(message)
        run.on_llm_end(LLMResult(generations=[[ChatGeneration(message=msg)]]))

    def llm_error(self, run: Any, error: BaseException) -> None:
        run.on_llm_error(error)

    # -- a model call middleware makes inside a node (the summary) --------------------------

    def internal_call_start(self, node: Any, model: Any, params: dict, prompt: str) -> Any:
        """The chain run LangChain's ``with_retry`` wraps a summary call in: named after the
        model, inside ``node`` (the model node's run, or ``compact_conversation``'s), with the summary call's config (``nostream``, and
        ``lc_source``/``lc_internal_call`` metadata) inherited by its attempts."""
        from langchain_core.callbacks import CallbackManager

        config = summary_call_config()
        manager = CallbackManager.configure(
            inheritable_callbacks=callbacks_inside(node),
            inheritable_tags=config["tags"],
            inheritable_metadata=config["metadata"],
        )
        if model is not None:
            name = model.get_name()
        else:
            provider = params.get("ls_provider")
            name = _CHAT_MODEL_CLASSES.get(provider) or params.get("ls_model_name") or "chat_model"
        return manager.on_chain_start(None, prompt, name=name)

    @staticmethod
    def retry_attempt(run: Any, attempt: int) -> Any:
        """The parent of one attempt inside ``run``, as the model calls take a node's run."""
        return _RetryAttempt(run, attempt)


class _RetryAttempt:
    """An attempt of a retried call, given where a node's run manager is: its callbacks are
    the retry run's child, tagged ``retry:attempt:N`` after the first (``RunnableRetry``)."""

    def __init__(self, run: Any, attempt: int) -> None:
        self.run = run
        self.attempt = attempt

    def get_child(self, _tag: str | None = None) -> Any:
        return self.run.get_child(f"retry:attempt:{self.attempt}" if self.attempt > 1 else None)


def summary_call_config() -> dict:
    """The config LangChain's summarization middleware calls its model or summarizer with;
    only ``lc_source`` without LangChain."""
    try:
        from deepagents_rs._langchain_private import _summary_config
    except ModuleNotFoundError:
        return {"metadata": {"lc_source": "summarization"}, "tags": ["nostream"]}
    return _summary_config()


def _stream_node_output(run: Any, value: Any) -> None:
    """A node's output as its one stream chunk, for LangChain's event stream (its
    ``on_chain_stream`` event), as a node LangGraph runs streams it. Only the event stream is
    told: LangGraph's own stream handlers get the run's output from the core's stream."""
    try:
        from deepagents_rs._langchain_private import _AstreamEventsCallbackHandler
    except ModuleNotFoundError:
        return
    for handler in run.handlers:
        if isinstance(handler, _AstreamEventsCallbackHandler):
            for _ in handler.tap_output_iter(run.run_id, iter([value])):
                pass


def _mark_subagent_for_langsmith(manager: Any) -> None:
    """deepagents' ``_subagent_tracing_context``: LangSmith (and only LangSmith) sees the
    subagent's runs with ``ls_agent_type="subagent"``."""
    try:
        from langchain_core.tracers.langchain import LangChainTracer
    except ImportError:
        return
    defaults = {"ls_agent_type": "subagent"}

    def swap(handlers: list) -> list:
        return [
            h.copy_with_metadata_defaults(metadata=defaults) if isinstance(h, LangChainTracer) else h for h in handlers
        ]

    manager.handlers = swap(manager.handlers)
    manager.inheritable_handlers = swap(manager.inheritable_handlers)
