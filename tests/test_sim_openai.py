"""Tests of the simulated OpenAI server (tests/sim/openai.py), driven by the official ``openai`` SDK.

Both endpoints (Responses and Chat Completions), streamed and not: the streamed events must add
up to the non-streamed reply; validation, cache accounting and every fault are checked with the
SDK (and raw HTTP where the bytes matter); ``langchain_openai.ChatOpenAI`` runs against it on
both APIs. The last section checks the ``malformed`` stream fault of the Anthropic simulator.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from openai.types.responses import Response
from sim import anthropic as sim_anthropic
from sim.openai import (
    EPOCH,
    Reply,
    SimOpenAI,
    StreamFault,
    Turn,
    auth_error,
    chat_chunks,
    context_overflow,
    error_reply,
    insufficient_quota,
    rate_limited,
    reasoning,
    response_events,
    server_error,
    text,
    tool_calls,
)

MODEL = "gpt-5.4"
SYSTEM = "You are a careful assistant. Think before you act. " * 120  # ~1,500 tokens: cacheable alone
RESP_TOOLS = [
    {
        "type": "function",
        "name": "ls",
        "description": "List a directory.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        "strict": False,
    }
]
CHAT_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "ls",
            "description": "List a directory.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        },
    }
]
TEXT = "Hello there, this is a streamed reply. Ünïcödé too."
TURNS = {
    "text": text(TEXT),
    "tools": text("Let me look.") + tool_calls(("ls", {"path": "/"}), ("ls", {"path": "/tmp/ü"})),
    "reasoning": reasoning("The user greets me.", "Answer kindly.", encrypted="enc-abc") + text("Hi! How can I help?"),
    "tools-only": tool_calls(("ls", {"path": "/"})),
}


@pytest.fixture
def sim() -> Iterator[SimOpenAI]:
    with SimOpenAI() as s:
        yield s


@pytest.fixture
def client(sim: SimOpenAI) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=sim.base_url, api_key="sk-test", max_retries=0) as c:
        yield c


def rparams(user: str = "hi", **extra: Any) -> dict[str, Any]:
    """Responses params: long instructions (cacheable), one tool, one user message."""
    body: dict[str, Any] = {
        "model": MODEL,
        "instructions": SYSTEM,
        "tools": RESP_TOOLS,
        "input": [{"role": "user", "content": user}],
    }
    body.update(extra)
    return body


def cparams(user: str = "hi", **extra: Any) -> dict[str, Any]:
    """Chat params: the same prompt as ``rparams`` in the Chat shape."""
    body: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
        "tools": CHAT_TOOLS,
    }
    body.update(extra)
    return body


def raw_post(sim: SimOpenAI, path: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=10)
    try:
        hdrs = {"authorization": "Bearer sk-test", "content-type": "application/json"} if headers is None else headers
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        conn.request("POST", path, body=data, headers=hdrs)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def cached(usage: Any) -> int:
    """cached_tokens from either API's usage (SDK object)."""
    details = getattr(usage, "input_tokens_details", None) or usage.prompt_tokens_details
    return details.cached_tokens


# --------------------------------------------------------------------------- round trips


def test_responses_text_round_trip(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(text("hello there"))
    raw = client.responses.with_raw_response.create(**rparams())
    resp = raw.parse()
    assert raw.headers["x-request-id"] == "req_sim_0"
    assert (resp.id, resp.object, resp.status, resp.model) == ("resp_sim_1", "response", "completed", MODEL)
    assert resp.created_at == EPOCH and resp.instructions == SYSTEM and resp.error is None
    assert [item.model_dump(exclude_none=True) for item in resp.output] == [
        {
            "id": "msg_sim_1",
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "hello there", "annotations": [], "logprobs": []}],
        }
    ]
    assert resp.output_text == "hello there"
    rec = sim.requests[0]
    total = sim.tokens(rec.body)
    assert resp.usage.model_dump() == {
        "input_tokens": total,
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0, "cache_write_tokens_details": None},
        "output_tokens": 3,  # ceil(len("hello there") / 4)
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": total + 3,
    }
    assert rec.api == "responses" and rec.path == "/v1/responses" and rec.status == 200
    assert Response.model_validate(rec.response) == resp
    assert rec.headers["authorization"] == "Bearer sk-test" and rec.retry_count == 0
    assert "sk-test" not in repr(rec) and "<redacted>" in repr(rec.headers)
    assert sim.pending == 0


def test_composed_turn_on_the_responses_api(sim: SimOpenAI, client: openai.OpenAI) -> None:
    turn = reasoning("Look first.", encrypted="enc-1") + text("Looking.") + tool_calls(("ls", {"path": "/"}))
    turn += tool_calls(("ls", {"path": "/etc"}, "call_mine"))
    sim.script(turn, turn)
    first = client.responses.create(**rparams(), include=["reasoning.encrypted_content"])
    assert [(item.type, item.id) for item in first.output] == [
        ("reasoning", "rs_sim_1"),
        ("message", "msg_sim_1"),
        ("function_call", "fc_sim_1"),
        ("function_call", "fc_sim_2"),
    ]
    rs, _, call1, call2 = first.output
    assert rs.encrypted_content == "enc-1" and [s.text for s in rs.summary] == ["Look first."]
    assert (call1.call_id, call1.name, call1.arguments) == ("call_sim_1", "ls", '{"path":"/"}')
    assert (call2.call_id, call2.arguments) == ("call_mine", '{"path":"/etc"}')
    assert first.usage.output_tokens_details.reasoning_tokens == 3  # ceil(len("Look first.") / 4)
    # Without the include, the API leaves encrypted_content out.
    second = client.responses.create(**rparams())
    assert second.output[0].encrypted_content is None and second.output[0].id == "rs_sim_2"
    assert second.usage.output_tokens == first.usage.output_tokens


