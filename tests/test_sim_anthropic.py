"""Tests of the simulated Anthropic server (tests/sim/anthropic.py).

Plain urllib tests always run; the SDK and deepagents tests run when those
packages are installed.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The helpers live next to this file; make them importable however pytest roots the run.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sim.anthropic import Reply, SimAnthropic, message, text, tool_use

MODEL = "claude-sonnet-4-5"
HEADERS = {
    "x-api-key": "sk-test",
    "anthropic-version": "2023-06-01",
    "content-type": "application/json",
}
EPHEMERAL = {"type": "ephemeral"}


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def sim() -> Iterator[SimAnthropic]:
    with SimAnthropic() as s:
        yield s


@pytest.fixture
def small_sim() -> Iterator[SimAnthropic]:
    """A simulator whose cache minimum is small enough for compact test prompts."""
    with SimAnthropic(min_cache_tokens=50) as s:
        yield s


def post(
    sim: SimAnthropic,
    body: Any,
    *,
    headers: dict[str, str] | None = None,
    path: str = "/v1/messages",
    method: str = "POST",
) -> tuple[int, Any, dict[str, str]]:
    """Send one request with urllib; return (status, parsed body, lower-case headers)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        sim.base_url + path,
        data=data,
        method=method,
        headers=HEADERS if headers is None else headers,
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            status, raw, hdrs = resp.status, resp.read(), resp.headers
    except urllib.error.HTTPError as e:
        status, raw, hdrs = e.code, e.read(), e.headers
    lower = {k.lower(): v for k, v in hdrs.items()}
    parsed = json.loads(raw) if lower.get("content-type", "").startswith("application/json") else raw.decode()
    return status, parsed, lower


def req(messages: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 256,
        "messages": messages if messages is not None else [{"role": "user", "content": "hi"}],
    }
    body.update(extra)
    return body


def tool_def(name: str, description: str = "A tool.", **extra: Any) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    }
    return {"name": name, "description": description, "input_schema": schema, **extra}


def cached_request(system_text: str = "You are a careful assistant. " * 160, **extra: Any) -> dict[str, Any]:
    """The deepagents shape: last tool and system block marked, plus the top-level marker."""
    return req(
        tools=[tool_def("ls"), tool_def("read_file", cache_control=EPHEMERAL)],
        system=[{"type": "text", "text": system_text, "cache_control": EPHEMERAL}],
        cache_control=EPHEMERAL,
        **extra,
    )


def usage_of(sim: SimAnthropic, body: dict[str, Any]) -> dict[str, Any]:
    sim.script(text("ok"))
    status, resp, _ = post(sim, body)
    assert status == 200, resp
    return resp["usage"]


# --------------------------------------------------------------------------- round trips


def test_text_round_trip_fills_message_fields(sim: SimAnthropic) -> None:
    sim.script(text("hello there"))
    status, resp, headers = post(sim, req())
    assert status == 200
    assert resp["id"] == "msg_sim_1"
    assert resp["type"] == "message" and resp["role"] == "assistant"
    assert resp["model"] == MODEL
    assert resp["content"] == [{"type": "text", "text": "hello there"}]
    assert resp["stop_reason"] == "end_turn" and resp["stop_sequence"] is None
    usage = resp["usage"]
    assert usage["input_tokens"] == sim.tokens(req()) and usage["output_tokens"] >= 1
    assert usage["cache_read_input_tokens"] == usage["cache_creation_input_tokens"] == 0
    assert headers["request-id"] == "req_sim_0"

    (rec,) = sim.requests
    assert rec.path == "/v1/messages" and rec.method == "POST" and rec.status == 200
    assert rec.headers["x-api-key"] == "sk-test" and rec.headers["anthropic-version"] == "2023-06-01"
    assert rec.body == req()
    assert rec.response == resp
    assert sim.pending == 0


def test_tool_use_ids_are_assigned_deterministically(sim: SimAnthropic) -> None:
    sim.script(
        tool_use(
            ("ls", {"path": "/"}),
            ("grep", {"pattern": "x"}, "toolu_mine"),
            text="looking",
        )
    )
    _, resp, _ = post(sim, req())
    assert resp["stop_reason"] == "tool_use"
    assert resp["content"] == [
        {"type": "text", "text": "looking"},
        {"type": "tool_use", "name": "ls", "input": {"path": "/"}, "id": "toolu_sim_1"},
        {
            "type": "tool_use",
            "id": "toolu_mine",
            "name": "grep",
            "input": {"pattern": "x"},
        },
    ]


def test_scripted_usage_overrides_and_message_helper(sim: SimAnthropic) -> None:
    sim.script(
        message(
            [{"type": "text", "text": "cut"}],
            stop_reason="max_tokens",
            usage={"output_tokens": 7},
        )
    )
    _, resp, _ = post(sim, req())
    assert resp["stop_reason"] == "max_tokens"
    assert resp["usage"]["output_tokens"] == 7
    assert resp["usage"]["input_tokens"] == sim.tokens(req())


