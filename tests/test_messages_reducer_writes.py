"""Writes to ``messages`` that are message objects already (a node's, or a loaded checkpoint's
writes as the delta channel replays them: a thread's whole input history among them) are taken
as they are by the reducer (`_messages_reducer.merge`), not passed through LangChain's
``convert_to_messages`` one call a message: that replay runs at every load of the thread, so a
run paid a call per earlier message. What the reducer returns is deepagents' own
(``tests/parity/test_private_helpers``' reducer cases); here, that no object is converted."""

from __future__ import annotations

import sys
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _messages_reducer
from fake_models import ScriptedChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage
from langchain_core.messages import utils as message_utils
from langgraph.checkpoint.memory import InMemorySaver

THREAD = {"configurable": {"thread_id": "w"}}


def _converted_objects(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The message objects LangChain's ``convert_to_messages`` is given by the reducer from
    now on (the scripted model converts its input itself)."""
    seen: list[Any] = []
    convert_one = message_utils._convert_to_message

    def counted(message: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(message, BaseMessage) and _in_reducer(sys._getframe(1)):
            seen.append(message)
        return convert_one(message, *args, **kwargs)

    monkeypatch.setattr(message_utils, "_convert_to_message", counted)
    return seen


def _in_reducer(frame: Any) -> bool:
    while frame is not None:
        if frame.f_code.co_filename == _messages_reducer.__file__:
            return True
        frame = frame.f_back
    return False


def test_a_loaded_threads_replayed_writes_are_not_converted(monkeypatch: pytest.MonkeyPatch) -> None:
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(["first", "second"]), checkpointer=InMemorySaver())
    history = [(HumanMessage if i % 2 == 0 else AIMessage)(f"m{i}", id=f"m{i}") for i in range(40)]
    agent.invoke({"messages": [*history, HumanMessage("go", id="go")]}, THREAD)
    seen = _converted_objects(monkeypatch)
    loaded = agent.get_state(THREAD).values["messages"]
    out = agent.invoke({"messages": [("user", "again")]}, THREAD)
    assert [m.id for m in loaded[:41]] == [*(f"m{i}" for i in range(40)), "go"]
    assert [m.content for m in out["messages"][40:]] == ["go", "first", "again", "second"]
    assert seen == []


def test_written_objects_are_the_results_own() -> None:
    state = [HumanMessage("a", id="1"), AIMessage("b", id="2")]
    written = [AIMessage("c", id="3"), HumanMessage("d")]
    out = _messages_reducer.merge(state, [written])
    assert out == [*state, *written]
    assert all(map(lambda a, b: a is b, out[2:], written))
    # A removal among object writes still removes.
    assert _messages_reducer.merge(out, [[RemoveMessage(id="2")]]) == [state[0], *written]
