"""The simulated Anthropic server's request validation (tests/sim/anthropic.py): invalid requests are
rejected as the real API rejects them, without consuming the script; valid histories pass; routing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

# The simulators live in tests/, one folder up; make them importable however pytest roots the run.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.anthropic import SimAnthropic, text

from .support import EPHEMERAL, HEADERS, post, req, tool_def

# --------------------------------------------------------------------------- validation


def _tool_turns(result_id: str = "toolu_1", *, extra_first: bool = False) -> list[dict[str, Any]]:
    result = {"type": "tool_result", "tool_use_id": result_id, "content": "ok"}
    user_content = [{"type": "text", "text": "and"}, result] if extra_first else [result]
    return [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}],
        },
        {"role": "user", "content": user_content},
    ]


def _without(key: str) -> dict[str, Any]:
    body = req()
    del body[key]
    return body


NO_AUTH = {k: v for k, v in HEADERS.items() if k != "x-api-key"}
NO_VERSION = {k: v for k, v in HEADERS.items() if k != "anthropic-version"}

INVALID: list[tuple[str, dict[str, str] | None, Any, int, str, str]] = [
    # (id, headers, body, status, error type, message fragment)
    ("no-api-key", NO_AUTH, req(), 401, "authentication_error", "x-api-key"),
    (
        "no-version",
        NO_VERSION,
        req(),
        400,
        "invalid_request_error",
        "anthropic-version",
    ),
    ("bad-json", None, b"{not json", 400, "invalid_request_error", "parsing the body"),
    (
        "no-model",
        None,
        _without("model"),
        400,
        "invalid_request_error",
        "model: Field required",
    ),
    (
        "no-max-tokens",
        None,
        _without("max_tokens"),
        400,
        "invalid_request_error",
        "max_tokens: Field required",
    ),
    (
        "no-messages",
        None,
        _without("messages"),
        400,
        "invalid_request_error",
        "messages: Field required",
    ),
    (
        "empty-messages",
        None,
        req([]),
        400,
        "invalid_request_error",
        "at least one message is required",
    ),
    (
        "first-not-user",
        None,
        req([{"role": "assistant", "content": "x"}, {"role": "user", "content": "y"}]),
        400,
        "invalid_request_error",
        'first message must use the "user" role',
    ),
    (
        "not-alternating",
        None,
        req([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]),
        400,
        "invalid_request_error",
        "roles must alternate",
    ),
    (
        "bad-role",
        None,
        req([{"role": "system", "content": "a"}]),
        400,
        "invalid_request_error",
        "messages.0.role",
    ),
    (
        "tool-use-unanswered",
        None,
        req(_tool_turns()[:2] + [{"role": "user", "content": "no result"}]),
        400,
        "invalid_request_error",
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
    ),
    (
        "tool-use-last",
        None,
        req(_tool_turns()[:2]),
        400,
        "invalid_request_error",
        "without `tool_result` blocks",
    ),
    (
        "tool-result-unknown-id",
        None,
        req(
            [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_x",
                            "content": "?",
                        }
                    ],
                }
            ]
        ),
        400,
        "invalid_request_error",
        "unexpected `tool_use_id` found in `tool_result` blocks: toolu_x",
    ),
    (
        "tool-result-not-first",
        None,
        req(_tool_turns(extra_first=True)),
        400,
        "invalid_request_error",
        "must come first",
    ),
    (
        "five-breakpoints",
        None,
        req(
            [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": f"b{i}", "cache_control": EPHEMERAL} for i in range(2)],
                }
            ],
            tools=[tool_def("ls", cache_control=EPHEMERAL)],
            system=[{"type": "text", "text": "s", "cache_control": EPHEMERAL}],
            cache_control=EPHEMERAL,
        ),
        400,
        "invalid_request_error",
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    ),
    (
        "bad-tool-name",
        None,
        req(tools=[tool_def("read file")]),
        400,
        "invalid_request_error",
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    ),
    (
        "tool-name-too-long",
        None,
        req(tools=[tool_def("a" * 65)]),
        400,
        "invalid_request_error",
        "tools.0.custom.name",
    ),
    (
        "bad-cache-type",
        None,
        req(system=[{"type": "text", "text": "s", "cache_control": {"type": "persistent"}}]),
        400,
        "invalid_request_error",
        "cache_control.type",
    ),
    (
        "1h-after-5m",
        None,
        req(
            system=[
                {"type": "text", "text": "a", "cache_control": EPHEMERAL},
                {
                    "type": "text",
                    "text": "b",
                    "cache_control": {"type": "ephemeral", "ttl": "1h"},
                },
            ]
        ),
        400,
        "invalid_request_error",
        "ttl='1h'",
    ),
    (
        "empty-text-block",
        None,
        req([{"role": "user", "content": [{"type": "text", "text": ""}]}]),
        400,
        "invalid_request_error",
        "text content blocks must be non-empty",
    ),
    (
        "stream-not-bool",
        None,
        req(stream="yes"),
        400,
        "invalid_request_error",
        "stream: Input should be a valid boolean",
    ),
]


@pytest.mark.parametrize(
    ("headers", "body", "status", "error_type", "fragment"),
    [case[1:] for case in INVALID],
    ids=[case[0] for case in INVALID],
)
def test_invalid_requests_are_rejected_without_consuming_the_script(
    sim: SimAnthropic,
    headers: dict[str, str] | None,
    body: Any,
    status: int,
    error_type: str,
    fragment: str,
) -> None:
    sim.script(text("unused"))
    got_status, resp, _ = post(sim, body, headers=headers)
    assert got_status == status, resp
    assert resp["type"] == "error"
    assert resp["error"]["type"] == error_type
    assert fragment in resp["error"]["message"]
    assert sim.pending == 1
    assert sim.requests[-1].status == status


def test_valid_tool_history_and_four_breakpoints_pass(sim: SimAnthropic) -> None:
    sim.script(text("a"), text("b"))
    assert post(sim, req(_tool_turns()))[0] == 200
    four = req(
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "b", "cache_control": EPHEMERAL}],
            }
        ],
        tools=[tool_def("ls", cache_control={"type": "ephemeral", "ttl": "1h"})],
        system=[
            {
                "type": "text",
                "text": "s",
                "cache_control": {"type": "ephemeral", "ttl": "1h"},
            }
        ],
        cache_control=EPHEMERAL,
    )
    assert post(sim, four)[0] == 200, sim.requests[-1].response


def test_bearer_authorization_is_accepted(sim: SimAnthropic) -> None:
    # anthropic SDK 2.x sends the api key as `Authorization: Bearer`.
    sim.script(text("ok"))
    headers = {**NO_AUTH, "authorization": "Bearer sk-test"}
    assert post(sim, req(), headers=headers)[0] == 200


def test_merge_consecutive_roles_option() -> None:
    with SimAnthropic(merge_consecutive_roles=True) as s:
        s.script(text("ok"))
        body = req([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
        assert post(s, body)[0] == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/v1/complete"), ("GET", "/v1/messages"), ("POST", "/")],
)
def test_unknown_routes_are_404(sim: SimAnthropic, method: str, path: str) -> None:
    status, resp, _ = post(sim, req() if method == "POST" else None, method=method, path=path)
    assert status == 404
    assert resp["error"]["type"] == "not_found_error"


def test_query_string_is_ignored_for_routing(sim: SimAnthropic) -> None:
    # The SDK's beta client calls /v1/messages?beta=true.
    sim.script(text("ok"))
    status, _, _ = post(sim, req(), path="/v1/messages?beta=true")
    assert status == 200
    assert sim.requests[0].path == "/v1/messages?beta=true"