def test_scripted_error_reply_with_headers(sim: SimAnthropic) -> None:
    sim.script(Reply(status=429, headers={"retry-after": "1"}), text("after"))
    status, resp, headers = post(sim, req())
    assert status == 429
    assert resp == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "sim: scripted 429"},
    }
    assert headers["retry-after"] == "1"
    assert post(sim, req())[1]["content"][0]["text"] == "after"


def test_scripted_raw_body_and_delay(sim: SimAnthropic) -> None:
    sim.script(Reply(status=413, body="<html>Request Entity Too Large</html>", delay=0.2))
    start = time.monotonic()
    status, resp, headers = post(sim, req())
    assert time.monotonic() - start >= 0.2
    assert status == 413 and "Too Large" in resp and headers["content-type"].startswith("text/html")


def test_handler_seconds_are_recorded_for_benchmarks(sim: SimAnthropic) -> None:
    sim.script(Reply(body=message([], stop_reason="end_turn"), delay=0.05), text("b"))
    assert post(sim, req())[0] == post(sim, req())[0] == 200
    slow, fast = sim.requests
    assert 0.05 <= slow.handler_seconds < 5 and 0 < fast.handler_seconds < 5
    assert sim.handler_seconds == pytest.approx(slow.handler_seconds + fast.handler_seconds)
    sim.reset()
    assert sim.handler_seconds == 0


def test_empty_script_answers_500_loudly(sim: SimAnthropic) -> None:
    status, resp, headers = post(sim, req())
    assert status == 500
    assert resp["error"] == {
        "type": "api_error",
        "message": "sim: no scripted reply left",
    }
    assert headers["x-should-retry"] == "false"


def test_script_rejects_bad_reply_type(sim: SimAnthropic) -> None:
    with pytest.raises(TypeError):
        sim.script("not a reply")  # type: ignore[arg-type]


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


# --------------------------------------------------------------------------- caching


def test_first_request_writes_and_identical_request_reads(sim: SimAnthropic) -> None:
    body = cached_request()
    total = sim.tokens(body)
    assert total >= sim.min_cache_tokens

    first = usage_of(sim, body)
    assert first["cache_read_input_tokens"] == 0
    assert first["cache_creation_input_tokens"] == total
    assert first["cache_creation"] == {
        "ephemeral_5m_input_tokens": total,
        "ephemeral_1h_input_tokens": 0,
    }
    assert first["input_tokens"] == 0

    second = usage_of(sim, body)
    assert second["cache_read_input_tokens"] == total
    assert second["cache_creation_input_tokens"] == 0
    assert second["input_tokens"] == 0
    report = sim.requests[1].cache
    assert report is not None and report.hit_creator_seq == 0
    assert [bp.source for bp in report.breakpoints] == [
        "explicit",
        "explicit",
        "top-level",
    ]


def test_extending_the_conversation_reads_old_prefix_and_writes_delta(
    sim: SimAnthropic,
) -> None:
    body1 = cached_request()
    usage_of(sim, body1)
    body2 = cached_request(
        messages=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Hello! How can I help?"}],
            },
            {"role": "user", "content": "List the files."},
        ]
    )
    usage = usage_of(sim, body2)
    assert usage["cache_read_input_tokens"] == sim.tokens(body1)
    assert usage["cache_creation_input_tokens"] == sim.tokens(body2) - sim.tokens(body1)
    assert usage["input_tokens"] == 0


def test_uncached_tail_after_last_breakpoint_is_input_tokens(sim: SimAnthropic) -> None:
    # No top-level marker: the messages after the system breakpoint are plain input.
    body = cached_request()
    del body["cache_control"]
    usage = usage_of(sim, body)
    system_end = len(body["tools"])  # index of the system block
    assert usage["cache_creation_input_tokens"] == sim.tokens(body, upto=system_end)
    assert usage["input_tokens"] == sim.tokens(body) - sim.tokens(body, upto=system_end)


def test_string_and_text_block_content_are_the_same_prefix(sim: SimAnthropic) -> None:
    usage_of(sim, cached_request())
    as_blocks = cached_request(messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}])
    usage = usage_of(sim, as_blocks)
    assert usage["cache_read_input_tokens"] == sim.tokens(as_blocks)


def test_changed_system_prompt_only_reuses_tools(sim: SimAnthropic) -> None:
    tools_text = "Tool docs. " * 400  # make the tools prefix cacheable on its own
    base = cached_request()
    base["tools"][0]["description"] = tools_text
    usage_of(sim, base)
    changed = cached_request(system_text="You are a different assistant. " * 40)
    changed["tools"][0]["description"] = tools_text
    usage = usage_of(sim, changed)
    tools_end = len(changed["tools"]) - 1
    assert usage["cache_read_input_tokens"] == sim.tokens(changed, upto=tools_end)
    assert usage["cache_creation_input_tokens"] == sim.tokens(changed) - sim.tokens(changed, upto=tools_end)


