"""``response_format`` through the provider's native structured output (LangChain's
``ProviderStrategy``, and ``AutoStrategy`` choosing it), against deepagents: what the model
is bound with, the state it ends in, the errors a bad reply raises."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel
from langchain.agents.structured_output import ProviderStrategy, StructuredOutputValidationError, ToolStrategy
from pydantic import BaseModel, Field

from .harness import MODES, Both, Outcome, ai_tool_calls, assert_parity, assert_same_error
from .native_structured import NATIVE_MODELS, USER, lookup, native_runs, native_sim, reply_view

NATIVE = {"structured_output": True}


class Summary(BaseModel):
    """A summary of findings."""

    summary: str = Field(description="the summary")
    confidence: float


SUMMARY_DICT = {
    "title": "Verdict",
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}


def _run(impl: Any, script: list, profile: dict | None, mode: str, **kwargs: Any) -> Outcome:
    model = ScriptedChatModel(list(script), profile=profile)
    outcome = Outcome(impl=impl.__name__, model=model)
    agent = impl.create_deep_agent(model=model, **kwargs)
    inp = copy.deepcopy(USER)
    try:
        outcome.result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
    except Exception as exc:  # noqa: BLE001 - compared below
        outcome.error = exc
    return outcome


def run_both(script: list, *, profile: dict | None = NATIVE, mode: str = "invoke", **kwargs: Any) -> Both:
    return Both(
        ref=_run(deepagents, script, profile, mode, **kwargs), rs=_run(deepagents_rs, script, profile, mode, **kwargs)
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "response_format",
    [ProviderStrategy(Summary), ProviderStrategy(Summary, strict=True), Summary],
    ids=["provider", "provider-strict", "auto"],
)
def test_native_structured_response(mode: str, response_format: Any) -> None:
    script = [ai_tool_calls(("lookup", {"key": "x"}, "c1")), '{"summary": "s", "confidence": 0.5}']
    both = run_both(script, mode=mode, tools=[lookup], response_format=response_format)
    ref = assert_parity(both)
    rs = both.rs.unwrap()
    assert rs["structured_response"] == ref["structured_response"] == Summary(summary="s", confidence=0.5)
    # No schema tool, no forced tool call: the format is bound with the tools.
    kwargs = both.rs.calls[0].kwargs
    assert "tool_choice" not in kwargs
    assert kwargs["response_format"]["json_schema"]["name"] == "Summary"
    assert "Summary" not in both.rs.calls[0].tool_names
    assert [m.type for m in rs["messages"]] == ["human", "ai", "tool", "ai"]


def test_json_schema_dict_is_returned_unvalidated() -> None:
    both = run_both(['{"ok": "maybe"}'], response_format=ProviderStrategy(SUMMARY_DICT))
    ref = assert_parity(both)
    assert both.rs.unwrap()["structured_response"] == ref["structured_response"] == {"ok": "maybe"}


def test_reply_in_text_blocks() -> None:
    from langchain_core.messages import AIMessage

    reply = AIMessage(
        content=[{"type": "text", "text": '{"summary": "a",'}, {"type": "text", "text": ' "confidence": 1}'}]
    )
    both = run_both([reply], response_format=Summary)
    ref = assert_parity(both)
    assert both.rs.unwrap()["structured_response"] == ref["structured_response"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "reply", ["not json", '{"summary": "s", "confidence": "very"}'], ids=["invalid-json", "validation"]
)
def test_a_reply_that_does_not_parse_raises_as_langchain_does(mode: str, reply: str) -> None:
    both = run_both([reply], mode=mode, response_format=ProviderStrategy(Summary))
    ref = assert_same_error(both)
    assert isinstance(ref, StructuredOutputValidationError)
    assert both.rs.error.tool_name == ref.tool_name == "Summary"
    assert str(both.rs.error.source) == str(ref.source)
    assert both.rs.error.ai_message.content == ref.ai_message.content == reply


@pytest.mark.parametrize("profile", [None, {"structured_output": False}], ids=["no-profile", "not-native"])
def test_auto_strategy_picks_tools_when_langchain_does(profile: dict | None) -> None:
    script = [ai_tool_calls(("Summary", {"summary": "s", "confidence": 0.5}, "s1"))]
    both = run_both(script, profile=profile, response_format=Summary)
    ref = assert_parity(both)
    assert both.rs.unwrap()["structured_response"] == ref["structured_response"]
    assert both.rs.calls[0].kwargs == {"tool_choice": "any"}


def test_tool_strategy_stays_tools_on_a_native_model() -> None:
    script = [ai_tool_calls(("Summary", {"summary": "s", "confidence": 0.5}, "s1"))]
    both = run_both(script, response_format=ToolStrategy(Summary))
    assert_parity(both)
    assert both.rs.calls[0].kwargs == {"tool_choice": "any"}


@pytest.mark.parametrize("response_format", [ProviderStrategy(Summary), Summary], ids=["provider", "auto"])
def test_subagent_with_a_native_response_format(response_format: Any) -> None:
    outcomes = []
    for impl in (deepagents, deepagents_rs):
        child = ScriptedChatModel(['{"summary": "s", "confidence": 0.5}'], profile=NATIVE)
        parent = ScriptedChatModel(
            [ai_tool_calls(("task", {"description": "sum it", "subagent_type": "summ"}, "t1")), "done"]
        )
        spec = {"name": "summ", "description": "Summarizes.", "model": child, "response_format": response_format}
        result = impl.create_deep_agent(model=parent, subagents=[spec]).invoke({"messages": [("user", "go")]})
        outcomes.append((result["messages"][2].content, child.calls[0].tool_names, child.calls[0].kwargs))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0] == '{"summary":"s","confidence":0.5}'


# The native clients, against langchain-openai / langchain-anthropic on the simulated APIs.


class Detailed(BaseModel):
    """A detailed summary."""

    summary: str = Field(description="the summary", min_length=2)
    confidence: float
    tags: list[str] = []


@pytest.mark.parametrize("mode", ["invoke", "stream"])
@pytest.mark.parametrize("response_format", [ProviderStrategy(Detailed), Detailed], ids=["provider", "auto"])
@pytest.mark.parametrize("kind", list(NATIVE_MODELS))
def test_native_clients_send_and_read_the_format_as_langchain(
    kind: str, response_format: Any, mode: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    sim, text, _ = native_sim(kind, monkeypatch, request)
    with sim:
        (theirs, ref), (ours, rs) = native_runs(
            kind, sim, [text('{"summary": "ok", "confidence": 0.5}')], mode, response_format=response_format
        )
    assert ours == theirs
    assert "json_schema" in ours[0]
    assert rs["structured_response"] == ref["structured_response"] == Detailed(summary="ok", confidence=0.5)
    assert [reply_view(m) for m in rs["messages"]] == [reply_view(m) for m in ref["messages"]]


@pytest.mark.parametrize("reply", ["not json", '{"summary": "s", "confidence": "very"}'], ids=["json", "validation"])
@pytest.mark.parametrize("kind", list(NATIVE_MODELS))
def test_native_reply_that_does_not_parse(
    kind: str, reply: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    sim, text, _ = native_sim(kind, monkeypatch, request)
    with sim:
        (_, ref), (_, rs) = native_runs(kind, sim, [text(reply)], "invoke", response_format=Summary)
    assert isinstance(ref, StructuredOutputValidationError)
    assert type(rs) is type(ref)
    assert str(rs) == str(ref)


def test_native_model_without_native_output_uses_a_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """AutoStrategy on a model string whose profile has no native structured output."""
    from sim.openai import SimOpenAI, tool_calls

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with SimOpenAI() as sim:
        monkeypatch.setenv("OPENAI_BASE_URL", sim.base_url)
        outcomes = []
        for impl in (deepagents, deepagents_rs):
            start = len(sim.requests)
            sim.script(tool_calls(("Summary", {"summary": "s", "confidence": 0.5}, "call_1")))
            agent = impl.create_deep_agent(model="openai:gpt-3.5-turbo", response_format=Summary)
            result = agent.invoke(copy.deepcopy(USER))
            outcomes.append((result["structured_response"], sim.requests[start].body.get("tool_choice")))
    assert outcomes[0] == outcomes[1] == (Summary(summary="s", confidence=0.5), "required")


@pytest.mark.parametrize("use_responses_api", [False, True], ids=["chat", "responses"])
def test_a_chat_openai_object_is_bound_as_create_agent_binds_it(
    use_responses_api: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A LangChain ChatOpenAI called back from the core: strict tools on Chat Completions."""
    import json

    from langchain_openai import ChatOpenAI
    from sim.openai import SimOpenAI, text

    with SimOpenAI() as sim:
        outcomes = []
        for impl in (deepagents, deepagents_rs):
            start = len(sim.requests)
            sim.script(text('{"summary": "ok", "confidence": 0.5}'))
            model = ChatOpenAI(
                model="gpt-5", base_url=sim.base_url, api_key="sk-test", use_responses_api=use_responses_api
            )
            agent = impl.create_deep_agent(model=model, tools=[lookup], response_format=Detailed)
            result = agent.invoke(copy.deepcopy(USER))
            body = json.dumps(sim.requests[start].body, separators=(",", ":"))
            outcomes.append((body, result["structured_response"], reply_view(result["messages"][-1])))
    assert outcomes[0] == outcomes[1]
    assert ('"strict":true' in outcomes[1][0]) is not use_responses_api


