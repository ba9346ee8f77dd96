"""Bedrock's and Fireworks' caching middleware left out of the core's chain where they cannot act.

Both are made with ``unsupported_model_behavior="ignore"`` and hand a request for a model of
another class on unchanged; deepagents_rs does not run them for a stack whose every request
carries such a model (`_excluded_middleware.acting_caching`). Where a request can carry their
model after all, they run as in deepagents, side by side:

- a caller's wrapper putting a ``ChatBedrockConverse`` on the request of an agent whose own
  model is the native Anthropic client (the wrapper comes before the caching tail);
- a declarative subagent with a ``ChatBedrockConverse`` under a native Anthropic parent.

The helper's decisions are checked directly too (which of the two it keeps for which model).
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

from deepagents_rs import _excluded_middleware
from deepagents_rs.backends import StateBackend
from deepagents_rs.middleware import MemoryMiddleware
from langchain.agents.middleware import AgentMiddleware
from langchain_aws import ChatBedrockConverse
from langchain_fireworks import ChatFireworks
from sim.anthropic import SimAnthropic
from sim.anthropic import text as anthropic_text
from sim.anthropic import tool_use as anthropic_tool_use
from sim.bedrock import SimBedrock
from sim.bedrock import text as bedrock_text
from sim.bedrock import tool_use as bedrock_tool_use

from .profile_support import isolated_profiles  # noqa: F401 - autouse fixture
from .test_provider_prompt_caching import BEDROCK_MODEL, IMPLS, USER, _bedrock, lookup

NATIVE = "anthropic:claude-sonnet-4-5"


class SwapToBedrock(AgentMiddleware):
    """Puts another model on every model request."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(model=self.model))

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return await handler(request.override(model=self.model))


def _run(agent: Any, mode: str) -> Any:
    if mode == "invoke":
        return agent.invoke(USER)
    return asyncio.run(agent.ainvoke(USER))


def _bodies(sim: SimBedrock) -> list[str]:
    assert [r.status for r in sim.requests] == [200] * len(sim.requests)
    return [json.dumps(r.body, ensure_ascii=False) for r in sim.requests]


def _swapped_bodies(impl: str, mode: str) -> list[str]:
    with SimBedrock() as bedrock:
        bedrock.script(bedrock_tool_use("lookup", {"key": "k"}, "c1"), bedrock_text("Done."))
        middleware = [SwapToBedrock(_bedrock(bedrock))]
        agent = importlib.import_module(impl).create_deep_agent(model=NATIVE, tools=[lookup], middleware=middleware)
        result = _run(agent, mode)
        assert result["messages"][-1].content == "Done."
        return _bodies(bedrock)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_wrapper_putting_a_bedrock_model_on_a_native_agents_request(sim: SimAnthropic, mode: str) -> None:
    theirs, ours = (_swapped_bodies(impl, mode) for impl in IMPLS)
    assert len(theirs) == 2
    assert ours == theirs
    assert all("cachePoint" in b for b in ours)
    assert sim.requests == []


def _subagent_bodies(impl: str, sim: SimAnthropic) -> tuple[list[str], int]:
    start = len(sim.requests)
    sim.script(
        anthropic_tool_use(("task", {"description": "Look k up.", "subagent_type": "looker"}, "toolu_1")),
        anthropic_text("Done."),
    )
    with SimBedrock() as bedrock:
        bedrock.script(bedrock_tool_use("lookup", {"key": "k"}, "c1"), bedrock_text("It is the value of k."))
        looker = {
            "name": "looker",
            "description": "Looks keys up.",
            "system_prompt": "Look keys up.",
            "model": _bedrock(bedrock),
        }
        agent = importlib.import_module(impl).create_deep_agent(model=NATIVE, tools=[lookup], subagents=[looker])
        result = agent.invoke(USER)
        assert result["messages"][-1].content == "Done."
        return _bodies(bedrock), len(sim.requests) - start


def test_a_bedrock_subagent_under_a_native_parent(sim: SimAnthropic) -> None:
    theirs, ours = (_subagent_bodies(impl, sim) for impl in IMPLS)
    assert theirs[1] == ours[1] == 2
    assert len(theirs[0]) == 2
    assert ours[0] == theirs[0]
    assert all("cachePoint" in b for b in ours[0])


def _made() -> list[Any]:
    """A fresh Bedrock and Fireworks caching middleware, as a stack gets them."""
    return _excluded_middleware._caching_slots()[1:]


class _Adapter:
    """The core's model calling a chat model back (what `_core_model` makes of one)."""

    def __init__(self, model: Any) -> None:
        self.model = model


def _kept(core_model: Any, stack: list[Any] | None = None) -> list[str]:
    return [type(m).__name__ for m in _excluded_middleware.acting_caching(_made(), core_model, stack or [])]


def test_which_caching_middleware_the_core_runs() -> None:
    bedrock = ChatBedrockConverse(model=BEDROCK_MODEL, region_name="us-east-1")
    fireworks = ChatFireworks(model="accounts/fireworks/models/kimi-k2", api_key="test")
    both = ["BedrockPromptCachingMiddleware", "FireworksPromptCachingMiddleware"]
    # The native client's requests: neither can act.
    assert _kept(("anthropic", "claude-sonnet-4-5", {})) == []
    assert _kept(_Adapter(bedrock)) == ["BedrockPromptCachingMiddleware"]
    assert _kept(_Adapter(fireworks)) == ["FireworksPromptCachingMiddleware"]
    # A wrapper may put another model on the request; an unknown model keeps both.
    assert _kept(("anthropic", "claude-sonnet-4-5", {}), [SwapToBedrock(bedrock)]) == both
    assert _kept(None) == both
    # deepagents_rs' own faces run as the core's entries: they put no other model on a request.
    memory = MemoryMiddleware(backend=StateBackend(), sources=["/AGENTS.md"])
    assert _kept(("anthropic", "claude-sonnet-4-5", {}), [memory]) == []


def test_a_caching_middleware_that_warns_stays() -> None:
    made = _made()
    made[0].unsupported_model_behavior = "warn"
    kept = _excluded_middleware.acting_caching(made, ("anthropic", "claude-sonnet-4-5", {}), [])
    assert kept == made[:1]
