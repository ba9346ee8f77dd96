"""Shared pieces of the user-middleware parity tests: running a scenario through both
implementations with per-implementation middleware (``run_pair``, ``check``), the record
helpers, the tools and the middleware several tests use."""

from __future__ import annotations

import asyncio
import copy
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired

import deepagents
import deepagents_rs
from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
from langchain.agents.middleware.types import ExtendedModelResponse, OmitFromOutput, PrivateStateAttr
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, tool
from langgraph.types import Command

from .harness import (
    Both,
    Outcome,
    ScriptedChatModel,
    ai_tool_calls,
    assert_parity,
    assert_same_error,
    call_view,
    id_shapes,
)

USER = {"messages": [{"role": "user", "content": "please help"}]}


RunMode = Literal["invoke", "ainvoke", "stream", "astream"]


# --------------------------------------------------------------------------------------------
# Running a scenario through both implementations with per-implementation middleware
# --------------------------------------------------------------------------------------------


@dataclass
class Ctx:
    """What a ``setup`` factory gets: a fresh log, the run's main model, a place for extra models."""

    impl: str
    model: ScriptedChatModel
    log: list[Any] = field(default_factory=list)
    models: dict[str, ScriptedChatModel] = field(default_factory=dict)


Setup = Callable[[Ctx], dict[str, Any]]


@dataclass
class Run:
    outcome: Outcome
    ctx: Ctx
    mode: RunMode
    #: Stream modes: one ``(node, shape)`` per chunk.
    nodes: list[tuple[str, Any]] = field(default_factory=list)


def _shape(update: Any) -> Any:
    """A stream update without message contents: None, the sorted keys, or a list of those."""
    if update is None:
        return None
    if isinstance(update, dict):
        return sorted(update)
    if isinstance(update, (list, tuple)):
        return [_shape(u) for u in update]
    return type(update).__name__


def _run_one(impl: str, script: Sequence[Any], inp: Any, setup: Setup, mode: RunMode, config: Any) -> Run:
    module = deepagents if impl == "deepagents" else deepagents_rs
    model = ScriptedChatModel(list(script))
    ctx = Ctx(impl=impl, model=model)
    kwargs = setup(ctx)
    outcome = Outcome(impl=impl, model=model)
    run = Run(outcome=outcome, ctx=ctx, mode=mode)
    agent = module.create_deep_agent(model=model, **kwargs)
    inp = copy.deepcopy(inp)
    outcome.input = inp

    def record(chunk: dict[str, Any]) -> None:
        run.nodes.extend((node, _shape(update)) for node, update in chunk.items())

    async def astream() -> None:
        async for chunk in agent.astream(inp, config=config):
            record(chunk)

    try:
        if mode == "invoke":
            outcome.result = agent.invoke(inp, config=config)
        elif mode == "ainvoke":
            outcome.result = asyncio.run(agent.ainvoke(inp, config=config))
        elif mode == "stream":
            for chunk in agent.stream(inp, config=config):
                record(chunk)
        else:
            asyncio.run(astream())
    except Exception as exc:  # noqa: BLE001 - compared below
        outcome.error = exc
    return run


def run_pair(
    script: Sequence[Any],
    setup: Setup,
    inp: Any = USER,
    *,
    mode: RunMode = "invoke",
    config: dict[str, Any] | None = None,
) -> Both:
    """``harness.run_both`` with a ``setup(ctx) -> create kwargs`` factory run once per implementation.

    ``both.extras``: ``ref``/``rs`` are the ``Run``s (log, extra models, stream nodes)."""
    ref = _run_one("deepagents", script, inp, setup, mode, config)
    rs = _run_one("deepagents_rs", script, inp, setup, mode, config)
    return Both(ref=ref.outcome, rs=rs.outcome, extras={"ref": ref, "rs": rs})


def _assert_calls(ref_calls: list, rs_calls: list, what: str = "model") -> None:
    a = [call_view(c) for c in ref_calls]
    b = [call_view(c) for c in rs_calls]
    assert len(b) == len(a), f"{what} calls: deepagents {len(a)}, deepagents_rs {len(b)}"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        assert y == x, f"{what} call {i} differs"
        assert id_shapes(rs_calls[i].messages) == id_shapes(ref_calls[i].messages), f"{what} call {i}: id shapes"


