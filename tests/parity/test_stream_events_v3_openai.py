"""``stream_events(version="v3")`` over the native OpenAI client (``"openai:..."`` on the
simulated OpenAI API, both its APIs) against deepagents over LangChain's ``ChatOpenAI``:
the reply is LangChain's v1 message, and the request after it sends what it sends when the
reply kept OpenAI's own blocks."""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Iterator
from typing import Any

import deepagents_rs
import pytest
from langchain_core.messages import HumanMessage
from sim.openai import SimOpenAI, reasoning, text, tool_calls

from .stream_support import plain
from .test_openai_wire import _turn_inputs, get_weather, load, openai_env  # noqa: F401 (a fixture)
from .test_stream_events_v3 import IMPLS, collect_async, compare
from .test_stream_events_v3_native import final_state

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

APIS = ("responses", "chat")
# Chat Completions streams no reasoning: encrypted reasoning is a Responses case only.
CASES = [("responses", False), ("responses", True), ("chat", False)]
CASE_IDS = ["responses", "responses-encrypted", "chat"]
ENCRYPTED = {"include": ["reasoning.encrypted_content"], "reasoning": {"effort": "low", "summary": "auto"}}


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@pytest.fixture
def profile() -> Iterator[Any]:
    """Sets the ``openai`` provider profile of both implementations (restored after)."""
    registries = [importlib.import_module(f"{m.__name__}.profiles.provider.provider_profiles") for m in IMPLS]
    for r in registries:
        r._ensure_provider_profiles_loaded()
    saved = [dict(r._PROVIDER_PROFILES) for r in registries]

    def use(api: str, **init: Any) -> None:
        for m in IMPLS:
            kwargs = {"use_responses_api": api == "responses", **init}
            m.register_provider_profile("openai", m.ProviderProfile(init_kwargs=kwargs))

    yield use
    for r, s in zip(registries, saved, strict=True):
        r._PROVIDER_PROFILES.clear()
        r._PROVIDER_PROFILES.update(s)


def _reply_view(message: dict) -> dict:
    """An assistant message as compared (usage as the native client reports a streamed
    call's cache breakdown in its own keys: left out, as in the Anthropic tests)."""
    return {k: v for k, v in message.items() if k != "usage_metadata"}


def _script(sim: SimOpenAI) -> None:
    sim.reset()
    sim.script(
        reasoning("Think a.", "Think b.", encrypted="ENC==")
        + text("Adding.")
        + tool_calls(("add", {"a": 2, "b": 3}, "call_1"), ("add", {"a": 1, "b": 1}, "call_2")),
        text("It is 5 and 2."),
        text("Still 5."),
    )


def _run(sim: SimOpenAI, module: Any, v3: bool) -> tuple[list[dict], list[bytes], list[Any]]:
    """Two turns (the second with the first's messages): the assistant messages of the
    final state, the raw request bodies and the parsed ones."""
    _script(sim)
    agent = module.create_deep_agent(model="openai:gpt-5", tools=[add], system_prompt="Be brief.")
    messages: list = []
    for question in ("what is 2+3 and 1+1?", "and now?"):
        inp = {"messages": [*messages, {"role": "user", "content": question}]}
        messages = final_state(agent, inp, v3)["messages"]
    requests = [r for r in sim.requests if r.api is not None]
    replies = [_reply_view(plain(m)) for m in messages if m.type == "ai"]
    return replies, [r.raw for r in requests], [r.body for r in requests]


@pytest.mark.parametrize(("api", "encrypted"), CASES, ids=CASE_IDS)
def test_v1_reply_matches_deepagents(openai_sim: SimOpenAI, profile: Any, api: str, encrypted: bool) -> None:
    """The native client's reply under v3 is the v1 message ``ChatOpenAI`` makes of the same
    stream (reasoning parts, text, parallel calls), turn after turn."""
    profile(api, **(ENCRYPTED if encrypted else {}))
    ref = compare({m.__name__: _run(openai_sim, m, v3=True)[0] for m in IMPLS})
    assert all(r["response_metadata"]["output_version"] == "v1" for r in ref)
    kinds = [b["type"] for b in ref[0]["content"]]
    if api == "responses":
        assert kinds == ["reasoning", "reasoning", "text", "tool_call", "tool_call"]
        assert ("encrypted_content" in json.dumps(ref[0])) is encrypted
    else:
        assert kinds == ["text", "tool_call", "tool_call"]


@pytest.mark.parametrize(("api", "encrypted"), CASES, ids=CASE_IDS)
def test_v1_reply_sends_the_same_next_requests(openai_sim: SimOpenAI, profile: Any, api: str, encrypted: bool) -> None:
    """The v1 replies are read back as the blocks they were made of: every later request's
    bytes are those of the run without v3 (the prompt cache matches on the prefix), with
    reasoning (its encrypted content and ids), text and calls, over two turns."""
    profile(api, **(ENCRYPTED if encrypted else {}))
    _, plain_raw, _ = _run(openai_sim, deepagents_rs, v3=False)
    _, v3_raw, v3_bodies = _run(openai_sim, deepagents_rs, v3=True)
    assert len(v3_raw) == 3
    assert v3_raw == plain_raw
    # What deepagents sends after its v1 replies: the same items (LangChain writes a call's
    # keys in another order, and under Chat Completions sends the text as a one-block list).
    _, _, ref_bodies = _run(openai_sim, IMPLS[0], v3=True)
    if api == "responses":
        assert [b["input"] for b in ref_bodies] == [b["input"] for b in v3_bodies]
        if encrypted:
            assert b'"encrypted_content":"ENC=="' in v3_raw[1]
    else:
        _, _, ref_plain = _run(openai_sim, IMPLS[0], v3=False)
        assert [b["messages"] for b in ref_plain] == [b["messages"] for b in v3_bodies]


