"""deepagents_rs's native Anthropic client against langchain-anthropic under deepagents 0.7.32:
every request of a multi-step run compared as serialized JSON (keys in order, values
exact), streaming and not. The simulated Messages API serves both the same script.

The JSON is compared re-serialized compactly: the two HTTP stacks may escape non-ASCII
differently on the wire, which the API reads the same way; key order, which the prompt cache
keys on, is kept.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("deepagents")
pytest.importorskip("langchain_anthropic")

import deepagents
import deepagents_rs
from langchain_core.tools import tool
from sim.anthropic import SimAnthropic, text, tool_use

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

MODEL = "anthropic:claude-sonnet-4-6"


@tool
def weather(city: str) -> str:
    """Weather for a city (é and 雨 included)."""
    return f"Rainy in {city} — 雨."


def _script() -> list[Any]:
    return [
        tool_use(
            ("weather", {"city": "Paris"}, "toolu_1"), ("weather", {"city": "Kyoto"}, "toolu_2"), text="Checking."
        ),
        tool_use(("write_file", {"file_path": "/notes.md", "content": "Paris: rain\n"}, "toolu_3")),
        tool_use(("task", {"description": "summarize the notes", "subagent_type": "general-purpose"}, "toolu_4")),
        text("Summary: rain."),
        text("All done."),
    ]


def _bodies(sim: SimAnthropic, create: Any, stream: bool) -> list[str]:
    start = len(sim.requests)
    sim.script(*_script())
    agent = create(model=MODEL, tools=[weather], system_prompt="You are a careful assistant.")
    inp = {"messages": [{"role": "user", "content": "Weather in Paris and Kyoto? Note it, then summarize."}]}
    if stream:
        list(agent.stream(inp, stream_mode=["messages", "updates"]))
    else:
        agent.invoke(inp)
    return [json.dumps(r.body, ensure_ascii=False, separators=(",", ":")) for r in sim.requests[start:]]


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
def test_every_request_matches_langchain_anthropic(monkeypatch: pytest.MonkeyPatch, stream: bool) -> None:
    with SimAnthropic() as sim:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", sim.base_url)
        theirs = _bodies(sim, deepagents.create_deep_agent, stream)
        ours = _bodies(sim, deepagents_rs.create_deep_agent, stream)
    assert len(theirs) == 5
    for i, (a, b) in enumerate(zip(theirs, ours, strict=True)):
        assert b == a, f"request {i} differs"
