"""User middleware through both implementations: ``create_deep_agent(middleware=[...])`` and the
``"middleware"`` key of a SubAgent dict.

Every middleware here records what it saw (message types and contents, request fields, state
keys, the runtime) into a log. Middleware objects are built fresh for each implementation by a
``setup(ctx)`` factory (``run_pair`` below mirrors ``harness.run_both`` with that factory), and a
test compares the two logs as well as what ``assert_parity`` compares (model inputs, results,
errors). Stream tests compare the node sequence of ``agent.stream(input)`` (the default
``updates`` mode): each chunk as ``(node, shape of its update)``.

Records never hold ids (random in both).
"""

from __future__ import annotations

import asyncio
import copy
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired

import deepagents
import deepagents_rs
import pytest
from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
    after_agent,
    after_model,
    before_agent,
    before_model,
    dynamic_prompt,
    hook_config,
    wrap_model_call,
    wrap_tool_call,
)
from langchain.agents.middleware.types import ExtendedModelResponse, OmitFromOutput, PrivateStateAttr
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.types import Command

from .harness import (
    FS_TOOLS,
    MODES,
    Both,
    Outcome,
    ScriptedChatModel,
    ai_tool_calls,
    assert_parity,
    assert_same_error,
    call_view,
    id_shapes,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

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


@tool
def secret(code: str) -> str:
    """A tool the agent was not created with."""
    return f"secret {code}"


def make_flaky(failures: int) -> Callable[[str], str]:
    state = {"calls": 0}

    def flaky(key: str) -> str:
        """Fails the first few times."""
        state["calls"] += 1
        if state["calls"] <= failures:
            raise ValueError(f"flaky failure {state['calls']}")
        return f"flaky value of {key} after {state['calls']} calls"

    return flaky


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


class AsyncAllHooks(Named):
    """The async hooks only."""

    async def abefore_agent(self, state, runtime):
        self.log.append((self.name, "abefore_agent", msgs(state["messages"]), runtime_view(runtime)))

    async def abefore_model(self, state, runtime):
        self.log.append((self.name, "abefore_model", msgs(state["messages"])))
        return {"messages": [HumanMessage("async reminder")]}

    async def aafter_model(self, state, runtime):
        self.log.append((self.name, "aafter_model", msgs(state["messages"])))

    async def aafter_agent(self, state, runtime):
        self.log.append((self.name, "aafter_agent", msgs(state["messages"])))

    async def awrap_model_call(self, request, handler):
        self.log.append((self.name, "awrap_model_call:in", request_view(request)))
        response = await handler(request)
        self.log.append((self.name, "awrap_model_call:out", response_view(response)))
        return response

    async def awrap_tool_call(self, request, handler):
        self.log.append((self.name, "awrap_tool_call:in", tool_request_view(request)))
        result = await handler(request)
        self.log.append((self.name, "awrap_tool_call:out", tool_result_view(result)))
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


@pytest.mark.parametrize("mode", MODES)
def test_before_model_adds_a_message(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [Reminder(c.log)]}, mode=mode)
    result, log = check(both)
    # Runs before each model call; its message is appended through the reducer.
    assert [m.content for m in both.ref.calls[0].messages[1:]] == ["please help", "reminder: be brief"]
    assert len(log) == 2
    assert [m.type for m in result["messages"]] == ["human", "human", "ai", "tool", "human", "ai"]


class Shout(Named):
    def after_model(self, state, runtime):
        last = state["messages"][-1]
        self.log.append(("after_model", msgs(state["messages"]), last.type))
        if last.tool_calls:
            return None
        # Same id: the reducer replaces the message in place.
        return {"messages": [AIMessage(content=last.content.upper(), id=last.id)]}


@pytest.mark.parametrize("mode", MODES)
def test_after_model_rewrites_the_ai_message(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [Shout(c.log)]}, mode=mode)
    result, _ = check(both)
    assert result["messages"][-1].content == "THE ANSWER"
    assert len(result["messages"]) == 4


class Bookends(Named):
    def before_agent(self, state, runtime):
        self.log.append(("before_agent", msgs(state["messages"])))
        return {"messages": [HumanMessage("context from before_agent")]}

    def after_agent(self, state, runtime):
        self.log.append(("after_agent", msgs(state["messages"])))
        return {"messages": [AIMessage("appended by after_agent")]}


@pytest.mark.parametrize("mode", MODES)
def test_before_and_after_agent_updates(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [Bookends(c.log)]}, mode=mode)
    result, log = check(both)
    # Once per invocation each, not once per model call.
    assert [entry[0] for entry in log] == ["before_agent", "after_agent"]
    assert [m.content for m in result["messages"]][-2:] == ["the answer", "appended by after_agent"]
    assert both.ref.calls[0].messages[2].content == "context from before_agent"


class ReplaceHistory(Named):
    def before_model(self, state, runtime):
        self.log.append(("before_model", msgs(state["messages"])))
        if len(state["messages"]) > 2:
            return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("fresh start")]}
        return {"messages": [RemoveMessage(id=state["messages"][0].id), HumanMessage("replacement")]}


@pytest.mark.parametrize("mode", MODES)
def test_before_model_removes_messages(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [ReplaceHistory(c.log)]}, mode=mode)
    result, _ = check(both)
    assert [m.content for m in both.ref.calls[0].messages[1:]] == ["replacement"]
    assert [m.content for m in both.ref.calls[1].messages[1:]] == ["fresh start"]
    assert [m.content for m in result["messages"]] == ["fresh start", "the answer"]


class Boom(Named):
    def before_model(self, state, runtime):
        raise ValueError("boom in before_model")


@pytest.mark.parametrize("mode", MODES)
def test_hook_exception_propagates(mode: str) -> None:
    both = run_pair(["unused"], lambda c: {"middleware": [Boom(c.log)]}, mode=mode)
    check(both, error=True)
    assert isinstance(both.ref.error, ValueError) and str(both.ref.error) == "boom in before_model"


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


