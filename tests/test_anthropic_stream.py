"""The native Anthropic client streams (``"stream": true``) when LangGraph's ``messages`` mode asks for tokens.

Against the simulated Messages API (tests/sim/anthropic.py), which sends real SSE replies:
tokens reach the caller as the provider sends them, the requests are the non-streaming ones
plus ``"stream": true`` (and only in ``messages`` mode), the final state is what a
non-streaming run stores, and a stream that breaks off leaves no half message behind.
deepagents (over langchain-anthropic) runs the same scripts for the parity checks.
"""

from __future__ import annotations

import asyncio
import functools
import json
import operator
from collections.abc import Callable
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import create_deep_agent
from langchain_core.messages import AIMessageChunk, ToolMessage
from sim.anthropic import Reply, SimAnthropic, StreamFault, text, tool_use

MODEL = "anthropic:claude-sonnet-4-5"
INPUT = {"messages": [{"role": "user", "content": "what is 2+3?"}]}
FIRST_TEXT = "Let me add those two numbers."
FINAL_TEXT = "The sum of 2 and 3 is 5."
ADD_CALL = {"name": "add", "args": {"a": 2, "b": 3}, "id": "toolu_1", "type": "tool_call"}


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _script(sim: SimAnthropic) -> None:
    sim.script(tool_use(("add", {"a": 2, "b": 3}, "toolu_1"), text=FIRST_TEXT), text(FINAL_TEXT))


def _run(
    agent: Any,
    api: str,
    input: dict,
    on_item: Callable[[Any], None] | None = None,
    **kwargs: Any,
) -> list[Any]:
    """Everything ``agent.stream`` (or ``astream``) yields, in order; ``on_item`` sees each item
    as it arrives."""
    if api == "stream":
        items = []
        for item in agent.stream(input, **kwargs):
            items.append(item)
            if on_item is not None:
                on_item(item)
        return items

    async def main() -> list[Any]:
        items = []
        async for item in agent.astream(input, **kwargs):
            items.append(item)
            if on_item is not None:
                on_item(item)
        return items

    return asyncio.run(main())


def _calls(items: list[tuple[Any, dict]]) -> list[list[AIMessageChunk]]:
    """The model node's chunks grouped by message id, in order of first appearance."""
    groups: dict[str, list[AIMessageChunk]] = {}
    for msg, meta in items:
        if meta["langgraph_node"] == "model":
            groups.setdefault(msg.id, []).append(msg)
    return list(groups.values())


def _nodes(items: list[tuple[Any, dict]]) -> list[str]:
    """The nodes the items came from, consecutive repeats collapsed."""
    out: list[str] = []
    for _, meta in items:
        if not out or out[-1] != meta["langgraph_node"]:
            out.append(meta["langgraph_node"])
    return out


# --------------------------------------------------------------------------- (a) chunks


@pytest.mark.parametrize("api", ["stream", "astream"])
def test_messages_mode_yields_text_pieces_tool_call_chunks_and_tool_messages(sim: SimAnthropic, api: str) -> None:
    _script(sim)
    agent = create_deep_agent(model=MODEL, tools=[add])
    items = _run(agent, api, INPUT, stream_mode="messages")

    assert _nodes(items) == ["model", "tools", "model"]
    calls = _calls(items)
    assert len(calls) == 2
    for chunks in calls:
        assert all(isinstance(c, AIMessageChunk) for c in chunks)
        assert chunks[0].id.startswith("lc_run--")
    assert calls[0][0].id != calls[1][0].id

    for chunks, rec, full in zip(calls, sim.requests, [FIRST_TEXT, FINAL_TEXT], strict=True):
        # One chunk per text delta, in the order the server sent them.
        sent = rec.stream.deltas()
        assert len(sent) > 3
        assert [c.text for c in chunks if c.text] == sent
        merged = functools.reduce(operator.add, chunks)
        assert merged.text == full

    first, second = calls
    # The tool call streams in pieces: name and id first, then the argument fragments as sent.
    tool_chunks = [tc for c in first for tc in c.tool_call_chunks]
    assert (tool_chunks[0]["name"], tool_chunks[0]["id"]) == ("add", "toolu_1")
    fragments = sim.requests[0].stream.deltas("input_json_delta")
    assert [tc["args"] for tc in tool_chunks if tc["args"]] == [f for f in fragments if f]
    assert len([f for f in fragments if f]) >= 2
    assert all(tc["index"] == tool_chunks[0]["index"] for tc in tool_chunks)
    merged = functools.reduce(operator.add, first)
    assert merged.tool_calls == [ADD_CALL]
    assert json.loads("".join(tc["args"] for tc in tool_chunks)) == ADD_CALL["args"]
    assert [tc for c in second for tc in c.tool_call_chunks] == []

    tool_messages = [m for m, meta in items if meta["langgraph_node"] == "tools"]
    assert len(tool_messages) == 1 and isinstance(tool_messages[0], ToolMessage)
    assert (tool_messages[0].content, tool_messages[0].tool_call_id) == ("5", "toolu_1")


