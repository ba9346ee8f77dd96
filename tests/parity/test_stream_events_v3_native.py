"""``stream_events(version="v3")`` over a native client (``"anthropic:..."`` on the
simulated Anthropic API) against deepagents over LangChain's ``ChatAnthropic``. The
scaffolding is ``test_stream_events_v3``'s."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import deepagents_rs
import pytest
from sim.anthropic import message, text, tool_use

from .stream_support import plain
from .test_stream_events_v3 import IMPLS, PROJECTIONS, _drain_sync, _result, collect_async, compare

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _native_runs(sim: Any) -> dict[str, Any]:
    """The simulated Anthropic API through ``"anthropic:..."``: LangChain's ``ChatAnthropic``
    in deepagents, the native client here."""
    results = {}
    for m in IMPLS:
        sim.script(tool_use(("add", {"a": 2, "b": 3}, "toolu_1"), text="Adding."), text("It is 5."))
        agent = m.create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[add])
        run = agent.stream_events({"messages": [{"role": "user", "content": "what is 2+3?"}]}, version="v3")
        results[m.__name__] = {"items": _drain_sync(run, PROJECTIONS), **_result(run)}
    return results


def _without_usage(view: dict) -> dict:
    """A chat model stream's view without the usage of its end: the native client reports the
    cache breakdown of a streamed call as it does outside v3, in its own keys (a difference of
    the native client, not of the v3 stream)."""
    events = [{k: v for k, v in e.items() if k != "usage"} for e in view["events"]]
    output = {**view["output"], "usage_metadata": None} if "usage_metadata" in view["output"] else view["output"]
    return {**view, "events": events, "output": output}


def test_native_client_messages(sim: Any) -> None:
    """A native client's call is made into the protocol events LangChain's bridge makes of the
    provider's chunks (given once the call has ended), so ``run.messages`` reads as it reads
    over ``ChatAnthropic``; tool calls and the order of the projections too."""
    results = _native_runs(sim)
    views = {
        name: [(n, _without_usage(v) if n == "messages" else None) for n, v in r["items"] if n != "values"]
        for name, r in results.items()
    }
    ref = compare(views)
    assert [n for n, _ in ref] == ["messages", "tool_calls", "messages"]


def _reply_view(message: dict) -> dict:
    """An assistant message as compared: the native client reports the cache breakdown of a
    streamed call in its own keys (`_without_usage`), so usage is left out."""
    return {k: v for k, v in message.items() if k != "usage_metadata"}


def test_native_client_reply_under_v3(sim: Any) -> None:
    """Under v3 LangChain's ``ChatAnthropic`` answers with the message assembled from the
    call's content-block events (v1 blocks, ``output_version: "v1"``); so does the native
    client, in the final state and in ``run.values``."""
    results = _native_runs(sim)
    views = {
        name: {
            "output": [_reply_view(m) for m in r["output"]["messages"] if m["type"] == "ai"],
            "values": [
                [_reply_view(m) for m in v["messages"] if m["type"] == "ai"] for n, v in r["items"] if n == "values"
            ],
        }
        for name, r in results.items()
    }
    ref = compare(views)
    assert ref["output"][0]["response_metadata"]["output_version"] == "v1"
    assert [b["type"] for b in ref["output"][0]["content"]] == ["text", "tool_call"]


_THINKING = [
    {"type": "thinking", "thinking": "Let me add.", "signature": "sig123"},
    {"type": "redacted_thinking", "data": "opaque=="},
    {"type": "text", "text": "Adding."},
    {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}},
    {"type": "tool_use", "id": "toolu_2", "name": "add", "input": {"a": 1, "b": 1}},
]


def final_state(agent: Any, inp: dict, v3: bool) -> Any:
    """A run's final state under ``stream_events(version="v3")``, or streamed without it
    (``messages`` mode too, so the requests differ by nothing but the v3 stream)."""
    if v3:
        run = agent.stream_events(inp, version="v3")
        for _ in run.messages:
            pass
        return run.output
    return [v for mode, v in agent.stream(inp, stream_mode=["messages", "values"]) if mode == "values"][-1]


def _runs_with_requests(sim: Any, module: Any, v3: bool) -> tuple[dict, list[bytes], list]:
    """One run of a reply with thinking, redacted thinking, text and two calls: the second
    reply's predecessor as the state keeps it, the raw request bodies, and the parsed ones."""
    sim.reset()
    sim.script(message(_THINKING, stop_reason="tool_use"), text("It is 5 and 2."))
    agent = module.create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[add])
    inp = {"messages": [{"role": "user", "content": "what is 2+3 and 1+1?"}]}
    output = final_state(agent, inp, v3)
    requests = [r for r in sim.requests if r.path.endswith("/messages")]
    reply = next(m for m in output["messages"] if m.type == "ai")
    return _reply_view(plain(reply)), [r.raw for r in requests], [r.body for r in requests]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_v1_reply_sends_the_same_next_request(sim: Any, impl: Any) -> None:
    """The v1 reply is read back as the blocks it was made of: the next request's bytes are
    the same as when the reply kept the provider's own blocks (a fork's prompt-cache prefix
    depends on them), for thinking, redacted thinking, text and parallel calls."""
    _, plain_raw, plain_bodies = _runs_with_requests(sim, impl, v3=False)
    reply, v3_raw, _ = _runs_with_requests(sim, impl, v3=True)
    assert reply["response_metadata"]["output_version"] == "v1"
    assert len(v3_raw) == 2
    if impl is deepagents_rs:
        assert v3_raw == plain_raw
    else:
        # LangChain's client sends the same body; its SDK's bytes are not under test here.
        assert [json.loads(r) for r in v3_raw] == plain_bodies
    assert [json.loads(r) for r in plain_raw] == plain_bodies


def test_v1_reply_and_next_request_match_deepagents(sim: Any) -> None:
    """The v1 reply with thinking and redacted thinking, and the assistant turn the next
    request sends for it (the streamed blocks' ``index`` left out, as LangChain leaves it)."""
    views = {}
    for m in IMPLS:
        reply, _, bodies = _runs_with_requests(sim, m, v3=True)
        views[m.__name__] = {"reply": reply, "turn": bodies[1]["messages"][1]}
    ref = compare(views)
    assert [b["type"] for b in ref["turn"]["content"]] == [
        "thinking",
        "redacted_thinking",
        "text",
        "tool_use",
        "tool_use",
    ]


def test_native_client_reply_under_astream_events_v3(sim: Any) -> None:
    """``astream_events(version="v3")``: the v1 reply, the same events and values as over
    ``ChatAnthropic`` (the reply is made while the caller's loop runs)."""
    results = {}
    for m in IMPLS:
        sim.script(tool_use(("add", {"a": 2, "b": 3}, "toolu_1"), text="Adding."), text("It is 5."))
        agent = m.create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[add])
        inp = {"messages": [{"role": "user", "content": "what is 2+3?"}]}
        collected = asyncio.run(collect_async(agent, inp))
        results[m.__name__] = {
            "errors": collected["errors"],
            "output": [_reply_view(x) for x in collected["output"]["messages"] if x["type"] == "ai"],
            "tool_calls": collected["tool_calls"],
        }
    ref = compare(results)
    assert ref["output"][0]["response_metadata"]["output_version"] == "v1"