@pytest.mark.parametrize("mode", MODES)
def test_what_hooks_see_in_state_runtime_and_requests(mode: str) -> None:
    def setup(c: Ctx) -> dict[str, Any]:
        observer = Observer(c.log)
        observer.expected_model = c.model
        return {"tools": [lookup], "middleware": [observer], "system_prompt": "You are careful."}

    both = run_pair(tool_then_answer(), setup, mode=mode)
    _, log = check(both)
    first = log[0]
    assert first[0] == "before_agent" and first[2]["type"] == "Runtime"
    request = next(e for e in log if e[0] == "wrap_model_call")
    assert request[2] is True  # request.model is the agent's model
    assert request[1]["system_prompt"] == "You are careful."
    tool_request = next(e for e in log if e[0] == "wrap_tool_call")[1]
    assert tool_request["runtime"]["type"] == "ToolRuntime"


class WithConfig(Named):
    def before_model(self, state, runtime, config: RunnableConfig):
        self.log.append(
            ("before_model", config.get("configurable", {}).get("user_key"), config["metadata"].get("langgraph_node"))
        )


@pytest.mark.parametrize("mode", MODES)
def test_hook_with_a_config_parameter(mode: str) -> None:
    both = run_pair(
        ["done"], lambda c: {"middleware": [WithConfig(c.log)]}, mode=mode, config={"configurable": {"user_key": 7}}
    )
    _, log = check(both)
    assert log == [("before_model", 7, "WithConfig.before_model")]


# --------------------------------------------------------------------------------------------
# Order across several middleware (first in the list is outermost)
# --------------------------------------------------------------------------------------------


def _two_all_hooks(c: Ctx) -> dict[str, Any]:
    return {"tools": [lookup], "middleware": [AllHooks(c.log, "A"), AllHooks(c.log, "B")]}


@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_hook_order_across_middleware(mode: str) -> None:
    both = run_pair(tool_then_answer(), _two_all_hooks, mode=mode)
    _, log = check(both)
    order = [(e[0], e[1]) for e in log]
    per_model_call = [
        ("A", "before_model"),
        ("B", "before_model"),
        ("A", "wrap_model_call:in"),
        ("B", "wrap_model_call:in"),
        ("B", "wrap_model_call:out"),
        ("A", "wrap_model_call:out"),
        ("B", "after_model"),
        ("A", "after_model"),
    ]
    assert order == [
        ("A", "before_agent"),
        ("B", "before_agent"),
        *per_model_call,
        ("A", "wrap_tool_call:in"),
        ("B", "wrap_tool_call:in"),
        ("B", "wrap_tool_call:out"),
        ("A", "wrap_tool_call:out"),
        *per_model_call,
        ("B", "after_agent"),
        ("A", "after_agent"),
    ]
    if mode == "stream":
        assert ref_nodes(both) == [
            "PatchToolCallsMiddleware.before_agent",
            "A.before_agent",
            "B.before_agent",
            "A.before_model",
            "B.before_model",
            "model",
            "B.after_model",
            "A.after_model",
            "tools",
            "A.before_model",
            "B.before_model",
            "model",
            "B.after_model",
            "A.after_model",
            "B.after_agent",
            "A.after_agent",
            "_ParentNotifierMiddleware.after_agent",
        ]


# --------------------------------------------------------------------------------------------
# wrap_model_call
# --------------------------------------------------------------------------------------------


class SystemOverride(WrapsModel):
    def __init__(self, log: list[Any], how: str) -> None:
        super().__init__(log)
        self.how = how

    def model_logic(self, request):
        self.log.append(("wrap_model_call", request.system_prompt))
        new = f"{request.system_prompt}\n\nAlso: answer in French."
        if self.how == "system_message":
            request = request.override(system_message=SystemMessage(content=new))
        elif self.how == "system_prompt":
            request = request.override(system_prompt=new)
        else:
            request = request.override(system_message=None)
        self.log.append(("overridden", request.system_prompt))
        return (yield request)


@pytest.mark.parametrize("how", ["system_message", "system_prompt", "none"])
@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_changes_the_system_prompt(mode: str, how: str) -> None:
    both = run_pair(
        ["bonjour"], lambda c: {"middleware": [SystemOverride(c.log, how)], "system_prompt": "Be kind."}, mode=mode
    )
    check(both)
    first = both.ref.calls[0].messages[0]
    if how == "none":
        assert first.type == "human"
    else:
        assert first.content == "Be kind.\n\nAlso: answer in French."


class TrimMessages(WrapsModel):
    def model_logic(self, request):
        self.log.append(("wrap_model_call", msgs(request.messages)))
        return (yield request.override(messages=request.messages[-1:]))


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_trims_messages(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [TrimMessages(c.log)]}, mode=mode)
    result, _ = check(both)
    assert [m.type for m in both.ref.calls[1].messages] == ["system", "tool"]
    assert len(result["messages"]) == 4  # the state keeps everything


class FilterTools(WrapsModel):
    def __init__(self, log: list[Any], drop: str) -> None:
        super().__init__(log)
        self.drop = drop

    def model_logic(self, request):
        self.log.append(("wrap_model_call", tool_names(request.tools)))
        kept = [t for t in request.tools if getattr(t, "name", None) != self.drop]
        return (yield request.override(tools=kept))


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_filters_tools(mode: str) -> None:
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    # The model calls the filtered tool anyway: it still runs (the tool node has it).
    script = [ai_tool_calls(("lookup", {"key": "k"}, "c1")), "done"]
    both = run_pair(script, lambda c: {"tools": [lookup, add], "middleware": [FilterTools(c.log, "lookup")]}, mode=mode)
    result, log = check(both)
    assert log[0] == ("wrap_model_call", [*FS_TOOLS, "task", "lookup", "add"])
    assert both.ref.calls[0].tool_names == [*FS_TOOLS, "task", "add"]
    assert result["messages"][2].content == "value of k"


class DropAllTools(WrapsModel):
    def model_logic(self, request):
        return (yield request.override(tools=[]))


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_removes_every_tool(mode: str) -> None:
    both = run_pair(["done"], lambda c: {"tools": [lookup], "middleware": [DropAllTools(c.log)]}, mode=mode)
    check(both)
    # No tools at all: the model is bound without tools and without tool_choice.
    assert both.ref.calls[0].tools == [] and both.ref.calls[0].kwargs == {}


