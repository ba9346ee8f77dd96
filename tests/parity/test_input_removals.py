"""``RemoveMessage`` in an agent's input (by id, ``REMOVE_ALL_MESSAGES``, as a dict), side by
side with deepagents: its messages reducer applies the removals to the input (an id it does
not hold is ignored) and, on a checkpointed thread, to the thread's history; what the model
is sent, the result and the thread's state match."""

from __future__ import annotations

import asyncio

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from .harness import MODES, ScriptedChatModel, assert_parity, norm, run_both

INPUTS = {
    "unknown_id": [HumanMessage("a", id="h1"), RemoveMessage(id="nowhere")],
    "known_id": [HumanMessage("a", id="h1"), HumanMessage("b", id="h2"), RemoveMessage(id="h1")],
    "remove_all_then_new": [HumanMessage("a", id="h1"), RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("b")],
    "remove_all_alone": [RemoveMessage(id=REMOVE_ALL_MESSAGES)],
    "dicts": [
        {"role": "user", "content": "x", "id": "d1"},
        {"type": "remove", "id": "d1", "content": ""},
        {"role": "user", "content": "y"},
    ],
    "removal_before_its_message": [RemoveMessage(id="h1"), HumanMessage("a", id="h1")],
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_removals_in_input(name: str, mode: str) -> None:
    both = run_both([AIMessage("ok")], None, {"messages": INPUTS[name]}, mode=mode)
    assert_parity(both)


def _thread_run(module: object, mode: str) -> tuple[list, list, list]:
    model = ScriptedChatModel([AIMessage("one"), AIMessage("two"), AIMessage("three")])
    agent = module.create_deep_agent(model=model, checkpointer=InMemorySaver())  # type: ignore[attr-defined]
    config = {"configurable": {"thread_id": "t"}}
    inputs = [
        [HumanMessage("first", id="h1")],
        [RemoveMessage(id="h1"), RemoveMessage(id="nowhere"), HumanMessage("second")],
        [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("third")],
    ]
    results = []
    for messages in inputs:
        if mode == "invoke":
            results.append(agent.invoke({"messages": messages}, config))
        else:
            results.append(asyncio.run(agent.ainvoke({"messages": messages}, config)))
    state = agent.get_state(config).values
    return [norm(r["messages"]) for r in results], norm(state["messages"]), [norm(c.messages) for c in model.calls]


@pytest.mark.parametrize("mode", MODES)
def test_removals_in_input_on_a_thread(mode: str) -> None:
    """The removed id is in the thread's history (from an earlier run), not in the input."""
    assert _thread_run(deepagents_rs, mode) == _thread_run(deepagents, mode)
