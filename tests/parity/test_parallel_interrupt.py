"""A tool calling LangGraph's ``interrupt()`` beside other calls of the same step: the other
calls finish and keep their results, the step stops with that one interrupt, as in deepagents
(LangGraph lets a superstep's other tasks finish). Resuming such a step is planned."""

from __future__ import annotations

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


@pytest.mark.parametrize("order", [["note", "ask"], ["ask", "note"]], ids=["done-first", "asked-first"])
def test_other_calls_finish(order):
    agent, config, ours = _paused(deepagents_rs, order)
    _, _, theirs = _paused(deepagents, order)
    assert ours == theirs
    assert sorted(ours[1]) == [("tools", [], ["ok?"]), ("tools", ["noted x"], [])]
    with pytest.raises(NotImplementedError, match="resuming a tools step some of whose calls had finished"):
        agent.invoke(Command(resume="yes"), config)