class ToolChoice(WrapsModel):
    def model_logic(self, request):
        self.log.append(("wrap_model_call", request.tool_choice, request.model_settings))
        return (yield request.override(tool_choice="lookup", model_settings={"temperature": 0.25}))


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_overrides_tool_choice_and_settings(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [ToolChoice(c.log)]}, mode=mode)
    check(both)
    assert both.ref.calls[0].kwargs == {"tool_choice": "lookup", "temperature": 0.25}


class AddUnknownTool(WrapsModel):
    def model_logic(self, request):
        return (yield request.override(tools=[*request.tools, secret]))


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_adds_a_tool_the_agent_does_not_have(mode: str) -> None:
    # deepagents always has a wrap_tool_call (FilesystemMiddleware), so create_agent skips its
    # unknown-tool check: the model is offered the tool, and calling it gets the tool node's error.
    script = [ai_tool_calls(("secret", {"code": "x"}, "c1")), "done"]
    both = run_pair(script, lambda c: {"tools": [lookup], "middleware": [AddUnknownTool(c.log)]}, mode=mode)
    result, _ = check(both)
    assert both.ref.calls[0].tool_names == [*FS_TOOLS, "task", "lookup", "secret"]
    # The list names every tool the tool node has, ``execute`` included (it is only hidden from the model).
    assert result["messages"][2].content == (
        "Error: secret is not a valid tool, try one of [ls, read_file, write_file, edit_file, delete, glob, grep, "
        "execute, task, lookup]."
    )


class RetryModel(WrapsModel):
    def model_logic(self, request):
        first = yield request
        self.log.append(("first", response_view(first)))
        if first.result[-1].content == "bad":
            retry = request.override(messages=[*request.messages, HumanMessage("that was bad, try again")])
            second = yield retry
            self.log.append(("second", response_view(second)))
            return second
        return first


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_calls_the_handler_twice(mode: str) -> None:
    both = run_pair(["bad", "good"], lambda c: {"middleware": [RetryModel(c.log)]}, mode=mode)
    result, _ = check(both)
    assert len(both.ref.calls) == 2
    assert [m.content for m in result["messages"]] == ["please help", "good"]


class ShortCircuit(WrapsModel):
    def __init__(self, log: list[Any], kind: str) -> None:
        super().__init__(log)
        self.kind = kind

    def model_logic(self, request):
        self.log.append(("wrap_model_call", msgs(request.messages)))
        if self.kind == "ai_message":
            return AIMessage("canned answer")
        return ModelResponse(result=[AIMessage("part one"), AIMessage("part two")])


@pytest.mark.parametrize("kind", ["ai_message", "model_response"])
@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_short_circuits(mode: str, kind: str) -> None:
    both = run_pair([], lambda c: {"middleware": [ShortCircuit(c.log, kind)], "name": "bot"}, mode=mode)
    result, _ = check(both)
    assert both.ref.calls == []
    expected = ["canned answer"] if kind == "ai_message" else ["part one", "part two"]
    assert [m.content for m in result["messages"][1:]] == expected
    # The agent's name is set inside the innermost handler only: a short-circuit reply has none.
    assert [m.name for m in result["messages"][1:]] == [None] * len(expected)


class ShortCircuitWithToolCall(WrapsModel):
    def model_logic(self, request):
        if not any(m.type == "tool" for m in request.messages):
            return AIMessage("", tool_calls=[{"name": "lookup", "args": {"key": "z"}, "id": "mw-call-1"}])
        return (yield request)


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_short_circuit_calls_a_tool(mode: str) -> None:
    both = run_pair(["done"], lambda c: {"tools": [lookup], "middleware": [ShortCircuitWithToolCall(c.log)]}, mode=mode)
    result, _ = check(both)
    assert [m.type for m in result["messages"]] == ["human", "ai", "tool", "ai"]
    assert result["messages"][2].content == "value of z"


class SwitchModel(WrapsModel):
    def __init__(self, log: list[Any], other: ScriptedChatModel) -> None:
        super().__init__(log)
        self.other = other

    def model_logic(self, request):
        if len(request.messages) == 1:
            response = yield request.override(model=self.other)
        else:
            response = yield request
        self.log.append(("response", response_view(response)))
        return response


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_switches_the_model(mode: str) -> None:
    def setup(c: Ctx) -> dict[str, Any]:
        c.models["other"] = ScriptedChatModel([ai_tool_calls(("lookup", {"key": "o"}, "c1"))])
        return {"tools": [lookup], "middleware": [SwitchModel(c.log, c.models["other"])], "name": "switcher"}

    both = run_pair(["main model answer"], setup, mode=mode)
    result, _ = check(both)
    assert len(both.extras["ref"].ctx.models["other"].calls) == 1 and len(both.ref.calls) == 1
    # The agent's name goes on replies from the other model too.
    assert [m.name for m in result["messages"] if m.type == "ai"] == ["switcher", "switcher"]


class ExtendedResponse(WrapsModel):
    state_schema = None  # set below

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


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_returns_an_extended_response(mode: str) -> None:
    both = run_pair(["hello"], lambda c: {"middleware": [ExtendedResponse(c.log)]}, mode=mode)
    result, _ = check(both)
    assert result["note"] == "model said hello"


class RaiseAfterHandler(WrapsModel):
    def model_logic(self, request):
        (yield request)
        raise RuntimeError("rejected by middleware")


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_exception_propagates(mode: str) -> None:
    both = run_pair(["hello"], lambda c: {"middleware": [RaiseAfterHandler(c.log)]}, mode=mode)
    check(both, error=True)
    assert isinstance(both.ref.error, RuntimeError)


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


@pytest.mark.parametrize("mode", MODES)
def test_wrap_tool_call_modifies_the_call_and_the_result(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [ModifyToolCall(c.log)]}, mode=mode)
    result, _ = check(both)
    assert result["messages"][2].content == "VALUE OF CHANGED"