@pytest.mark.parametrize("api", APIS)
def test_v1_reply_under_astream_events_v3(openai_sim: SimOpenAI, profile: Any, api: str) -> None:
    """``astream_events(version="v3")``: the v1 reply, the same tool calls and no errors as
    over ``ChatOpenAI`` (the reply is made while the caller's loop runs)."""
    profile(api)
    results = {}
    for m in IMPLS:
        openai_sim.reset()
        openai_sim.script(text("Adding.") + tool_calls(("add", {"a": 2, "b": 3}, "call_1")), text("It is 5."))
        agent = m.create_deep_agent(model="openai:gpt-5", tools=[add])
        collected = asyncio.run(collect_async(agent, {"messages": [{"role": "user", "content": "what is 2+3?"}]}))
        results[m.__name__] = {
            "errors": collected["errors"],
            "output": [_reply_view(x) for x in collected["output"]["messages"] if x["type"] == "ai"],
            "tool_calls": collected["tool_calls"],
        }
    ref = compare(results)
    assert [r["response_metadata"]["output_version"] for r in ref["output"]] == ["v1", "v1"]


# Streams captured from OpenAI itself (tests/fixtures/openai_lc): real reasoning items with
# encrypted content, message phases, Chat Completions chunks.
CAPTURED = [
    ("responses_c_stream", "responses"),
    ("responses_d_reasoning_stream", "responses"),
    ("responses_p_phase_stream", "responses"),
    ("chat_c_stream", "chat"),
]


def _replayed(serve: Any, fixture: dict, module: Any, v3: bool) -> tuple[list[dict], list[bytes]]:
    """The fixture's turns replayed: the assistant messages and the request bytes."""
    replay = serve(fixture)
    agent = module.create_deep_agent(model="openai:gpt-5.4", tools=[get_weather], system_prompt="You are helpful.")
    messages: list = []
    for human in _turn_inputs(fixture):
        inp = {"messages": [*messages, HumanMessage(content=human.content)]}
        messages = final_state(agent, inp, v3)["messages"]
    return [_reply_view(plain(m)) for m in messages if m.type == "ai"], replay.requests


@pytest.mark.parametrize(("name", "api"), CAPTURED)
def test_captured_streams_under_v3(request: pytest.FixtureRequest, profile: Any, name: str, api: str) -> None:
    """OpenAI's own streams under v3: the v1 replies are ``ChatOpenAI``'s, and every request
    after them sends the bytes it sends without v3."""
    profile(api)
    serve = request.getfixturevalue("openai_env")
    fixture = load(name)
    _, plain_raw = _replayed(serve, fixture, deepagents_rs, v3=False)
    ours, v3_raw = _replayed(serve, fixture, deepagents_rs, v3=True)
    assert len(v3_raw) == len(fixture["requests"])
    assert v3_raw == plain_raw
    ref, _ = _replayed(serve, fixture, IMPLS[0], v3=True)
    replies = compare({"deepagents": ref, "deepagents_rs": ours})
    assert all(r["response_metadata"]["output_version"] == "v1" for r in replies)


@pytest.mark.parametrize("api", APIS)
def test_invalid_tool_call_under_v3(openai_sim: SimOpenAI, profile: Any, api: str) -> None:
    """A call whose arguments do not parse: the v1 reply's ``invalid_tool_call`` is read back
    as the call the reply had (same bytes as without v3), and the reply is ``ChatOpenAI``'s."""
    profile(api)

    def run(module: Any, v3: bool) -> tuple[list[dict], list[bytes]]:
        openai_sim.reset()
        openai_sim.script(text("Adding.") + tool_calls(("add", '{"a": 2', "call_9")), text("Sorry."), text("Fine."))
        agent = module.create_deep_agent(model="openai:gpt-5", tools=[add])
        messages: list = []
        for question in ("what is 2+3?", "again"):
            inp = {"messages": [*messages, {"role": "user", "content": question}]}
            messages = final_state(agent, inp, v3)["messages"]
        return [_reply_view(plain(m)) for m in messages if m.type == "ai"], [
            r.raw for r in openai_sim.requests if r.api is not None
        ]

    _, plain_raw = run(deepagents_rs, v3=False)
    ours, v3_raw = run(deepagents_rs, v3=True)
    assert v3_raw == plain_raw
    assert b"call_9" in v3_raw[-1]
    ref = compare({m.__name__: run(m, v3=True)[0] if m is IMPLS[0] else ours for m in IMPLS})
    assert "invalid_tool_call" in [b["type"] for b in ref[0]["content"]]
