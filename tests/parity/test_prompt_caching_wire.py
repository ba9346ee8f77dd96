"""deepagents' deferred Anthropic prompt caching (`_prompt_caching._LazyAnthropicPromptCachingMiddleware`)
on the wire: passed in an agent's `middleware=` it takes the place of the stack's own caching
entry (same name) and caches as that entry does; in LangChain's `create_agent` it caches a
`ChatAnthropic`'s requests. Every request of a run compared with deepagents' as serialized
JSON (keys in order), against the simulated Anthropic API.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest

pytest.importorskip("deepagents")
pytest.importorskip("langchain_anthropic")

from langchain.agents import create_agent
from langchain_anthropic import ChatAnthropic
from sim.anthropic import SimAnthropic, text, tool_use

MODEL = "claude-sonnet-4-6"


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def _lazy(impl: str) -> Any:
    return importlib.import_module(f"{impl}.middleware._prompt_caching")._LazyAnthropicPromptCachingMiddleware()


def _bodies(sim: SimAnthropic, make: Any) -> list[str]:
    start = len(sim.requests)
    sim.script(tool_use(("lookup", {"key": "k"}, "toolu_1")), text("Done."))
    make().invoke({"messages": [{"role": "user", "content": "Look k up."}]})
    return [json.dumps(r.body, ensure_ascii=False, separators=(",", ":")) for r in sim.requests[start:]]


@pytest.mark.parametrize("model", ["string", "chat-anthropic"])
def test_in_a_deep_agent_it_is_the_stacks_caching_entry(sim: SimAnthropic, model: str) -> None:
    def make(impl: str) -> Any:
        chosen = f"anthropic:{MODEL}" if model == "string" else ChatAnthropic(model_name=MODEL)
        api = importlib.import_module(impl)
        return lambda: api.create_deep_agent(
            model=chosen, tools=[lookup], system_prompt="Be careful.", middleware=[_lazy(impl)]
        )

    theirs = _bodies(sim, make("deepagents"))
    ours = _bodies(sim, make("deepagents_rs"))
    assert len(theirs) == 2
    for i, (a, b) in enumerate(zip(theirs, ours, strict=True)):
        assert b == a, f"request {i} differs"
    assert json.loads(ours[0])["system"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}


def test_in_langchain_create_agent_it_caches_chat_anthropic(sim: SimAnthropic) -> None:
    def make(impl: str) -> Any:
        return lambda: create_agent(
            ChatAnthropic(model_name=MODEL), tools=[lookup], system_prompt="Be careful.", middleware=[_lazy(impl)]
        )

    theirs = _bodies(sim, make("deepagents"))
    ours = _bodies(sim, make("deepagents_rs"))
    assert ours == theirs
    assert "cache_control" in json.dumps(json.loads(ours[0]))
