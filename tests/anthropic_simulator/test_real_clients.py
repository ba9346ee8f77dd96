"""Real clients against the simulated Anthropic server (tests/sim/anthropic.py): the ``anthropic`` SDK's
round trip, errors and retries, and deepagents 0.7.32 over ``ChatAnthropic``; run when installed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The simulators live in tests/, one folder up; make them importable however pytest roots the run.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.anthropic import Reply, SimAnthropic, text, tool_use

from .support import EPHEMERAL, MODEL, tool_def

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
