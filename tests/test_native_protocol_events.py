"""Under ``stream_events(version="v3")`` a native client's chunks are made into LangChain's
content-block protocol events as each arrives, not once the call has ended: the shaper turns
each of the core's chunk items into the events LangChain's bridge makes of it, and the call's
end (the next item in its namespace) into the closing events. Together they are the events
the bridge (``chunks_to_events``) makes of the whole call."""

from __future__ import annotations

import pytest
from deepagents_rs import _stream
from langchain_core.language_models._compat_bridge import chunks_to_events
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk

CALL = "lc_run--0b0b0b0b-0000-4000-8000-000000000001"


def _chunks() -> list[AIMessageChunk]:
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}, "index": 1, "partial_json": ""}
    return [
        AIMessageChunk(content=[{"type": "text", "text": "Add", "index": 0}], id=CALL),
        AIMessageChunk(content=[{"type": "text", "text": "ing.", "index": 0}], id=CALL),
        AIMessageChunk(content=[tool_use], id=CALL),
        AIMessageChunk(content=[{"type": "input_json_delta", "partial_json": '{"a": 2}', "index": 1}], id=CALL),
        AIMessageChunk(content=[], id=CALL, response_metadata={"stop_reason": "tool_use"}, chunk_position="last"),
    ]


def _shaper(ns_subgraphs: bool = True) -> _stream.Shaper:
    shaper = _stream.Shaper(["messages", "updates"], False, ns_subgraphs, "v2", {}, None, lambda raw: raw)
    shaper.follow_tools(True)
    return shaper


def _item(chunk: AIMessageChunk, ns: tuple = ()) -> tuple:
    return ("messages", ns, (chunk, {"langgraph_node": "model"}, True))


@pytest.mark.parametrize("ns", [(), ("tools:0b0b0b0b-0000-4000-8000-000000000002",)])
def test_events_as_chunks_arrive(ns: tuple) -> None:
    shaper = _shaper()
    per_chunk = [shaper.chunks(_item(chunk, ns)) for chunk in _chunks()]
    # The first chunk starts the message and its first block, with the text so far.
    first = [part["data"][0]["event"] for part in per_chunk[0]]
    assert first == ["message-start", "content-block-start", "content-block-delta"]
    assert per_chunk[1] and all(part["ns"] == ns for parts in per_chunk for part in parts)
    # What comes next in the namespace ends the call: its blocks and the message finish.
    closing = shaper.chunks(("updates", ns, ("model", None, False)))
    finish = [p["data"][0]["event"] for p in closing if p["type"] == "messages"]
    assert finish[-1] == "message-finish"
    made = [p["data"][0] for parts in [*per_chunk, closing] for p in parts if p["type"] == "messages"]
    bridge = list(chunks_to_events((ChatGenerationChunk(message=c) for c in _chunks()), message_id=CALL))
    assert made == bridge
    # Each event carries the call's run id, as LangGraph's handler gives it.
    runs = {p["data"][1]["run_id"] for parts in per_chunk for p in parts}
    assert runs == {CALL.removeprefix("lc_run--")}


def test_run_end_closes_the_call() -> None:
    shaper = _shaper()
    for chunk in _chunks()[:2]:
        shaper.chunks(_item(chunk))
    closing = shaper.chunks(("done", (), {"messages": []}))
    assert [p["data"][0]["event"] for p in closing] == ["content-block-finish", "message-finish"]


def test_subagent_events_need_subgraphs() -> None:
    shaper = _shaper(ns_subgraphs=False)
    ns = ("tools:0b0b0b0b-0000-4000-8000-000000000002",)
    assert [shaper.chunks(_item(chunk, ns)) for chunk in _chunks()] == [[]] * len(_chunks())