def _chunk_view(msg: Any, meta: dict) -> tuple:
    """What a caller reads from one ``messages``-mode item (token counts aside: the
    reference's built-in tools make its prompts longer)."""
    if isinstance(msg, ToolMessage):
        return (meta["langgraph_node"], "tool", msg.content, msg.tool_call_id)
    content = msg.content
    if isinstance(content, list):
        content = [{k: v for k, v in b.items() if v is not None} for b in content]
    return (
        meta["langgraph_node"],
        type(msg).__name__,
        content,
        msg.tool_call_chunks,
        msg.usage_metadata is None,
    )


def test_chunks_match_deepagents(sim: SimAnthropic) -> None:
    deepagents = pytest.importorskip("deepagents")
    runs = []
    for create in (deepagents.create_deep_agent, create_deep_agent):
        sim.reset()
        _script(sim)
        runs.append(list(create(model=MODEL, tools=[add]).stream(INPUT, stream_mode="messages")))
    reference, ours = runs
    assert [_chunk_view(m, meta) for m, meta in ours] == [_chunk_view(m, meta) for m, meta in reference]
    for (mine, _), (theirs, _) in zip(ours, reference, strict=True):
        # Every response_metadata key deepagents has, with its value; more keys are allowed.
        expected = theirs.response_metadata
        assert {k: mine.response_metadata.get(k) for k in expected} == expected


# --------------------------------------------------------------------------- (b) first token


@pytest.mark.parametrize("api", ["stream", "astream"])
def test_first_token_reaches_the_caller_while_the_server_is_still_sending(sim: SimAnthropic, api: str) -> None:
    """The server holds the stream after its first text delta until the caller has seen it. A
    client that hands chunks over only once the reply is complete never lets the gate open:
    the server gives up after 10 s with an ``event: error`` and this run fails."""
    sim.script(text("Streaming tokens one small piece at a time."))
    gate = sim.gate_after_first_delta(timeout=10.0)
    agent = create_deep_agent(model=MODEL)
    first: list[tuple[str, bool, str]] = []

    def on_item(item: tuple[Any, dict]) -> None:
        msg, meta = item
        if meta["langgraph_node"] == "model" and msg.text and not first:
            log = sim.requests[-1].stream
            first.append((msg.text, log.complete, log.names()[-1]))
            gate.set()

    items = _run(agent, api, INPUT, on_item, stream_mode="messages")
    log = sim.requests[0].stream
    assert log.gated and not log.gate_timed_out and log.complete
    # The first piece arrived while the server was waiting right after sending it.
    assert first == [(log.deltas()[0], False, "content_block_delta")]
    assert "".join(m.text for m, _ in items) == "Streaming tokens one small piece at a time."


# --------------------------------------------------------------------------- (c) requests

RUNS: dict[str, tuple[Callable[[Any], Any], bool]] = {
    # name: (run, streams)
    "invoke": (lambda agent: agent.invoke(INPUT), False),
    "ainvoke": (lambda agent: asyncio.run(agent.ainvoke(INPUT)), False),
    "stream-updates": (lambda agent: _run(agent, "stream", INPUT, stream_mode="updates"), False),
    "stream-values": (lambda agent: _run(agent, "stream", INPUT, stream_mode="values"), False),
    "stream-custom": (lambda agent: _run(agent, "stream", INPUT, stream_mode="custom"), False),
    "astream-updates": (lambda agent: _run(agent, "astream", INPUT, stream_mode="updates"), False),
    "stream-messages": (lambda agent: _run(agent, "stream", INPUT, stream_mode="messages"), True),
    "astream-messages": (lambda agent: _run(agent, "astream", INPUT, stream_mode="messages"), True),
    "stream-updates+messages": (
        lambda agent: _run(agent, "stream", INPUT, stream_mode=["updates", "messages"]),
        True,
    ),
}


