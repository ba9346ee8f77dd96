"""A tool calling LangGraph's ``interrupt()`` beside other calls of the same step: the other
calls finish and keep their results, the step stops with that one interrupt, and resuming
runs only the interrupted call, the answers in call order and the kept ones streamed first as
cached, as in deepagents (LangGraph lets a superstep's other tasks finish and keeps their
writes)."""

from __future__ import annotations

import asyncio

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, interrupt


@tool
def ask(question: str) -> str:
    """Ask a human."""
    return "human: " + interrupt(question)


@tool
def note(text: str) -> str:
    """Note something down."""
    return "noted " + text


def _paused(module, order):
    calls = [(n, {"question": "ok?"} if n == "ask" else {"text": "x"}, f"call-{n}") for n in order]
    model = ScriptedChatModel(responses=[ai_tool_calls(*calls), AIMessage("thanks")])
    agent = module.create_deep_agent(model=model, tools=[ask, note], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    result = agent.invoke({"messages": [("user", "go")]}, config)
    snapshot = agent.get_state(config)
    tasks = [
        (
            t.name,
            [m.content for m in (t.result or {}).get("messages", [])],
            [i.value for i in t.interrupts],
        )
        for t in snapshot.tasks
    ]
    return agent, config, (snapshot.next, tasks, [i.value for i in result["__interrupt__"]])


ORDERS = pytest.mark.parametrize("order", [["note", "ask"], ["ask", "note"]], ids=["done-first", "asked-first"])


@ORDERS
def test_other_calls_finish(order):
    _, _, ours = _paused(deepagents_rs, order)
    _, _, theirs = _paused(deepagents, order)
    assert ours == theirs
    assert sorted(ours[1]) == [("tools", [], ["ok?"]), ("tools", ["noted x"], [])]


def _update(chunk):
    return {
        node: [m.content for m in value.get("messages", [])]
        if isinstance(value, dict) and node != "__metadata__"
        else value
        for node, value in chunk.items()
    }


def _resumed(module, order, asynchronous):
    agent, config, _ = _paused(module, order)
    if asynchronous:

        async def collect():
            return [c async for c in agent.astream(Command(resume="yes"), config, stream_mode="updates")]

        chunks = asyncio.run(collect())
    else:
        chunks = list(agent.stream(Command(resume="yes"), config, stream_mode="updates"))
    values = agent.get_state(config).values
    history = [(s.metadata["step"], s.next) for s in agent.get_state_history(config)]
    return [_update(c) for c in chunks], [(m.type, m.content) for m in values["messages"]], history


@ORDERS
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_resume_runs_only_the_interrupted_call(order, asynchronous):
    ours = _resumed(deepagents_rs, order, asynchronous)
    assert ours == _resumed(deepagents, order, asynchronous)
    answers = [m for m in ours[1] if m[0] == "tool"]
    assert answers == [("tool", "noted x" if n == "note" else "human: yes") for n in order]
    assert ours[0][0] == {"tools": ["noted x"], "__metadata__": {"cached": True}}