@pytest.mark.parametrize(
    "model",
    ["openai:o3", "openai:gpt-3.5-turbo", "openai:gpt-5-codex", "anthropic:claude-haiku-4-5-20251001"],
)
def test_auto_strategy_on_a_model_string_decides_as_langchain(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The profile of the model deepagents makes of the string decides, then LangChain's list
    of model names (o3: profile only; gpt-5-codex and this haiku: the list only)."""
    import json

    from sim.anthropic import SimAnthropic
    from sim.anthropic import text as anthropic_text
    from sim.openai import SimOpenAI
    from sim.openai import text as openai_text

    anthropic = model.startswith("anthropic:")
    sim, text = (SimAnthropic(), anthropic_text) if anthropic else (SimOpenAI(), openai_text)
    prefix = "ANTHROPIC" if anthropic else "OPENAI"
    monkeypatch.setenv(f"{prefix}_API_KEY", "sk-test")
    with sim:
        monkeypatch.setenv(f"{prefix}_BASE_URL", sim.base_url)
        bodies = []
        for impl in (deepagents, deepagents_rs):
            start = len(sim.requests)
            sim.script(text('{"summary": "ok", "confidence": 0.5}'))
            impl.create_deep_agent(model=model, response_format=Summary).invoke(copy.deepcopy(USER))
            body = dict(sim.requests[start].body)
            body.pop("prompt_cache_key", None)
            bodies.append(json.dumps(body, separators=(",", ":")))
    assert bodies[0] == bodies[1]


class _RecordingChatOpenAI:
    """Built on first use: a ChatOpenAI that records what it is bound with."""

    cls: Any = None

    @classmethod
    def make(cls, **kwargs: Any) -> Any:
        if cls.cls is None:
            from langchain_openai import ChatOpenAI

            class Recording(ChatOpenAI):
                bound: list = Field(default_factory=list, exclude=True)

                def bind_tools(self, tools: Any, **kw: Any) -> Any:
                    self.bound.append(kw)
                    return super().bind_tools(tools, **kw)

            cls.cls = Recording
        return cls.cls(**kwargs)


def test_chat_completions_openai_models_are_bound_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    """create_agent passes strict=True itself to an OpenAI-compatible Chat Completions model
    (older langchain-openai do not default to it)."""
    from sim.openai import SimOpenAI, text

    with SimOpenAI() as sim:
        bound = []
        for impl in (deepagents, deepagents_rs):
            sim.script(text('{"summary": "ok", "confidence": 0.5}'))
            model = _RecordingChatOpenAI.make(
                model="gpt-5", base_url=sim.base_url, api_key="sk-test", use_responses_api=False
            )
            impl.create_deep_agent(model=model, response_format=Summary).invoke(copy.deepcopy(USER))
            bound.append(model.bound)
    assert bound[0] == bound[1]
    assert bound[1][0]["strict"] is True
