"""A state key with no reducer (LangGraph's ``LastValue`` channel) takes one write per step,
side by side with deepagents: two calls of one tools step writing it (each returning a
``Command``), or one call writing it twice (through its task's ``__pregel_send`` and its
returned ``Command``), end the run with LangGraph's ``InvalidUpdateError``; writes of other
keys, or of the key in different steps, do not. In the agent and in a subagent; sync and
async; with and without a saver."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, NotRequired

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.types import Command


class _State(AgentState):
    k: NotRequired[int]
    other: NotRequired[int]
    acc: NotRequired[Annotated[list, operator.add]]


class _Keys(AgentMiddleware):
    state_schema = _State


def _answer(key: str, value: Any, call_id: str) -> Command:
    return Command(update={key: value, "messages": [ToolMessage(f"{key}={value}", tool_call_id=call_id)]})


@tool
def set_k(v: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Set k."""
    return _answer("k", v, tool_call_id)


@tool
def set_other(v: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Set other."""
    return _answer("other", v, tool_call_id)


@tool
def add_acc(v: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Add to acc."""
    return _answer("acc", [v], tool_call_id)


@tool
def send_then_set_k(v: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Write k through the task, then return it."""
    get_config()["configurable"]["__pregel_send"]([("k", v)])
    return _answer("k", v + 1, tool_call_id)


@tool
def send_k_then_set_other(v: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Write k through the task, then return other."""
    get_config()["configurable"]["__pregel_send"]([("k", v)])
    return _answer("other", v + 1, tool_call_id)


TOOLS = [set_k, set_other, add_acc, send_then_set_k, send_k_then_set_other]

CASES = {
    "two calls write k": [ai_tool_calls(("set_k", {"v": 1}), ("set_k", {"v": 2}))],
    "three calls, k twice": [ai_tool_calls(("set_other", {"v": 1}), ("set_k", {"v": 2}), ("set_k", {"v": 3}))],
    "one call sends and sets k": [ai_tool_calls(("send_then_set_k", {"v": 1}))],
    "k and other once each": [ai_tool_calls(("set_k", {"v": 1}), ("set_other", {"v": 2}))],
    "k once sent, other set": [ai_tool_calls(("send_k_then_set_other", {"v": 1}))],
    "k in two steps": [ai_tool_calls(("set_k", {"v": 1})), ai_tool_calls(("set_k", {"v": 2}))],
}


def _script(steps: list, subagent: bool) -> list:
    if not subagent:
        return [*steps, AIMessage("done")]
    call = ai_tool_calls(("task", {"description": "set", "subagent_type": "general-purpose"}))
    return [call, *steps, AIMessage("sub done"), AIMessage("done")]


def _run(module, steps: list, asynchronous: bool, saver: bool, subagent: bool) -> tuple:
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=_script(steps, subagent)),
        tools=TOOLS,
        middleware=[_Keys()],
        checkpointer=InMemorySaver() if saver else None,
    )
    payload = {"messages": [("user", "go")]}
    config = {"configurable": {"thread_id": "t"}}
    try:
        result = asyncio.run(agent.ainvoke(payload, config)) if asynchronous else agent.invoke(payload, config)
    except Exception as exc:  # noqa: BLE001 - compared by type and text
        return type(exc).__module__, type(exc).__name__, str(exc)
    return "ok", result.get("k"), result.get("other"), [m.content for m in result["messages"]]


@pytest.mark.parametrize("subagent", [False, True], ids=["agent", "subagent"])
@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_key_without_reducer_takes_one_write_per_step(case, asynchronous, saver, subagent):
    theirs = _run(deepagents, CASES[case], asynchronous, saver, subagent)
    if not subagent:
        assert (theirs[1] == "InvalidUpdateError") == ("twice" in case or "write k" in case or "sends and" in case)
    assert _run(deepagents_rs, CASES[case], asynchronous, saver, subagent) == theirs


def test_a_key_with_a_reducer_takes_every_write():
    steps = [ai_tool_calls(("add_acc", {"v": 1}), ("add_acc", {"v": 2})), ai_tool_calls(("add_acc", {"v": 3}))]

    def run(module) -> Any:
        agent = module.create_deep_agent(
            model=ScriptedChatModel(responses=[*steps, AIMessage("done")]), tools=TOOLS, middleware=[_Keys()]
        )
        return agent.invoke({"messages": [("user", "go")]}).get("acc")

    theirs = run(deepagents)
    assert theirs == [1, 2, 3]
    assert run(deepagents_rs) == theirs
