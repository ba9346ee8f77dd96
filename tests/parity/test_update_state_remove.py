"""``update_state`` with ``RemoveMessage``s: a known id leaves the thread's messages, an id the
thread does not hold is ignored (deepagents' messages channel; LangGraph's ``add_messages``
would raise), and ``REMOVE_ALL_MESSAGES`` clears what came before it; sync and async."""

from __future__ import annotations

import asyncio

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES

UPDATES = {
    "missing": [RemoveMessage(id="missing")],
    "known and missing": [RemoveMessage(id="u1"), RemoveMessage(id="nope")],
    "all, then new": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("fresh", id="u9")],
}


def _session(module, update, asynchronous):
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=[AIMessage("hi", id="a1"), AIMessage("again", id="a2")]),
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "t"}}
    first = {"messages": [HumanMessage("x", id="u1")]}
    then = {"messages": [HumanMessage("y", id="u2")]}

    async def run_async():
        await agent.ainvoke(first, config)
        await agent.aupdate_state(config, {"messages": update})
        state = await agent.aget_state(config)
        return state, await agent.ainvoke(then, config)

    if asynchronous:
        state, result = asyncio.run(run_async())
    else:
        agent.invoke(first, config)
        agent.update_state(config, {"messages": update})
        state, result = agent.get_state(config), agent.invoke(then, config)
    return [m.id for m in state.values["messages"]], state.next, [m.id for m in result["messages"]]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("update", list(UPDATES))
def test_remove_messages_in_update_state(update, asynchronous):
    ours = _session(deepagents_rs, UPDATES[update], asynchronous)
    assert ours == _session(deepagents, UPDATES[update], asynchronous)
    if update == "missing":
        assert ours[0] == ["u1", "a1"]
