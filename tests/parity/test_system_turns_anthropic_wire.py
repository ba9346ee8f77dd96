"""System messages inside the conversation on the Anthropic wire: deepagents_rs' native client
against langchain-anthropic under deepagents 0.7.32, over the simulated API, every request
compared byte for byte with its path and ``anthropic-beta`` header. A model whose profile
takes mid-conversation system messages gets them as ``system`` turns where they may stand
(after a user turn, last or before an assistant turn); a read skill's tools reach a model
whose profile takes tools mid-conversation as ``tool_addition`` blocks on such a turn, with
the beta header that needs. Elsewhere a later system message is moved into ``system``,
which the agent's prompt already holds: the error langchain-anthropic raises.
"""

from __future__ import annotations

import importlib
import json
import warnings
from typing import Any

import pytest

pytest.importorskip("deepagents")
pytest.importorskip("langchain_anthropic")

from langchain_core.tools import tool
from sim.anthropic import SimAnthropic, text, tool_use

SKILL = (
    "---\nname: crm\ndescription: CRM work.\nmetadata:\n  include_tools: create_request\n---\n\nUse create_request.\n"
)
FILES = {"/skills/crm/SKILL.md": {"content": SKILL, "encoding": "utf-8"}}


@tool
def create_request(title: str) -> str:
    """Create a customer request."""
    return f"created {title}"


def _wire(sim: SimAnthropic, start: int) -> list[tuple[str, str | None, str]]:
    return [
        (r.path, r.headers.get("anthropic-beta"), json.dumps(r.body, ensure_ascii=False, separators=(",", ":")))
        for r in sim.requests[start:]
    ]


def _run(impl: str, sim: SimAnthropic, model: str, inp: dict[str, Any], script: list[Any], **kwargs: Any) -> Any:
    start = len(sim.requests)
    sim.script(*script)
    module = importlib.import_module(impl)
    agent = module.create_deep_agent(model=model, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            agent.invoke(inp)
            error = None
        except Exception as exc:  # noqa: BLE001 - compared below
            error = exc
    said = [str(w.message) for w in caught if issubclass(w.category, UserWarning) and "system" in str(w.message)]
    return _wire(sim, start), error, said


def _skill_run(impl: str, sim: SimAnthropic, model: str) -> Any:
    mw = importlib.import_module(f"{impl}.middleware").SkillsMiddleware(
        backend=importlib.import_module(f"{impl}.backends").StateBackend(), sources=["/skills/"], tools=[create_request]
    )
    script = [
        tool_use(("read_file", {"file_path": "/skills/crm/SKILL.md"}, "toolu_1")),
        tool_use(("create_request", {"title": "x"}, "toolu_2")),
        text("Done."),
    ]
    inp = {"messages": [{"role": "user", "content": "File it."}], "files": FILES}
    return _run(impl, sim, model, inp, script, middleware=[mw])


@pytest.mark.parametrize("model", ["anthropic:claude-opus-5", "anthropic:claude-haiku-5-5"])
def test_skill_tools_reach_a_mid_conversation_model_as_tool_additions(sim: SimAnthropic, model: str) -> None:
    theirs = _skill_run("deepagents", sim, model)
    ours = _skill_run("deepagents_rs", sim, model)
    assert theirs[1] is None and ours[1] is None
    assert len(theirs[0]) == 3
    for i, (a, b) in enumerate(zip(theirs[0], ours[0], strict=True)):
        assert b == a, f"request {i} differs"
    assert ours[2] == theirs[2]
    path, beta, body = ours[0][1]
    assert (path, beta) == ("/v1/messages", "inline-tools-2026-09-15")
    turns = json.loads(body)["messages"]
    system = [t for t in turns if t["role"] == "system"]
    assert system[0]["content"][0]["type"] == "tool_addition"
    assert system[0]["content"][0]["tool"]["definition"]["name"] == "create_request"
    assert ours[0][0][:2] == ("/v1/messages", None)


def _input(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"messages": list(messages)}


USER = {"role": "user", "content": "Hello."}
NOTE = {"role": "system", "content": "Answer briefly."}
ODD = {
    "role": "system",
    "content": [
        {"type": "text", "text": "Mind the tools.", "id": "x"},
        "plain",
        {"type": "image", "url": "https://example.com/a.png"},
        {"type": "tool_removal", "tool_name": "ls"},
    ],
}
AI = {"role": "assistant", "content": "Earlier answer."}


@pytest.mark.parametrize(
    "messages",
    [
        pytest.param([USER, NOTE], id="last"),
        pytest.param([USER, NOTE, NOTE], id="a-run-last"),
        pytest.param([USER, ODD, AI, USER], id="narrowed-before-ai"),
        pytest.param([USER, NOTE, USER], id="before-a-user-turn"),
        pytest.param([USER, AI, NOTE, USER], id="after-an-assistant-turn"),
        pytest.param([NOTE, USER, NOTE], id="leading-and-last"),
    ],
)
@pytest.mark.parametrize(
    "model", ["anthropic:claude-opus-5", "anthropic:claude-sonnet-5", "anthropic:claude-sonnet-4-6"]
)
def test_system_messages_in_the_conversation(sim: SimAnthropic, messages: list[dict], model: str) -> None:
    theirs = _run("deepagents", sim, model, _input(*messages), [text("Ok.")])
    ours = _run("deepagents_rs", sim, model, _input(*messages), [text("Ok.")])
    assert ours[0] == theirs[0]
    assert ours[2] == theirs[2]
    assert (ours[1] is None) == (theirs[1] is None), (ours[1], theirs[1])
    if theirs[1] is not None:
        assert isinstance(ours[1], type(theirs[1])), (ours[1], theirs[1])
        assert str(theirs[1]) in str(ours[1])
