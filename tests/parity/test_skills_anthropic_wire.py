"""Skills beside memory on the Anthropic wire: deepagents_rs against langchain-anthropic under
deepagents 0.7.32, every request of a run compared as serialized JSON (keys in order).

The skills section comes before prompt caching, so the caching breakpoint
({"type": "ephemeral", "ttl": "5m"}) lands on the skills block, and memory's block after it
carries the second one ({"type": "ephemeral"}).
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
from sim.anthropic import SimAnthropic, text, tool_use

MODEL = "anthropic:claude-sonnet-4-6"
SKILL = "---\nname: web-research\ndescription: Research the web.\n---\n\n# Steps\nSearch.\n"
FILES = {
    "/AGENTS.md": {"content": "# Project\nUse tabs.\n", "encoding": "utf-8"},
    "/skills/web-research/SKILL.md": {"content": SKILL, "encoding": "utf-8"},
}


def _bodies(sim: SimAnthropic, create: Any, model: Any, system_prompt: Any) -> list[str]:
    start = len(sim.requests)
    sim.script(tool_use(("read_file", {"file_path": "/skills/web-research/SKILL.md"}, "toolu_1")), text("Done."))
    agent = create(model=model, system_prompt=system_prompt, skills=["/skills/"], memory=["/AGENTS.md"])
    agent.invoke({"messages": [{"role": "user", "content": "Research k."}], "files": FILES})
    return [json.dumps(r.body, ensure_ascii=False, separators=(",", ":")) for r in sim.requests[start:]]


@pytest.mark.parametrize("prompt", ["str", "none"])
@pytest.mark.parametrize("ours_model", ["native", "chat-anthropic"])
def test_skills_block_carries_the_caching_breakpoint(sim: SimAnthropic, prompt: str, ours_model: str) -> None:
    system_prompt = "You are a careful assistant." if prompt == "str" else None
    theirs = _bodies(sim, deepagents.create_deep_agent, MODEL, system_prompt)
    model = MODEL if ours_model == "native" else ChatAnthropic(model_name=MODEL.split(":", 1)[1])
    ours = _bodies(sim, deepagents_rs.create_deep_agent, model, system_prompt)
    assert len(theirs) == 2
    for i, (a, b) in enumerate(zip(theirs, ours, strict=True)):
        assert b == a, f"request {i} differs"
    system = json.loads(ours[0])["system"]
    assert "## Skills System" in system[-2]["text"]
    assert system[-2]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert system[-1]["text"].startswith("\n\n<agent_memory>")
    assert system[-1]["cache_control"] == {"type": "ephemeral"}
