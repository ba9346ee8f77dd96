"""Streaming (``"stream": true``) in the simulated Anthropic server (tests/sim/anthropic.py).

The official ``anthropic`` SDK parses the simulator's SSE replies; the message it assembles
must equal the non-streaming reply for the same script, with the same usage and cache
accounting. The pacing gate and the mid-stream faults are checked here too, so the tests of
the native client can rely on them.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
from sim.anthropic import (
    Reply,
    SimAnthropic,
    StreamFault,
    message,
    sse_bytes,
    stream_events,
    text,
    tool_use,
)

MODEL = "claude-sonnet-4-5"
EPHEMERAL = {"type": "ephemeral"}
SYSTEM = [{"type": "text", "text": "You are a careful assistant. " * 20, "cache_control": EPHEMERAL}]
TOOLS = [
    {
        "name": "lookup",
        "description": "Look a key up.",
        "input_schema": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
    }
]
USER = [{"role": "user", "content": "hi there"}]


@pytest.fixture
def sim() -> Iterator[SimAnthropic]:
    with SimAnthropic(min_cache_tokens=50) as s:
        yield s


@pytest.fixture
def client(sim: SimAnthropic) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(api_key="sk-test", base_url=sim.base_url, max_retries=2) as c:
        yield c


def params(**extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": MODEL, "max_tokens": 256, "system": SYSTEM, "tools": TOOLS, "messages": USER}
    body.update(extra)
    return body


TEXT = "Hello there, this is a streamed reply. Ünïcödé too."
TOOL_REPLY = tool_use(("lookup", {"key": "café", "n": [1, 2, 3]}), ("lookup", {}), text="Let me check.")
THINKING_REPLY = message(
    [
        {"type": "thinking", "thinking": "The user greets me; answer kindly.", "signature": "sig-abc123"},
        {"type": "redacted_thinking", "data": "opaque-bytes"},
        {"type": "text", "text": "Hi! How can I help?"},
    ],
    stop_reason="end_turn",
)
REPLIES = {"text": text(TEXT), "tool_use": TOOL_REPLY, "thinking": THINKING_REPLY}


def both_ways(sim: SimAnthropic, client: anthropic.Anthropic, reply: dict[str, Any]) -> tuple[Any, Any]:
    """The SDK's final message for `reply`, streamed and not, from two identical fresh servers
    states (reset in between, so ids and the cache start over)."""
    sim.script(reply)
    with client.messages.stream(**params()) as stream:
        streamed = stream.get_final_message()
    streamed_rec = sim.requests[0]
    sim.reset()
    sim.script(reply)
    plain = client.messages.create(**params())
    plain_rec = sim.requests[0]
    assert streamed_rec.body == {**plain_rec.body, "stream": True}
    assert streamed_rec.stream is not None and streamed_rec.stream.complete
    assert plain_rec.stream is None
    # Same recording: the message the events add up to, and the same cache accounting.
    assert streamed_rec.response == plain_rec.response
    assert streamed_rec.cache == plain_rec.cache
    return streamed, plain


# --------------------------------------------------------------------------- the SDK assembles the same message


@pytest.mark.parametrize("kind", REPLIES)
def test_sdk_final_message_equals_the_non_streamed_one(
    sim: SimAnthropic, client: anthropic.Anthropic, kind: str
) -> None:
    streamed, plain = both_ways(sim, client, REPLIES[kind])
    assert streamed.model_dump() == plain.model_dump()
    assert streamed.usage.cache_creation_input_tokens > 0  # the accounting is really exercised


def test_sdk_text_stream_yields_the_small_deltas(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    sim.script(text(TEXT))
    with client.messages.stream(**params()) as stream:
        pieces = list(stream.text_stream)
    assert len(pieces) > 5 and all(0 < len(p) <= sim.stream_text_chunk for p in pieces)
    assert "".join(pieces) == TEXT
    assert pieces == sim.requests[0].stream.deltas()


def test_sdk_raw_events_for_a_text_reply(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    sim.script(text("Hello world"))
    events = list(client.messages.create(**params(), stream=True))
    assert [e.type for e in events] == [
        "message_start",
        "content_block_start",
        *["content_block_delta"] * 3,  # "Hell", "o wo", "rld"
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    # The ping is on the wire (the SDK skips it).
    rec = sim.requests[0]
    assert rec.stream.names() == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = events[0].message
    assert (start.id, start.model, start.content, start.stop_reason) == ("msg_sim_1", MODEL, [], None)
    usage = rec.response["usage"]
    assert start.usage.output_tokens == 1
    assert start.usage.cache_creation_input_tokens == usage["cache_creation_input_tokens"] > 0
    assert start.usage.cache_read_input_tokens == usage["cache_read_input_tokens"]
    assert start.usage.input_tokens == usage["input_tokens"]
    assert start.usage.cache_creation.ephemeral_5m_input_tokens == usage["cache_creation"]["ephemeral_5m_input_tokens"]
    assert [e.delta.text for e in events[2:5]] == ["Hell", "o wo", "rld"]
    delta = events[6]
    assert (delta.delta.stop_reason, delta.delta.stop_sequence) == ("end_turn", None)
    assert delta.usage.output_tokens == usage["output_tokens"]
    assert delta.usage.cache_read_input_tokens == usage["cache_read_input_tokens"]


def test_sdk_raw_events_for_a_tool_use_reply(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    sim.script(TOOL_REPLY)
    events = list(client.messages.create(**params(), stream=True))
    starts = [e.content_block.model_dump(exclude_none=True) for e in events if e.type == "content_block_start"]
    assert starts == [
        {"type": "text", "text": ""},
        {"type": "tool_use", "id": "toolu_sim_1", "name": "lookup", "input": {}},
        {"type": "tool_use", "id": "toolu_sim_2", "name": "lookup", "input": {}},
    ]
    fragments: dict[int, list[str]] = {}
    for e in events:
        if e.type == "content_block_delta" and e.delta.type == "input_json_delta":
            fragments.setdefault(e.index, []).append(e.delta.partial_json)
    # Several fragments, the first one empty; a call without input is the empty fragment alone.
    assert fragments[1][0] == "" and len(fragments[1]) > 3
    assert json.loads("".join(fragments[1])) == {"key": "café", "n": [1, 2, 3]}
    assert fragments[2] == [""]
    assert events[-2].delta.stop_reason == "tool_use"


def test_thinking_is_streamed_as_thinking_and_signature_deltas(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    sim.script(THINKING_REPLY)
    list(client.messages.create(**params(), stream=True))
    events = sim.requests[0].stream.events
    block0 = [(n, d) for n, d in events if d.get("index") == 0]
    assert block0[0][1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    assert [d["delta"]["type"] for n, d in block0 if n == "content_block_delta"][-1] == "signature_delta"
    assert block0[-1][0] == "content_block_stop"
    assert "".join(sim.requests[0].stream.deltas("thinking_delta")) == THINKING_REPLY["content"][0]["thinking"]
    assert sim.requests[0].stream.deltas("signature_delta") == ["sig-abc123"]
    redacted = [d for n, d in events if n == "content_block_start" and d["index"] == 1]
    assert redacted[0]["content_block"] == {"type": "redacted_thinking", "data": "opaque-bytes"}


def test_stream_events_helper_matches_what_was_sent(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    sim.script(TOOL_REPLY)
    list(client.messages.create(**params(), stream=True))
    rec = sim.requests[0]
    assert stream_events(rec.response) == rec.stream.events


def test_streamed_requests_use_and_fill_the_cache(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    sim.script(text("first answer"), text("second answer"))
    with client.messages.stream(**params()) as s:
        first = s.get_final_message()
    history = [*USER, {"role": "assistant", "content": "first answer"}, {"role": "user", "content": "more"}]
    with client.messages.stream(**params(messages=history, cache_control=EPHEMERAL)) as s:
        second = s.get_final_message()
    assert first.usage.cache_creation_input_tokens > 0
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert sim.requests[1].cache.hit_creator_seq == 0


def test_error_statuses_before_the_stream_stay_json_and_are_retried(
    sim: SimAnthropic, client: anthropic.Anthropic
) -> None:
    sim.script(Reply(status=529, headers={"retry-after-ms": "10"}), text("finally"))
    with client.messages.stream(**params()) as s:
        final = s.get_final_message()
    assert final.content[0].text == "finally"
    assert [r.status for r in sim.requests] == [529, 200]
    assert sim.requests[0].stream is None and sim.requests[1].stream.complete


def test_reply_can_refuse_to_stream(sim: SimAnthropic) -> None:
    sim.script(Reply(body=text("plain"), stream=False))
    status, headers, body = raw_post(sim, params(stream=True))
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body)["content"][0]["text"] == "plain"


# --------------------------------------------------------------------------- the wire


def raw_post(sim: SimAnthropic, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=10)
    try:
        headers = {"x-api-key": "sk-test", "anthropic-version": "2023-06-01", "content-type": "application/json"}
        conn.request("POST", "/v1/messages", body=json.dumps(body), headers=headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


@pytest.mark.parametrize("framing", ["chunked", "close"])
def test_wire_format(framing: str) -> None:
    with SimAnthropic(stream_framing=framing) as sim:  # type: ignore[arg-type]
        sim.script(text("Hello world"))
        status, headers, body = raw_post(sim, params(stream=True))
        assert status == 200
        assert headers["content-type"] == "text/event-stream; charset=utf-8"
        assert "content-length" not in headers
        if framing == "chunked":
            assert headers["transfer-encoding"] == "chunked"
        else:
            assert headers["connection"] == "close"
        assert body == b"".join(sse_bytes(n, d) for n, d in sim.requests[0].stream.events)
        assert body.startswith(b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_sim_1",')
        assert b'\n\nevent: ping\ndata: {"type":"ping"}\n\n' in body
        assert body.endswith(b'event: message_stop\ndata: {"type":"message_stop"}\n\n')
        # With "close" the SDK reads to the end of the connection just as well.
        sim.script(text("again"))
        c = anthropic.Anthropic(api_key="k", base_url=sim.base_url, max_retries=0)
        with c, c.messages.stream(**params()) as stream:
            assert stream.get_final_message().content[0].text == "again"


def test_keep_alive_connection_serves_a_stream_then_a_plain_request(sim: SimAnthropic) -> None:
    sim.script(text("streamed"), text("plain"))
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=10)
    headers = {"x-api-key": "sk-test", "anthropic-version": "2023-06-01", "content-type": "application/json"}
    try:
        conn.request("POST", "/v1/messages", body=json.dumps(params(stream=True)), headers=headers)
        assert b"event: message_stop" in conn.getresponse().read()
        conn.request("POST", "/v1/messages", body=json.dumps(params()), headers=headers)
        assert json.loads(conn.getresponse().read())["content"][0]["text"] == "plain"
    finally:
        conn.close()


# --------------------------------------------------------------------------- pacing gate


def test_gate_holds_the_stream_after_the_first_text_delta(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    gate = sim.gate_after_first_delta()
    assert sim.pending_gates == 1
    sim.script(tool_use(("lookup", {"key": "k"}), text=TEXT))
    seen: list[str] = []
    held_events = None
    with client.messages.stream(**params()) as stream:
        for event in stream:
            if event.type == "text" and not seen:
                rec = sim.requests[0].stream
                # The server is waiting: it sent exactly up to the first text delta.
                held_events = rec.names()
                assert not rec.complete
                gate.set()
            if event.type == "text":
                seen.append(event.text)
        final = stream.get_final_message()
    assert held_events == ["message_start", "ping", "content_block_start", "content_block_delta"]
    rec = sim.requests[0].stream
    assert rec.gated and not rec.gate_timed_out and rec.complete and sim.pending_gates == 0
    assert "".join(seen) == TEXT and final.content[1].input == {"key": "k"}


def test_gate_without_text_holds_after_the_first_delta(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    gate = sim.gate_after_first_delta(timeout=0.3, on_timeout="finish")
    sim.script(tool_use(("lookup", {"key": "k"})))
    with client.messages.stream(**params()) as stream:
        final = stream.get_final_message()
    rec = sim.requests[0].stream
    assert rec.gated and rec.gate_timed_out and rec.complete and not gate.is_set()
    assert final.content[0].input == {"key": "k"}


def test_gate_timeout_fails_the_stream(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    sim.gate_after_first_delta(timeout=0.2)
    sim.script(text(TEXT))
    received: list[str] = []
    # Never sets the gate, like a client that buffers.
    with pytest.raises(anthropic.APIStatusError, match="sim: gate timed out"), client.messages.stream(**params()) as s:
        received.extend(s.text_stream)
    rec = sim.requests[0].stream
    assert received == ["Hell"]
    assert rec.gate_timed_out and rec.fault == "gate_timeout" and not rec.complete
    assert rec.names()[-1] == "error"


def test_gates_are_taken_by_streamed_replies_only(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    gate = sim.gate_after_first_delta()
    sim.script(text("plain"), text("streamed"))
    client.messages.create(**params())
    assert sim.pending_gates == 1
    gate.set()  # already released: the stream goes straight through
    with client.messages.stream(**params()) as stream:
        stream.get_final_message()
    assert sim.pending_gates == 0 and sim.requests[1].stream.gated


def test_gate_released_from_another_thread(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    gate = sim.gate_after_first_delta()
    sim.script(text(TEXT))
    timer = threading.Timer(0.2, gate.set)
    timer.start()
    try:
        with client.messages.stream(**params()) as stream:
            final = stream.get_final_message()
    finally:
        timer.cancel()
    assert final.content[0].text == TEXT and not sim.requests[0].stream.gate_timed_out


# --------------------------------------------------------------------------- faults


def test_overloaded_mid_stream(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    sim.script(Reply(body=text(TEXT), stream_fault=StreamFault()), text("after"))
    received: list[str] = []
    with pytest.raises(anthropic.APIStatusError) as info, client.messages.stream(**params()) as stream:
        received.extend(stream.text_stream)
    assert info.value.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert received == ["Hell"]  # part of the message went out before the error
    rec = sim.requests[0]
    assert rec.status == 200 and rec.stream.fault == "error" and not rec.stream.complete
    assert rec.stream.names()[-2:] == ["content_block_delta", "error"]
    assert len(sim.requests) == 1  # a stream that started is not retried by the SDK
    # The cache write was committed when the response started.
    second = client.messages.create(**params())
    assert second.usage.cache_read_input_tokens == rec.response["usage"]["cache_creation_input_tokens"] > 0


@pytest.mark.parametrize("after", [0, 1, 3])
def test_stream_error_after_n_events(sim: SimAnthropic, after: int) -> None:
    fault = StreamFault(after_events=after, error_type="api_error", message="boom")
    sim.script(Reply(body=text(TEXT), stream_fault=fault))
    status, _, body = raw_post(sim, params(stream=True))
    assert status == 200
    names = sim.requests[0].stream.names()
    assert len(names) == after + 1 and names[-1] == "error"
    assert body.endswith(b'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}\n\n')


def test_truncated_stream_has_no_message_stop(sim: SimAnthropic) -> None:
    sim.script(Reply(body=text(TEXT), stream_fault=StreamFault(after_events=5, kind="truncate")))
    status, _, body = raw_post(sim, params(stream=True))
    assert status == 200 and b"message_stop" not in body and b"event: error" not in body
    assert sim.requests[0].stream.names() == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
    ]
    assert sim.requests[0].stream.fault == "truncate"


def test_reset_mid_stream(sim: SimAnthropic) -> None:
    sim.script(Reply(body=text(TEXT), stream_fault=StreamFault(after_events=4, kind="reset")))
    with pytest.raises((ConnectionResetError, http.client.IncompleteRead)):
        raw_post(sim, params(stream=True))
    assert sim.requests[0].stream.fault == "reset"
    # The server keeps serving.
    sim.script(text("still here"))
    assert raw_post(sim, params())[0] == 200


def test_stream_fault_on_a_plain_request_is_a_loud_500(sim: SimAnthropic, client: anthropic.Anthropic) -> None:
    sim.script(Reply(body=text("x"), stream_fault=StreamFault()))
    with pytest.raises(anthropic.InternalServerError, match="stream fault was scripted"):
        client.messages.create(**params())
    assert len(sim.requests) == 1  # x-should-retry: false
