"""User middleware through both implementations: ``wrap_model_call`` (system prompt, messages,
tools, tool choice and settings, retries, short circuits, model switches, extended responses,
exceptions) and ``wrap_tool_call`` (modified calls and results, short circuits, retries,
commands, parallel calls). Each test compares the middleware's records as well as what
``assert_parity`` compares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents.middleware import ModelResponse
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from .harness import FS_TOOLS, MODES, ScriptedChatModel, ai_tool_calls
from .middleware_support import (
    AllHooks,
    Ctx,
    ExtendedResponse,
    ModifyToolCall,
    ToolCommand,
    WrapsModel,
    WrapsTool,
    check,
    lookup,
    msgs,
    response_view,
    run_pair,
    tool_names,
    tool_result_view,
    tool_then_answer,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


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