@pytest.mark.parametrize("run", RUNS)
def test_stream_flag_only_in_messages_mode_and_otherwise_the_same_request(sim: SimAnthropic, run: str) -> None:
    _script(sim)
    create_deep_agent(model=MODEL, tools=[add]).invoke(INPUT)
    plain = [r.body for r in sim.requests]
    plain_accounting = [(r.response["usage"], r.cache) for r in sim.requests]
    assert all("stream" not in body for body in plain)

    sim.reset()
    _script(sim)
    call, streams = RUNS[run]
    call(create_deep_agent(model=MODEL, tools=[add]))
    bodies = [r.body for r in sim.requests]
    assert len(bodies) == 2
    expected = [{**body, "stream": True} if streams else body for body in plain]
    assert bodies == expected
    # The cache saw the same prefixes (key order included).
    assert [(r.response["usage"], r.cache) for r in sim.requests] == plain_accounting
    assert [r.stream is not None for r in sim.requests] == [streams, streams]


@pytest.mark.parametrize(("mode", "streams"), [("messages", True), ("updates", False)])
def test_subagent_calls_stream_when_the_parent_run_does(sim: SimAnthropic, mode: str, streams: bool) -> None:
    sim.script(
        tool_use(("task", {"description": "add 2 and 3", "subagent_type": "general-purpose"}, "toolu_1")),
        text("5"),
        text("It is 5."),
    )
    list(create_deep_agent(model=MODEL, tools=[add]).stream(INPUT, stream_mode=mode))
    assert len(sim.requests) == 3
    assert [r.body.get("stream", False) for r in sim.requests] == [streams] * 3


def _without_builtins(body: dict) -> dict:
    """Built-in tools come with a later issue (see test_anthropic_native.py)."""
    builtins = {"ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep", "execute"}
    return {**body, "tools": [t for t in body.get("tools", []) if t["name"] not in builtins]}


def test_streamed_requests_match_deepagents(sim: SimAnthropic) -> None:
    deepagents = pytest.importorskip("deepagents")
    bodies = []
    for create in (deepagents.create_deep_agent, create_deep_agent):
        start = len(sim.requests)
        _script(sim)
        list(create(model=MODEL, tools=[add]).stream(INPUT, stream_mode="messages"))
        bodies.append([_without_builtins(r.body) for r in sim.requests[start:]])
    reference, ours = bodies
    assert len(ours) == len(reference) == 2
    assert ours == reference


# --------------------------------------------------------------------------- (d) final state


def _blocks(msg: Any) -> list[dict]:
    """An AI message's content as blocks, without langchain-anthropic's streaming bookkeeping
    (a block's ``index``; a tool_use block's ``partial_json`` next to an empty ``input``)."""
    if isinstance(msg.content, str):
        return [{"type": "text", "text": msg.content}] if msg.content else []
    out = []
    for block in msg.content:
        block = {k: v for k, v in block.items() if k != "index" and v is not None}
        if "partial_json" in block:
            block["input"] = json.loads(block.pop("partial_json") or "{}")
        out.append(block)
    return out


SAME_METADATA = ("model_name", "model_provider", "stop_reason", "stop_sequence")