def test_chat_round_trip(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(reasoning("hmm", tokens=7) + text("Let me look.") + tool_calls(("ls", {"path": "/"})), text("done"))
    raw = client.chat.completions.with_raw_response.create(**cparams())
    first = raw.parse()
    assert raw.headers["x-request-id"] == "req_sim_0"
    assert (first.id, first.object, first.created, first.model) == ("chatcmpl-sim-1", "chat.completion", EPOCH, MODEL)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content == "Let me look."
    assert [c.model_dump() for c in choice.message.tool_calls] == [
        {"id": "call_sim_1", "type": "function", "function": {"name": "ls", "arguments": '{"path":"/"}'}}
    ]
    total = sim.tokens(sim.requests[0].body)
    output = 7 + 3 + 4  # reasoning tokens, ceil(12 / 4), ceil(len('ls{"path":"/"}') / 4)
    assert first.usage.model_dump(exclude_none=True) == {
        "prompt_tokens": total,
        "completion_tokens": output,
        "total_tokens": total + output,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 7,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    history = [
        *cparams()["messages"],
        choice.message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_sim_1", "content": "a.txt"},
    ]
    second = client.chat.completions.create(model=MODEL, messages=history, tools=CHAT_TOOLS)
    assert second.choices[0].message.content == "done" and second.choices[0].finish_reason == "stop"
    assert second.choices[0].message.tool_calls is None
    assert sim.requests[1].api == "chat"


@pytest.mark.parametrize("kind", TURNS)
def test_a_turn_costs_the_same_output_tokens_on_both_apis(sim: SimOpenAI, client: openai.OpenAI, kind: str) -> None:
    sim.script(TURNS[kind], TURNS[kind])
    resp = client.responses.create(**rparams())
    chat = client.chat.completions.create(**cparams())
    assert resp.usage.output_tokens == chat.usage.completion_tokens >= 1
    assert resp.usage.output_tokens_details.reasoning_tokens == chat.usage.completion_tokens_details.reasoning_tokens


def test_output_tokens_override_and_incomplete(sim: SimOpenAI, client: openai.OpenAI) -> None:
    cut = text("This reply was cut", output_tokens=16, incomplete=True)
    sim.script(cut, cut)
    resp = client.responses.create(**rparams(), max_output_tokens=16)
    assert resp.status == "incomplete" and resp.incomplete_details.reason == "max_output_tokens"
    assert resp.output[0].status == "incomplete" and resp.usage.output_tokens == 16
    chat = client.chat.completions.create(**cparams())
    assert chat.choices[0].finish_reason == "length" and chat.usage.completion_tokens == 16


def test_turn_composition() -> None:
    a = reasoning("r") + text("t", output_tokens=5)
    b = a + tool_calls(("x", {}))
    assert [p["type"] for p in b.parts] == ["reasoning", "text", "tool_call"]
    assert b.output_tokens == 5 and not b.incomplete
    assert (b + text("", incomplete=True)).incomplete
    with pytest.raises(ValueError):
        tool_calls()
    with pytest.raises(ValueError):
        tool_calls(("x",))  # type: ignore[arg-type]


def test_script_rejects_other_types(sim: SimOpenAI) -> None:
    with pytest.raises(TypeError):
        sim.script({"content": "a dict is not a turn"})  # type: ignore[arg-type]


def test_empty_script_is_a_loud_500_the_sdk_does_not_retry(sim: SimOpenAI) -> None:
    c = openai.OpenAI(base_url=sim.base_url, api_key="sk-test", max_retries=2)
    with c, pytest.raises(openai.InternalServerError, match="no scripted reply left") as info:
        c.responses.create(**rparams())
    assert info.value.response.headers["x-should-retry"] == "false"
    assert len(sim.requests) == 1


@pytest.mark.parametrize(
    ("method", "path"), [("POST", "/v1/completions"), ("GET", "/v1/responses"), ("POST", "/v1/messages")]
)
def test_unknown_routes_are_404(sim: SimOpenAI, method: str, path: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=10)
    try:
        conn.request(method, path, body=b"{}", headers={"authorization": "Bearer sk-test"})
        resp = conn.getresponse()
        body = json.loads(resp.read())
    finally:
        conn.close()
    assert resp.status == 404
    assert body["error"] == {"message": f"Invalid URL ({method} {path})", "type": "invalid_request_error"} | {
        "param": None,
        "code": None,
    }
    assert sim.requests[0].api is None


def test_query_string_is_ignored_for_routing(sim: SimOpenAI) -> None:
    sim.script(text("ok"))
    status, _, _ = raw_post(sim, "/v1/responses?debug=1", rparams())
    assert status == 200 and sim.requests[0].path == "/v1/responses?debug=1"


def test_reset_clears_ids_cache_and_log(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(text("a"), text("b"))
    client.responses.create(**rparams())
    sim.advance(5)
    sim.reset()
    assert sim.pending == 0 and sim.requests == [] and sim.now == 0
    sim.script(text("c"))
    again = client.responses.create(**rparams())
    assert again.id == "resp_sim_1" and cached(again.usage) == 0


# --------------------------------------------------------------------------- streaming


def both_ways(sim: SimOpenAI, run: Any, turn: Turn) -> tuple[Any, Any]:
    """``run(stream)`` once streamed and once not, from the same fresh server state."""
    sim.script(turn)
    streamed = run(True)
    streamed_rec = sim.requests[0]
    sim.reset()
    sim.script(turn)
    plain = run(False)
    plain_rec = sim.requests[0]
    assert streamed_rec.stream is not None and streamed_rec.stream.complete and plain_rec.stream is None
    # The events add up to exactly the non-streamed response, with the same cache accounting.
    assert streamed_rec.response == plain_rec.response
    assert streamed_rec.cache == plain_rec.cache
    return streamed, plain


@pytest.mark.parametrize("kind", TURNS)
def test_responses_stream_folds_to_the_plain_response(sim: SimOpenAI, client: openai.OpenAI, kind: str) -> None:
    def run(stream: bool) -> Any:
        if not stream:
            return client.responses.create(**rparams())
        with client.responses.stream(**rparams()) as s:
            return s.get_final_response()

    streamed, plain = both_ways(sim, run, TURNS[kind])
    # The SDK's ParsedResponse adds `parsed` fields; everything else is identical.
    assert streamed.model_dump(exclude_none=True) == plain.model_dump(exclude_none=True)
    assert streamed.output_text == plain.output_text and streamed.usage == plain.usage


@pytest.mark.parametrize("kind", TURNS)
def test_chat_stream_folds_to_the_plain_completion(sim: SimOpenAI, client: openai.OpenAI, kind: str) -> None:
    def run(stream: bool) -> Any:
        if not stream:
            return client.chat.completions.create(**cparams())
        with client.chat.completions.stream(**cparams(), stream_options={"include_usage": True}) as s:
            return s.get_final_completion()

    streamed, plain = both_ways(sim, run, TURNS[kind])
    assert streamed.id == plain.id and streamed.usage == plain.usage
    s, p = streamed.choices[0], plain.choices[0]
    assert s.finish_reason == p.finish_reason and s.message.content == p.message.content
    got = [(c.id, c.function.name, c.function.arguments) for c in s.message.tool_calls or []]
    assert got == [(c.id, c.function.name, c.function.arguments) for c in p.message.tool_calls or []]


def test_responses_stream_events(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(TURNS["tools"])
    events = list(client.responses.create(**rparams(), stream=True))
    assert [e.sequence_number for e in events] == list(range(len(events)))
    rec = sim.requests[0]
    assert [e.type for e in events] == rec.stream.names()
    assert rec.stream.names()[:8] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
    ]
    assert rec.stream.names()[-7:] == [
        "response.output_item.added",
        *["response.function_call_arguments.delta"] * 3,  # '{"path":"/tmp/ü"}' in pieces of 8
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    created = events[0].response
    assert (created.id, created.status, created.output, created.usage) == ("resp_sim_1", "in_progress", [], None)
    added = [e.item for e in events if e.type == "response.output_item.added"]
    assert [(i.type, i.status) for i in added] == [("message", "in_progress")] + [("function_call", "in_progress")] * 2
    assert all(i.arguments == "" for i in added[1:])
    assert "".join(rec.stream.deltas()) == "Let me look."
    assert all(0 < len(p) <= sim.stream_text_chunk for p in rec.stream.deltas())
    args = [e for e in events if e.type == "response.function_call_arguments.delta"]
    by_item: dict[str, str] = {}
    for e in args:
        by_item[e.item_id] = by_item.get(e.item_id, "") + e.delta
    assert by_item == {"fc_sim_1": '{"path":"/"}', "fc_sim_2": '{"path":"/tmp/ü"}'}
    assert events[-1].response == Response.model_validate(rec.response)
    assert response_events(rec.response) == rec.stream.events


def test_reasoning_summary_events(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(TURNS["reasoning"])
    events = list(client.responses.create(**rparams(), include=["reasoning.encrypted_content"], stream=True))
    item_events = [e for e in events if getattr(e, "output_index", None) == 0]
    assert item_events[0].type == "response.output_item.added"
    assert item_events[0].item.summary == [] and item_events[0].item.encrypted_content is None
    assert item_events[-1].type == "response.output_item.done"
    assert item_events[-1].item.encrypted_content == "enc-abc"
    parts = [(e.type, e.summary_index) for e in item_events if "summary_part" in e.type]
    assert parts == [
        ("response.reasoning_summary_part.added", 0),
        ("response.reasoning_summary_part.done", 0),
        ("response.reasoning_summary_part.added", 1),
        ("response.reasoning_summary_part.done", 1),
    ]
    assert "".join(sim.requests[0].stream.deltas("reasoning")) == "The user greets me.Answer kindly."
    done = [e.text for e in item_events if e.type == "response.reasoning_summary_text.done"]
    assert done == ["The user greets me.", "Answer kindly."]


def test_chat_stream_chunks(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(TURNS["tools"])
    chunks = list(client.chat.completions.create(**cparams(), stream=True, stream_options={"include_usage": True}))
    rec = sim.requests[0]
    assert rec.stream.names()[-1] == "[DONE]" and rec.stream.complete
    assert all(c.id == "chatcmpl-sim-1" and c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant" and chunks[0].choices[0].delta.content == ""
    assert chunks[-1].choices == [] and chunks[-1].usage.prompt_tokens == sim.tokens(rec.body)
    assert all(c.usage is None for c in chunks[:-1])
    assert chunks[-2].choices[0].finish_reason == "tool_calls"
    calls: dict[int, list[Any]] = {}
    for c in chunks:
        for call in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            calls.setdefault(call.index, []).append(call)
    assert sorted(calls) == [0, 1]
    for index, deltas in calls.items():
        first, rest = deltas[0], deltas[1:]
        assert (first.id, first.type, first.function.name, first.function.arguments) == (
            f"call_sim_{index + 1}",
            "function",
            "ls",
            "",
        )
        assert rest and all(d.id is None and d.function.name is None for d in rest)
    assert "".join(d.function.arguments for d in calls[1]) == '{"path":"/tmp/ü"}'
    # Folded by hand, the chunks give the non-streamed completion.
    done = [d for n, d in rec.stream.events if n == "chunk"]
    assert chat_chunks(rec.response, include_usage=True) == done


def test_chat_stream_without_include_usage_has_no_usage(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(TURNS["tools-only"])
    chunks = list(client.chat.completions.create(**cparams(), stream=True))
    assert all(c.choices for c in chunks) and all(c.usage is None for c in chunks)
    assert all("usage" not in d for n, d in sim.requests[0].stream.events if n == "chunk")
    # A reply without text: the role chunk carries the first call's start.
    first = chunks[0].choices[0].delta
    assert (
        first.content is None and first.tool_calls[0].id == "call_sim_1" and first.tool_calls[0].function.name == "ls"
    )
    assert sim.requests[0].response["usage"]["prompt_tokens"] > 0  # the recording has it anyway


def test_wire_format(sim: SimOpenAI) -> None:
    sim.script(text("Hello world"), text("Hello world"))
    status, headers, body = raw_post(sim, "/v1/responses", rparams(stream=True))
    assert status == 200 and headers["content-type"] == "text/event-stream; charset=utf-8"
    assert headers["transfer-encoding"] == "chunked" and headers["x-request-id"] == "req_sim_0"
    assert body.startswith(b'event: response.created\ndata: {"type":"response.created","sequence_number":0,')
    assert body.endswith(b"\n\n") and b"[DONE]" not in body
    assert body.count(b"event: ") == len(sim.requests[0].stream.events)
    status, headers, body = raw_post(sim, "/v1/chat/completions", cparams(stream=True))
    assert status == 200 and b"event:" not in body
    assert body.startswith(b'data: {"id":"chatcmpl-sim-1","object":"chat.completion.chunk",')
    assert body.endswith(b"\n\ndata: [DONE]\n\n")


def test_close_framing_works_with_the_sdk() -> None:
    with SimOpenAI(stream_framing="close") as sim, openai.OpenAI(base_url=sim.base_url, api_key="k") as c:
        sim.script(text(TEXT))
        status, headers, _ = raw_post(sim, "/v1/responses", rparams(stream=True))
        assert status == 200 and headers["connection"] == "close" and "transfer-encoding" not in headers
        sim.script(text(TEXT))
        with c.responses.stream(**rparams()) as s:
            assert s.get_final_response().output_text == TEXT


def test_reply_can_refuse_to_stream(sim: SimOpenAI) -> None:
    sim.script(Reply(body=text("plain"), stream=False))
    status, headers, body = raw_post(sim, "/v1/responses", rparams(stream=True))
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body)["output"][0]["content"][0]["text"] == "plain"


def test_gate_holds_the_stream_after_the_first_text_delta(sim: SimOpenAI, client: openai.OpenAI) -> None:
    gate = sim.gate_after_first_delta()
    sim.script(TURNS["tools"])
    held: list[str] = []
    with client.chat.completions.stream(**cparams()) as stream:
        for event in stream:
            if event.type == "content.delta" and event.delta and not held:  # the role chunk's "" is not it
                held = sim.requests[0].stream.names()
                assert not sim.requests[0].stream.complete
                gate.set()
        final = stream.get_final_completion()
    assert held == ["chunk", "chunk"]  # the role chunk and the first content piece
    rec = sim.requests[0].stream
    assert rec.gated and not rec.gate_timed_out and rec.complete
    assert final.choices[0].message.tool_calls[1].function.arguments == '{"path":"/tmp/ü"}'


def test_gate_timeout_fails_the_stream(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.gate_after_first_delta(timeout=0.2)
    sim.script(text(TEXT))
    events = list(client.responses.create(**rparams(), stream=True))
    assert events[-1].type == "error" and events[-1].message.startswith("sim: gate timed out")
    assert events[-1].sequence_number == len(events) - 1
    assert sim.requests[0].stream.fault == "gate_timeout"


def test_stream_event_delay_paces_the_events() -> None:
    with SimOpenAI(stream_event_delay=0.02) as sim, openai.OpenAI(base_url=sim.base_url, api_key="k") as c:
        sim.script(text("12345678"))
        start = time.monotonic()
        events = list(c.responses.create(**rparams(), stream=True))
        assert time.monotonic() - start >= 0.02 * (len(events) - 1)


# --------------------------------------------------------------------------- validation


def _without(body: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != key}


CALL = {"type": "function_call", "call_id": "call_1", "name": "ls", "arguments": '{"path":"/"}'}
OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"}
USER = {"role": "user", "content": "hi"}
ASSISTANT_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
}
TOOL_MSG = {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"}
NO_AUTH = {"content-type": "application/json"}

INVALID: list[tuple[str, str, Any, dict[str, str] | None, int, str | None, str | None, str]] = [
    # (id, path, body, headers, status, code, param, message fragment)
    ("no-auth", "/v1/responses", rparams(), NO_AUTH, 401, "invalid_api_key", None, "didn't provide an API key"),
    ("bad-json", "/v1/responses", b"{not json", None, 400, None, None, "could not parse the JSON body"),
    (
        "no-model",
        "/v1/responses",
        _without(rparams(), "model"),
        None,
        400,
        "missing_required_parameter",
        "model",
        "Missing required parameter: 'model'.",
    ),
    (
        "unanswered-call",
        "/v1/responses",
        rparams(input=[USER, CALL]),
        None,
        400,
        None,
        "input",
        "No tool output found for function call call_1.",
    ),
    (
        "orphan-output",
        "/v1/responses",
        rparams(input=[USER, OUTPUT]),
        None,
        400,
        None,
        "input",
        "No tool call found for function call output with call_id call_1.",
    ),
    (
        "arguments-not-a-string",
        "/v1/responses",
        rparams(input=[USER, {**CALL, "arguments": {"path": "/"}}, OUTPUT]),
        None,
        400,
        "invalid_type",
        "input[1].arguments",
        "expected a string, but got an object instead",
    ),
    (
        "chat-shaped-tool",
        "/v1/responses",
        rparams(tools=CHAT_TOOLS),
        None,
        400,
        "missing_required_parameter",
        "tools[0].name",
        "Missing required parameter: 'tools[0].name'.",
    ),
    (
        "nested-function-key",
        "/v1/responses",
        rparams(tools=[{**RESP_TOOLS[0], "function": {}}]),
        None,
        400,
        "unknown_parameter",
        "tools[0].function",
        "Unknown parameter",
    ),
    (
        "bad-tool-name",
        "/v1/responses",
        rparams(tools=[{**RESP_TOOLS[0], "name": "read file"}]),
        None,
        400,
        "invalid_value",
        "tools[0].name",
        "does not match pattern",
    ),
    (
        "bad-role",
        "/v1/responses",
        rparams(input=[{"role": "tool", "content": "x"}]),
        None,
        400,
        "invalid_value",
        "input[0].role",
        "Invalid value: 'tool'.",
    ),
    (
        "previous-response-id",
        "/v1/responses",
        rparams(previous_response_id="resp_x"),
        None,
        400,
        "previous_response_not_found",
        "previous_response_id",
        "Previous response with id 'resp_x' not found.",
    ),
    (
        "stream-not-bool",
        "/v1/responses",
        rparams(stream="yes"),
        None,
        400,
        "invalid_type",
        "stream",
        "expected a boolean",
    ),
    (
        "chat-unanswered",
        "/v1/chat/completions",
        cparams(messages=[USER, ASSISTANT_CALL, USER]),
        None,
        400,
        None,
        "messages.[2].role",
        "The following tool_call_ids did not have response messages: call_1",
    ),
    (
        "chat-orphan-tool",
        "/v1/chat/completions",
        cparams(messages=[USER, TOOL_MSG]),
        None,
        400,
        None,
        "messages.[1].role",
        "must be a response to a preceeding message with 'tool_calls'",
    ),
    (
        "chat-flat-tool",
        "/v1/chat/completions",
        cparams(tools=RESP_TOOLS),
        None,
        400,
        "missing_required_parameter",
        "tools[0].function",
        "Missing required parameter: 'tools[0].function'.",
    ),
    (
        "chat-empty-messages",
        "/v1/chat/completions",
        cparams(messages=[]),
        None,
        400,
        "empty_array",
        "messages",
        "empty array",
    ),
    (
        "chat-stream-options-without-stream",
        "/v1/chat/completions",
        cparams(stream_options={"include_usage": True}),
        None,
        400,
        "invalid_value",
        "stream_options",
        "only allowed when 'stream' is enabled",
    ),
    (
        "chat-no-content",
        "/v1/chat/completions",
        cparams(messages=[{"role": "user"}]),
        None,
        400,
        "missing_required_parameter",
        "messages[0].content",
        "Missing required parameter",
    ),
]


@pytest.mark.parametrize(
    ("path", "body", "headers", "status", "code", "param", "fragment"),
    [case[1:] for case in INVALID],
    ids=[case[0] for case in INVALID],
)
def test_invalid_requests_are_rejected_without_consuming_the_script(
    sim: SimOpenAI,
    path: str,
    body: Any,
    headers: dict[str, str] | None,
    status: int,
    code: str | None,
    param: str | None,
    fragment: str,
) -> None:
    sim.script(text("unused"))
    got, resp_headers, raw = raw_post(sim, path, body, headers)
    error = json.loads(raw)["error"]
    assert got == status, error
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    assert (error["code"], error["param"]) == (code, param)
    assert fragment in error["message"]
    assert resp_headers["x-request-id"] == "req_sim_0"
    assert sim.pending == 1 and sim.requests[0].status == status and sim.requests[0].cache is None


def test_valid_tool_histories_pass(sim: SimOpenAI) -> None:
    sim.script(text("a"), text("b"))
    assert raw_post(sim, "/v1/responses", rparams(input=[USER, CALL, OUTPUT]))[0] == 200
    assert raw_post(sim, "/v1/chat/completions", cparams(messages=[USER, ASSISTANT_CALL, TOOL_MSG]))[0] == 200


def test_strict_off_accepts_unanswered_calls() -> None:
    with SimOpenAI(strict=False) as sim:
        sim.script(text("a"), text("b"))
        assert raw_post(sim, "/v1/responses", rparams(input=[USER, CALL]))[0] == 200
        assert raw_post(sim, "/v1/chat/completions", cparams(messages=[USER, ASSISTANT_CALL, USER]))[0] == 200


def test_api_keys_option() -> None:
    with SimOpenAI(api_keys=["sk-good-0123456789"]) as sim:
        c = openai.OpenAI(base_url=sim.base_url, api_key="sk-wrong-0123456789", max_retries=0)
        with c, pytest.raises(openai.AuthenticationError) as info:
            c.responses.create(**rparams())
        assert info.value.code == "invalid_api_key" and "sk-" + "*" * 12 + "6789" in info.value.message
        sim.script(text("ok"))
        with openai.OpenAI(base_url=sim.base_url, api_key="sk-good-0123456789", max_retries=0) as c:
            assert c.responses.create(**rparams()).output_text == "ok"


def test_sdk_tool_round_trip_on_the_responses_api(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(tool_calls(("ls", {"path": "/"})), text("done"))
    first = client.responses.create(**rparams())
    call = first.output[0]
    history = [*rparams()["input"], call.model_dump(exclude_none=True)]
    with pytest.raises(openai.BadRequestError, match="No tool output found for function call call_sim_1") as info:
        client.responses.create(**rparams(input=history))
    assert info.value.param == "input" and sim.pending == 1
    history.append({"type": "function_call_output", "call_id": call.call_id, "output": "a.txt"})
    assert client.responses.create(**rparams(input=history)).output_text == "done"


# --------------------------------------------------------------------------- caching


def test_identical_request_reads_in_128_token_steps(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(text("a"), text("b"))
    first = client.responses.create(**rparams())
    second = client.responses.create(**rparams())
    total = sim.tokens(sim.requests[0].body)
    assert total > 1024 + 128
    assert cached(first.usage) == 0
    assert cached(second.usage) == sim.cacheable(total) > 1024
    assert (cached(second.usage) - 1024) % 128 == 0 and total - cached(second.usage) < 128
    assert second.usage.input_tokens == total  # input_tokens includes the cached ones
    report = sim.requests[1].cache
    assert report.hit_creator_seq == 0 and report.stored[0] == 1024 and report.stored[-1] == report.cached_tokens


def test_prompts_below_the_minimum_are_not_cached(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(text("a"), text("b"))
    short = {"model": MODEL, "input": "hi"}
    client.responses.create(**short)
    assert cached(client.responses.create(**short).usage) == 0
    assert sim.requests[1].cache.stored == []


def test_extended_conversation_reads_the_shared_prefix(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(text("a"), text("b"))
    client.responses.create(**rparams())
    longer = rparams(input=[USER, {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "more"}])
    usage = client.responses.create(**longer).usage
    shared = sim.shared_tokens(sim.requests[0].body, sim.requests[1].body)
    assert cached(usage) == sim.cacheable(shared) > 0


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_fork_with_the_parents_key_hits_and_other_keys_miss(sim: SimOpenAI, client: openai.OpenAI, api: str) -> None:
    def call(user: str, key: str | None) -> Any:
        extra = {"prompt_cache_key": key} if key else {}
        if api == "responses":
            return client.responses.create(**rparams(user), **extra).usage
        return client.chat.completions.create(**cparams(user), **extra).usage

    sim.script(*[text("ok")] * 5)
    call("Research the topic.", "root-1")  # the parent
    fork = call("Sub-task: list the files.", "root-1")  # a fork sharing the key and the prefix
    shared = sim.shared_tokens(sim.requests[0].body, sim.requests[1].body)
    assert shared < sim.tokens(sim.requests[1].body)
    assert cached(fork) == sim.cacheable(shared) > 0
    assert sim.requests[1].cache.hit_creator_seq == 0 and sim.requests[1].cache.prompt_cache_key == "root-1"
    assert cached(call("Sub-task: list the files.", "other-key")) == 0
    assert cached(call("Sub-task: list the files.", None)) == 0
    # The key's own entries are still there.
    assert cached(call("Research the topic.", "root-1")) == sim.cacheable(sim.tokens(sim.requests[0].body))


def test_routing_by_key_can_be_turned_off() -> None:
    with SimOpenAI(route_by_key=False) as sim, openai.OpenAI(base_url=sim.base_url, api_key="k") as c:
        sim.script(text("a"), text("b"))
        c.responses.create(**rparams(), prompt_cache_key="a")
        assert cached(c.responses.create(**rparams(), prompt_cache_key="b").usage) > 0


def test_cache_is_per_model_and_per_api_key(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(*[text("ok")] * 3)
    client.responses.create(**rparams())
    assert cached(client.responses.create(**rparams(model="gpt-4.1")).usage) == 0
    with openai.OpenAI(base_url=sim.base_url, api_key="sk-other-org", max_retries=0) as other:
        assert cached(other.responses.create(**rparams()).usage) == 0


def test_reordered_tool_keys_miss(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(text("a"), text("b"))
    client.responses.create(**rparams())
    reordered = [dict(reversed(list(RESP_TOOLS[0].items())))]
    # The tools come first in the prompt, so nothing is shared.
    assert cached(client.responses.create(**rparams(tools=reordered)).usage) == 0


def test_ttl_refresh_expiry_and_24h_retention(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(*[text("ok")] * 6)
    client.responses.create(**rparams())
    sim.advance(599)
    assert cached(client.responses.create(**rparams()).usage) > 0  # and refreshed
    sim.advance(599)
    assert cached(client.responses.create(**rparams()).usage) > 0
    sim.advance(601)
    assert cached(client.responses.create(**rparams()).usage) == 0
    long_lived = rparams(prompt_cache_retention="24h", prompt_cache_key="k24")
    client.responses.create(**long_lived)
    sim.advance(3600 * 23)
    assert cached(client.responses.create(**long_lived).usage) > 0


def test_streamed_and_failed_requests_and_the_cache(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(server_error(), Reply(body=text(TEXT), stream_fault=StreamFault(kind="reset")), text("b"))
    with pytest.raises(openai.InternalServerError):
        client.responses.create(**rparams())
    assert sim.requests[0].cache is None  # an error reply touches no cache
    with pytest.raises(openai.APIConnectionError), client.responses.stream(**rparams()) as s:
        s.get_final_response()
    # The faulted stream committed its writes when it started.
    assert cached(client.responses.create(**rparams()).usage) > 0 and sim.requests[2].cache.hit_creator_seq == 1


def test_context_window_overflow() -> None:
    with SimOpenAI(context_window=1000) as sim, openai.OpenAI(base_url=sim.base_url, api_key="k") as c:
        sim.script(text("unused"))
        with pytest.raises(openai.BadRequestError) as info:
            c.responses.create(**rparams())
        assert (info.value.code, info.value.param) == ("context_length_exceeded", "input")
        assert info.value.message.endswith(
            "Your input exceeds the context window of this model. Please adjust your input and try again."
        )
        with pytest.raises(openai.BadRequestError) as info:
            c.chat.completions.create(**cparams())
        total = sim.tokens(sim.requests[1].body)
        assert info.value.body["message"] == (
            f"This model's maximum context length is 1000 tokens. However, your messages resulted in {total} "
            "tokens. Please reduce the length of the messages."
        )
        assert info.value.param == "messages" and sim.pending == 1
        assert c.responses.create(model=MODEL, input="short").output_text == "unused"


# --------------------------------------------------------------------------- faults


def test_rate_limit_retry_after_then_success(sim: SimOpenAI) -> None:
    sim.script(rate_limited(retry_after_ms=50), text("finally"), rate_limited(retry_after=0.05), text("again"))
    with openai.OpenAI(base_url=sim.base_url, api_key="sk-test", max_retries=1) as c:
        start = time.monotonic()
        assert c.responses.create(**rparams()).output_text == "finally"
        assert c.chat.completions.create(**cparams()).choices[0].message.content == "again"
        assert time.monotonic() - start >= 0.1
    assert [r.status for r in sim.requests] == [429, 200, 429, 200]
    assert [r.retry_count for r in sim.requests] == [0, 1, 0, 1]
    assert sim.requests[0].response["error"]["code"] == "rate_limit_exceeded"


def test_rate_limit_error_body_and_headers(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(rate_limited(retry_after=2, retry_after_ms=2000))
    with pytest.raises(openai.RateLimitError) as info:
        client.responses.create(**rparams())
    assert (info.value.code, info.value.type) == ("rate_limit_exceeded", "requests")
    headers = info.value.response.headers
    assert headers["retry-after"] == "2" and headers["retry-after-ms"] == "2000"
    assert headers["x-request-id"] == "req_sim_0"


def test_insufficient_quota(sim: SimOpenAI, client: openai.OpenAI) -> None:
    # The SDK retries every 429, this one included; a client must look at the code.
    sim.script(insufficient_quota())
    with pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(**cparams())
    assert info.value.status_code == 429
    assert info.value.body == {
        "message": info.value.body["message"],
        "type": "insufficient_quota",
        "param": None,
        "code": "insufficient_quota",
    }
    assert info.value.body["message"].startswith("You exceeded your current quota")


@pytest.mark.parametrize(
    ("reply", "exc", "status", "error_type", "code"),
    [
        (server_error(), openai.InternalServerError, 500, "server_error", None),
        (server_error(503), openai.InternalServerError, 503, "server_error", None),
        (auth_error(), openai.AuthenticationError, 401, "invalid_request_error", "invalid_api_key"),
        (
            error_reply(403, code="unsupported_country_region_territory"),
            openai.PermissionDeniedError,
            403,
            "invalid_request_error",
            "unsupported_country_region_territory",
        ),
    ],
    ids=["500", "503", "401", "403"],
)
def test_status_faults(
    sim: SimOpenAI,
    client: openai.OpenAI,
    reply: Reply,
    exc: type[openai.APIStatusError],
    status: int,
    error_type: str,
    code: str | None,
) -> None:
    sim.script(reply)
    with pytest.raises(exc) as info:
        client.responses.create(**rparams())
    assert info.value.status_code == status and info.value.type == error_type
    assert info.value.code == code


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_scripted_context_overflow(sim: SimOpenAI, client: openai.OpenAI, api: str) -> None:
    sim.script(context_overflow())
    with pytest.raises(openai.BadRequestError) as info:
        if api == "responses":
            client.responses.create(**rparams())
        else:
            client.chat.completions.create(**cparams())
    assert info.value.code == "context_length_exceeded"
    if api == "responses":
        assert info.value.param == "input" and "exceeds the context window" in info.value.message
    else:
        assert info.value.param == "messages"
        assert "maximum context length is 128000 tokens. However, your messages resulted in 128001 tokens" in (
            info.value.message
        )


def test_raw_error_body_and_delay(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(Reply(status=502, body="<html>Bad gateway</html>", delay=0.1))
    start = time.monotonic()
    with pytest.raises(openai.InternalServerError) as info:
        client.responses.create(**rparams())
    assert time.monotonic() - start >= 0.1
    assert info.value.status_code == 502 and "Bad gateway" in info.value.response.text
    assert sim.requests[0].response == "<html>Bad gateway</html>"


def test_delay_before_headers_times_the_client_out(sim: SimOpenAI) -> None:
    sim.script(Reply(body=text("late"), delay=0.5))
    c = openai.OpenAI(base_url=sim.base_url, api_key="k", max_retries=0, timeout=0.1)
    with c, pytest.raises(openai.APITimeoutError):
        c.responses.create(**rparams())


STREAM_FAULTS = [
    # (id, api, fault, exception the SDK raises (None: it does not), last event logged)
    ("responses-error", "responses", StreamFault(), RuntimeError, "error"),
    ("responses-error-nested", "responses", StreamFault(shape="nested"), openai.APIError, "error"),
    ("responses-failed", "responses", StreamFault(kind="failed"), RuntimeError, "response.failed"),
    ("responses-truncate", "responses", StreamFault(kind="truncate"), RuntimeError, "response.output_text.delta"),
    ("responses-reset", "responses", StreamFault(kind="reset"), openai.APIConnectionError, None),
    ("responses-malformed", "responses", StreamFault(kind="malformed"), json.JSONDecodeError, "malformed"),
    ("chat-error", "chat", StreamFault(), openai.APIError, "error"),
    ("chat-truncate", "chat", StreamFault(kind="truncate"), None, "chunk"),
    ("chat-reset", "chat", StreamFault(kind="reset"), openai.APIConnectionError, None),
    ("chat-malformed", "chat", StreamFault(kind="malformed"), json.JSONDecodeError, "malformed"),
]


@pytest.mark.parametrize(
    ("api", "fault", "exc", "last"), [c[1:] for c in STREAM_FAULTS], ids=[c[0] for c in STREAM_FAULTS]
)
def test_stream_faults_with_the_sdk(
    sim: SimOpenAI, client: openai.OpenAI, api: str, fault: StreamFault, exc: type | None, last: str | None
) -> None:
    sim.script(Reply(body=text(TEXT) + tool_calls(("ls", {"path": "/"})), stream_fault=fault))
    received: list[str] = []

    def consume() -> Any:
        if api == "responses":
            with client.responses.stream(**rparams()) as s:
                received.extend(e.delta for e in s if e.type == "response.output_text.delta")
                return s.get_final_response()
        with client.chat.completions.stream(**cparams(), stream_options={"include_usage": True}) as s:
            received.extend(e.delta for e in s if e.type == "content.delta" and e.delta)
            return s.get_final_completion()

    if exc is None:
        # The SDK does not notice a Chat stream cut before [DONE]: no finish_reason, no usage.
        final = consume()
        assert final.choices[0].finish_reason is None and final.usage is None
    else:
        with pytest.raises(exc):
            consume()
    rec = sim.requests[0]
    assert rec.status == 200 and rec.stream.fault == fault.kind and not rec.stream.complete
    if last is not None:
        assert rec.stream.names()[-1] == last
    if fault.kind != "reset":
        assert received == ["Hell"]  # part of the reply went out before the fault
    assert len(sim.requests) == 1  # a stream that started is not retried


def test_stream_error_event_shapes(sim: SimOpenAI) -> None:
    nested = StreamFault(
        after_events=2,
        error_type="invalid_request_error",
        code="context_length_exceeded",
        message="too long",
        param="input",
        shape="nested",
    )
    sim.script(
        Reply(body=text(TEXT), stream_fault=StreamFault(after_events=2)), Reply(body=text(TEXT), stream_fault=nested)
    )
    _, _, flat_body = raw_post(sim, "/v1/responses", rparams(stream=True))
    assert flat_body.endswith(
        b'event: error\ndata: {"type":"error","code":"server_error","message":"The server had an error while '
        b'processing your request. Sorry about that!","param":null,"sequence_number":2}\n\n'
    )
    _, _, nested_body = raw_post(sim, "/v1/responses", rparams(stream=True))
    assert nested_body.endswith(
        b'event: error\ndata: {"type":"error","sequence_number":2,"error":{"type":"invalid_request_error",'
        b'"code":"context_length_exceeded","message":"too long","param":"input"}}\n\n'
    )
    sim.script(Reply(body=text(TEXT), stream_fault=StreamFault(after_events=1, kind="failed")))
    _, _, failed = raw_post(sim, "/v1/responses", rparams(stream=True))
    data = json.loads(failed.split(b"event: response.failed\ndata: ")[1])
    assert data["sequence_number"] == 1 and data["response"]["status"] == "failed"
    assert data["response"]["error"] == {"code": "server_error", "message": StreamFault().message}
    sim.script(Reply(body=text(TEXT), stream_fault=StreamFault(after_events=1)))
    _, _, chat = raw_post(sim, "/v1/chat/completions", cparams(stream=True))
    assert chat.endswith(
        b'\n\ndata: {"error":{"message":"The server had an error while processing your request. Sorry about '
        b'that!","type":"server_error","param":null,"code":"server_error"}}\n\n'
    )


def test_malformed_event_is_half_of_the_next_one(sim: SimOpenAI) -> None:
    sim.script(Reply(body=text(TEXT), stream_fault=StreamFault(after_events=3, kind="malformed")))
    _, _, body = raw_post(sim, "/v1/responses", rparams(stream=True))
    tail = body.split(b"\n\n")[-2]
    assert tail.startswith(b'event: response.content_part.added\ndata: {"type":"response.content_part.added"')
    with pytest.raises(json.JSONDecodeError):
        json.loads(tail.split(b"data: ", 1)[1])
    assert sim.requests[0].stream.events[-1][0] == "malformed"


def test_stream_fault_misuse_is_a_loud_500(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(
        Reply(body=text("x"), stream_fault=StreamFault()),
        Reply(body=text("x"), stream_fault=StreamFault(kind="failed")),
    )
    with pytest.raises(openai.InternalServerError, match="stream fault was scripted"):
        client.responses.create(**rparams())
    with pytest.raises(openai.InternalServerError, match="Responses API only"):
        list(client.chat.completions.create(**cparams(), stream=True))


# --------------------------------------------------------------------------- langchain-openai


@pytest.mark.parametrize("use_responses_api", [True, False], ids=["responses", "chat"])
def test_chat_openai_against_the_sim(sim: SimOpenAI, use_responses_api: bool) -> None:
    langchain_openai = pytest.importorskip("langchain_openai")
    from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
    from langchain_core.tools import tool

    @tool
    def ls(path: str) -> str:
        """List a directory."""
        return "a.txt"

    model = langchain_openai.ChatOpenAI(
        model="gpt-5.4", base_url=sim.base_url, api_key="sk-test", use_responses_api=use_responses_api, max_retries=0
    ).bind_tools([ls])
    messages = [SystemMessage("Be brief."), HumanMessage("list /")]
    sim.script(
        text("Looking.") + tool_calls(("ls", {"path": "/"})),
        text("done"),
        text("Streamed!") + tool_calls(("ls", {"path": "/s"})),
    )
    ai = model.invoke(messages)
    assert [(c["name"], c["args"], c["id"]) for c in ai.tool_calls] == [("ls", {"path": "/"}, "call_sim_1")]
    assert "Looking." in ai.text
    answer = model.invoke([*messages, ai, ToolMessage("a.txt", tool_call_id="call_sim_1")])
    assert answer.text == "done"
    # The second request carried the call and its answer (the sim validated the pairing).
    api = "responses" if use_responses_api else "chat"
    assert [r.api for r in sim.requests] == [api, api] and sim.requests[1].status == 200

    chunks = list(model.stream(messages))
    total = chunks[0]
    for chunk in chunks[1:]:
        total += chunk
    assert [(c["name"], c["args"]) for c in total.tool_calls] == [("ls", {"path": "/s"})]
    assert "Streamed!" in total.text
    assert sim.requests[2].body["stream"] is True and sim.requests[2].stream.complete


# --------------------------------------------------------------------------- the Anthropic simulator's malformed fault


def test_anthropic_sim_malformed_event_fails_the_sdk() -> None:
    fault = sim_anthropic.StreamFault(kind="malformed")
    with sim_anthropic.SimAnthropic() as sim, anthropic.Anthropic(api_key="k", base_url=sim.base_url) as client:
        sim.script(sim_anthropic.Reply(body=sim_anthropic.text(TEXT), stream_fault=fault))
        received: list[str] = []
        params = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
        with pytest.raises(json.JSONDecodeError), client.messages.stream(**params) as stream:
            received.extend(stream.text_stream)
        assert received == ["Hell"]
        log = sim.requests[0].stream
        assert log.fault == "malformed" and not log.complete
        name, broken = log.events[-1]
        assert name == "malformed" and broken.startswith('{"type":"content_block_delta"')
        assert len(sim.requests) == 1
