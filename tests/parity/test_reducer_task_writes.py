"""One tool call's task writing a key with a reducer more than once (through its task's
``__pregel_send``, then its returned ``Command``; or two sends), side by side with deepagents:
LangGraph applies every write of the task, so the reducer takes each, in order; a fresh
``__pregel_read`` of the key inside the call is the step's value with the task's writes
folded through the reducer; the ``updates`` stream shows each write (one single-key dict per
write). Parallel calls, a ``wrap_tool_call`` middleware writing too; sync and async; with and
without a saver (the checkpoint's values compared)."""

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

#: What the calls read, as they read it.
READS: list[Any] = []


class _State(AgentState):
    acc: NotRequired[Annotated[list, operator.add]]


class _Keys(AgentMiddleware):
    state_schema = _State


class _Wrapper(AgentMiddleware):
    """Sends to ``acc`` from around the call, in the call's task, before and after it."""

    state_schema = _State

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        _send(("acc", ["wrap-before"]))
        out = handler(request)
        _send(("acc", ["wrap-after"]))
        READS.append(("wrapper", _read(True)))
        return out

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        _send(("acc", ["wrap-before"]))
        out = await handler(request)
        _send(("acc", ["wrap-after"]))
        READS.append(("wrapper", _read(True)))
        return out


def _send(*writes: tuple[str, Any]) -> None:
    get_config()["configurable"]["__pregel_send"](list(writes))


def _read(fresh: bool) -> Any:
    return get_config()["configurable"]["__pregel_read"]("acc", fresh=fresh)


@tool
def send_then_return(v: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Write acc through the task, then return it."""
    _send(("acc", [f"{v}-sent"]))
    READS.append((v, _read(True), _read(False)))
    return Command(update={"acc": [v], "messages": [ToolMessage("ok", tool_call_id=tool_call_id)]})


@tool
def send_twice(v: str) -> str:
    """Write acc twice through the task."""
    _send(("acc", [f"{v}-1"]), ("acc", [f"{v}-2"]))
    READS.append((v, _read(True)))
    return "ok"


def _agent(module: Any, script: list, middleware: Any, saver: Any) -> Any:
    return module.create_deep_agent(
        model=ScriptedChatModel(responses=[*script, AIMessage("done")]),
        tools=[send_then_return, send_twice],
        middleware=[middleware],
        checkpointer=saver,
    )


CASES = {
    "two calls send and return": [ai_tool_calls(("send_then_return", {"v": "a"}), ("send_then_return", {"v": "b"}))],
    "one call sends twice": [ai_tool_calls(("send_twice", {"v": "a"}))],
    "both kinds, two steps": [
        ai_tool_calls(("send_twice", {"v": "a"}), ("send_then_return", {"v": "b"})),
        ai_tool_calls(("send_then_return", {"v": "c"})),
    ],
}


def _run(module: Any, case: str, wrapped: bool, asynchronous: bool, saver: bool) -> dict:
    READS.clear()
    agent = _agent(module, CASES[case], _Wrapper() if wrapped else _Keys(), InMemorySaver() if saver else None)
    config = {"configurable": {"thread_id": "t"}}
    payload = {"messages": [("user", "go")], "acc": ["in"]}
    result = asyncio.run(agent.ainvoke(payload, config)) if asynchronous else agent.invoke(payload, config)
    # Parallel calls run in no fixed order (on both): their reads are compared as a set.
    out = {"acc": result["acc"], "reads": sorted(READS, key=repr)}
    if saver:
        out["checkpoint"] = agent.get_state(config).values["acc"]
    return out


@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("wrapped", [False, True], ids=["tool", "wrapped"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_write_of_a_call_is_folded_and_read_fresh(case, wrapped, asynchronous, saver):
    theirs = _run(deepagents, case, wrapped, asynchronous, saver)
    if case == "two calls send and return" and not wrapped:
        assert theirs["acc"] == ["in", "a-sent", "a", "b-sent", "b"]
        assert ("a", ["in", "a-sent"], ["in"]) in theirs["reads"]
    assert _run(deepagents_rs, case, wrapped, asynchronous, saver) == theirs


@pytest.mark.parametrize("case", list(CASES))
def test_the_updates_stream_shows_each_write_of_a_call(case):
    def run(module: Any) -> list:
        out = []
        for chunk in _agent(module, CASES[case], _Keys(), None).stream(
            {"messages": [("user", "go")]}, stream_mode="updates"
        ):
            for node, update in chunk.items():
                writes = update if isinstance(update, list) else [update]
                shown = [
                    {k: [m.content for m in v] if k == "messages" else v for k, v in w.items()}
                    for w in writes
                    if isinstance(w, dict)
                ]
                out.append((node, shown))
        # A step's tool calls stream as each ends, in no fixed order (on both).
        return sorted(out, key=repr)

    theirs = run(deepagents)
    assert any(len(shown) > 1 for node, shown in theirs if node == "tools")
    assert run(deepagents_rs) == theirs
