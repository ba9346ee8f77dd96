"""``response_format`` through a tool (LangChain's ToolStrategy), in the main agent and in
subagents, against deepagents."""

from __future__ import annotations

import asyncio
import warnings

import deepagents
import deepagents_rs
import pytest
from langchain.agents.structured_output import ToolStrategy
from pydantic import BaseModel, Field

from .harness import MODES, ai_tool_calls, assert_parity, run_both

USER = {"messages": [{"role": "user", "content": "summarize"}]}


class Summary(BaseModel):
    """A summary of findings."""

    summary: str = Field(description="the summary")
    confidence: float


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


@pytest.mark.parametrize("mode", MODES)
def test_main_agent_structured_response(mode: str) -> None:
    script = [
        ai_tool_calls(("lookup", {"key": "x"}, "c1")),
        ai_tool_calls(("Summary", {"summary": "s", "confidence": 0.5}, "s1")),
    ]
    both = run_both(script, [lookup], USER, mode=mode, response_format=Summary)
    ref = assert_parity(both)
    rs = both.rs.unwrap()
    assert list(rs) == list(ref) == ["messages", "structured_response", "files"]
    assert rs["structured_response"] == ref["structured_response"] == Summary(summary="s", confidence=0.5)
    assert rs["messages"][-1].content == "Returning structured response: summary='s' confidence=0.5"
    assert both.rs.calls[0].kwargs == {"tool_choice": "any"}


@pytest.mark.parametrize("mode", MODES)
def test_invalid_structured_response_is_retried(mode: str) -> None:
    script = [
        ai_tool_calls(("Summary", {"summary": "s", "confidence": "very"}, "s1")),
        ai_tool_calls(("Summary", {"summary": "s", "confidence": 0.9}, "s2")),
    ]
    both = run_both(script, None, USER, mode=mode, response_format=Summary)
    ref = assert_parity(both)
    retry = ref["messages"][2]
    assert retry.content.startswith("Error: Failed to parse structured output for tool 'Summary'")
    assert retry.content.endswith("\n Please fix your mistakes.")


def test_several_structured_responses_in_one_reply() -> None:
    script = [
        ai_tool_calls(
            ("Summary", {"summary": "a", "confidence": 0.1}, "s1"),
            ("Summary", {"summary": "b", "confidence": 0.2}, "s2"),
        ),
        ai_tool_calls(("Summary", {"summary": "c", "confidence": 0.3}, "s3")),
    ]
    both = run_both(script, None, USER, response_format=Summary)
    assert_parity(both)


def test_tool_strategy_options() -> None:
    strategy = ToolStrategy(Summary, tool_message_content="Got it.", handle_errors="Try again, properly.")
    script = [
        ai_tool_calls(("Summary", {"summary": 3}, "s1")),
        ai_tool_calls(("Summary", {"summary": "ok", "confidence": 1.0}, "s2")),
    ]
    both = run_both(script, None, USER, response_format=strategy)
    ref = assert_parity(both)
    assert [m.content for m in ref["messages"] if m.type == "tool"] == ["Try again, properly.", "Got it."]


@pytest.mark.parametrize("mode", MODES)
def test_subagent_structured_response_is_the_task_result(mode: str) -> None:
    from fake_models import ScriptedChatModel

    outcomes = []
    for impl in (deepagents, deepagents_rs):
        child = ScriptedChatModel([ai_tool_calls(("Summary", {"summary": "s", "confidence": 0.5}, "s1"))])
        parent = ScriptedChatModel(
            [ai_tool_calls(("task", {"description": "sum it", "subagent_type": "summ"}, "t1")), "done"]
        )
        spec = {"name": "summ", "description": "Summarizes.", "model": child, "response_format": Summary}
        agent = impl.create_deep_agent(model=parent, subagents=[spec])
        inp = {"messages": [("user", "go")]}
        result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
        tools = child.calls[0].tool_names
        outcomes.append((result["messages"][2].content, tools, child.calls[0].kwargs))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0] == '{"summary":"s","confidence":0.5}'


def test_an_unusable_response_format_is_refused_like_deepagents() -> None:
    from fake_models import ScriptedChatModel

    messages = []
    for impl in (deepagents, deepagents_rs):
        with pytest.raises(ValueError) as info:
            impl.create_deep_agent(model=ScriptedChatModel([]), response_format=3)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("own_model", [False, True], ids=["callers-model", "own-model"])
def test_a_forks_own_response_format_is_its_task_result(own_model: bool) -> None:
    from fake_models import ScriptedChatModel

    outcomes = []
    for impl in (deepagents, deepagents_rs):
        fork_reply = ai_tool_calls(("Summary", {"summary": "f", "confidence": 0.25}, "s1"))
        delegate = ai_tool_calls(("task", {"description": "sum it", "subagent_type": "summ"}, "t1"))
        child = ScriptedChatModel([fork_reply]) if own_model else None
        parent = ScriptedChatModel([delegate, "done"] if own_model else [delegate, fork_reply, "done"])
        spec = {"name": "summ", "description": "Summarizes.", "mode": "fork", "response_format": Summary}
        if child is not None:
            spec["model"] = child
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agent = impl.create_deep_agent(model=parent, subagents=[spec])
        result = agent.invoke({"messages": [("user", "go")]})
        fork_call = (child or parent).calls[0 if own_model else 1]
        outcomes.append(
            (
                result["messages"][2].content,
                fork_call.tool_names,
                fork_call.kwargs,
                [m.type for m in fork_call.messages],
            )
        )
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0] == '{"summary":"f","confidence":0.25}'