def test_changed_system_prompt_with_small_tools_misses(sim: SimAnthropic) -> None:
    usage_of(sim, cached_request())
    usage = usage_of(sim, cached_request(system_text="Something else entirely. " * 160))
    assert usage["cache_read_input_tokens"] == 0


def test_cache_is_per_model(sim: SimAnthropic) -> None:
    usage_of(sim, cached_request())
    assert usage_of(sim, cached_request(model="claude-opus-4-1"))["cache_read_input_tokens"] == 0


def test_reordered_json_keys_miss(sim: SimAnthropic) -> None:
    body = cached_request()
    usage_of(sim, body)
    reordered = cached_request()
    reordered["tools"][0] = dict(reversed(list(reordered["tools"][0].items())))
    assert usage_of(sim, reordered)["cache_read_input_tokens"] == 0


def test_moving_a_marker_is_free(sim: SimAnthropic) -> None:
    body = cached_request()
    usage_of(sim, body)
    moved = cached_request()
    moved["system"][0].pop("cache_control")
    moved["tools"][0]["cache_control"] = EPHEMERAL
    assert usage_of(sim, moved)["cache_read_input_tokens"] == sim.tokens(body)


def test_tool_choice_change_keeps_tools_and_system_entries(sim: SimAnthropic) -> None:
    body = cached_request()
    usage_of(sim, body)
    changed = cached_request(tool_choice={"type": "any"})
    system_end = len(changed["tools"])
    assert usage_of(sim, changed)["cache_read_input_tokens"] == sim.tokens(changed, upto=system_end)


def _lookback_request(extra_blocks: int, marker_at: int | None = None) -> dict[str, Any]:
    """One user turn: a large first block, then ``extra_blocks`` short ones; top-level marker only."""
    content: list[dict[str, Any]] = [{"type": "text", "text": "Context. " * 100}]
    for i in range(extra_blocks):
        block: dict[str, Any] = {"type": "text", "text": f"note {i}"}
        if marker_at is not None and i + 1 == marker_at:
            block["cache_control"] = EPHEMERAL
        content.append(block)
    return req([{"role": "user", "content": content}], cache_control=EPHEMERAL)


@pytest.mark.parametrize(("extra", "hits"), [(19, True), (20, False)])
def test_lookback_window_is_twenty_blocks(small_sim: SimAnthropic, extra: int, hits: bool) -> None:
    first = _lookback_request(0)
    usage_of(small_sim, first)
    later = _lookback_request(extra)
    usage = usage_of(small_sim, later)
    assert usage["cache_read_input_tokens"] == (small_sim.tokens(first) if hits else 0)
    assert usage["cache_creation_input_tokens"] == small_sim.tokens(later) - usage["cache_read_input_tokens"]


def test_intermediate_breakpoint_extends_the_lookback(small_sim: SimAnthropic) -> None:
    first = _lookback_request(0)
    usage_of(small_sim, first)
    # 30 new blocks, but a marker on block 15 can see back to the first block.
    usage = usage_of(small_sim, _lookback_request(30, marker_at=15))
    assert usage["cache_read_input_tokens"] == small_sim.tokens(first)


def test_lookback_is_configurable() -> None:
    with SimAnthropic(min_cache_tokens=50, lookback=40) as s:
        usage_of(s, _lookback_request(0))
        assert usage_of(s, _lookback_request(30))["cache_read_input_tokens"] > 0


def test_ttl_expiry_and_refresh(sim: SimAnthropic) -> None:
    body = cached_request()
    total = sim.tokens(body)
    usage_of(sim, body)
    sim.advance(299)
    # The read refreshes the entry, so it outlives the original 5 minutes.
    assert usage_of(sim, body)["cache_read_input_tokens"] == total
    sim.advance(299)
    assert usage_of(sim, body)["cache_read_input_tokens"] == total
    sim.advance(301)
    expired = usage_of(sim, body)
    assert expired["cache_read_input_tokens"] == 0
    assert expired["cache_creation_input_tokens"] == total


