"""The messages a checkpointed run's nodes write are made objects by the core
(`stream_payloads.rs`' `written_objects`, with the result makers of `result_objects.rs`),
handed over beside the core's dicts in its ``updates`` items, not made in Python by
``_convert.from_core``; and they are the objects ``from_core`` makes of those dicts, field for
field, so the channels, the checkpoint and the stream hold what they held before."""

from __future__ import annotations

from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _convert, _stream, _thread_feed
from fake_models import ScriptedChatModel, ai_tool_calls
from langgraph.checkpoint.memory import InMemorySaver
from thread_support import THREAD, my_tool


@pytest.fixture
def updates(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    """Each ``(write, core)`` pair of the core's ``updates`` items a checkpointed run's feed
    reads (`Feed._accept` shapes each with `_stream._update`)."""
    seen: list[tuple[Any, Any]] = []

    def recording(value: Any, core: Any) -> Any:
        seen.append((value, core))
        return _stream._update(value, core)

    monkeypatch.setattr(_thread_feed, "_update_of", recording)
    return seen


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """The core dicts ``_convert.from_core`` made objects of."""
    dicts: list[dict] = []
    original = _convert.from_core

    def from_core(d: dict) -> Any:
        dicts.append(d)
        return original(d)

    monkeypatch.setattr(_convert, "from_core", from_core)
    return dicts


def _agent(saver: Any) -> Any:
    script = [ai_tool_calls(("my_tool", {"x": 1}, "call_1")), "done", "again"]
    return deepagents_rs.create_deep_agent(model=ScriptedChatModel(script), tools=[my_tool], checkpointer=saver)


def _written(updates: list[tuple[Any, Any]]) -> list[tuple[dict, Any]]:
    """Each message dict of the core's writes, with the object the core made of it."""
    out = []
    for value, core in updates:
        if not core:
            # A node that wrote nothing, or a hook's own value (no core write).
            continue
        writes, made = (value, core) if isinstance(value, list) else ([value], core)
        assert type(made) is tuple, made
        for write, objects in zip(writes, made, strict=True):
            dicts = write.get("messages") if isinstance(write, dict) else None
            if not dicts:
                continue
            assert len(objects) == len(dicts)
            out.extend(zip(dicts, objects, strict=True))
    return out


def test_the_written_messages_are_made_by_the_core(updates: list, made: list[dict]) -> None:
    agent = _agent(InMemorySaver())
    agent.invoke({"messages": [("user", "go")]}, THREAD)
    made.clear()
    updates.clear()
    result = agent.invoke({"messages": [("user", "more")]}, THREAD)
    assert result["messages"][-1].content == "again"
    written = _written(updates)
    assert [d["type"] for d, _ in written] == ["ai"]
    # No message of the turn's writes was made in Python: not for the write, and not for
    # the result (which shows the written objects).
    ids = {d["id"] for d, _ in written}
    assert [d for d in made if d.get("id") in ids] == []
    assert result["messages"][-1] is written[-1][1]


def test_the_core_made_objects_are_from_cores(updates: list) -> None:
    saver = InMemorySaver()
    agent = _agent(saver)
    agent.invoke({"messages": [("user", "go")]}, THREAD)
    written = _written(updates)
    assert [d["type"] for d, _ in written] == ["ai", "tool", "ai"]
    for d, obj in written:
        reference = _convert.from_core(d)
        assert type(obj) is type(reference)
        assert obj.__dict__ == reference.__dict__
        assert list(obj.__dict__) == list(reference.__dict__)
        assert obj.model_fields_set == reference.model_fields_set
        assert obj.__pydantic_extra__ == reference.__pydantic_extra__
    # The checkpoint holds those objects' messages.
    state = agent.get_state(THREAD)
    assert [m.id for m in state.values["messages"][1:]] == [d["id"] for d, _ in written]
