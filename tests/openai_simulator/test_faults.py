"""The simulated OpenAI server's faults (tests/sim/openai.py) as the official ``openai`` SDK sees
them: rate limits, quota, status faults, delays, stream faults; and the ``malformed`` stream fault
of the Anthropic simulator."""

from __future__ import annotations

import json
import time
from typing import Any

import anthropic
import openai
import pytest
from sim import anthropic as sim_anthropic
from sim.openai import (
    Reply,
    SimOpenAI,
    StreamFault,
    auth_error,
    context_overflow,
    error_reply,
    insufficient_quota,
    rate_limited,
    server_error,
    text,
    tool_calls,
)

from .support import TEXT, cparams, raw_post, rparams

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
