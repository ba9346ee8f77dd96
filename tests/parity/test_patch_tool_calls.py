"""Parity: ``deepagents.middleware.patch_tool_calls.PatchToolCallsMiddleware`` side by side:
its ``before_agent`` called directly on histories with and without dangling tool calls
(valid and invalid ones, answered and not, several per message), and the middleware in
LangChain's ``create_agent`` over a history a thread already holds.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

IMPLS = ("deepagents", "deepagents_rs")


def middleware(impl: str) -> Any:
    return importlib.import_module(f"{impl}.middleware.patch_tool_calls").PatchToolCallsMiddleware()


def call(name: Any, id_: Any) -> dict:
    return {"name": name, "args": {"q": 1}, "id": id_, "type": "tool_call"}


def invalid(name: Any, id_: Any) -> dict:
    return {"name": name, "args": "{oops", "id": id_, "error": "bad json", "type": "invalid_tool_call"}


HISTORIES = {
    "empty": [],
    "no-calls": [SystemMessage("s", id="1"), HumanMessage("hi", id="2"), AIMessage("yo", id="3")],
    "answered": [
        HumanMessage("hi", id="1"),
        AIMessage("", tool_calls=[call("f", "a")], id="2"),
        ToolMessage("done", tool_call_id="a", id="3"),
    ],
    "dangling": [
        HumanMessage("hi", id="1"),
        AIMessage("", tool_calls=[call("f", "a"), call("g", "b")], id="2"),
        ToolMessage("done", tool_call_id="b", id="3"),
        HumanMessage("next", id="4"),
    ],
    "invalid": [
        HumanMessage("hi", id="1"),
        AIMessage("", tool_calls=[call("f", "a")], invalid_tool_calls=[invalid("g", "z"), invalid(None, "y")], id="2"),
    ],
    "no-name-or-id": [
        AIMessage("", invalid_tool_calls=[invalid("h", None), invalid("", "q")], id="1"),
        AIMessage("", tool_calls=[call("", "e")], id="2"),
    ],
    "answered-later": [
        AIMessage("", tool_calls=[call("f", "a")], id="1"),
        HumanMessage("interrupt", id="2"),
        ToolMessage("late", tool_call_id="a", id="3"),
        AIMessage("", tool_calls=[call("f", "c")], id="4"),
    ],
}


def shape(update: Any) -> Any:
    """An update as plain data."""
    if update is None:
        return None
    out = []
    for m in update["messages"]:
        if isinstance(m, RemoveMessage):
            out.append(("remove", m.id))
            continue
        row = (m.type, m.id, m.content)
        if isinstance(m, ToolMessage):
            row += (m.name, m.tool_call_id, m.status)
        out.append(row)
    return out


@pytest.mark.parametrize("history", list(HISTORIES))
def test_before_agent(history: str) -> None:
    messages = HISTORIES[history]
    ref, ours = (shape(middleware(impl).before_agent({"messages": list(messages)}, None)) for impl in IMPLS)
    assert ours == ref
    if history in ("empty", "no-calls", "answered"):
        assert ref is None
    else:
        assert ref is not None


def test_originals_are_kept() -> None:
    """The history's own messages come back as the same objects, after the removal marker."""
    messages = HISTORIES["dangling"]
    update = middleware("deepagents_rs").before_agent({"messages": list(messages)}, None)
    kept = [m for m in update["messages"][1:] if not (isinstance(m, ToolMessage) and m.id is None)]
    assert all(a is b for a, b in zip(kept, messages, strict=True))


@pytest.mark.parametrize("impl", IMPLS)
def test_in_create_agent(impl: str) -> None:
    """A thread whose history ends in an unanswered call: the next run patches it first."""

    def run(impl: str) -> list[Any]:
        model = GenericFakeChatModel(messages=iter([AIMessage("answer")]))
        agent = create_agent(model, middleware=[middleware(impl)], checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t"}}
        agent.update_state(config, {"messages": [HumanMessage("q"), AIMessage("", tool_calls=[call("f", "a")])]})
        out = agent.invoke({"messages": [HumanMessage("again")]}, config)
        return [(m.type, m.content, getattr(m, "tool_call_id", None)) for m in out["messages"]]

    assert run(impl) == run("deepagents")
