"""The message objects a run's states show: LangGraph hands out its channel's objects, so the
same message is the same object in every ``values`` chunk (a thread's history as the saver
loaded it included), and a message a step rewrote (same id, new fields) is shown rewritten.
Compared with deepagents on no saver, ``InMemorySaver`` and ``SqliteSaver``, sync and async."""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

THREAD = {"configurable": {"thread_id": "t"}}


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def _saver(kind: str, tmp_path: Any) -> Any:
    if kind == "none":
        return None
    if kind == "memory":
        return InMemorySaver()
    return SqliteSaver(sqlite3.connect(tmp_path / "thread.sqlite", check_same_thread=False))


def _shared(chunks: list[dict]) -> list[list[bool]]:
    """For each pair of consecutive chunks, whether each message is the very same object."""
    return [[x is y for x, y in zip(a["messages"], b["messages"], strict=False)] for a, b in itertools.pairwise(chunks)]


def _values_chunks(module: Any, saver: Any, asynchronous: bool, middleware: tuple = ()) -> list[dict]:
    script = [
        "first",
        ai_tool_calls(("echo", {"text": "a"}, "c1")),
        ai_tool_calls(("echo", {"text": "b"}, "c2")),
        "done",
    ]
    agent = module.create_deep_agent(
        model=ScriptedChatModel(script), tools=[echo], checkpointer=saver, middleware=list(middleware)
    )
    config = THREAD if saver is not None else None
    first = {"messages": [HumanMessage("q", id="h1")]}
    then = {"messages": [HumanMessage("go", id="h2")]}

    async def run_async() -> list[dict]:
        if saver is not None:
            await agent.ainvoke(first, config)
        return [c async for c in agent.astream(then, config, stream_mode="values")]

    if asynchronous:
        return asyncio.run(run_async())
    if saver is not None:
        agent.invoke(first, config)
    return list(agent.stream(then, config, stream_mode="values"))


#: Savers and whether the run is async (``SqliteSaver`` has no async methods).
RUNS = [("none", False), ("none", True), ("memory", False), ("memory", True), ("sqlite", False)]


@pytest.mark.parametrize(("kind", "asynchronous"), RUNS, ids=[f"{k}-{'async' if a else 'sync'}" for k, a in RUNS])
def test_values_chunks_share_message_objects(kind, asynchronous, tmp_path):
    (tmp_path / "rs").mkdir()
    (tmp_path / "ref").mkdir()
    ours = _values_chunks(deepagents_rs, _saver(kind, tmp_path / "rs"), asynchronous)
    theirs = _values_chunks(deepagents, _saver(kind, tmp_path / "ref"), asynchronous)
    assert [[m.content for m in c["messages"]] for c in ours] == [[m.content for m in c["messages"]] for c in theirs]
    assert _shared(ours) == _shared(theirs)
    if kind != "none":
        # The history the saver loaded is shown as the same objects from chunk to chunk.
        assert all(_shared(ours)[0])


class _RewriteFirst(AgentMiddleware):
    """Once the second turn has started, rewrites the thread's first message in place (same
    id): on a thread, a message of the history the saver loaded."""

    def before_model(self, state: dict, runtime: Any) -> dict | None:
        first = state["messages"][0]
        if first.content.endswith("!") or not any(m.content == "go" for m in state["messages"]):
            return None
        return {"messages": [HumanMessage(first.content + "!", id=first.id)]}


def _fields(message: Any) -> tuple:
    # The model's replies get ids drawn at random; the human messages' are given.
    shown_id = message.id if message.type == "human" else message.id is not None
    return (message.type, shown_id, message.content, getattr(message, "tool_calls", None))


@pytest.mark.parametrize(("kind", "asynchronous"), RUNS, ids=[f"{k}-{'async' if a else 'sync'}" for k, a in RUNS])
def test_rewritten_message_is_shown_rewritten(kind, asynchronous, tmp_path):
    """A message the core changes keeps its id: every chunk after the change shows the new
    object, never the one shown (or loaded) before."""
    results = []
    for module, where in ((deepagents_rs, tmp_path / "rs"), (deepagents, tmp_path / "ref")):
        where.mkdir()
        chunks = _values_chunks(module, _saver(kind, where), asynchronous, (_RewriteFirst(),))
        results.append(([[_fields(m) for m in c["messages"]] for c in chunks], _shared(chunks)))
    assert results[0] == results[1]
    first_shown = [chunk[0][2] for chunk in results[0][0]]
    assert first_shown[-1] == ("go!" if kind == "none" else "q!")
    assert first_shown[0] != first_shown[-1]
