"""Skill tools on the Anthropic wire: deepagents_rs (the native client and a ChatAnthropic)
against langchain-anthropic under deepagents 0.7.32, every request of a run compared as
serialized JSON (keys in order). A read skill's tools join the request's ``tools``; one whose
schema has a top-level ``anyOf`` (which the Anthropic API refuses) is withheld with a
warning. A model whose profile takes tools mid-conversation gets them there:
``test_system_turns_anthropic_wire.py``.
"""

from __future__ import annotations

import importlib
import json
import logging
from typing import Any

import pytest

pytest.importorskip("deepagents")
pytest.importorskip("langchain_anthropic")

from langchain_anthropic import ChatAnthropic
from langchain_core.tools import StructuredTool, tool
from pydantic import BaseModel
from sim.anthropic import SimAnthropic, text, tool_use

MODEL = "anthropic:claude-sonnet-4-6"
SKILL = (
    "---\nname: crm\ndescription: CRM work.\nmetadata:\n  include_tools: create_request pick\n---\n\n"
    "Use create_request.\n"
)
FILES = {"/skills/crm/SKILL.md": {"content": SKILL, "encoding": "utf-8"}}


@tool
def create_request(title: str) -> str:
    """Create a customer request."""
    return f"created {title}"


class _ByName(BaseModel):
    name: str


class _ById(BaseModel):
    id: int


def _pick_tool() -> StructuredTool:
    """A tool whose schema is a root ``anyOf``, which the Anthropic API refuses."""
    schema = {"anyOf": [_ByName.model_json_schema(), _ById.model_json_schema()]}
    return StructuredTool(name="pick", description="Pick one.", args_schema=schema, func=lambda **kw: "picked")


def _run(impl: str, sim: SimAnthropic, model: Any, caplog: pytest.LogCaptureFixture) -> tuple[list[str], list[str]]:
    start = len(sim.requests)
    sim.script(
        tool_use(("read_file", {"file_path": "/skills/crm/SKILL.md"}, "toolu_1")),
        tool_use(("create_request", {"title": "x"}, "toolu_2")),
        text("Done."),
    )
    backends = importlib.import_module(f"{impl}.backends")
    mw = importlib.import_module(f"{impl}.middleware").SkillsMiddleware(
        backend=backends.StateBackend(), sources=["/skills/"], tools=[create_request, _pick_tool()]
    )
    agent = importlib.import_module(impl).create_deep_agent(model=model, middleware=[mw])
    caplog.clear()
    agent.invoke({"messages": [{"role": "user", "content": "File it."}], "files": FILES})
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    bodies = [json.dumps(r.body, ensure_ascii=False, separators=(",", ":")) for r in sim.requests[start:]]
    return bodies, warnings


@pytest.mark.parametrize("ours_model", ["native", "chat-anthropic"])
def test_skill_tools_join_the_tools_and_a_refused_schema_is_withheld(
    sim: SimAnthropic, ours_model: str, caplog: pytest.LogCaptureFixture
) -> None:
    theirs, their_warnings = _run("deepagents", sim, MODEL, caplog)
    model = MODEL if ours_model == "native" else ChatAnthropic(model_name=MODEL.split(":", 1)[1])
    ours, our_warnings = _run("deepagents_rs", sim, model, caplog)
    assert len(theirs) == 3
    for i, (a, b) in enumerate(zip(theirs, ours, strict=True)):
        assert b == a, f"request {i} differs"
    assert our_warnings == their_warnings
    assert (
        "Not disclosing tool 'pick': its input_schema has a top-level anyOf, which the Anthropic API does not support"
        in our_warnings
    )
    names = [[t["name"] for t in json.loads(body)["tools"]] for body in ours]
    assert "create_request" not in names[0] and names[1][-1] == "create_request" and "pick" not in names[1]


@pytest.mark.parametrize("ours_model", ["native", "chat-anthropic"])
def test_a_deferred_agent_tool_a_read_skill_lists_loses_defer_loading(sim: SimAnthropic, ours_model: str) -> None:
    deep_search = StructuredTool.from_function(
        lambda query: "found", name="deep_search", description="Search deeply.", extras={"defer_loading": True}
    )
    skill = "---\nname: crm\ndescription: CRM work.\nmetadata:\n  include_tools: deep_search\n---\n\nSearch.\n"

    def run(impl: str, model: Any) -> list[dict]:
        start = len(sim.requests)
        sim.script(
            tool_use(("read_file", {"file_path": "/skills/crm/SKILL.md"}, "toolu_1")),
            tool_use(("deep_search", {"query": "x"}, "toolu_2")),
            text("Done."),
        )
        agent = importlib.import_module(impl).create_deep_agent(model=model, tools=[deep_search], skills=["/skills/"])
        files = {"/skills/crm/SKILL.md": {"content": skill, "encoding": "utf-8"}}
        agent.invoke({"messages": [{"role": "user", "content": "Search."}], "files": files})
        return [r.body for r in sim.requests[start:]]

    theirs = run("deepagents", MODEL)
    ours = run("deepagents_rs", MODEL if ours_model == "native" else ChatAnthropic(model_name=MODEL.split(":", 1)[1]))
    assert [json.dumps(b) for b in ours] == [json.dumps(b) for b in theirs]
    search = [next(t for t in body["tools"] if t["name"] == "deep_search") for body in ours]
    assert search[0].get("defer_loading") is True and "defer_loading" not in search[1]
