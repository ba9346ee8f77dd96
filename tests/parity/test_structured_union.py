"""``response_format=ToolStrategy`` over a union of schemas (and a bare union, which
``AutoStrategy`` sets up as one), against deepagents: each schema is a tool, whichever the
model calls answers, a call to the wrong one or to two at once is retried as LangChain
retries it."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel
from langchain.agents.structured_output import (
    MultipleStructuredOutputsError,
    StructuredOutputValidationError,
    ToolStrategy,
)
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from .harness import MODES, ai_tool_calls, assert_parity, assert_same_error, run_both
from .native_structured import NATIVE_MODELS, native_runs, native_sim, reply_view

USER = {"messages": [{"role": "user", "content": "judge"}]}


class Summary(BaseModel):
    """A summary of findings."""

    summary: str = Field(description="the summary")
    confidence: float


class Verdict(BaseModel):
    """A verdict."""

    ok: bool


@dataclass
class Note:
    """A note."""

    text: str


class Tally(TypedDict):
    """A tally."""

    count: int


SUMMARY = ("Summary", {"summary": "s", "confidence": 0.5})
VERDICT = ("Verdict", {"ok": True})
NOTE = ("Note", {"text": "n"})
TALLY = ("Tally", {"count": 3})


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", [SUMMARY, VERDICT, NOTE, TALLY], ids=lambda a: a[0])
@pytest.mark.parametrize("bare", [False, True], ids=["tool-strategy", "bare-union"])
def test_a_union_is_answered_by_each_member(mode: str, answer: tuple, bare: bool) -> None:
    union = Summary | Verdict | Note | Tally
    script = [ai_tool_calls(("lookup", {"key": "x"}, "c1")), ai_tool_calls((*answer, "a1"))]
    response_format = union if bare else ToolStrategy(union)
    both = run_both(script, [lookup], USER, mode=mode, response_format=response_format)
    ref = assert_parity(both)
    rs = both.rs.unwrap()
    # Every member is a tool, after the agent's, and a tool call is forced.
    assert both.rs.calls[0].tool_names[-4:] == ["Summary", "Verdict", "Note", "Tally"]
    assert both.rs.calls[0].kwargs == {"tool_choice": "any"}
    assert type(rs["structured_response"]) is type(ref["structured_response"])
    assert rs["structured_response"] == ref["structured_response"]
    assert rs["messages"][-1].content == ref["messages"][-1].content
    assert rs["messages"][-1].name == answer[0]


@pytest.mark.parametrize("mode", MODES)
def test_a_call_to_the_wrong_member_is_retried(mode: str) -> None:
    """Verdict's arguments sent to the Summary tool: Summary's validation error, then the
    model answers with Verdict."""
    script = [
        ai_tool_calls(("Summary", {"ok": True}, "w1")),
        ai_tool_calls(("Verdict", {"ok": "perhaps"}, "w2")),
        ai_tool_calls(("Verdict", {"ok": False}, "w3")),
    ]
    both = run_both(script, None, USER, mode=mode, response_format=ToolStrategy(Summary | Verdict))
    ref = assert_parity(both)
    retries = [m for m in ref["messages"] if m.type == "tool"][:2]
    assert [m.name for m in retries] == ["Summary", "Verdict"]
    assert retries[0].content.startswith("Error: Failed to parse structured output for tool 'Summary'")
    assert "Failed to parse data to Verdict" in retries[1].content
    assert both.rs.unwrap()["structured_response"] == ref["structured_response"] == Verdict(ok=False)


@pytest.mark.parametrize("mode", MODES)
def test_two_members_called_at_once_are_retried(mode: str) -> None:
    script = [
        ai_tool_calls((*SUMMARY, "s1"), (*VERDICT, "v1")),
        ai_tool_calls((*VERDICT, "v2")),
    ]
    both = run_both(script, None, USER, mode=mode, response_format=ToolStrategy(Summary | Verdict))
    ref = assert_parity(both)
    retries = [m for m in ref["messages"] if m.type == "tool"][:2]
    assert [m.tool_call_id for m in retries] == ["s1", "v1"]
    assert "multiple structured responses (Summary, Verdict)" in retries[0].content
    assert both.rs.unwrap()["structured_response"] == ref["structured_response"] == Verdict(ok=True)


def test_a_member_call_beside_an_ordinary_tool_call() -> None:
    """The schema call is answered in the model step, the other runs in the tools step, and
    the loop ends after it."""
    script = [ai_tool_calls(("lookup", {"key": "k"}, "c1"), (*VERDICT, "v1"))]
    both = run_both(script, [lookup], USER, response_format=ToolStrategy(Summary | Verdict))
    ref = assert_parity(both)
    assert [m.type for m in ref["messages"]] == ["human", "ai", "tool", "tool"]
    assert both.rs.unwrap()["structured_response"] == ref["structured_response"]


@pytest.mark.parametrize(
    ("handle_errors", "script", "error"),
    [
        (False, [ai_tool_calls(("Verdict", {"ok": "perhaps"}, "v1"))], StructuredOutputValidationError),
        (False, [ai_tool_calls((*SUMMARY, "s1"), (*VERDICT, "v1"))], MultipleStructuredOutputsError),
        (TypeError, [ai_tool_calls(("Verdict", {"ok": "perhaps"}, "v1"))], StructuredOutputValidationError),
    ],
    ids=["invalid", "several", "not-caught"],
)
def test_errors_not_handled_end_the_run(handle_errors: Any, script: list, error: type) -> None:
    strategy = ToolStrategy(Summary | Verdict, handle_errors=handle_errors)
    both = run_both(script, None, USER, response_format=strategy)
    ref = assert_same_error(both)
    assert isinstance(ref, error)
    assert reply_view(both.rs.error.ai_message) == reply_view(ref.ai_message)


def test_custom_texts_over_a_union() -> None:
    strategy = ToolStrategy(Summary | Verdict, tool_message_content="Noted.", handle_errors=lambda e: f"No: {e}")
    script = [ai_tool_calls(("Verdict", {}, "v1")), ai_tool_calls((*SUMMARY, "s1"))]
    both = run_both(script, None, USER, response_format=strategy)
    ref = assert_parity(both)
    assert [m.content for m in ref["messages"] if m.type == "tool"][1] == "Noted."


def test_a_json_schema_one_of_is_a_union() -> None:
    schema = {
        "oneOf": [
            {"title": "Yes", "type": "object", "properties": {"why": {"type": "string"}}},
            {"title": "No", "type": "object", "properties": {"why_not": {"type": "string"}}},
        ]
    }
    script = [
        ai_tool_calls(("Yes", {"why": "w"}, "y1"), ("No", {"why_not": "n"}, "n1")),
        ai_tool_calls(("No", {}, "n2")),
    ]
    both = run_both(script, None, USER, response_format=ToolStrategy(schema))
    ref = assert_parity(both)
    assert both.rs.calls[0].tool_names[-2:] == ["Yes", "No"]
    # A JSON schema's response is returned unvalidated.
    assert both.rs.unwrap()["structured_response"] == ref["structured_response"] == {}


def test_a_bare_union_on_a_native_model_is_refused_when_the_model_is_called() -> None:
    """create_agent builds the agent, then refuses a union as the provider's format."""
    outcomes = []
    for impl in (deepagents, deepagents_rs):
        model = ScriptedChatModel(['{"ok": true}'], profile={"structured_output": True})
        agent = impl.create_deep_agent(model=model, response_format=Summary | Verdict)
        with pytest.raises(ValueError) as info:
            agent.invoke(copy.deepcopy(USER))
        outcomes.append((type(info.value), str(info.value), len(model.calls)))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][2] == 0


