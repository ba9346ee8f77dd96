"""``get_state_history(before=...)`` on a thread, as deepagents lists it (issue 19: history
with filters): each implementation writes the same two turns into a saver of its own, then
lists the checkpoints before the same place of its own thread, alone and with ``limit`` and
``filter``, sync and async."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import BaseMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

IMPLS = (deepagents, deepagents_rs)
THREAD = {"configurable": {"thread_id": "T1"}}


@tool
def my_tool(x: int) -> str:
    """Double x."""
    return f"result={2 * x}"


def _agent(impl: Any, saver: Any) -> Any:
    model = ScriptedChatModel([ai_tool_calls(("my_tool", {"x": 1}, "call_A")), "done", "second turn"])
    agent = impl.create_deep_agent(model=model, tools=[my_tool], checkpointer=saver)
    agent.invoke({"messages": [("user", "go")]}, THREAD)
    agent.invoke({"messages": [("user", "again")]}, THREAD)
    return agent


def _shown(snapshot: Any) -> tuple:
    messages = [(m.type, m.content) for m in snapshot.values.get("messages", []) if isinstance(m, BaseMessage)]
    return (snapshot.metadata["step"], snapshot.metadata["source"], snapshot.next, messages)


def _listed(agent: Any, before_index: int, asynchronous: bool, **kw: Any) -> list[tuple]:
    """The history before the ``before_index``-th checkpoint (newest first) of the thread."""
    everything = list(agent.get_state_history(THREAD))
    before = everything[before_index].config
    if asynchronous:

        async def listed() -> list[Any]:
            return [s async for s in agent.aget_state_history(THREAD, before=before, **kw)]

        return [_shown(s) for s in asyncio.run(listed())]
    return [_shown(s) for s in agent.get_state_history(THREAD, before=before, **kw)]


@pytest.mark.parametrize(
    "kw", [{}, {"limit": 2}, {"filter": {"source": "loop"}}], ids=["before", "before_limit", "before_filter"]
)
# SqliteSaver has no async methods (AsyncSqliteSaver is the async one): sync only.
@pytest.mark.parametrize(("kind", "asynchronous"), [("memory", False), ("memory", True), ("sqlite", False)])
def test_history_before_a_checkpoint_lists_what_deepagents_lists(kind: str, asynchronous: bool, kw: dict) -> None:
    out = []
    for impl in IMPLS:
        saver = (
            InMemorySaver() if kind == "memory" else SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
        )
        agent = _agent(impl, saver)
        out.append([_listed(agent, at, asynchronous, **kw) for at in (1, 3, 5)])
    ref, ours = out
    assert ref[0], "deepagents listed nothing before the checkpoint"
    assert ours == ref
