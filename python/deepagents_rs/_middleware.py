"""User middleware called back from the Rust hook chain.

``MiddlewareAdapter`` wraps one LangChain ``AgentMiddleware`` (decorator forms included). The
core calls ``run_hook`` / ``wrap_model_call`` / ``wrap_tool_call`` (or their ``a``-prefixed
coroutines under ``ainvoke``/``astream``) with plain dicts; the adapter builds the objects
LangChain hands middleware (``ModelRequest``, ``ToolCallRequest``, ``Runtime``), calls the
user's method, and turns what it returns back into dicts. ``handler`` arguments re-enter the
core: under ``invoke`` they block, under ``ainvoke`` they are awaited.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import sys
import typing
from typing import Any

from . import _convert
from ._excluded_middleware import acts_only_on
from ._files_context import FilesContext
from ._middleware_context import _node_config, _task_files, _wrapper_task
from ._middleware_results import (
    _as_message,
    _messages_write,
    _tool_output,
    _with_backend_files,
    _with_model_files,
    _with_sent,
    _with_wrapper_writes,
)
from ._tools import _as_command, to_adapter

#: Where deepagents' private middleware the core runs as its own entries live.
_PRIVATE_FACES = (
    ("deepagents_rs.middleware._prompt_caching", "_LazyAnthropicPromptCachingMiddleware"),
    ("deepagents_rs.middleware._tool_exclusion", "_ToolExclusionMiddleware"),
)

HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
JUMP_DESTINATIONS = ("model", "tools", "end")


def core_entries(
    middleware: typing.Sequence[Any], bindables: dict[str, Any], store: Any = None, response_format: Any = None
) -> list[Any]:
    """The user's middleware as the core takes it, in order: deepagents_rs' own faces
    (``MemoryMiddleware``, ``SkillsMiddleware``, ``SummarizationMiddleware``,
    ``SummarizationToolMiddleware``, ``UnsupportedContentMiddleware``) as configurations of the core's entries, any other wrapped
    in a ``MiddlewareAdapter`` that binds ``bindables`` and shows the agent's
    ``response_format``."""
    faces = core_faces()
    out: list[Any] = []
    for m in middleware:
        if isinstance(m, faces):
            out.append(m._core_config(store))
        else:
            adapter = MiddlewareAdapter(m, bindables, response_format)
            adapter.set_bindables(bindables)
            out.append(adapter)
    return out


def core_faces() -> tuple[type, ...]:
    """deepagents_rs' own middleware faces (``MemoryMiddleware``, ``SkillsMiddleware``,
    ``SummarizationMiddleware``, ``SummarizationToolMiddleware``,
    ``UnsupportedContentMiddleware``, and deepagents' private stand-ins once a caller has
    imported them): the core runs each as one of its own entries, never as a Python wrapper."""
    from .middleware.memory import MemoryMiddleware
    from .middleware.skills import SkillsMiddleware
    from .middleware.summarization import SummarizationMiddleware, SummarizationToolMiddleware
    from .middleware.unsupported_content import UnsupportedContentMiddleware

    faces: tuple[type, ...] = (
        MemoryMiddleware,
        SkillsMiddleware,
        SummarizationMiddleware,
        SummarizationToolMiddleware,
        UnsupportedContentMiddleware,
    )
    # deepagents' private stand-ins for the core's own entries, when a caller has imported
    # them (their modules load LangChain, which a deepagents_rs agent need not).
    for module, name in _PRIVATE_FACES:
        loaded = sys.modules.get(module)
        if loaded is not None:
            faces = (*faces, getattr(loaded, name))
    return faces


def _can_jump_to(mw: Any, hook: str) -> list[str]:
    """LangChain's ``_get_can_jump_to``: the sync method's declaration, else the async one's."""
    for attr in (hook, "a" + hook):
        method = getattr(type(mw), attr, None)
        if method is not None and _overrides(mw, attr) and hasattr(method, "__can_jump_to__"):
            return list(method.__can_jump_to__)
    return []


@functools.cache
def _agent_middleware() -> type:
    """LangChain's ``AgentMiddleware``, imported at the first call (not at start-up) and kept:
    `_overrides` asks about every hook of every middleware an agent is made with."""
    from langchain.agents.middleware.types import AgentMiddleware

    return AgentMiddleware