class CachedTool(WrapsTool):
    def tool_logic(self, request):
        self.log.append(("wrap_tool_call", request.tool_call["name"]))
        return ToolMessage(content="cached", tool_call_id=request.tool_call["id"])


@pytest.mark.parametrize("mode", MODES)
def test_wrap_tool_call_short_circuits(mode: str) -> None:
    def setup(c: Ctx) -> dict[str, Any]:
        def lookup(key: str) -> str:
            """Look a key up."""
            c.log.append(("tool ran", key))
            return key

        return {"tools": [lookup], "middleware": [CachedTool(c.log)]}

    both = run_pair(tool_then_answer(), setup, mode=mode)
    result, log = check(both)
    assert log == [("wrap_tool_call", "lookup")]
    message = result["messages"][2]
    assert (message.content, message.name, message.status) == ("cached", None, "success")


class RetryTool(WrapsTool):
    def tool_logic(self, request):
        for attempt in range(3):
            try:
                result = yield request
            except ValueError as exc:
                self.log.append(("failed", attempt, str(exc)))
                continue
            self.log.append(("succeeded", attempt, tool_result_view(result)))
            return result
        raise AssertionError("unreachable")


@pytest.mark.parametrize("mode", MODES)
def test_wrap_tool_call_retries_a_failing_tool(mode: str) -> None:
    script = [ai_tool_calls(("flaky", {"key": "k"}, "c1")), "done"]
    both = run_pair(script, lambda c: {"tools": [make_flaky(2)], "middleware": [RetryTool(c.log)]}, mode=mode)
    result, log = check(both)
    assert [e[0] for e in log] == ["failed", "failed", "succeeded"]
    assert result["messages"][2].content == "flaky value of k after 3 calls"


@pytest.mark.parametrize("mode", MODES)
def test_failing_tool_without_retry_raises(mode: str) -> None:
    script = [ai_tool_calls(("flaky", {"key": "k"}, "c1")), "done"]
    both = run_pair(script, lambda c: {"tools": [make_flaky(1)], "middleware": [AllHooks(c.log)]}, mode=mode)
    check(both, error=True)
    assert str(both.ref.error) == "flaky failure 1"


class ToolCommand(WrapsTool):
    state_schema = NoteState

    def tool_logic(self, request):
        result = yield request
        return Command(update={"messages": [result], "note": f"tool said {result.content}"})


@pytest.mark.parametrize("mode", MODES)
def test_wrap_tool_call_returns_a_command(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [ToolCommand(c.log)]}, mode=mode)
    result, _ = check(both)
    assert result["note"] == "tool said value of a"


@pytest.mark.parametrize("mode", MODES)
def test_parallel_tool_calls_through_wrap_tool_call(mode: str) -> None:
    script = [ai_tool_calls(("lookup", {"key": "a"}, "c1"), ("lookup", {"key": "b"}, "c2")), "done"]
    both = run_pair(script, lambda c: {"tools": [lookup], "middleware": [ModifyToolCall(c.log)]}, mode=mode)
    _, log = check(both, concurrent=True)
    assert len(log) == 4


# --------------------------------------------------------------------------------------------
# jump_to
# --------------------------------------------------------------------------------------------


class EndBeforeModel(Named):
    @hook_config(can_jump_to=["end"])
    def before_model(self, state, runtime):
        self.log.append(("before_model", msgs(state["messages"])))
        return {"jump_to": "end", "messages": [AIMessage("stopped before the model")]}


class UndeclaredEndBeforeModel(Named):
    def before_model(self, state, runtime):
        self.log.append(("before_model", msgs(state["messages"])))
        return {"jump_to": "end"}


class EndAfterModel(Named):
    def after_model(self, state, runtime):
        self.log.append((self.name, "after_model", msgs(state["messages"])))
        return {"jump_to": "end"}


class DeclaredEndAfterModel(EndAfterModel):
    @hook_config(can_jump_to=["end"])
    def after_model(self, state, runtime):
        return super().after_model(state, runtime)


class LoopOnce(Named):
    @hook_config(can_jump_to=["model"])
    def after_model(self, state, runtime):
        ais = [m for m in state["messages"] if m.type == "ai"]
        self.log.append(("after_model", msgs(state["messages"])))
        if len(ais) == 1:
            return {"jump_to": "model", "messages": [HumanMessage("try once more")]}
        return None


class ToTools(Named):
    @hook_config(can_jump_to=["tools"])
    def after_model(self, state, runtime):
        self.log.append(("after_model", msgs(state["messages"])))
        if len(state["messages"]) < 3:
            return {"jump_to": "tools"}
        return None


class JumpFromBeforeAgent(Named):
    def __init__(self, log: list[Any], target: str) -> None:
        super().__init__(log)
        self.target = target

    @hook_config(can_jump_to=["end", "model", "tools"])
    def before_agent(self, state, runtime):
        self.log.append(("before_agent", self.target))
        return {"jump_to": self.target}


class ToolsBeforeModel(Named):
    @hook_config(can_jump_to=["tools"])
    def before_model(self, state, runtime):
        return {"jump_to": "tools"}


