"""Memory's prompt-cache breakpoint on the wire: deepagents_rs against langchain-anthropic
under deepagents 0.7.32, every request of a run compared as serialized JSON (keys in order).

deepagents' caching middleware tags the system prompt's last block as it stands before
memory ({"type": "ephemeral", "ttl": "5m"}), then memory appends its block and tags it
({"type": "ephemeral"}): two breakpoints in the system prompt, so the prefix before memory
stays cached when memory changes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("deepagents")
pytest.importorskip("langchain_anthropic")

import deepagents
import deepagents_rs
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import SystemMessage
from sim.anthropic import SimAnthropic, text, tool_use

MODEL = "anthropic:claude-sonnet-4-6"
FILES = {"/AGENTS.md": {"content": "# Project\nUse tabs.\n", "encoding": "utf-8"}}


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


PROMPTS = {
    "str": "You are a careful assistant.",
    "none": None,
    # Blocks of the caller's own (a breakpoint of its own would make five, which the API
    # refuses for deepagents too).
    "system-message": SystemMessage(content=[{"type": "text", "text": "First."}, {"type": "text", "text": "Second."}]),
}


def _bodies(sim: SimAnthropic, create: Any, model: Any, system_prompt: Any) -> list[str]:
    start = len(sim.requests)
    sim.script(tool_use(("lookup", {"key": "k"}, "toolu_1")), text("Done."))
    agent = create(model=model, tools=[lookup], system_prompt=system_prompt, memory=["/AGENTS.md", "/gone.md"])
    agent.invoke({"messages": [{"role": "user", "content": "Look k up."}], "files": FILES})
    return [json.dumps(r.body, ensure_ascii=False, separators=(",", ":")) for r in sim.requests[start:]]


@pytest.mark.parametrize("prompt", PROMPTS)
@pytest.mark.parametrize("ours_model", ["native", "chat-anthropic"])
def test_memory_block_is_the_second_breakpoint(sim: SimAnthropic, prompt: str, ours_model: str) -> None:
    system_prompt = PROMPTS[prompt]
    theirs = _bodies(sim, deepagents.create_deep_agent, MODEL, system_prompt)
    model = MODEL if ours_model == "native" else ChatAnthropic(model_name=MODEL.split(":", 1)[1])
    ours = _bodies(sim, deepagents_rs.create_deep_agent, model, system_prompt)
    assert len(theirs) == 2
    for i, (a, b) in enumerate(zip(theirs, ours, strict=True)):
        assert b == a, f"request {i} differs"
    system = json.loads(ours[0])["system"]
    assert system[-1]["text"].startswith("\n\n<agent_memory>\n/AGENTS.md\n\n# Project\nUse tabs.") or prompt == "none"
    assert system[-1]["cache_control"] == {"type": "ephemeral"}
    if prompt != "none":
        assert system[-2]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
