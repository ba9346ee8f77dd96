"""An Anthropic reply's ``response_metadata``, key for key and in order, as deepagents
(langchain-anthropic parsing it through the SDK's models) makes it from the same simulated
reply: under ``invoke`` and under token streaming; and its ``usage_metadata`` under
``invoke``."""

from __future__ import annotations

import json
from typing import Any

import deepagents_rs
import pytest
from sim.anthropic import SimAnthropic

MODEL = "anthropic:claude-sonnet-4-5"

# Usage given whole, so both implementations get the same numbers whatever the simulated
# cache holds.
USAGE = {
    "input_tokens": 12,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 30,
    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    "output_tokens": 7,
    "service_tier": "standard",
}


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _plain(run: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"msg_{run}_1",
            "content": [{"type": "tool_use", "id": f"toolu_{run}", "name": "add", "input": {"a": 2, "b": 3}}],
            "stop_reason": "tool_use",
            "usage": dict(USAGE),
        },
        {"id": f"msg_{run}_2", "content": [{"type": "text", "text": "It is 5."}], "usage": dict(USAGE)},
    ]


def _rich(run: int) -> list[dict[str, Any]]:
    """Fields a plain reply leaves out: a code-execution container, diagnostics, a refusal's
    details, server tool use and a field no SDK model declares."""
    return [
        {
            "id": f"msg_{run}_1",
            "content": [{"type": "text", "text": "I cannot help with that."}],
            "stop_reason": "refusal",
            "stop_details": {"type": "refusal", "category": "cyber"},
            "container": {"id": "container_1", "expires_at": "2026-12-06T12:00:00.25Z"},
            "diagnostics": {"cache_miss_reason": None},
            "not_in_the_sdk": [1, {"b": 2, "a": 1}],
            "usage": {**USAGE, "server_tool_use": {"web_search_requests": 2}, "inference_geo": "us"},
        }
    ]


#: Values of every JSON kind, nested, for fields no SDK model declares: the dict made from
#: the kept text must hold each as the JSON parser does (int against float, a bool, None,
#: text with escapes and outside ASCII, a count past 2**63, key order inside and out).
ODD = {
    "z": {"f": 1.5, "zero": 0.0, "tiny": -1e-07, "t": True, "fa": False, "n": None},
    "text": 'h\u00e9llo \u2713 "quoted" \\ \U0001f600',
    "a": {"big": 2**63 + 5, "neg": -7, "nested": {"k": [1, 2.5, None, {"y": "x", "b": 1}]}, "empty": {}},
    "short": "end_turn",
}


def _odd(run: int) -> list[dict[str, Any]]:
    """Fields no SDK model declares, at the top and inside the declared usage and its cache
    breakdown, holding values of every kind (`ODD`)."""
    usage = {**USAGE, "cache_creation": {**USAGE["cache_creation"], "zz": ODD["a"]}, "zz_usage": ODD}
    return [
        {**reply, "usage": dict(usage), "zz_top": ODD, "aa_top": [ODD["z"], "x"], "n_top": None}
        for reply in _plain(run)
    ]


def _alternating(run: int) -> list[dict[str, Any]]:
    """Replies of one key shape (at the top, in the usage) whose values come and go: a value
    where the reply before had `None` and the other way round, a nested dict given then left
    out. Ours are copies of one template a shape (`dict_templates`): each must hold its own
    reply's values and nothing of the one before."""
    call = _plain(run)[0]
    return [
        {
            **call,
            "id": f"msg_{run}_1",
            "usage": {**USAGE, "server_tool_use": {"web_search_requests": 1}, "inference_geo": "us"},
        },
        {**call, "id": f"msg_{run}_2", "usage": {**USAGE, "input_tokens": 13}},
        {
            "id": f"msg_{run}_3",
            "content": [{"type": "text", "text": "It is 5."}],
            "stop_reason": "stop_sequence",
            "stop_sequence": "###",
            "usage": {**USAGE, "server_tool_use": {"web_fetch_requests": 3, "web_search_requests": 0}},
        },
    ]


def _ai_messages(impl: Any, script: Any, stream: bool) -> list[Any]:
    with SimAnthropic(min_cache_tokens=64) as sim, pytest.MonkeyPatch.context() as mp:
        mp.setenv("ANTHROPIC_BASE_URL", sim.base_url)
        mp.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
        sim.script(*script(0))
        agent = impl.create_deep_agent(model=MODEL, tools=[add])
        request = {"messages": [{"role": "user", "content": "what is 2+3?"}]}
        if stream:
            values = None
            for mode, chunk in agent.stream(request, stream_mode=["messages", "values"]):
                if mode == "values":
                    values = chunk
            messages = values["messages"]
        else:
            messages = agent.invoke(request)["messages"]
    return [m for m in messages if m.type == "ai"]


def _replies(impl: Any, script: Any, stream: bool) -> list[tuple[str, dict]]:
    # The metadata as JSON text, so that key order counts in the comparison. (The usage's
    # details differ in order: our reply's message is validated whole, where
    # langchain-anthropic sets `usage_metadata` after validation. Streamed, our usage is the
    # non-streamed one, with `message_start`'s cache breakdown, which langchain-anthropic's
    # chunks leave out: `test_anthropic_stream.py`.)
    return [
        (json.dumps(m.response_metadata, default=str), None if stream else m.usage_metadata)
        for m in _ai_messages(impl, script, stream)
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
@pytest.mark.parametrize("script", [_plain, _rich, _odd, _alternating], ids=["plain", "rich", "odd", "alternating"])
def test_reply_metadata_matches_langchain_anthropic(script: Any, stream: bool) -> None:
    deepagents = pytest.importorskip("deepagents")
    theirs = _replies(deepagents, script, stream)
    ours = _replies(deepagents_rs, script, stream)
    assert len(ours) == len(script(0))
    assert ours == theirs


def test_each_reply_has_its_own_metadata_dicts() -> None:
    """A reply's metadata dicts (its own and its usage's) are its own: a change to one reply's
    shows in no other reply, nor in the next run's (ours are copies of a template a shape)."""
    first = _ai_messages(deepagents_rs, _plain, False)
    expected = [json.dumps(m.response_metadata, default=str) for m in first]
    assert first[0].response_metadata is not first[1].response_metadata
    assert first[0].response_metadata["usage"] is not first[1].response_metadata["usage"]
    for m in first:
        m.response_metadata["stop_sequence"] = "changed"
        m.response_metadata["usage"]["input_tokens"] = -1
        m.response_metadata["usage"]["added"] = 1
        m.response_metadata["added"] = 1
    again = _ai_messages(deepagents_rs, _plain, False)
    assert [json.dumps(m.response_metadata, default=str) for m in again] == expected