def _jump_scenarios() -> dict[str, tuple[list[Any], Setup]]:
    two_calls = [ai_tool_calls(("lookup", {"key": "a"}, "c1"), ("lookup", {"key": "b"}, "c2")), "done"]
    return {
        "end_from_before_model": (["unused"], lambda c: {"middleware": [EndBeforeModel(c.log)]}),
        "undeclared_end_from_before_model_is_ignored": (
            tool_then_answer(),
            lambda c: {"tools": [lookup], "middleware": [UndeclaredEndBeforeModel(c.log)]},
        ),
        "end_from_after_model_skips_pending_tools": (
            tool_then_answer(),
            lambda c: {"tools": [lookup], "middleware": [DeclaredEndAfterModel(c.log)]},
        ),
        # The first middleware's after_model is the loop's exit node: its edge reads jump_to
        # whether or not it declared can_jump_to.
        "undeclared_end_from_the_outermost_after_model": (
            tool_then_answer(),
            lambda c: {"tools": [lookup], "middleware": [EndAfterModel(c.log)]},
        ),
        "undeclared_end_from_an_inner_after_model_is_ignored": (
            tool_then_answer(),
            lambda c: {"tools": [lookup], "middleware": [AllHooks(c.log, "Outer"), EndAfterModel(c.log, "Inner")]},
        ),
        "declared_end_from_an_inner_after_model": (
            tool_then_answer(),
            lambda c: {
                "tools": [lookup],
                "middleware": [AllHooks(c.log, "Outer"), DeclaredEndAfterModel(c.log, "Inner")],
            },
        ),
        "model_from_after_model": (
            ["first", "second"],
            lambda c: {"middleware": [AllHooks(c.log, "Outer"), LoopOnce(c.log)]},
        ),
        "tools_from_after_model": (two_calls, lambda c: {"tools": [lookup], "middleware": [ToTools(c.log)]}),
        "tools_from_after_model_without_tool_calls": (
            ["no tools wanted", "done"],
            lambda c: {"tools": [lookup], "middleware": [ToTools(c.log)]},
        ),
        "end_from_before_agent": (
            ["unused"],
            lambda c: {"middleware": [JumpFromBeforeAgent(c.log, "end"), AllHooks(c.log, "Later")]},
        ),
        "model_from_before_agent": (
            ["done"],
            lambda c: {"middleware": [JumpFromBeforeAgent(c.log, "model"), AllHooks(c.log, "Later")]},
        ),
        "unknown_destination_is_ignored": (
            ["done"],
            lambda c: {"middleware": [JumpFromBeforeAgent(c.log, "nowhere"), AllHooks(c.log, "Later")]},
        ),
        "tools_before_any_ai_message": (["unused"], lambda c: {"middleware": [ToolsBeforeModel(c.log)]}),
    }


JUMPS = _jump_scenarios()


@pytest.mark.parametrize("scenario", list(JUMPS))
@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream"])
def test_jump_to(mode: str, scenario: str) -> None:
    script, setup = JUMPS[scenario]
    both = run_pair(script, setup, mode=mode)
    result, _ = check(both, error=scenario == "tools_before_any_ai_message")
    if mode != "invoke":
        return
    calls = len(both.ref.calls)
    if scenario == "end_from_before_model":
        assert calls == 0 and result["messages"][-1].content == "stopped before the model"
        assert "jump_to" not in result
    elif scenario in ("end_from_after_model_skips_pending_tools", "undeclared_end_from_the_outermost_after_model"):
        assert calls == 1 and [m.type for m in result["messages"]] == ["human", "ai"]
    elif scenario in (
        "undeclared_end_from_before_model_is_ignored",
        "undeclared_end_from_an_inner_after_model_is_ignored",
    ):
        assert calls == 2
    elif scenario == "model_from_after_model":
        assert [m.content for m in result["messages"]] == ["please help", "first", "try once more", "second"]
    elif scenario == "end_from_before_agent":
        assert calls == 0
    elif scenario == "tools_before_any_ai_message":
        assert isinstance(both.ref.error, ValueError) and str(both.ref.error) == "No AIMessage found in input"


def test_jump_to_node_sequences() -> None:
    """The reference's routing, spelled out (the parity is in ``test_jump_to``)."""
    start, end = "PatchToolCallsMiddleware.before_agent", "_ParentNotifierMiddleware.after_agent"
    expected = {
        "end_from_before_model": [start, "EndBeforeModel.before_model", end],
        "end_from_after_model_skips_pending_tools": [start, "model", "DeclaredEndAfterModel.after_model", end],
        # Routing to "tools" runs the tool node once on the whole state (no per-call Send).
        "tools_from_after_model": [start, "model", "ToTools.after_model", "tools", "model", "ToTools.after_model", end],
        "tools_from_after_model_without_tool_calls": [
            *[start, "model", "ToTools.after_model", "tools", "model", "ToTools.after_model", end]
        ],
        # "end" from before_agent goes to the exit node (the last after_agent in the list).
        "end_from_before_agent": [start, "JumpFromBeforeAgent.before_agent", "Later.after_agent", end],
        # "model" from before_agent goes to the loop entry (the first before_model), skipping later before_agents.
        "model_from_before_agent": [
            *[start, "JumpFromBeforeAgent.before_agent", "Later.before_model", "model", "Later.after_model"],
            *["Later.after_agent", end],
        ],
    }
    for scenario, nodes in expected.items():
        script, setup = JUMPS[scenario]
        run = _run_one("deepagents", script, USER, setup, "stream", None)
        assert run.outcome.error is None, run.outcome.error
        assert [n for n, _ in run.nodes] == nodes, scenario


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


@pytest.mark.parametrize(
    "inp",
    [
        USER,
        {**USER, "counter": 5, "private_counter": 50, "hidden_note": "from input"},
    ],
    ids=["plain-input", "input-with-custom-keys"],
)
@pytest.mark.parametrize("mode", MODES)
def test_middleware_state_schema(mode: str, inp: dict) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [Counter(c.log)]}, inp, mode=mode)
    result, _ = check(both)
    # Public keys are in the result; PrivateStateAttr and OmitFromOutput keys are not.
    assert result["counter"] == inp.get("counter", 0) + 102
    assert "private_counter" not in result and "hidden_note" not in result and "jump_to" not in result


@tool
def mw_tool(text: str) -> str:
    """A tool contributed by middleware."""
    return f"middleware tool got {text}"


class ToolProvider(WrapsModel):
    def __init__(self, log: list[Any]) -> None:
        super().__init__(log)
        self.tools = [mw_tool]

    def model_logic(self, request):
        self.log.append(("wrap_model_call", tool_names(request.tools)))
        return (yield request)


@pytest.mark.parametrize("mode", MODES)
def test_middleware_tools_are_offered_and_callable(mode: str) -> None:
    script = [ai_tool_calls(("mw_tool", {"text": "hi"}, "c1")), "done"]
    both = run_pair(script, lambda c: {"tools": [lookup], "middleware": [ToolProvider(c.log)]}, mode=mode)
    result, log = check(both)
    # Middleware tools come before the user's tools (after the built-ins and task).
    assert log[0] == ("wrap_model_call", [*FS_TOOLS, "task", "mw_tool", "lookup"])
    assert result["messages"][2].content == "middleware tool got hi"