def test_one_hour_ttl_outlives_five_minutes(sim: SimAnthropic) -> None:
    body = cached_request()
    body["tools"][-1]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    body["system"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    tools_system = sim.tokens(body, upto=len(body["tools"]))
    first = usage_of(sim, body)
    assert first["cache_creation"] == {
        "ephemeral_1h_input_tokens": tools_system,
        "ephemeral_5m_input_tokens": sim.tokens(body) - tools_system,
    }
    sim.advance(600)
    usage = usage_of(sim, body)
    assert usage["cache_read_input_tokens"] == tools_system
    assert usage["cache_creation_input_tokens"] == sim.tokens(body) - tools_system
    assert usage["cache_creation"]["ephemeral_1h_input_tokens"] == 0


def test_min_cache_tokens() -> None:
    short = req(
        system=[{"type": "text", "text": "Be brief. " * 10, "cache_control": EPHEMERAL}],
        cache_control=EPHEMERAL,
    )
    with SimAnthropic(min_cache_tokens=1024) as s:
        assert s.tokens(short) < 1024
        usage_of(s, short)
        again = usage_of(s, short)
        assert again["cache_read_input_tokens"] == again["cache_creation_input_tokens"] == 0
        assert again["input_tokens"] == s.tokens(short)
    with SimAnthropic(min_cache_tokens=s.tokens(short)) as s2:
        assert usage_of(s2, short)["cache_creation_input_tokens"] == s2.tokens(short)
        assert usage_of(s2, short)["cache_read_input_tokens"] == s2.tokens(short)


def test_invalid_and_error_replies_do_not_touch_the_cache(sim: SimAnthropic) -> None:
    body = cached_request()
    sim.script(Reply(status=529))
    assert post(sim, body)[0] == 529
    assert usage_of(sim, body)["cache_read_input_tokens"] == 0


def test_reset_clears_everything(sim: SimAnthropic) -> None:
    body = cached_request()
    usage_of(sim, body)
    sim.script(text("left over"))
    sim.reset()
    assert sim.pending == 0 and sim.requests == [] and sim.now == 0
    usage = usage_of(sim, body)
    assert usage["cache_read_input_tokens"] == 0
    assert sim.requests[0].response["id"] == "msg_sim_1"


# --------------------------------------------------------------------------- real clients


def test_anthropic_sdk_round_trip_and_errors(sim: SimAnthropic) -> None:
    anthropic = pytest.importorskip("anthropic")
    client = anthropic.Anthropic(api_key="sk-test", base_url=sim.base_url, max_retries=2)
    sim.script(tool_use(("ls", {"path": "/"})), text("done"))
    tools = [tool_def("ls", cache_control=EPHEMERAL)]
    first = client.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,
    )
    assert first.stop_reason == "tool_use" and first.content[0].id == "toolu_sim_1"
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [b.model_dump(exclude_none=True) for b in first.content],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_sim_1",
                    "content": "a.txt",
                }
            ],
        },
    ]
    second = client.messages.create(model=MODEL, max_tokens=64, messages=history, tools=tools)
    assert second.content[0].text == "done"
    assert second.usage.input_tokens == sim.tokens(sim.requests[1].body)

    with pytest.raises(anthropic.BadRequestError, match="without `tool_result`"):
        client.messages.create(model=MODEL, max_tokens=64, messages=history[:2], tools=tools)
    # The empty-script 500 says x-should-retry: false, so the SDK does not retry it.
    before = len(sim.requests)
    with pytest.raises(anthropic.InternalServerError, match="no scripted reply left"):
        client.messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}])
    assert len(sim.requests) == before + 1


def test_anthropic_sdk_retries_scripted_overload(sim: SimAnthropic) -> None:
    anthropic = pytest.importorskip("anthropic")
    client = anthropic.Anthropic(api_key="sk-test", base_url=sim.base_url, max_retries=2)
    sim.script(Reply(status=529, headers={"retry-after-ms": "10"}), text("finally"))
    resp = client.messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}])
    assert resp.content[0].text == "finally"
    assert [r.status for r in sim.requests] == [529, 200]
    assert [r.headers["x-stainless-retry-count"] for r in sim.requests] == ["0", "1"]


def test_reference_deepagents_over_chat_anthropic(small_sim: SimAnthropic) -> None:
    deepagents = pytest.importorskip("deepagents")
    langchain_anthropic = pytest.importorskip("langchain_anthropic")
    from langchain_core.messages import HumanMessage

    small_sim.script(tool_use(("write_file", {"file_path": "/a.txt", "content": "x"})), text("done"))
    model = langchain_anthropic.ChatAnthropic(
        model=MODEL, api_key="sk-test", base_url=small_sim.base_url, max_retries=0
    )
    agent = deepagents.create_deep_agent(model=model, system_prompt="You are helpful.")
    out = agent.invoke({"messages": [HumanMessage("hi")]})
    assert out["messages"][-1].content == "done"

    first, second = small_sim.requests
    assert first.status == second.status == 200
    # deepagents' caching middleware: last tool + system block + top-level marker.
    assert first.body["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert [bp.source for bp in first.cache.breakpoints] == [
        "explicit",
        "explicit",
        "top-level",
    ]
    assert second.response["usage"]["cache_read_input_tokens"] == small_sim.tokens(first.body)
    assert second.cache.hit_creator_seq == 0
