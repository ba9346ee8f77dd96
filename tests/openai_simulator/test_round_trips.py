"""Tests of the simulated OpenAI server (tests/sim/openai.py), driven by the official ``openai`` SDK.

Both endpoints (Responses and Chat Completions), streamed and not: the streamed events must add
up to the non-streamed reply; ``langchain_openai.ChatOpenAI`` runs against it on both APIs.
Validation, cache accounting and faults are in this folder's other files.
"""

from __future__ import annotations

import http.client
import json
import time
from typing import Any

import openai
import pytest
from openai.types.responses import Response
from sim.openai import (
    EPOCH,
    Reply,
    SimOpenAI,
    Turn,
    chat_chunks,
    reasoning,
    response_events,
    text,
    tool_calls,
)

from .support import CHAT_TOOLS, MODEL, SYSTEM, TEXT, TURNS, cached, cparams, raw_post, rparams

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