def test_duplicate_middleware_names_are_rejected() -> None:
    for module in (deepagents, deepagents_rs):
        with pytest.raises(AssertionError) as err:
            module.create_deep_agent(model=ScriptedChatModel([]), middleware=[AllHooks([]), AllHooks([])])
        assert str(err.value) == "Please remove duplicate middleware instances."


def test_duplicate_middleware_names_in_a_subagent_are_rejected() -> None:
    spec = {"name": "helper", "description": "Helps.", "system_prompt": "You help."}
    for module in (deepagents, deepagents_rs):
        with pytest.raises(AssertionError) as err:
            module.create_deep_agent(
                model=ScriptedChatModel([]), subagents=[{**spec, "middleware": [AllHooks([], "X"), AllHooks([], "X")]}]
            )
        assert str(err.value) == "Please remove duplicate middleware instances."


class FakePatch(Named):
    """Named like a built-in: it takes the built-in's place in the stack."""

    def before_model(self, state, runtime):
        self.log.append(("before_model", msgs(state["messages"])))


@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_middleware_named_like_a_builtin_replaces_it(mode: str) -> None:
    # A dangling tool call in the input: PatchToolCallsMiddleware would answer it; its replacement does not.
    inp = {
        "messages": [
            HumanMessage("first"),
            ai_tool_calls(("lookup", {"key": "x"}, "dangling")),
            HumanMessage("second"),
        ]
    }
    both = run_pair(
        ["done"],
        lambda c: {"tools": [lookup], "middleware": [FakePatch(c.log, "PatchToolCallsMiddleware")]},
        inp,
        mode=mode,
    )
    check(both)
    if mode == "stream":
        assert ref_nodes(both) == [
            "PatchToolCallsMiddleware.before_model",
            "model",
            "_ParentNotifierMiddleware.after_agent",
        ]


# --------------------------------------------------------------------------------------------
# Sync and async
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["ainvoke", "astream"])
def test_async_hooks_under_ainvoke(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [AsyncAllHooks(c.log)]}, mode=mode)
    _, log = check(both)
    assert [e[1] for e in log] == [
        "abefore_agent",
        "abefore_model",
        "awrap_model_call:in",
        "awrap_model_call:out",
        "aafter_model",
        "awrap_tool_call:in",
        "awrap_tool_call:out",
        "abefore_model",
        "awrap_model_call:in",
        "awrap_model_call:out",
        "aafter_model",
        "aafter_agent",
    ]


class BothFlavours(Named):
    """Sync and async versions of every hook: invoke uses the sync ones, ainvoke the async ones."""

    def before_agent(self, state, runtime):
        self.log.append("before_agent")

    async def abefore_agent(self, state, runtime):
        self.log.append("abefore_agent")

    def before_model(self, state, runtime):
        self.log.append("before_model")

    async def abefore_model(self, state, runtime):
        self.log.append("abefore_model")

    def after_model(self, state, runtime):
        self.log.append("after_model")

    async def aafter_model(self, state, runtime):
        self.log.append("aafter_model")

    def after_agent(self, state, runtime):
        self.log.append("after_agent")

    async def aafter_agent(self, state, runtime):
        self.log.append("aafter_agent")

    def wrap_model_call(self, request, handler):
        self.log.append("wrap_model_call")
        return handler(request)

    async def awrap_model_call(self, request, handler):
        self.log.append("awrap_model_call")
        return await handler(request)

    def wrap_tool_call(self, request, handler):
        self.log.append("wrap_tool_call")
        return handler(request)

    async def awrap_tool_call(self, request, handler):
        self.log.append("awrap_tool_call")
        return await handler(request)


@pytest.mark.parametrize("mode", MODES)
def test_sync_or_async_hooks_by_run_mode(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [BothFlavours(c.log)]}, mode=mode)
    _, log = check(both)
    prefix = "a" if mode == "ainvoke" else ""
    assert log[:3] == [f"{prefix}before_agent", f"{prefix}before_model", f"{prefix}wrap_model_call"]


class SyncNodeHooksOnly(Named):
    def before_agent(self, state, runtime):
        self.log.append("before_agent")

    def before_model(self, state, runtime):
        self.log.append("before_model")

    def after_model(self, state, runtime):
        self.log.append("after_model")

    def after_agent(self, state, runtime):
        self.log.append("after_agent")


def test_sync_node_hooks_run_under_ainvoke() -> None:
    both = run_pair(["done"], lambda c: {"middleware": [SyncNodeHooksOnly(c.log)]}, mode="ainvoke")
    _, log = check(both)
    assert log == ["before_agent", "before_model", "after_model", "after_agent"]


class OnlyAbeforeModel(Named):
    async def abefore_model(self, state, runtime):
        return None


class OnlyAafterModel(Named):
    async def aafter_model(self, state, runtime):
        return None


class OnlyAbeforeAgent(Named):
    async def abefore_agent(self, state, runtime):
        return None


class OnlyAafterAgent(Named):
    async def aafter_agent(self, state, runtime):
        return None


class OnlyAwrapModelCall(Named):
    async def awrap_model_call(self, request, handler):
        return await handler(request)


class OnlyAwrapToolCall(Named):
    async def awrap_tool_call(self, request, handler):
        return await handler(request)


class OnlyWrapModelCall(Named):
    def wrap_model_call(self, request, handler):
        return handler(request)


class OnlyWrapToolCall(Named):
    def wrap_tool_call(self, request, handler):
        return handler(request)


async def _async_before_model(state, runtime):
    return None


async def _async_wrap_model_call(request, handler):
    return await handler(request)


def _sync_wrap_tool_call(request, handler):
    return handler(request)


