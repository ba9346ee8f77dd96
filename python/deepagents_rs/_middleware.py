"""User middleware called back from the Rust hook chain.

``MiddlewareAdapter`` wraps one LangChain ``AgentMiddleware`` (decorator forms included). The
core calls ``run_hook`` / ``wrap_model_call`` / ``wrap_tool_call`` (or their ``a``-prefixed
coroutines under ``ainvoke``/``astream``) with plain dicts; the adapter builds the objects
LangChain hands middleware (``ModelRequest``, ``ToolCallRequest``, ``Runtime``), calls the
user's method, and turns what it returns back into dicts. ``handler`` arguments re-enter the
core: under ``invoke`` they block, under ``ainvoke`` they are awaited.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import uuid
from typing import Any

from . import _convert
from ._tools import to_adapter

HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
#: deepagents' own middleware, which the core implements: a user entry of the same name
#: would replace it in deepagents.
BUILTIN_NAMES = frozenset(
    {
        "FilesystemMiddleware",
        "SubAgentMiddleware",
        "_ParentNotifierMiddleware",
        "SummarizationMiddleware",
        "PatchToolCallsMiddleware",
        "AnthropicPromptCachingMiddleware",
        "UnsupportedContentMiddleware",
    }
)


def _overrides(mw: Any, attr: str) -> bool:
    from langchain.agents.middleware.types import AgentMiddleware

    return getattr(type(mw), attr, None) is not getattr(AgentMiddleware, attr, None)


def _in_thread(fn: Any, *args: Any) -> Any:
    """Runs a sync method from async code the way LangChain does: in an executor, in a copy
    of the caller's context."""
    loop = asyncio.get_running_loop()
    return loop.run_in_executor(None, functools.partial(contextvars.copy_context().run, fn, *args))


