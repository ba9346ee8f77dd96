"""Overflow recovery on the native clients, side by side with deepagents on LangChain's.

The simulated API refuses the model's second request as too long (Anthropic's "prompt is too
long", OpenAI's ``context_length_exceeded``); the agent's summarization takes that error as
its cue, summarizes the older part on the same model and retries at once. deepagents, on
LangChain's chat model for the same provider and simulator, does the same: both make the
same four requests (the refused one, the summary, the retry) and end with the same state.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import deepagents
import deepagents.backends
import deepagents.middleware
import deepagents_rs
import deepagents_rs.backends
import deepagents_rs.middleware
import pytest
from sim import anthropic as sa
from sim import openai as so

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = (deepagents, deepagents_rs)
# Long enough that the summary in its place makes the retry smaller (neither retries a
# request that is not).
INPUT = {"messages": [{"role": "user", "content": "Look the bug up, then explain it. " + "Some background. " * 300}]}


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


@pytest.fixture(params=["anthropic", "openai"])
def provider(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Any]]:
    if request.param == "anthropic":
        sim: Any = sa.SimAnthropic()
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", sim.base_url)
        monkeypatch.setenv("ANTHROPIC_API_URL", sim.base_url)
    else:
        sim = so.SimOpenAI()
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", sim.base_url)
    with sim:
        yield request.param, sim


def script(name: str, sim: Any) -> None:
    if name == "anthropic":
        overflow = sa.Reply(
            status=400,
            body={
                "type": "error",
                "error": {"type": "invalid_request_error", "message": "prompt is too long"},
            },
        )
        sim.script(sa.tool_use(("lookup", {"key": "bug"}, "toolu_1")), overflow, sa.text("SUMMARY"), sa.text("done"))
    else:
        sim.script(
            so.tool_calls(("lookup", {"key": "bug"}, "call_1")),
            so.context_overflow(),
            so.text("SUMMARY"),
            so.text("done"),
        )


def texts(body: dict[str, Any]) -> list[str]:
    """The texts a request carries, in order, whatever the wire format."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k in ("text", "content", "output") and isinstance(v, str):
                    found.append(v)
                else:
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(body.get("messages", body.get("input")))
    return [re.sub(r"session_[0-9a-f]{32}", "session_<id>", t) for t in found]


def run(impl: Any, name: str, sim: Any, mode: str) -> tuple[list[list[str]], Any]:
    start = len(sim.requests)
    script(name, sim)
    model = "anthropic:claude-sonnet-4-6" if name == "anthropic" else "openai:gpt-5.4"
    summarization = impl.middleware.SummarizationMiddleware(
        model=model, backend=impl.backends.StateBackend(), keep=("messages", 2)
    )
    agent = impl.create_deep_agent(model=model, tools=[lookup], middleware=[summarization])
    result = agent.invoke(INPUT) if mode == "invoke" else __import__("asyncio").run(agent.ainvoke(INPUT))
    requests = [texts(r.body) for r in sim.requests[start:]]
    return requests, result


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_an_overflow_on_a_native_client_summarizes_and_retries_as_deepagents(
    provider: tuple[str, Any], mode: str
) -> None:
    name, sim = provider
    (ref_requests, ref), (requests, ours) = (run(impl, name, sim, mode) for impl in IMPLS)
    assert len(requests) == len(ref_requests) == 4
    summary_prompt = next(t for t in requests[2] if "Messages to summarize:" in t)
    assert summary_prompt == next(t for t in ref_requests[2] if "Messages to summarize:" in t)
    assert "Look the bug up" in summary_prompt
    # The retry: the summary in place of the older part, then the kept call and its result.
    assert requests[3] == ref_requests[3]
    assert any("SUMMARY" in t for t in requests[3])
    assert [m.type for m in ours["messages"]] == [m.type for m in ref["messages"]] == ["human", "ai", "tool", "ai"]
    assert ours["messages"][-1].text == ref["messages"][-1].text == "done"
    # Every request carries the same texts, the refused one included.
    assert requests == ref_requests
