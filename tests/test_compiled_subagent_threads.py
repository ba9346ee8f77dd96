"""A compiled subagent's graph on the parent's thread (issue 19: subagents checkpoint into the
parent thread under ``tools:<id>`` namespaces as deepagents does, ``checkpointer=True/False``
on compiled subagents as in LangGraph): the same two turns, each calling the subagent once,
with each implementation on a saver of its own; the subagent's graph compiled with
``checkpointer=True`` (it keeps its own state across calls), ``False`` (no checkpoints) and
``None`` (checkpoints under each call's task)."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, MessagesState, StateGraph
from thread_support import IMPLS, THREAD, dump, first_difference, snapshot


def _counter(checkpointer: bool | None) -> Any:
    """A graph answering with what it has seen: its own earlier answers show whether it kept
    its state from the call before."""

    def count(state: MessagesState) -> dict:
        answers = sum(1 for m in state["messages"] if m.type == "ai")
        return {"messages": [AIMessage(f"saw {len(state['messages'])} messages, {answers} answers")]}

    return (
        StateGraph(MessagesState).add_node("count", count).add_edge(START, "count").compile(checkpointer=checkpointer)
    )


def _calls(n: int) -> list[Any]:
    call = ("task", {"description": f"count {n}", "subagent_type": "counter"}, f"call_{n}")
    return [ai_tool_calls(call), f"answer {n}"]


def _comparable(dumped: list[dict]) -> list[dict]:
    """A dump without what differs between runs of one implementation: the parent checkpoint
    ids of a subgraph's checkpoints (uuid6, drawn at random), and whether a pending write's
    message had its id yet (LangGraph saves an input's writes on its background thread while
    the reducer gives the same objects their ids, so deepagents' own rows differ in that from
    run to run)."""
    return [
        {
            **c,
            "metadata": {**c["metadata"], "parents": sorted(c["metadata"]["parents"])},
            "writes": _ids_dropped(c["writes"]),
        }
        for c in dumped
    ]


def _ids_dropped(value: Any) -> Any:
    if isinstance(value, tuple) and len(value) == 5 and value[0] in ("human", "ai", "tool", "system"):
        return value[:4]
    if isinstance(value, (list, tuple)):
        return [_ids_dropped(v) for v in value]
    return value


def _two_turns(impl: Any, saver: Any, checkpointer: bool | None) -> tuple:
    model = ScriptedChatModel([*_calls(1), *_calls(2)])
    subagents = [{"name": "counter", "description": "Counts.", "runnable": _counter(checkpointer)}]
    agent = impl.create_deep_agent(model=model, subagents=subagents, checkpointer=saver)
    agent.invoke({"messages": [("user", "go")]}, THREAD)
    result = agent.invoke({"messages": [("user", "again")]}, THREAD)
    answers = [m.content for m in result["messages"] if m.type == "tool"]
    namespaces = sorted({t.config["configurable"]["checkpoint_ns"].split(":")[0] for t in saver.list(THREAD)})
    return answers, namespaces, snapshot(agent), _comparable(dump(saver))


@pytest.mark.parametrize("checkpointer", [True, False, None], ids=["own_state", "no_checkpoints", "per_call"])
@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_compiled_subagent_checkpoints_into_the_thread_as_in_deepagents(kind: str, checkpointer: bool | None) -> None:
    def saver() -> Any:
        return (
            InMemorySaver() if kind == "memory" else SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
        )

    ref, ours = (_two_turns(impl, saver(), checkpointer) for impl in IMPLS)
    # With its own state the second call sees the first's messages.
    assert ref[0][1].startswith("saw 3" if checkpointer else "saw 1")
    assert ours[:3] == ref[:3]
    found = first_difference(ref[3], ours[3])
    assert found is None, found