def _overrides(mw: Any, attr: str) -> bool:
    return getattr(type(mw), attr, None) is not getattr(_agent_middleware(), attr, None)


def _in_thread(fn: Any, *args: Any) -> Any:
    """Runs a sync method from async code the way LangChain does: in an executor, in a copy
    of the caller's context."""
    import asyncio

    loop = asyncio.get_running_loop()
    return loop.run_in_executor(None, functools.partial(contextvars.copy_context().run, fn, *args))


class MiddlewareAdapter:
    """See the module docstring. ``bindables`` maps the agent's tool names to what a
    LangChain model binds (the user's tool objects); other tools become spec tools."""

    def __init__(self, mw: Any, bindables: dict[str, Any] | None = None, response_format: Any = None) -> None:
        self.mw = mw
        #: The agent's ``response_format`` as the requests carry it (made on first use).
        self._response_format = response_format
        self._strategy: Any = None
        self.name: str = mw.name
        self.hooks = [h for h in HOOKS if _overrides(mw, h) or _overrides(mw, "a" + h)]
        self.wraps_model = _overrides(mw, "wrap_model_call") or _overrides(mw, "awrap_model_call")
        self.wraps_tool = _overrides(mw, "wrap_tool_call") or _overrides(mw, "awrap_tool_call")
        #: The model classes (by name) its model wrapper acts on; for a request to any other
        #: model the core calls the model without it (``None``: always called).
        self.acts_only_on = acts_only_on(mw) if self.wraps_model else None
        self.tools = [to_adapter(t) for t in (getattr(mw, "tools", None) or [])]
        self._bindables = dict(bindables or {})
        self._tool_objects = {a.name: a.bindable for a in self.tools}
        self._jumps = {h: _can_jump_to(mw, h) for h in self.hooks}

    def set_bindables(self, bindables: dict[str, Any]) -> None:
        self._bindables = {**bindables, **self._tool_objects}

    # -- objects LangChain hands middleware -------------------------------------------

    @staticmethod
    def _state(raw: dict) -> dict:
        # The core hands the history as LangChain objects it keeps per message.
        state = dict(raw)
        state["messages"] = [_as_message(m) for m in raw.get("messages", [])]
        return state

    @staticmethod
    def _runtime(writer: Any = None, config: Any = None) -> Any:
        from langgraph.runtime import Runtime

        from ._run_context import context_of

        context = context_of(config)
        if writer:
            return Runtime(context=context, store=None, stream_writer=writer)
        return Runtime(context=context, store=None)

    @staticmethod
    def _hook_kwargs(fn: Any, state: dict, runtime: Any, config: Any, writer: Any) -> tuple[list, dict]:
        """LangGraph's injection by parameter name: ``runtime``, ``config``, ``writer`` and
        ``store``; a hook without ``runtime`` is called with the state alone."""
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            return [state, runtime], {}
        kwargs: dict[str, Any] = {}
        if "runtime" in params:
            kwargs["runtime"] = runtime
        if "config" in params:
            kwargs["config"] = config if config is not None else {}
        if "writer" in params:
            kwargs["writer"] = runtime.stream_writer
        if "store" in params:
            kwargs["store"] = None
        positional = [p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if (
            len(positional) >= 2
            and positional[1].name not in kwargs
            and positional[1].default is inspect.Parameter.empty
        ):
            # A hook whose second parameter has another name still gets the runtime there.
            return [state, runtime], {k: v for k, v in kwargs.items() if k != "runtime"}
        return [state], kwargs

    @staticmethod
    def _hook_config(config: Any, node: str) -> dict:
        out = dict(config or {})
        out["metadata"] = {**(out.get("metadata") or {}), "langgraph_node": node}
        return out

    def _tool_object(self, spec: dict) -> Any:
        obj = self._bindables.get(spec["name"])
        if obj is not None:
            return obj
        from ._models import _spec_tool

        return _spec_tool(spec)

    # -- node hooks ---------------------------------------------------------------------

    def _hook_result(self, hook: str, result: Any, before: list[Any]) -> tuple[Any, dict] | None:
        """``(what the stream reports, the write for the core)``."""
        if result is None:
            return None
        update = getattr(result, "update", None)
        if not isinstance(result, dict) and isinstance(update, dict):
            result = update  # a Command(update=...) is taken as its update
        if not isinstance(result, dict):
            raise TypeError(f"{self.name}: a hook must return a dict or None, got {type(result).__name__}")
        delta: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in result.items():
            if key == "messages":
                delta.update(_messages_write(value, before))
            elif key == "jump_to":
                # An unknown destination falls back to the default edge, as in LangChain.
                if value in JUMP_DESTINATIONS:
                    delta["jump_to"] = value
                    delta["jump_declared"] = value in self._jumps.get(hook, ())
            elif key == "files":
                delta["files"] = value
            else:
                extra[key] = value
        if extra:
            delta["extra"] = extra
        return result, delta

    def _node(
        self,
        config: Any,
        node: str,
        place: Any,
        writer: Any,
        asynchronous: bool,
        known: Any = None,
        state: dict | None = None,
    ) -> tuple:
        """``(config, runtime)`` of the task running ``node`` at ``place``, as LangGraph hands
        them (the run's own where no agent graph runs the call); the task reads and writes
        ``state`` (the node's input) through its config's channels (`_task_channels`)."""
        if place is None:
            return self._hook_config(config, node), self._runtime(writer, config)
        from langgraph.runtime import Runtime

        from . import _task_channels
        from ._run_context import RUNTIME_KEY
        from ._task_config import node_task

        task_config, fields = node_task(config, node, place, asynchronous, known)
        if writer:
            fields["stream_writer"] = writer
        configurable = task_config["configurable"]
        runtime = configurable[RUNTIME_KEY] = Runtime(**fields)
        state = state or {}
        channels = _task_channels.TaskChannels(
            FilesContext(state.get("files") or {}), lambda: state, configurable.get(_task_channels.SEND_KEY)
        )
        _task_channels.loop_keys(
            configurable,
            channels,
            place.get("step"),
            task_config.get("recursion_limit"),
            task_config.get("metadata"),
            asynchronous,
        )
        return task_config, runtime

    @staticmethod
    async def _known(config: Any, place: Any) -> Any:
        """Where the task at ``place`` is in the graph following the run, waited for off the
        loop (see `_task_config.step_place`)."""
        if place is None:
            return None
        from ._task_config import astep_place

        return await astep_place((config or {}).get("configurable") or {}, place)

    def run_hook(self, hook: str, raw_state: dict, config: Any, writer: Any, place: Any = None) -> Any:
        fn = getattr(self.mw, hook)
        if not _overrides(self.mw, hook):
            # LangGraph's RunnableCallable with no sync function.
            name = getattr(getattr(self.mw, "a" + hook), "__name__", "a" + hook)
            raise TypeError(
                f'No synchronous function provided to "{name}".\nEither initialize with a synchronous '
                "function or invoke via the async API (ainvoke, astream, etc.)"
            )
        state = self._state(raw_state)
        config, runtime = self._node(config, f"{self.name}.{hook}", place, writer, False, state=raw_state)
        args, kwargs = self._hook_kwargs(fn, state, runtime, config, writer)
        with _node_config(config), _task_files(config, raw_state) as (files, channels):
            result = fn(*args, **kwargs)
        return _with_backend_files(self._hook_result(hook, _with_sent(result, channels), state["messages"]), files)

    async def arun_hook(self, hook: str, raw_state: dict, config: Any, writer: Any, place: Any = None) -> Any:
        state = self._state(raw_state)
        known = await self._known(config, place)
        config, runtime = self._node(config, f"{self.name}.{hook}", place, writer, True, known, raw_state)
        # LangGraph runs a sync-only hook of an async run on the loop's thread.
        is_async = _overrides(self.mw, "a" + hook)
        fn = getattr(self.mw, "a" + hook if is_async else hook)
        args, kwargs = self._hook_kwargs(fn, state, runtime, config, writer)
        with _node_config(config), _task_files(config, raw_state) as (files, channels):
            result = await fn(*args, **kwargs) if is_async else fn(*args, **kwargs)
        return _with_backend_files(self._hook_result(hook, _with_sent(result, channels), state["messages"]), files)

    # -- wrap_model_call ----------------------------------------------------------------

    def _model_request(self, raw: dict, runtime: Any) -> Any:
        from langchain.agents.middleware.types import ModelRequest

        system = _convert.from_core(raw["system"]) if raw["system"] is not None else None
        tools = [self._tool_object(t) for t in raw["tools"]]
        self._offered = {t["name"]: obj for t, obj in zip(raw["tools"], tools, strict=True)}
        return ModelRequest(
            model=raw["model"] if raw["model"] is not None else raw["model_id"],
            messages=[_as_message(m) for m in raw["messages"]],
            system_message=system,
            tools=tools,
            tool_choice=raw["tool_choice"],
            response_format=self._request_format(),
            state=self._state(raw["state"]),
            runtime=runtime,
            model_settings=dict(raw.get("model_settings") or {}),
        )

    def _request_format(self) -> Any:
        """create_agent's ``request.response_format``: the strategy given, a bare schema as
        an ``AutoStrategy``."""
        rf = self._response_format
        if rf is not None and self._strategy is None:
            from langchain.agents.structured_output import AutoStrategy, ProviderStrategy, ToolStrategy

            is_strategy = isinstance(rf, (AutoStrategy, ProviderStrategy, ToolStrategy))
            self._strategy = rf if is_strategy else AutoStrategy(schema=rf)
        return self._strategy

    def _request_raw(self, request: Any, original: Any) -> dict:
        from ._models import ModelAdapter

        tools: list[Any] = []
        for t in request.tools or []:
            if isinstance(t, dict):
                tools.append(to_adapter(t))
            elif t.name in self._offered:
                # One of the agent's tools; a copy with a description of its own (e.g.
                # FilesystemMiddleware's grep without the execute line) is offered so.
                handed = self._offered[t.name]
                described = t is not handed and getattr(t, "description", None) != getattr(handed, "description", None)
                tools.append((t.name, t.description) if described else t.name)
            else:
                # A tool the agent does not have: offered to the model as is (a call to it
                # gets the tool node's not-a-valid-tool answer, as in deepagents).
                tools.append(to_adapter(t))
        system = request.system_message
        out = {
            "system": _convert.to_core(system) if system is not None else None,
            # Objects are passed back as they are: the core knows the ones it handed out.
            "messages": list(request.messages),
            "tools": tools,
            "tool_choice": request.tool_choice if isinstance(request.tool_choice, str) else None,
            "model_settings": dict(request.model_settings or {}),
        }
        if request.model is not original.model:
            out["model_adapter"] = ModelAdapter(request.model, {**self._bindables})
        if request.response_format is not original.response_format:
            from ._structured_override import override_format

            out["response_format"] = override_format(request, self._request_format())
        return out

    @staticmethod
    def _model_response(raw: dict) -> Any:
        from langchain.agents.middleware.types import ModelResponse

        return ModelResponse(
            result=[_convert.from_core(m) for m in raw["messages"]],
            structured_response=raw["structured_response"],
        )

    @staticmethod
    def _response_raw(result: Any) -> dict:
        from langchain.agents.middleware.types import ModelResponse
        from langchain_core.messages import AIMessage

        if isinstance(result, AIMessage):
            return {"messages": [_convert.to_core(result)], "structured_response": None}
        if isinstance(result, ModelResponse):
            return {
                "messages": [_convert.to_core(m) for m in result.result],
                "structured_response": result.structured_response,
            }
        inner = getattr(result, "model_response", None)
        if isinstance(inner, ModelResponse):
            # ExtendedModelResponse: the command's update lands after the model's messages.
            out = MiddlewareAdapter._response_raw(inner)
            command = getattr(result, "command", None)
            if command is not None:
                for attr, what in (("goto", "goto"), ("resume", "resume"), ("graph", "graph")):
                    if getattr(command, attr, None):
                        hint = (
                            " Use the jump_to state field with before_model/after_model hooks instead."
                            if attr == "goto"
                            else ""
                        )
                        raise NotImplementedError(
                            f"Command {what} is not yet supported in wrap_model_call middleware.{hint}"
                        )
                update = dict(command.update or {})
                extra_messages = update.pop("messages", [])
                from langchain_core.messages import convert_to_messages

                messages = [_convert.to_core(m) for m in convert_to_messages(extra_messages)]
                out["commands"] = [{"messages": messages, "extra": update}]
            return out
        raise TypeError(f"wrap_model_call must return a ModelResponse or an AIMessage, got {type(result).__name__}")

    def wrap_model_call(self, raw: dict, handler: Any, config: Any, place: Any = None) -> dict:
        # Without a sync implementation, AgentMiddleware's own raises LangChain's error.
        config, runtime = self._node(config, "model", place, None, False, state=raw["state"])
        request = self._model_request(raw, runtime)

        def call(r: Any) -> Any:
            return self._model_response(handler(self._request_raw(r, request)))

        with _node_config(config), _task_files(config, raw["state"]) as (files, _channels):
            out = self._response_raw(self.mw.wrap_model_call(request, call))
        return _with_model_files(out, files)

    async def awrap_model_call(self, raw: dict, handler: Any, config: Any, place: Any = None) -> dict:
        known = await self._known(config, place)
        config, runtime = self._node(config, "model", place, None, True, known, state=raw["state"])
        request = self._model_request(raw, runtime)

        async def call(r: Any) -> Any:
            return self._model_response(await handler(self._request_raw(r, request)))

        with _node_config(config), _task_files(config, raw["state"]) as (files, _channels):
            out = self._response_raw(await self.mw.awrap_model_call(request, call))
        return _with_model_files(out, files)

    # -- wrap_tool_call -----------------------------------------------------------------

    def _tool_request(
        self, call: dict, raw_state: dict, config: Any, place: Any, asynchronous: bool, known: Any = None
    ) -> tuple:
        """``(the tools task's config, the request)``."""
        from langchain.agents.middleware import ToolCallRequest
        from langchain.tools import ToolRuntime

        from ._task_config import tool_view

        tool = self._bindables.get(call["name"])
        if tool is not None and not hasattr(tool, "invoke"):
            tool = None
        state = self._state(raw_state)
        config, node_runtime = self._node(config, "tools", place, None, asynchronous, known, raw_state)
        runtime = ToolRuntime(
            state=state,
            context=node_runtime.context,
            config=tool_view(config) if place is not None else dict(config or {}),
            stream_writer=lambda _: None,
            tool_call_id=call.get("id"),
            store=node_runtime.store,
            execution_info=node_runtime.execution_info,
        )
        return config, ToolCallRequest(tool_call=call, tool=tool, state=state, runtime=runtime)

    @staticmethod
    def _tool_result(result: Any, call: dict, config: Any) -> tuple[dict, Any, dict | None, dict | None]:
        """``(tool message, files, other state keys, what else the command writes)``: a
        returned ``Command`` is read as a tool's own (LangGraph's tool node checks what the
        middleware returns as it checks what a tool returns)."""
        from langchain_core.messages import ToolMessage

        from ._tool_commands import COMMAND_MARKER, NO_WRITE, command_output

        if isinstance(result, ToolMessage):
            return _convert.to_core(result), None, None, NO_WRITE
        command = _as_command(result)
        if command is None:
            raise TypeError(f"wrap_tool_call must return a ToolMessage or a Command, got {result!r}")
        content, status, artifact, update, write = command_output(command, call["name"], call.get("id"), config)
        update.pop(COMMAND_MARKER, None)
        own = write.get("answer") or {}
        message = ToolMessage(
            content=content,
            status=status,
            artifact=artifact,
            tool_call_id=call.get("id"),
            name=own.get("name"),
            id=own.get("id"),
            response_metadata=own.get("response_metadata") or {},
            additional_kwargs=own.get("additional_kwargs") or {},
        )
        files = update.pop("files", None)
        return _convert.to_core(message), files, update or None, write

    def wrap_tool_call(self, call: dict, raw_state: dict, handler: Any, config: Any, place: Any = None) -> tuple:
        task_config, request = self._tool_request(call, raw_state, config, place, False)
        inner: list[dict] = []

        def call_next(r: Any) -> Any:
            inner.append(handler(dict(r.tool_call)))
            return _tool_output(inner[-1])

        with _wrapper_task(config, task_config, raw_state) as channels:
            result = self.mw.wrap_tool_call(request, call_next)
        return _with_wrapper_writes(self._tool_result(result, call, config), channels, inner)

    async def awrap_tool_call(self, call: dict, raw_state: dict, handler: Any, config: Any, place: Any = None) -> tuple:
        known = await self._known(config, place)
        task_config, request = self._tool_request(call, raw_state, config, place, True, known)

        inner: list[dict] = []

        async def call_next(r: Any) -> Any:
            inner.append(await handler(dict(r.tool_call)))
            return _tool_output(inner[-1])

        with _wrapper_task(config, task_config, raw_state) as channels:
            result = await self.mw.awrap_tool_call(request, call_next)
        return _with_wrapper_writes(self._tool_result(result, call, config), channels, inner)
