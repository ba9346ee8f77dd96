"""The caller's message objects come back as themselves, side by side with deepagents.

LangGraph's channel holds the objects an input gives (``add_messages`` keeps a message
object as it is; a dict or a tuple is made a new one), so deepagents' result and every
``values`` chunk hold them: ``out["messages"][0] is h``. A message the run replaces (the
same id given again, a ``RemoveMessage``) is the replacing object or is gone. Each case runs
on both implementations and compares, per result message, which given object it is.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("deepagents")

import deepagents
import deepagents_rs
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage
from langchain_core.tools import tool

sys.path.insert(0, str(Path(__file__).parent))

from fake_models import ScriptedChatModel

IMPLS = {"deepagents": deepagents, "deepagents_rs": deepagents_rs}


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def _replies() -> list[Any]:
    call = {"name": "echo", "args": {"text": "hi"}, "id": "call-1"}
    return [AIMessage(content="", tool_calls=[call]), "done"]


def _inputs() -> list[Any]:
    """Objects with and without ids, a dict and a tuple (new objects on both sides)."""
    return [
        HumanMessage(content="first"),
        AIMessage(content="an earlier reply", id="ai-1"),
        SystemMessage(content="a note", id="sys-1"),
        {"role": "user", "content": "a dict"},
        ("user", "a tuple"),
        HumanMessage(content="last", id="human-2"),
    ]


def _which(messages: list[Any], given: list[Any]) -> list[int | None]:
    """For each message, the index of the given object it is, if any."""
    return [next((i for i, g in enumerate(given) if m is g), None) for m in messages]


def _run(mod: Any, mode: str, given: list[Any]) -> list[list[Any]]:
    """The message lists the caller sees: the result's, or each ``values`` chunk's."""
    agent = mod.create_deep_agent(model=ScriptedChatModel(_replies()), tools=[echo])
    state = {"messages": given}
    if mode == "invoke":
        return [agent.invoke(state)["messages"]]
    if mode == "ainvoke":
        return [asyncio.run(agent.ainvoke(state))["messages"]]
    if mode == "stream":
        return [c["messages"] for c in agent.stream(state, stream_mode="values")]

    async def chunks() -> list[Any]:
        return [c["messages"] async for c in agent.astream(state, stream_mode="values")]

    return asyncio.run(chunks())


def _side_by_side(mode: str, make_inputs: Any) -> list[list[list[int | None]]]:
    """Each implementation's `_which` of every list it returns, checked equal; the contents
    too."""
    seen, contents = {}, {}
    for name, mod in IMPLS.items():
        given = make_inputs()
        lists = _run(mod, mode, given)
        seen[name] = [_which(msgs, given) for msgs in lists]
        contents[name] = [[m.content for m in msgs] for msgs in lists]
    assert contents["deepagents_rs"] == contents["deepagents"]
    assert seen["deepagents_rs"] == seen["deepagents"]
    return seen["deepagents"]


MODES = ["invoke", "ainvoke", "stream", "astream"]


@pytest.mark.parametrize("mode", MODES)
def test_the_callers_objects_come_back(mode: str) -> None:
    seen = _side_by_side(mode, _inputs)
    # The objects are themselves in every list; the dict's and the tuple's messages are not
    # the caller's, nor are the run's own.
    for which in seen:
        assert which[:6] == [0, 1, 2, None, None, 5]
        assert all(w is None for w in which[6:])


@pytest.mark.parametrize("mode", MODES)
def test_a_repeated_id_is_replaced_by_the_later_object(mode: str) -> None:
    def inputs() -> list[Any]:
        return [*_inputs(), HumanMessage(content="first again", id="ai-1")]

    seen = _side_by_side(mode, inputs)
    for which in seen:
        # The later object, in the earlier one's place.
        assert which[:6] == [0, 6, 2, None, None, 5]


@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_a_removed_message_is_gone_and_the_others_are_themselves(mode: str) -> None:
    def inputs() -> list[Any]:
        return [*_inputs(), RemoveMessage(id="sys-1")]

    seen = _side_by_side(mode, inputs)
    for which in seen:
        assert which[:5] == [0, 1, None, None, 5]


def test_dicts_come_back_as_new_objects() -> None:
    def inputs() -> list[Any]:
        return [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b", "id": "x"}]

    seen = _side_by_side("invoke", inputs)
    assert seen == [[None] * len(seen[0])]


def test_a_subagents_values_keep_their_objects() -> None:
    """``subgraphs=True``: each of a subagent's ``values`` chunks holds the objects of its
    chunk before (its task message, ...), as the root's do."""
    stable = {}
    for name, mod in IMPLS.items():
        call = {"name": "task", "args": {"description": "do it", "subagent_type": "helper"}, "id": "t1"}
        helper = {
            "name": "helper",
            "description": "helps",
            "system_prompt": "help",
            "model": ScriptedChatModel(["helped"]),
        }
        agent = mod.create_deep_agent(
            model=ScriptedChatModel([AIMessage(content="", tool_calls=[call]), "done"]), subagents=[helper]
        )
        chunks = [c for ns, c in agent.stream({"messages": _inputs()}, stream_mode="values", subgraphs=True) if ns]
        first = chunks[0]["messages"]
        stable[name] = [[any(m is f for f in first) for m in c["messages"]] for c in chunks]
    assert stable["deepagents_rs"] == stable["deepagents"]
    assert stable["deepagents"][-1][0] is True


@pytest.mark.parametrize("mode", MODES)
def test_an_object_the_core_reads_in_part_comes_back(mode: str) -> None:
    """A field the core keeps no copy of (a system message's name, an AI message's
    ``example`` flag) does not make the object a new one: the run left the message as
    given."""

    def inputs() -> list[Any]:
        return [
            HumanMessage(content="first", id="h-1"),
            SystemMessage(content="a note", id="sys-1", name="noted"),
            AIMessage(content="an earlier reply", id="ai-1", example=True),
            HumanMessage(content="last", id="h-2"),
        ]

    seen = _side_by_side(mode, inputs)
    for which in seen:
        assert which[:4] == [0, 1, 2, 3]