@pytest.mark.parametrize("final", ["values", "updates"])
def test_final_state_is_the_non_streamed_one(sim: SimAnthropic, final: str) -> None:
    _script(sim)
    plain = create_deep_agent(model=MODEL, tools=[add]).invoke(INPUT)["messages"]
    plain_usage = [r.response["usage"] for r in sim.requests]
    plain_cache = [r.cache for r in sim.requests]

    sim.reset()
    _script(sim)
    agent = create_deep_agent(model=MODEL, tools=[add])
    items = list(agent.stream(INPUT, stream_mode=["messages", final]))
    if final == "values":
        streamed = [data for mode, data in items if mode == "values"][-1]["messages"]
    else:
        streamed = [plain[0]]  # the input, then the messages each node added
        for mode, data in items:
            if mode == "updates":
                for update in data.values():
                    streamed.extend((update or {}).get("messages", []))

    # The provider saw the same prompts: same usage and cache accounting on every call.
    assert [r.response["usage"] for r in sim.requests] == plain_usage
    assert [r.cache for r in sim.requests] == plain_cache

    assert [m.type for m in streamed] == [m.type for m in plain] == ["human", "ai", "tool", "ai"]
    for ours, theirs in zip(streamed, plain, strict=True):
        if ours.type == "tool":
            assert (ours.content, ours.tool_call_id, ours.status) == (theirs.content, theirs.tool_call_id, "success")
        if ours.type != "ai":
            continue
        assert type(ours).__name__ == "AIMessage"
        assert ours.id.startswith("lc_run--")
        assert ours.text == theirs.text
        assert _blocks(ours) == _blocks(theirs)
        assert ours.tool_calls == theirs.tool_calls
        assert ours.invalid_tool_calls == theirs.invalid_tool_calls == []
        assert ours.usage_metadata == theirs.usage_metadata
        for key in SAME_METADATA:
            assert ours.response_metadata[key] == theirs.response_metadata[key], key
        if "id" in ours.response_metadata:
            assert ours.response_metadata["id"] == theirs.response_metadata["id"]
    ai_call, ai_final = streamed[1], streamed[3]
    assert ai_call.tool_calls == [ADD_CALL] and ai_call.response_metadata["stop_reason"] == "tool_use"
    assert ai_final.text == FINAL_TEXT and ai_final.response_metadata["stop_reason"] == "end_turn"
    details = ai_final.usage_metadata["input_token_details"]
    assert details["cache_read"] == plain_usage[1]["cache_read_input_tokens"] > 0
    reported = plain_usage[1]
    total_in = reported["input_tokens"] + reported["cache_read_input_tokens"] + reported["cache_creation_input_tokens"]
    assert ai_final.usage_metadata["input_tokens"] == total_in


def test_streamed_final_messages_match_deepagents(sim: SimAnthropic) -> None:
    """The stored messages are the ones deepagents stores when it streams (langchain-anthropic
    merges the chunks); token counts aside, which its built-in tools make larger."""
    deepagents = pytest.importorskip("deepagents")
    results = []
    for create in (deepagents.create_deep_agent, create_deep_agent):
        sim.reset()
        _script(sim)
        items = list(create(model=MODEL, tools=[add]).stream(INPUT, stream_mode=["messages", "values"]))
        results.append([data for mode, data in items if mode == "values"][-1]["messages"])
    reference, ours = results
    assert [m.type for m in ours] == [m.type for m in reference]
    for mine, theirs in zip(ours, reference, strict=True):
        if mine.type != "ai":
            continue
        # Blocks as the SDK dumps them: its models' key order, absent fields as None.
        assert mine.content == theirs.content
        assert mine.tool_calls == theirs.tool_calls
        # Every key deepagents has, with its value; more keys are allowed.
        assert {k: mine.response_metadata.get(k) for k in theirs.response_metadata} == theirs.response_metadata


# --------------------------------------------------------------------------- (e) errors mid-stream


@pytest.mark.parametrize("api", ["stream", "astream"])
@pytest.mark.parametrize("where", ["first-call", "after-a-tool-round"])
def test_overloaded_mid_stream_leaves_no_half_message(sim: SimAnthropic, api: str, where: str) -> None:
    broken = Reply(body=text(FINAL_TEXT), stream_fault=StreamFault())  # overloaded_error after the first text delta
    if where == "first-call":
        sim.script(broken)
    else:
        sim.script(tool_use(("add", {"a": 2, "b": 3}, "toolu_1"), text=FIRST_TEXT), broken)
    agent = create_deep_agent(model=MODEL, tools=[add])
    seen: list[Any] = []
    with pytest.raises(deepagents_rs.ModelProviderError) as info:
        _run(agent, api, INPUT, seen.append, stream_mode="messages")
    err = info.value
    assert (err.status_code, err.error_type, err.provider_message) == (529, "overloaded_error", "Overloaded")

    # The error really came mid-stream: the caller had the first piece of the broken reply.
    broken_rec = sim.requests[-1]
    assert broken_rec.stream.fault == "error"
    assert broken_rec.stream.deltas()[0] in [m.text for m, _ in seen]
    # A stream that has started is not retried (the SDK does not either).
    assert len(sim.requests) == (1 if where == "first-call" else 2)

    state = err.partial_state
    expected = ["human"] if where == "first-call" else ["human", "ai", "tool"]
    assert [m.type for m in state["messages"]] == expected
    assert not any(FINAL_TEXT[:4] in str(m.content) for m in state["messages"])
    if where == "after-a-tool-round":
        ai = state["messages"][1]
        assert type(ai).__name__ == "AIMessage" and ai.tool_calls == [ADD_CALL]
        assert state["messages"][2].content == "5"