def check(both: Both, *, concurrent: bool = False, error: bool = False) -> tuple[dict[str, Any], list[Any]]:
    """Everything compared: model calls (also of extra models), result or error, hook logs and,
    for stream runs, the node sequences. Returns the reference result ({} for errors and
    stream runs) and the reference log.

    ``concurrent``: parallel tool calls run concurrently, so their hook records are compared
    without their order.
    ``error``: the scenario is expected to raise (otherwise the reference must not)."""
    ref_run: Run = both.extras["ref"]
    rs_run: Run = both.extras["rs"]
    if error:
        assert both.ref.error is not None, "deepagents did not raise"
    else:
        assert both.ref.error is None, f"deepagents raised {both.ref.error!r}"
    if ref_run.mode in ("stream", "astream"):
        _assert_calls(both.ref.calls, both.rs.calls)
        if both.ref.error is not None or both.rs.error is not None:
            assert_same_error(both)
        result: dict[str, Any] = {}
    else:
        result = assert_parity(both)
    assert sorted(rs_run.ctx.models) == sorted(ref_run.ctx.models)
    for key, ref_model in ref_run.ctx.models.items():
        _assert_calls(ref_model.calls, rs_run.ctx.models[key].calls, what=key)
    if concurrent:
        assert sorted(map(repr, rs_run.ctx.log)) == sorted(map(repr, ref_run.ctx.log)), "hook records differ"
    else:
        assert rs_run.ctx.log == ref_run.ctx.log, "hook records differ"
    assert rs_run.nodes == ref_run.nodes, "stream node sequence differs"
    return result, ref_run.ctx.log


def ref_nodes(both: Both) -> list[str]:
    return [node for node, _ in both.extras["ref"].nodes]


# --------------------------------------------------------------------------------------------
# Record helpers
# --------------------------------------------------------------------------------------------


def msgs(messages: Sequence[Any]) -> list[tuple[str, Any, list[str]]]:
    """(type, content, tool call names) of each message."""
    return [
        (
            m.type,
            copy.deepcopy(m.content),
            [tc["name"] for tc in getattr(m, "tool_calls", None) or []],
        )
        for m in messages
    ]


def tool_names(tools: Sequence[Any]) -> list[str]:
    names = []
    for t in tools:
        if isinstance(t, BaseTool):
            names.append(t.name)
        elif isinstance(t, dict):
            names.append(t.get("function", {}).get("name", t.get("name")))
        else:
            names.append(f"<{type(t).__name__}>")
    return names


def runtime_view(runtime: Any) -> dict[str, Any]:
    return {
        "type": type(runtime).__name__,
        "context": runtime.context,
        "store": runtime.store,
        "stream_writer": callable(runtime.stream_writer),
    }


def request_view(request: ModelRequest) -> dict[str, Any]:
    return {
        "type": type(request).__name__,
        "messages": msgs(request.messages),
        "system_message": None if request.system_message is None else msgs([request.system_message]),
        "system_prompt": request.system_prompt,
        "tools": tool_names(request.tools),
        "tools_are_base_tools": all(isinstance(t, (BaseTool, dict)) for t in request.tools),
        "tool_choice": request.tool_choice,
        "response_format": request.response_format,
        "model_settings": request.model_settings,
        "state_keys": sorted(request.state),
        "state_messages": msgs(request.state["messages"]),
        "runtime": runtime_view(request.runtime),
    }


def response_view(response: Any) -> dict[str, Any]:
    return {
        "type": type(response).__name__,
        "result": msgs(response.result),
        "structured_response": response.structured_response,
    }


def tool_request_view(request: Any) -> dict[str, Any]:
    call = request.tool_call
    return {
        "type": type(request).__name__,
        "tool_call": {"name": call["name"], "args": call["args"], "type": call.get("type")},
        "tool": None if request.tool is None else (isinstance(request.tool, BaseTool), request.tool.name),
        "state_keys": sorted(request.state),
        "state_messages": msgs(request.state["messages"]),
        "runtime": {
            **runtime_view(request.runtime),
            "tool_call_id_matches": request.runtime.tool_call_id == call["id"],
            "state_keys": sorted(request.runtime.state),
        },
    }


