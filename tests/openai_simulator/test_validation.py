"""The simulated OpenAI server's request validation (tests/sim/openai.py): invalid requests are
rejected as the real API rejects them, without consuming the script; valid tool histories pass."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from sim.openai import (
    SimOpenAI,
    text,
    tool_calls,
)

from .support import CHAT_TOOLS, RESP_TOOLS, USER, cparams, raw_post, rparams

# --------------------------------------------------------------------------- validation


def _without(body: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != key}


CALL = {"type": "function_call", "call_id": "call_1", "name": "ls", "arguments": '{"path":"/"}'}
OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"}

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
