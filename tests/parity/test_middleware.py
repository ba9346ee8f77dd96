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

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from .harness import MODES, ai_tool_calls
from .middleware_support import (
    AllHooks,
    Counter,
    Ctx,
    ExtendedResponse,
    ModifyToolCall,
    Named,
    Observer,
    Reminder,
    Setup,
    ToolCommand,
    _subagent_setup,
    check,
    lookup,
    msgs,
    ref_nodes,
    run_pair,
    task,
    tool_then_answer,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


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