MISMATCHED: dict[str, tuple[str, Callable[[list], AgentMiddleware]]] = {
    "abefore_model": ("invoke", OnlyAbeforeModel),
    "aafter_model": ("invoke", OnlyAafterModel),
    "abefore_agent": ("invoke", OnlyAbeforeAgent),
    "aafter_agent": ("invoke", OnlyAafterAgent),
    "awrap_model_call": ("invoke", OnlyAwrapModelCall),
    "awrap_tool_call": ("invoke", OnlyAwrapToolCall),
    "decorated_async_before_model": ("invoke", lambda log: before_model(_async_before_model)),
    "decorated_async_wrap_model_call": ("invoke", lambda log: wrap_model_call(_async_wrap_model_call)),
    "wrap_model_call_under_ainvoke": ("ainvoke", OnlyWrapModelCall),
    "wrap_tool_call_under_ainvoke": ("ainvoke", OnlyWrapToolCall),
    "decorated_sync_wrap_tool_call_under_ainvoke": ("ainvoke", lambda log: wrap_tool_call(_sync_wrap_tool_call)),
}


@pytest.mark.parametrize("case", list(MISMATCHED))
def test_hook_missing_for_the_run_mode_raises(case: str) -> None:
    mode, make = MISMATCHED[case]
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [make(c.log)]}, mode=mode)
    check(both, error=True)
    error = both.ref.error
    if case.startswith(("abefore", "aafter", "decorated_async_before")):
        assert isinstance(error, TypeError) and str(error).startswith("No synchronous function provided to ")
    else:
        assert isinstance(error, NotImplementedError)


# --------------------------------------------------------------------------------------------
# Decorators
# --------------------------------------------------------------------------------------------


def _decorated(c: Ctx) -> dict[str, Any]:
    log = c.log

    @before_agent
    def greet(state, runtime):
        log.append(("greet", msgs(state["messages"])))
        return {"messages": [HumanMessage("hello from greet")]}

    @before_model(can_jump_to=["end"])
    def gatekeeper(state, runtime):
        log.append(("gatekeeper", len(state["messages"])))

    @after_model(name="Auditor")
    def audit(state, runtime):
        log.append(("Auditor", msgs(state["messages"][-1:])))

    @after_agent(name="Farewell")
    def farewell(state, runtime):
        log.append(("Farewell", len(state["messages"])))
        return {"messages": [AIMessage("bye")]}

    @wrap_model_call(name="Prompter")
    def prompter(request, handler):
        log.append(("Prompter", request.system_prompt))
        return handler(request.override(system_message=SystemMessage("decorated prompt")))

    @wrap_tool_call(tools=[mw_tool])
    def tool_guard(request, handler):
        log.append(("tool_guard", request.tool_call["name"]))
        return handler(request)

    middleware = [greet, gatekeeper, audit, farewell, prompter, tool_guard]
    log.append(("names", [(type(m).__name__, m.name) for m in middleware]))
    return {"tools": [lookup], "middleware": middleware}


@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_decorator_forms(mode: str) -> None:
    # Sync functions: @wrap_model_call / @wrap_tool_call define only the sync hook (ainvoke raises).
    script = [ai_tool_calls(("mw_tool", {"text": "t"}, "c1")), "done"]
    both = run_pair(script, _decorated, mode=mode)
    _, log = check(both)
    assert log[0] == (
        "names",
        [
            ("greet", "greet"),
            ("gatekeeper", "gatekeeper"),
            ("Auditor", "Auditor"),
            ("Farewell", "Farewell"),
            ("Prompter", "Prompter"),
            ("tool_guard", "tool_guard"),
        ],
    )
    if mode == "stream":
        assert ref_nodes(both) == [
            "PatchToolCallsMiddleware.before_agent",
            "greet.before_agent",
            "gatekeeper.before_model",
            "model",
            "Auditor.after_model",
            "tools",
            "gatekeeper.before_model",
            "model",
            "Auditor.after_model",
            "Farewell.after_agent",
            "_ParentNotifierMiddleware.after_agent",
        ]


def _decorated_async(c: Ctx) -> dict[str, Any]:
    log = c.log

    @before_model
    async def async_gate(state, runtime):
        log.append(("async_gate", len(state["messages"])))
        return {"messages": [HumanMessage("async gate says hi")]}

    @wrap_model_call
    async def async_wrap(request, handler):
        log.append(("async_wrap", msgs(request.messages)))
        return await handler(request)

    @wrap_tool_call
    async def async_tool_wrap(request, handler):
        log.append(("async_tool_wrap", request.tool_call["args"]))
        return await handler(request)

    @dynamic_prompt
    async def async_prompt(request: ModelRequest) -> str:
        return f"async prompt over {len(request.messages)} messages"

    return {"tools": [lookup], "middleware": [async_gate, async_wrap, async_tool_wrap, async_prompt]}


@pytest.mark.parametrize("mode", ["ainvoke", "astream"])
def test_async_decorator_forms(mode: str) -> None:
    both = run_pair(tool_then_answer(), _decorated_async, mode=mode)
    check(both)


def _dynamic(c: Ctx) -> dict[str, Any]:
    @dynamic_prompt
    def per_turn(request: ModelRequest) -> str:
        c.log.append(("per_turn", request.system_prompt, msgs(request.messages)))
        return f"Turn with {len(request.messages)} messages (was {request.system_prompt!r})"

    @dynamic_prompt
    def as_message(request: ModelRequest) -> SystemMessage:
        return SystemMessage(content=f"{request.system_prompt} + second prompt")

    return {"tools": [lookup], "middleware": [per_turn, as_message], "system_prompt": "Base prompt."}


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_prompt(mode: str) -> None:
    both = run_pair(tool_then_answer(), _dynamic, mode=mode)
    check(both)
    assert both.ref.calls[1].messages[0].content == "Turn with 3 messages (was 'Base prompt.') + second prompt"


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