def tool_result_view(result: Any) -> Any:
    if isinstance(result, ToolMessage):
        return ("ToolMessage", result.name, result.content, result.status)
    return type(result).__name__


# --------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


# --------------------------------------------------------------------------------------------
# Middleware used by several tests
# --------------------------------------------------------------------------------------------


class Named(AgentMiddleware):
    """Base for test middleware: a log and an optional instance name."""

    def __init__(self, log: list[Any], name: str | None = None) -> None:
        super().__init__()
        self.log = log
        self._name = name

    @property
    def name(self) -> str:
        return self._name or type(self).__name__


def _drive(logic: Any, handler: Callable[[Any], Any]) -> Any:
    """Run a ``*_logic`` generator against a sync handler: each ``yield request`` calls the
    handler (its exception is thrown back in); the generator's return value is the result.
    A logic that is not a generator short-circuits with its return value."""
    if not inspect.isgenerator(logic):
        return logic
    try:
        request = next(logic)
        while True:
            try:
                response = handler(request)
            except Exception as exc:  # noqa: BLE001 - the logic decides
                request = logic.throw(exc)
            else:
                request = logic.send(response)
    except StopIteration as stop:
        return stop.value


async def _adrive(logic: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
    """``_drive`` with an async handler."""
    if not inspect.isgenerator(logic):
        return logic
    try:
        request = next(logic)
        while True:
            try:
                response = await handler(request)
            except Exception as exc:  # noqa: BLE001 - the logic decides
                request = logic.throw(exc)
            else:
                request = logic.send(response)
    except StopIteration as stop:
        return stop.value


class WrapsModel(Named):
    """``wrap_model_call`` and ``awrap_model_call`` from one ``model_logic(request)`` generator."""

    def model_logic(self, request: ModelRequest) -> Any:
        raise NotImplementedError

    def wrap_model_call(self, request, handler):
        return _drive(self.model_logic(request), handler)

    async def awrap_model_call(self, request, handler):
        return await _adrive(self.model_logic(request), handler)


class WrapsTool(Named):
    """``wrap_tool_call`` and ``awrap_tool_call`` from one ``tool_logic(request)`` generator."""

    def tool_logic(self, request: Any) -> Any:
        raise NotImplementedError

    def wrap_tool_call(self, request, handler):
        return _drive(self.tool_logic(request), handler)

    async def awrap_tool_call(self, request, handler):
        return await _adrive(self.tool_logic(request), handler)


class WrapsBoth(WrapsModel, WrapsTool):
    pass


class AllHooks(WrapsBoth):
    """Every hook, recording the order they run in and what they saw."""

    def before_agent(self, state, runtime):
        self.log.append((self.name, "before_agent", msgs(state["messages"])))

    def before_model(self, state, runtime):
        self.log.append((self.name, "before_model", msgs(state["messages"])))

    def after_model(self, state, runtime):
        self.log.append((self.name, "after_model", msgs(state["messages"])))

    def after_agent(self, state, runtime):
        self.log.append((self.name, "after_agent", msgs(state["messages"])))

    def model_logic(self, request):
        self.log.append((self.name, "wrap_model_call:in", msgs(request.messages)))
        response = yield request
        self.log.append((self.name, "wrap_model_call:out", msgs(response.result)))
        return response

    def tool_logic(self, request):
        self.log.append((self.name, "wrap_tool_call:in", request.tool_call["name"], request.tool_call["args"]))
        result = yield request
        self.log.append((self.name, "wrap_tool_call:out", tool_result_view(result)))
        return result


def tool_then_answer(key: str = "a") -> list[Any]:
    return [ai_tool_calls(("lookup", {"key": key}, "c1")), "the answer"]


# --------------------------------------------------------------------------------------------
# Node hooks: before_model / after_model / before_agent / after_agent
# --------------------------------------------------------------------------------------------


class Reminder(Named):
    def before_model(self, state, runtime):
        self.log.append(("before_model", msgs(state["messages"])))
        return {"messages": [HumanMessage("reminder: be brief")]}


class Observer(WrapsBoth):
    """Records what hooks see in ``state`` and ``runtime``."""

    def before_agent(self, state, runtime):
        self.log.append(("before_agent", sorted(state), runtime_view(runtime)))

    def before_model(self, state, runtime):
        self.log.append(("before_model", sorted(state), runtime_view(runtime), msgs(state["messages"])))

    def after_model(self, state, runtime):
        self.log.append(("after_model", sorted(state), runtime_view(runtime), msgs(state["messages"])))

    def after_agent(self, state, runtime):
        self.log.append(("after_agent", sorted(state), runtime_view(runtime)))

    def model_logic(self, request):
        self.log.append(("wrap_model_call", request_view(request), request.model is self.expected_model))
        response = yield request
        self.log.append(("wrap_model_call:response", response_view(response)))
        return response

    def tool_logic(self, request):
        self.log.append(("wrap_tool_call", tool_request_view(request)))
        return (yield request)


class ExtendedResponse(WrapsModel):
    state_schema = None  # NoteState, set below once the class exists

    def model_logic(self, request):
        response = yield request
        self.log.append(("response", response_view(response)))
        return ExtendedModelResponse(
            model_response=response,
            command=Command(update={"note": f"model said {response.result[-1].content}"}),
        )


class NoteState(AgentState):
    note: NotRequired[str]


ExtendedResponse.state_schema = NoteState


# --------------------------------------------------------------------------------------------
# wrap_tool_call
# --------------------------------------------------------------------------------------------


class ModifyToolCall(WrapsTool):
    def tool_logic(self, request):
        self.log.append(("wrap_tool_call", tool_request_view(request)))
        changed = request.override(tool_call={**request.tool_call, "args": {"key": "changed"}})
        result = yield changed
        self.log.append(("result", tool_result_view(result)))
        return result.model_copy(update={"content": result.content.upper()})


class ToolCommand(WrapsTool):
    state_schema = NoteState

    def tool_logic(self, request):
        result = yield request
        return Command(update={"messages": [result], "note": f"tool said {result.content}"})


# --------------------------------------------------------------------------------------------
# Middleware state, tools, names
# --------------------------------------------------------------------------------------------


class CounterState(AgentState):
    counter: NotRequired[int]
    private_counter: NotRequired[Annotated[int, PrivateStateAttr]]
    hidden_note: NotRequired[Annotated[str, OmitFromOutput]]


class Counter(WrapsModel):
    state_schema = CounterState

    def before_agent(self, state, runtime):
        self.log.append(("before_agent", sorted(state), state.get("counter"), state.get("hidden_note")))
        return {"counter": state.get("counter", 0) + 100, "private_counter": 1, "hidden_note": "not in the output"}

    def before_model(self, state, runtime):
        self.log.append(("before_model", sorted(state), state["counter"], state["private_counter"]))
        return {"counter": state["counter"] + 1, "private_counter": state["private_counter"] + 1}

    def model_logic(self, request):
        self.log.append(("wrap_model_call", sorted(request.state), request.state["counter"]))
        return (yield request)

    def after_agent(self, state, runtime):
        self.log.append(
            ("after_agent", sorted(state), state["counter"], state["private_counter"], state["hidden_note"])
        )


@tool
def mw_tool(text: str) -> str:
    """A tool contributed by middleware."""
    return f"middleware tool got {text}"


# --------------------------------------------------------------------------------------------
# Subagents
# --------------------------------------------------------------------------------------------


def task(description: str, subagent_type: str, call_id: str = "t1") -> tuple:
    return ("task", {"description": description, "subagent_type": subagent_type}, call_id)


def _subagent_setup(c: Ctx) -> dict[str, Any]:
    observer = Observer(c.log, "ChildObserver")
    observer.expected_model = c.model
    spec = {
        "name": "helper",
        "description": "Helps.",
        "system_prompt": "You help.",
        "middleware": [observer, Reminder(c.log, "ChildReminder")],
    }
    return {"tools": [lookup], "subagents": [spec]}
