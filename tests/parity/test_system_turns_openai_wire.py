"""System messages inside the conversation on the OpenAI wire: deepagents_rs' native client
against langchain-openai under deepagents 0.7.32, over the simulated API, every request
compared byte for byte with its path (``prompt_cache_key``, which deepagents_rs adds on
purpose, aside).

A read skill's tools reach a model whose profile takes tools mid-conversation (on the
Responses API, which deepagents' ``openai:`` profile picks) as an ``additional_tools`` input
item where the disclosure stands; on Chat Completions, or for a model without that profile,
they join the request's tools. A system message in the conversation is sent in place; its
blocks the Responses API has no item for are dropped with langchain-openai's warning, and an
``additional_tools`` block where it cannot be sent is langchain-openai's error.
"""

from __future__ import annotations

import copy
import importlib
import json
import warnings
from typing import Any

import pytest

pytest.importorskip("deepagents")
pytest.importorskip("langchain_openai")

from sim.openai import SimOpenAI, text, tool_calls

from .native_structured import _use_chat_completions
from .skill_tools_support import CRM_PATH, create_request, files, skill_md

FILES = files(**{CRM_PATH: skill_md("crm", "create_request")})


@pytest.fixture
def sim(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with SimOpenAI(min_cache_tokens=256) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        yield server


def _wire(sim: SimOpenAI, start: int) -> list[tuple[str, str]]:
    out = []
    for r in sim.requests[start:]:
        body = dict(r.body)
        body.pop("prompt_cache_key", None)
        out.append((r.path, json.dumps(body, ensure_ascii=False, separators=(",", ":"))))
    return out


def _same(pair: dict[str, Any]) -> None:
    theirs, ours = pair["deepagents"], pair["deepagents_rs"]
    assert len(ours["wire"]) == len(theirs["wire"])
    for i, (a, b) in enumerate(zip(theirs["wire"], ours["wire"], strict=True)):
        assert b == a, f"request {i} differs"
    assert ours["said"] == theirs["said"]
    assert (ours["error"] is None) == (theirs["error"] is None), (ours["error"], theirs["error"])
    if theirs["error"] is not None:
        assert type(ours["error"]) is type(theirs["error"]), (ours["error"], theirs["error"])
        assert str(theirs["error"]) in str(ours["error"])
    assert ours["answer"] == theirs["answer"]


def _skill_pair(sim: SimOpenAI, model: str) -> dict[str, Any]:
    script = [
        tool_calls(("read_file", {"file_path": CRM_PATH})),
        tool_calls(("create_request", {"title": "x"})),
        text("Done."),
    ]
    inp = {"messages": [{"role": "user", "content": "File it."}], "files": FILES}
    out = {}
    for impl in ("deepagents", "deepagents_rs"):
        mw = importlib.import_module(f"{impl}.middleware").SkillsMiddleware(
            backend=importlib.import_module(f"{impl}.backends").StateBackend(),
            sources=["/skills/"],
            tools=[create_request],
        )
        out[impl] = _run(impl, sim, model, inp, script, middleware=[mw])
    return out


def _run(impl: str, sim: SimOpenAI, model: str, inp: dict[str, Any], script: list[Any], **kwargs: Any) -> dict:
    sim.reset()
    sim.script(*script)
    agent = importlib.import_module(impl).create_deep_agent(model=model, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = agent.invoke(copy.deepcopy(inp))
            error = None
        except Exception as exc:  # noqa: BLE001 - compared by _same
            result, error = None, exc
    return {
        "wire": _wire(sim, 0),
        "error": error,
        "said": [str(w.message) for w in caught if issubclass(w.category, UserWarning) and "system" in str(w.message)],
        "answer": None if result is None else [(m.type, m.text) for m in result["messages"]],
    }


def _items(wire: tuple[str, str]) -> list[dict[str, Any]]:
    return json.loads(wire[1])["input"]


@pytest.mark.parametrize("model", ["openai:gpt-5.4", "openai:o3", "openai:gpt-4.1"])
def test_skill_tools_reach_a_mid_conversation_model_as_additional_tools(sim: SimOpenAI, model: str) -> None:
    pair = _skill_pair(sim, model)
    _same(pair)
    theirs = pair["deepagents"]
    assert theirs["error"] is None and len(theirs["wire"]) == 3
    assert theirs["wire"][1][0] == "/v1/responses"
    added = [i for i in _items(theirs["wire"][1]) if i.get("type") == "additional_tools"]
    assert [t["name"] for i in added for t in i["tools"]] == ["create_request"]
    # The first request, before the read, does not offer it.
    assert "create_request" not in theirs["wire"][0][1]
    assert theirs["answer"][-1] == ("ai", "Done.")


@pytest.mark.parametrize("model", ["openai:gpt-5.4", "openai:gpt-4o"])
def test_without_mid_conversation_tools_skill_tools_join_the_request_tools(
    sim: SimOpenAI, model: str, request: pytest.FixtureRequest
) -> None:
    if model == "openai:gpt-5.4":
        _use_chat_completions(request)  # the profile claims it on the Responses API only
    pair = _skill_pair(sim, model)
    _same(pair)
    theirs = pair["deepagents"]
    assert theirs["error"] is None
    second = json.loads(theirs["wire"][1][1])
    assert "additional_tools" not in theirs["wire"][1][1]
    assert [t.get("name") or t["function"]["name"] for t in second["tools"]][-1] == "create_request"


USER = {"role": "user", "content": "Hello."}
NOTE = {"role": "system", "content": "Answer briefly."}
ADDED = {
    "type": "additional_tools",
    "role": "developer",
    "tools": [{"type": "function", "name": "get_time", "description": "The time.", "parameters": {"type": "object"}}],
}
ODD = {
    "role": "system",
    "content": [
        {"type": "text", "text": "Mind the tools.", "id": "x"},
        ADDED,
        {"type": "image", "url": "https://example.com/a.png"},
        {"type": "tool_removal", "tool_name": "ls"},
        {"type": "non_standard", "value": {"type": "custom"}},
    ],
}
TOOLS_ONLY = {"role": "system", "content": [ADDED]}
AI = {"role": "assistant", "content": "Earlier answer."}
TOOLS_FROM_USER = {"role": "user", "content": [{"type": "text", "text": "Hi."}, ADDED]}
WRAPPED_FROM_USER = {"role": "user", "content": [{"type": "non_standard", "value": ADDED}]}


@pytest.mark.parametrize(
    "messages",
    [
        pytest.param([USER, NOTE], id="last"),
        pytest.param([USER, NOTE, NOTE], id="a-run-last"),
        pytest.param([USER, ODD, AI, USER], id="mixed-before-ai"),
        pytest.param([USER, TOOLS_ONLY, USER], id="tools-only"),
        pytest.param([NOTE, USER, ODD], id="leading-and-last"),
        pytest.param([USER, TOOLS_FROM_USER], id="tools-on-a-user-message"),
        pytest.param([USER, WRAPPED_FROM_USER], id="wrapped-tools-on-a-user-message"),
    ],
)
@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize("model", ["openai:gpt-5.4", "openai:o3"])
def test_system_messages_in_the_conversation(
    sim: SimOpenAI, messages: list[dict], api: str, model: str, request: pytest.FixtureRequest
) -> None:
    if api == "chat":
        _use_chat_completions(request)
    inp = {"messages": messages}
    pair = {impl: _run(impl, sim, model, inp, [text("Ok.")]) for impl in ("deepagents", "deepagents_rs")}
    _same(pair)


def test_the_scenarios_test_what_they_name(sim: SimOpenAI, request: pytest.FixtureRequest) -> None:
    """deepagents' own answers in the layouts above: an item of its own, a warning per
    dropped block, and the two errors."""
    run = _run("deepagents", sim, "openai:gpt-5.4", {"messages": [USER, ODD, AI, USER]}, [text("Ok.")])
    items = _items(run["wire"][0])
    assert items[2] == ADDED
    assert [b["type"] for b in items[3]["content"]] == ["input_text", "input_image"]
    assert [s.split(" was")[0] for s in run["said"]] == ["Content block 'tool_removal'", "Content block 'custom'"]
    run = _run("deepagents", sim, "openai:gpt-5.4", {"messages": [USER, TOOLS_FROM_USER]}, [text("Ok.")])
    assert isinstance(run["error"], ValueError) and "must be carried on a `SystemMessage`" in str(run["error"])
    _use_chat_completions(request)
    run = _run("deepagents", sim, "openai:gpt-5.4", {"messages": [USER, TOOLS_ONLY]}, [text("Ok.")])
    assert isinstance(run["error"], ValueError) and "cannot be sent via Chat Completions" in str(run["error"])
