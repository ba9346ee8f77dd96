"""A thread's history as the saver loaded it is handed to the core as LangGraph's message
objects, not made into a dict per message by Python at each run (`_threads.core_state`): the
core reads the objects' fields and hands back each one the run leaves as it was. What a run
continuing a thread returns is deepagents' all the same, and the loaded messages are the very
objects every state of the run shows (`MessageObjects.seed_objects`)."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import deepagents
import deepagents_rs
import pytest
from deepagents_rs import _convert
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

THREAD = {"configurable": {"thread_id": "t"}}


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def _saver(kind: str) -> Any:
    if kind == "memory":
        return InMemorySaver()
    return SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))


def _history() -> list[Any]:
    """Earlier turns of every message class a thread holds: a user's, a model's with a tool
    call, its answer, a plain reply."""
    out: list[Any] = []
    for i in range(6):
        out += [
            HumanMessage(f"question {i}", id=f"h{i}"),
            AIMessage("", id=f"a{i}", tool_calls=[{"name": "echo", "args": {"text": str(i)}, "id": f"c{i}"}]),
            ToolMessage(str(i), tool_call_id=f"c{i}", name="echo", id=f"t{i}"),
            AIMessage(f"answer {i}", id=f"r{i}"),
        ]
    return out


def _agent(impl: Any, saver: Any) -> Any:
    model = ScriptedChatModel(["first", ai_tool_calls(("echo", {"text": "x"}, "call_x")), "done"])
    return impl.create_deep_agent(model=model, tools=[echo], checkpointer=saver)


_GIVEN_ID = re.compile(r"[hatr]\d+")


def _shown(messages: list[Any]) -> list[tuple]:
    # The history's own ids (`h0`, `a0`, ...) shown; a made one (a random uuid, which may
    # start with one of those letters too) is not.
    return [(m.type, m.content, m.id if m.id and _GIVEN_ID.fullmatch(m.id) else None) for m in messages]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_loaded_history_is_not_made_dicts_by_python(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = _agent(deepagents_rs, _saver(kind))
    agent.invoke({"messages": _history()}, THREAD)
    loaded = {m.id for m in agent.get_state(THREAD).values["messages"]}
    converted: list[str] = []
    to_core = _convert.to_core

    def counted(msg: Any) -> dict:
        if getattr(msg, "id", None) in loaded:
            converted.append(msg.id)
        return to_core(msg)

    monkeypatch.setattr(_convert, "to_core", counted)
    out = agent.invoke({"messages": [("user", "again")]}, THREAD)
    assert len(out["messages"]) == len(loaded) + 4
    assert converted == []


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_run_continuing_a_thread_returns_what_deepagents_returns(kind: str) -> None:
    results = []
    for impl in (deepagents, deepagents_rs):
        agent = _agent(impl, _saver(kind))
        agent.invoke({"messages": _history()}, THREAD)
        before = agent.get_state(THREAD).values["messages"]
        out = agent.invoke({"messages": [("user", "again")]}, THREAD)
        after = agent.get_state(THREAD).values["messages"]
        # The loaded messages are shown as they were loaded: equal objects, in place.
        assert out["messages"][: len(before)] == before
        results.append((_shown(out["messages"]), _shown(after)))
    assert results[1] == results[0]