@pytest.mark.parametrize("mode", MODES)
def test_a_subagents_union_answer_is_its_task_result(mode: str) -> None:
    outcomes = []
    for impl in (deepagents, deepagents_rs):
        child = ScriptedChatModel([ai_tool_calls(("Summary", {"ok": 1}, "w1")), ai_tool_calls((*VERDICT, "v1"))])
        parent = ScriptedChatModel(
            [ai_tool_calls(("task", {"description": "judge it", "subagent_type": "judge"}, "t1")), "done"]
        )
        spec = {"name": "judge", "description": "Judges.", "model": child, "response_format": Summary | Verdict}
        agent = impl.create_deep_agent(model=parent, subagents=[spec])
        inp = {"messages": [("user", "go")]}
        result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
        outcomes.append(
            (result["messages"][2].content, [c.tool_names for c in child.calls], [len(c.messages) for c in child.calls])
        )
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0] == '{"ok":true}'


# The native clients, against langchain-openai / langchain-anthropic on the simulated APIs.


@pytest.mark.parametrize("kind", list(NATIVE_MODELS))
def test_native_clients_offer_and_read_a_union(
    kind: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """Both members as tools with a forced call; a wrong member retried, then the answer."""
    sim, _, calls = native_sim(kind, monkeypatch, request)
    replies = [calls(("Verdict", {"ok": "perhaps"}, "call_1")), calls(("Summary", dict(SUMMARY[1]), "call_2"))]
    with sim:
        (theirs, ref), (ours, rs) = native_runs(
            kind, sim, replies, "invoke", response_format=ToolStrategy(Verdict | Summary)
        )
    assert ours == theirs
    assert len(ours) == 2
    assert rs["structured_response"] == ref["structured_response"] == Summary(summary="s", confidence=0.5)
    assert [reply_view(m) for m in rs["messages"]] == [reply_view(m) for m in ref["messages"]]


@pytest.mark.parametrize("kind", list(NATIVE_MODELS))
def test_native_clients_retry_two_members_at_once(
    kind: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    sim, _, calls = native_sim(kind, monkeypatch, request)
    replies = [
        calls(("Verdict", {"ok": True}, "call_1"), ("Summary", dict(SUMMARY[1]), "call_2")),
        calls(("Verdict", {"ok": False}, "call_3")),
    ]
    with sim:
        (theirs, ref), (ours, rs) = native_runs(
            kind, sim, replies, "stream", response_format=ToolStrategy(Verdict | Summary)
        )
    assert ours == theirs
    assert rs["structured_response"] == ref["structured_response"] == Verdict(ok=False)
    assert [reply_view(m) for m in rs["messages"]] == [reply_view(m) for m in ref["messages"]]


def test_a_chat_anthropic_object_is_bound_as_create_agent_binds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A LangChain ChatAnthropic called back from the core: the schema tools after the
    agent's, the caching breakpoint on the agent's last tool (the middleware's last)."""
    import json

    from langchain_anthropic import ChatAnthropic
    from sim.anthropic import SimAnthropic, tool_use

    with SimAnthropic() as sim:
        outcomes = []
        for impl in (deepagents, deepagents_rs):
            start = len(sim.requests)
            sim.script(tool_use(("Verdict", {"ok": 2}, "toolu_1")), tool_use((*VERDICT, "toolu_2")))
            model = ChatAnthropic(model="claude-sonnet-4-6", base_url=sim.base_url, api_key="sk-test")
            agent = impl.create_deep_agent(model=model, tools=[lookup], response_format=ToolStrategy(Summary | Verdict))
            result = agent.invoke(copy.deepcopy(USER))
            bodies = [json.dumps(r.body, separators=(",", ":")) for r in sim.requests[start:]]
            outcomes.append((bodies, result["structured_response"], [reply_view(m) for m in result["messages"]]))
    assert outcomes[0] == outcomes[1]
    tools = json.loads(outcomes[1][0][0])["tools"]
    assert [t["name"] for t in tools if "cache_control" in t] == ["lookup"]


def test_middleware_sees_the_agents_tools_only() -> None:
    """create_agent adds the schema tools and forces a call after the middleware."""
    from langchain.agents.middleware import AgentMiddleware

    class Recording(AgentMiddleware):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list = []

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            self.seen.append(([getattr(t, "name", None) for t in request.tools], request.tool_choice))
            return handler(request)

    seen = []
    for impl in (deepagents, deepagents_rs):
        recording = Recording()
        model = ScriptedChatModel([ai_tool_calls(("Summary", {}, "s1")), ai_tool_calls((*VERDICT, "v1"))])
        impl.create_deep_agent(
            model=model, tools=[lookup], middleware=[recording], response_format=ToolStrategy(Summary | Verdict)
        ).invoke(copy.deepcopy(USER))
        seen.append((recording.seen, model.calls[0].tool_names, model.calls[0].kwargs))
    assert seen[0] == seen[1]
    assert seen[1][0][0] == (seen[1][1][:-2], None)


class _RecordingFormat:
    """Built on first use: a middleware recording the response format its requests carry,
    and replacing it when told to."""

    @staticmethod
    def make(replace_with: Any = None) -> Any:
        from langchain.agents.middleware import AgentMiddleware

        class RecordingFormat(AgentMiddleware):
            def __init__(self) -> None:
                super().__init__()
                self.seen: list = []

            def wrap_model_call(self, request: Any, handler: Any) -> Any:
                rf = request.response_format
                self.seen.append((type(rf).__name__, getattr(rf, "schema", None)))
                if replace_with is not None:
                    request = request.override(response_format=replace_with)
                return handler(request)

        return RecordingFormat()


@pytest.mark.parametrize(
    "response_format", [ToolStrategy(Summary | Verdict), Summary | Verdict, Summary], ids=["tool", "bare-union", "bare"]
)
def test_middleware_see_the_agents_response_format(response_format: Any) -> None:
    """create_agent's request carries the strategy given, a bare schema as an AutoStrategy."""
    seen = []
    for impl in (deepagents, deepagents_rs):
        recording = _RecordingFormat.make()
        model = ScriptedChatModel([ai_tool_calls((*SUMMARY, "s1"))])
        impl.create_deep_agent(model=model, middleware=[recording], response_format=response_format).invoke(
            copy.deepcopy(USER)
        )
        seen.append(recording.seen)
    assert seen[0] == seen[1]
    assert seen[1][0][0] == ("ToolStrategy" if isinstance(response_format, ToolStrategy) else "AutoStrategy")


def test_a_middleware_narrowing_the_union_binds_its_own_format() -> None:
    """LangChain lets a middleware narrow a union per call: the model is offered that schema
    tool only, and its answer parsed with it (more in test_structured_override.py)."""
    out = []
    for impl in (deepagents, deepagents_rs):
        recording = _RecordingFormat.make(replace_with=ToolStrategy(Verdict))
        model = ScriptedChatModel([ai_tool_calls((*VERDICT, "v1"))])
        agent = impl.create_deep_agent(
            model=model, middleware=[recording], response_format=ToolStrategy(Summary | Verdict)
        )
        result = agent.invoke(copy.deepcopy(USER))
        out.append(
            (result["structured_response"], [t for t in model.calls[0].tool_names if t in ("Summary", "Verdict")])
        )
    assert out[1] == out[0]
    assert out[1][1] == ["Verdict"]
