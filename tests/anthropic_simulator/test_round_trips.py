"""Tests of the simulated Anthropic server (tests/sim/anthropic.py): round trips over plain urllib.

Validation, cache accounting and the real clients (the SDK, deepagents over ``ChatAnthropic``)
are in this folder's other files.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

# The simulators live in tests/, one folder up; make them importable however pytest roots the run.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.anthropic import Reply, SimAnthropic, message, text, tool_use

from .support import MODEL, post, req

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
