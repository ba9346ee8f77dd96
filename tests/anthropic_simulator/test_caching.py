"""The simulated Anthropic server's prompt cache (tests/sim/anthropic.py): writes and reads, prefixes,
breakpoints and the lookback window, TTLs, the minimum, and what leaves the cache alone."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

# The simulators live in tests/, one folder up; make them importable however pytest roots the run.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.anthropic import Reply, SimAnthropic, text

from .support import EPHEMERAL, cached_request, post, req, usage_of

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