class MiddlewareAdapter:
    """See the module docstring. ``bindables`` maps the agent's tool names to what a
    LangChain model binds (the user's tool objects); other tools become spec tools."""

    def __init__(self, mw: Any, bindables: dict[str, Any] | None = None) -> None:
        self.mw = mw
        self.name: str = mw.name
        if self.name in BUILTIN_NAMES:
            raise NotImplementedError(
                f"deepagents_rs: replacing deepagents' built-in {self.name} with your own is not supported yet; "
                "it is planned."
            )
        self.hooks = [h for h in HOOKS if _overrides(mw, h) or _overrides(mw, "a" + h)]
        self.wraps_model = _overrides(mw, "wrap_model_call") or _overrides(mw, "awrap_model_call")
        self.wraps_tool = _overrides(mw, "wrap_tool_call") or _overrides(mw, "awrap_tool_call")
        self.tools = [to_adapter(t) for t in (getattr(mw, "tools", None) or [])]
        self._bindables = dict(bindables or {})
        self._tool_objects = {a.name: a.bindable for a in self.tools}

    def set_bindables(self, bindables: dict[str, Any]) -> None:
        self._bindables = {**bindables, **self._tool_objects}

    # -- objects LangChain hands middleware -------------------------------------------

    @staticmethod
    def _state(raw: dict) -> dict:
        state = dict(raw)
        state["messages"] = [_convert.from_core(m) for m in raw.get("messages", [])]
        return state

    @staticmethod
    def _runtime(writer: Any = None) -> Any:
        from langgraph.runtime import Runtime

        return Runtime(context=None, store=None, stream_writer=writer) if writer else Runtime(context=None, store=None)

    def _tool_object(self, spec: dict) -> Any:
        obj = self._bindables.get(spec["name"])
        if obj is not None:
            return obj
        from ._models import _spec_tool

        return _spec_tool(spec)

    # -- node hooks ---------------------------------------------------------------------

    def _hook_result(self, result: Any, before: list[Any]) -> tuple[Any, dict] | None:
        """``(what the stream reports, the write for the core)``."""
        if result is None:
            return None
        if not isinstance(result, dict):
            raise TypeError(f"{self.name}: a hook must return a dict or None, got {type(result).__name__}")
        delta: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in result.items():
            if key == "messages":
                delta.update(_messages_write(value, before))
            elif key == "jump_to":
                delta["jump_to"] = value
            elif key == "files":
                delta["files"] = value
            else:
                extra[key] = value
        if extra:
            delta["extra"] = extra
        return result, delta

    def run_hook(self, hook: str, raw_state: dict, config: Any, writer: Any) -> Any:
        fn = getattr(self.mw, hook)
        if not _overrides(self.mw, hook):
            # LangGraph's RunnableCallable with no sync function.
            name = getattr(getattr(self.mw, "a" + hook), "__name__", "a" + hook)
            raise TypeError(
                f'No synchronous function provided to "{name}".\nEither initialize with a synchronous '
                "function or invoke via the async API (ainvoke, astream, etc.)"
            )
        state = self._state(raw_state)
        return self._hook_result(fn(state, self._runtime(writer)), state["messages"])

    async def arun_hook(self, hook: str, raw_state: dict, config: Any, writer: Any) -> Any:
        state = self._state(raw_state)
        runtime = self._runtime(writer)
        if _overrides(self.mw, "a" + hook):
            result = await getattr(self.mw, "a" + hook)(state, runtime)
        else:
            result = await _in_thread(getattr(self.mw, hook), state, runtime)
        return self._hook_result(result, state["messages"])

    # -- wrap_model_call ----------------------------------------------------------------

    def _model_request(self, raw: dict) -> Any:
        from langchain.agents.middleware.types import ModelRequest

        system = _convert.from_core(raw["system"])
        return ModelRequest(
            model=raw["model"] if raw["model"] is not None else raw["model_id"],
            messages=[_convert.from_core(m) for m in raw["messages"]],
            system_message=system,
            tools=[self._tool_object(t) for t in raw["tools"]],
            tool_choice=raw["tool_choice"],
            response_format=None,
            state=self._state(raw["state"]),
            runtime=self._runtime(),
            model_settings={},
        )

    def _request_raw(self, request: Any, original: Any) -> dict:
        from ._models import ModelAdapter

        tools: list[Any] = []
        for t in request.tools or []:
            if isinstance(t, dict):
                tools.append(to_adapter(t))
            else:
                tools.append(t.name)
        system = request.system_message
        out = {
            "system": _convert.to_core(system) if system is not None else {"type": "system", "content": ""},
            "messages": [_convert.to_core(m) for m in request.messages],
            "tools": tools,
            "tool_choice": request.tool_choice if isinstance(request.tool_choice, str) else None,
        }
        if request.model is not original.model:
            out["model_adapter"] = ModelAdapter(request.model, {**self._bindables})
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
        raise NotImplementedError(
            f"deepagents_rs: wrap_model_call returned {type(result).__name__}; "
            "only ModelResponse and AIMessage are supported yet (ExtendedModelResponse is planned)."
        )

    def wrap_model_call(self, raw: dict, handler: Any, config: Any) -> dict:
        # Without a sync implementation, AgentMiddleware's own raises LangChain's error.
        request = self._model_request(raw)

        def call(r: Any) -> Any:
            return self._model_response(handler(self._request_raw(r, request)))

        return self._response_raw(self.mw.wrap_model_call(request, call))

    async def awrap_model_call(self, raw: dict, handler: Any, config: Any) -> dict:
        request = self._model_request(raw)

        async def call(r: Any) -> Any:
            return self._model_response(await handler(self._request_raw(r, request)))

        return self._response_raw(await self.mw.awrap_model_call(request, call))

    # -- wrap_tool_call -----------------------------------------------------------------

    def _tool_request(self, call: dict, raw_state: dict) -> Any:
        from langchain.agents.middleware import ToolCallRequest

        tool = self._bindables.get(call["name"])
        if tool is not None and not hasattr(tool, "invoke"):
            tool = None
        return ToolCallRequest(tool_call=call, tool=tool, state=self._state(raw_state), runtime=self._runtime())

    @staticmethod
    def _tool_result(result: Any) -> tuple[dict, Any]:
        from langchain_core.messages import ToolMessage

        if isinstance(result, ToolMessage):
            return _convert.to_core(result), None
        update = getattr(result, "update", None)
        if isinstance(update, dict):
            messages = [m for m in update.get("messages", []) if isinstance(m, ToolMessage)]
            if len(messages) == 1:
                return _convert.to_core(messages[0]), update.get("files")
        raise TypeError(f"wrap_tool_call must return a ToolMessage or a Command with one, got {result!r}")

    def wrap_tool_call(self, call: dict, raw_state: dict, handler: Any, config: Any) -> tuple[dict, Any]:
        request = self._tool_request(call, raw_state)
        return self._tool_result(
            self.mw.wrap_tool_call(request, lambda r: _convert.from_core(handler(dict(r.tool_call))))
        )

    async def awrap_tool_call(self, call: dict, raw_state: dict, handler: Any, config: Any) -> tuple[dict, Any]:
        request = self._tool_request(call, raw_state)

        async def call_next(r: Any) -> Any:
            return _convert.from_core(await handler(dict(r.tool_call)))

        return self._tool_result(await self.mw.awrap_tool_call(request, call_next))


def _messages_write(value: Any, before: list[Any]) -> dict:
    """A hook's ``messages`` as the core's write, by LangGraph's ``add_messages``: new
    messages are appended (each given an id, in place, as the reducer does); a write that
    removes messages or replaces one by id becomes the whole new list."""
    from langchain_core.messages import RemoveMessage, convert_to_messages
    from langgraph.graph.message import add_messages

    items = value if isinstance(value, list) else [value]
    new = convert_to_messages(items)
    existing = {m.id for m in before if m.id is not None}
    if any(isinstance(m, RemoveMessage) or (m.id is not None and m.id in existing) for m in new):
        merged = add_messages(list(before), new)
        return {"messages": [_convert.to_core(m) for m in merged], "replace": True}
    for m in new:
        if m.id is None:
            m.id = str(uuid.uuid4())
    return {"messages": [_convert.to_core(m) for m in new]}
