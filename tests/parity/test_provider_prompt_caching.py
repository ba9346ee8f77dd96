"""Bedrock's and Fireworks' prompt caching in deepagents_rs' own stacks, side by side with
deepagents: with ``langchain-aws`` / ``langchain-fireworks`` installed deepagents appends their
caching middleware after Anthropic's in every stack (main agent, subagents); ours puts them in
the same place in the core's stacks.

- Bedrock (``BedrockPromptCachingMiddleware``): a ``ChatBedrockConverse`` against a simulated
  Converse endpoint; every request body compared (``cachePoint`` blocks), the general-purpose
  subagent's included; a harness profile excluding it by class or by name, and a caller's own
  instance taking its slot by name.
- Fireworks (``FireworksPromptCachingMiddleware``): a ``ChatFireworks`` against the simulated
  OpenAI-compatible API; the session-affinity header and ``prompt_cache_key`` (a hash of the
  thread id, set in a context variable around the model call) compared, with and without a
  thread id.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from typing import Any

import pytest

pytest.importorskip("deepagents")
pytest.importorskip("langchain_aws", reason="langchain-aws (Bedrock prompt caching) is not installed")
pytest.importorskip("langchain_fireworks", reason="langchain-fireworks (Fireworks prompt caching) is not installed")

from langchain_aws import ChatBedrockConverse
from langchain_aws.middleware.prompt_caching import BedrockPromptCachingMiddleware
from langchain_fireworks import ChatFireworks
from sim.bedrock import SimBedrock
from sim.bedrock import text as bedrock_text
from sim.bedrock import tool_use as bedrock_tool_use
from sim.openai import SimOpenAI, text, tool_calls

from .profile_support import isolated_profiles  # noqa: F401 - autouse fixture

IMPLS = ("deepagents", "deepagents_rs")
BEDROCK_MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0"
USER = {"messages": [{"role": "user", "content": "Look k up."}]}


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def _bedrock(sim: SimBedrock) -> ChatBedrockConverse:
    return ChatBedrockConverse(
        model=BEDROCK_MODEL,
        region_name="us-east-1",
        endpoint_url=sim.origin,
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )


def _run(agent: Any, mode: str, config: dict | None = None, model: Any = None) -> Any:
    if mode == "invoke":
        return agent.invoke(USER, config)

    async def run() -> Any:
        try:
            return await agent.ainvoke(USER, config)
        finally:
            # The SDK's async connections belong to this loop: closed before it ends.
            if isinstance(model, ChatFireworks):
                await model.aclose()

    return asyncio.run(run())


def _bedrock_bodies(impl: str, mode: str, *, subagent: bool = False, **kwargs: Any) -> list[str]:
    with SimBedrock() as sim:
        if subagent:
            sim.script(
                bedrock_tool_use("task", {"description": "Look k up.", "subagent_type": "general-purpose"}, "t1"),
                bedrock_tool_use("lookup", {"key": "k"}, "c1"),
                bedrock_text("It is the value of k."),
                bedrock_text("Done."),
            )
        else:
            sim.script(bedrock_tool_use("lookup", {"key": "k"}, "c1"), bedrock_text("Done."))
        agent = importlib.import_module(impl).create_deep_agent(model=_bedrock(sim), tools=[lookup], **kwargs)
        _run(agent, mode)
        assert [r.status for r in sim.requests] == [200] * len(sim.requests)
        return [json.dumps(r.body, ensure_ascii=False) for r in sim.requests]


def _cached(body: str) -> bool:
    return "cachePoint" in body


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.parametrize("subagent", [False, True], ids=["main", "general-purpose"])
def test_bedrock_requests_carry_deepagents_cache_points(mode: str, subagent: bool) -> None:
    theirs, ours = (_bedrock_bodies(impl, mode, subagent=subagent) for impl in IMPLS)
    assert len(theirs) == (4 if subagent else 2)
    assert ours == theirs
    assert all(_cached(b) for b in ours)


def _exclusion(impl: str, form: str) -> Any:
    if form == "class":
        return BedrockPromptCachingMiddleware
    return "BedrockPromptCachingMiddleware"


@pytest.mark.parametrize("form", ["class", "name"])
def test_a_profile_excluding_bedrock_caching_drops_it(form: str) -> None:
    out = []
    for impl in IMPLS:
        module = importlib.import_module(impl)
        module.register_harness_profile(
            "amazon_bedrock", module.HarnessProfile(excluded_middleware=frozenset({_exclusion(impl, form)}))
        )
        out.append(_bedrock_bodies(impl, "invoke", subagent=True))
    theirs, ours = out
    assert ours == theirs
    assert not any(_cached(b) for b in ours)


def test_a_callers_bedrock_caching_takes_the_slot() -> None:
    """A caller's instance of the same name replaces the stack's (here with a one-hour TTL)."""
    theirs, ours = (
        _bedrock_bodies(impl, "invoke", middleware=[BedrockPromptCachingMiddleware(ttl="1h")]) for impl in IMPLS
    )
    assert ours == theirs
    assert all('"ttl": "1h"' in b for b in ours)


def _fireworks_affinity(impl: str, mode: str, config: dict | None) -> list[tuple]:
    with SimOpenAI() as sim:
        sim.script(tool_calls(("lookup", {"key": "k"})), text("Done."))
        model = ChatFireworks(model="accounts/fireworks/models/kimi-k2", base_url=sim.origin, api_key="test")
        agent = importlib.import_module(impl).create_deep_agent(model=model, tools=[lookup])
        _run(agent, mode, config, model)
        model.close()
        return [(r.headers.get("x-session-affinity"), (r.body or {}).get("prompt_cache_key")) for r in sim.requests]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.parametrize("thread", [True, False], ids=["thread", "no-thread"])
def test_fireworks_session_affinity_follows_the_thread(mode: str, thread: bool) -> None:
    config = {"configurable": {"thread_id": "thread-7"}} if thread else None
    theirs, ours = (_fireworks_affinity(impl, mode, config) for impl in IMPLS)
    assert len(theirs) == 2
    assert ours == theirs
    affinity = {a for a, _ in ours}
    assert affinity == ({ours[0][1]} if thread else {None})
    if thread:
        assert len(ours[0][1]) == 64