@pytest.mark.parametrize("mode", MODES)
def test_middleware_in_an_isolated_subagent(mode: str) -> None:
    script = [
        ai_tool_calls(task("look up x", "helper")),
        ai_tool_calls(("lookup", {"key": "x"}, "c1")),
        "child found it",
        "parent done",
    ]
    both = run_pair(script, _subagent_setup, mode=mode)
    result, log = check(both)
    assert log[0][0] == "before_agent"
    request = next(e for e in log if e[0] == "wrap_model_call")[1]
    assert request["system_prompt"] == "You help." and request["tools"] == [*FS_TOOLS, "lookup"]
    assert result["messages"][2].content == "child found it"


class ChildShortCircuit(WrapsModel):
    def model_logic(self, request):
        self.log.append(("child wrap_model_call", msgs(request.messages)))
        return AIMessage("answer made up by the child's middleware")


@pytest.mark.parametrize("mode", MODES)
def test_subagent_middleware_short_circuits_the_child(mode: str) -> None:
    def setup(c: Ctx) -> dict[str, Any]:
        spec = {"name": "helper", "description": "Helps.", "system_prompt": "You help."}
        return {"subagents": [{**spec, "middleware": [ChildShortCircuit(c.log)]}]}

    both = run_pair([ai_tool_calls(task("do it", "helper")), "parent done"], setup, mode=mode)
    result, _ = check(both)
    assert result["messages"][2].content == "answer made up by the child's middleware"


@pytest.mark.parametrize("mode", MODES)
def test_main_middleware_does_not_run_in_subagents(mode: str) -> None:
    def setup(c: Ctx) -> dict[str, Any]:
        spec = {"name": "helper", "description": "Helps.", "system_prompt": "You help."}
        return {"tools": [lookup], "middleware": [AllHooks(c.log, "Main")], "subagents": [spec]}

    script = [
        ai_tool_calls(task("one", "helper")),
        "helper answer",
        ai_tool_calls(task("two", "general-purpose", "t2")),
        "general answer",
        "parent done",
    ]
    both = run_pair(script, setup, mode=mode)
    _, log = check(both)
    assert [e[1] for e in log].count("before_model") == 3


class ParentCounter(Named):
    state_schema = CounterState

    def before_agent(self, state, runtime):
        self.log.append(("parent before_agent", state.get("counter")))
        return {"counter": 1}

    def after_agent(self, state, runtime):
        self.log.append(("parent after_agent", state.get("counter")))


class ChildCounter(Named):
    state_schema = CounterState

    def before_agent(self, state, runtime):
        self.log.append(("child before_agent", sorted(state), state.get("counter")))
        return {"counter": state.get("counter", 0) + 10}


@pytest.mark.parametrize("mode", MODES)
def test_middleware_state_flows_into_an_isolated_subagent_and_back(mode: str) -> None:
    def setup(c: Ctx) -> dict[str, Any]:
        spec = {"name": "helper", "description": "Helps.", "system_prompt": "You help."}
        return {"middleware": [ParentCounter(c.log)], "subagents": [{**spec, "middleware": [ChildCounter(c.log)]}]}

    both = run_pair([ai_tool_calls(task("count", "helper")), "child done", "parent done"], setup, mode=mode)
    result, log = check(both)
    assert log[1] == ("child before_agent", ["counter", "files", "messages"], 1)
    assert result["counter"] == 11


class Tagged(Named):
    def __init__(self, log: list[Any], name: str, tag: str) -> None:
        super().__init__(log, name)
        self.tag = tag

    def before_model(self, state, runtime):
        self.log.append((self.tag, self.name, msgs(state["messages"])))


@pytest.mark.parametrize("mode", MODES)
def test_fork_subagent_inherits_the_parent_middleware(mode: str) -> None:
    # The fork's custom middleware is the parent's list merged by name with the spec's: a spec
    # entry replaces the parent's in its place, the parent's instances are shared.
    def setup(c: Ctx) -> dict[str, Any]:
        spec = {
            "name": "forky",
            "description": "Continues the conversation.",
            "mode": "fork",
            "middleware": [Tagged(c.log, "Replaced", "spec"), Tagged(c.log, "Own", "spec")],
        }
        parent = [Tagged(c.log, "Shared", "parent"), Tagged(c.log, "Replaced", "parent")]
        return {"middleware": parent, "subagents": [spec]}

    both = run_pair([ai_tool_calls(task("continue", "forky")), "child done", "parent done"], setup, mode=mode)
    _, log = check(both)
    assert [(tag, name) for tag, name, _ in log] == [
        ("parent", "Shared"),
        ("parent", "Replaced"),
        ("parent", "Shared"),
        ("spec", "Replaced"),
        ("spec", "Own"),
        ("parent", "Shared"),
        ("parent", "Replaced"),
    ]


# --------------------------------------------------------------------------------------------
# Stream node sequences for a few plain scenarios
# --------------------------------------------------------------------------------------------


def _stream_scenarios() -> dict[str, tuple[list[Any], Setup]]:
    two_calls = [ai_tool_calls(("lookup", {"key": "a"}, "c1"), ("lookup", {"key": "b"}, "c2")), "done"]
    return {
        "no_middleware": (tool_then_answer(), lambda c: {"tools": [lookup]}),
        "parallel_tools_with_hooks": (two_calls, lambda c: {"tools": [lookup], "middleware": [AllHooks(c.log)]}),
        "before_model_message": (tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [Reminder(c.log)]}),
        "before_and_after_agent": (tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [Bookends(c.log)]}),
        "wrap_only": (tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [ModifyToolCall(c.log)]}),
        "extended_response": (["hello"], lambda c: {"middleware": [ExtendedResponse(c.log)]}),
        "tool_command": (tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [ToolCommand(c.log)]}),
        "state_schema": (tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [Counter(c.log)]}),
        "subagent_with_middleware": (
            [ai_tool_calls(task("look up x", "helper")), "child answer", "parent done"],
            _subagent_setup,
        ),
    }


STREAMS = _stream_scenarios()


@pytest.mark.parametrize("scenario", list(STREAMS))
def test_stream_node_sequence(scenario: str) -> None:
    script, setup = STREAMS[scenario]
    both = run_pair(script, setup, mode="stream")
    check(both, concurrent=scenario == "parallel_tools_with_hooks")
    assert both.extras["ref"].nodes
