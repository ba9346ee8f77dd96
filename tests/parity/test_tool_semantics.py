"""LangGraph tool-node semantics that deepagents inherits: ``return_direct``, tools returning
a ``Command``, artifacts that are not JSON, the caller's contextvars in tools, and how
structured output meets other tool calls."""

from __future__ import annotations

import contextvars
from typing import Annotated

import pytest
from langchain.agents.structured_output import ToolStrategy
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.types import Command
from pydantic import BaseModel, field_validator

from .harness import MODES, ai_tool_calls, assert_parity, run_both

USER = {"messages": [{"role": "user", "content": "go"}]}
CALLER = contextvars.ContextVar("caller", default="unset")


@tool(return_direct=True)
def final_lookup(key: str) -> str:
    """Look a key up and answer with it directly."""
    return f"direct {key}"


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


@pytest.mark.parametrize("mode", MODES)
def test_return_direct_ends_the_run(mode: str) -> None:
    both = run_both([ai_tool_calls(("final_lookup", {"key": "k"}, "c1")), "never"], [final_lookup], USER, mode=mode)
    ref = assert_parity(both)
    assert ref["messages"][-1].content == "direct k"
    assert len(both.rs.calls) == 1


@pytest.mark.parametrize("mode", MODES)
def test_return_direct_with_another_tool_goes_on(mode: str) -> None:
    script = [ai_tool_calls(("final_lookup", {"key": "k"}, "c1"), ("lookup", {"key": "j"}, "c2")), "after"]
    both = run_both(script, [final_lookup, lookup], USER, mode=mode)
    ref = assert_parity(both)
    assert ref["messages"][-1].content == "after"


@tool
def set_note(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Write a note file."""
    return Command(
        update={
            "messages": [ToolMessage("noted", tool_call_id=tool_call_id)],
            "files": {"/note.txt": {"content": text, "encoding": "utf-8"}},
        }
    )


@pytest.mark.parametrize("mode", MODES)
def test_tool_returning_a_command(mode: str) -> None:
    both = run_both([ai_tool_calls(("set_note", {"text": "hello"}, "c1")), "done"], [set_note], USER, mode=mode)
    ref = assert_parity(both)
    assert ref["files"] == {"/note.txt": {"content": "hello", "encoding": "utf-8"}}
    assert ref["messages"][2].content == "noted"


class Blob:
    """Not JSON."""

    def __repr__(self) -> str:
        return "Blob()"


BLOB = Blob()


@tool(response_format="content_and_artifact")
def fetch(key: str) -> tuple[str, Blob]:
    """Fetch a blob."""
    return f"got {key}", BLOB


@pytest.mark.parametrize("mode", MODES)
def test_artifacts_stay_the_tools_own_objects(mode: str) -> None:
    both = run_both([ai_tool_calls(("fetch", {"key": "k"}, "c1")), "done"], [fetch], USER, mode=mode)
    assert_parity(both)
    assert both.rs.unwrap()["messages"][2].artifact is BLOB
    assert both.ref.unwrap()["messages"][2].artifact is BLOB


def read_caller() -> str:
    """Report the caller's context."""
    return CALLER.get()


async def aread_caller() -> str:
    """Report the caller's context, asynchronously."""
    return CALLER.get()


@pytest.mark.parametrize("mode", MODES)
def test_tools_see_the_callers_contextvars(mode: str) -> None:
    import asyncio

    from fake_models import ScriptedChatModel

    tools = [read_caller] if mode == "invoke" else [read_caller, aread_caller]
    calls = [("read_caller", {}, "c1")] + ([("aread_caller", {}, "c2")] if mode == "ainvoke" else [])
    outcomes = []
    for impl in ("deepagents", "deepagents_rs"):
        module = __import__(impl)
        agent = module.create_deep_agent(model=ScriptedChatModel([ai_tool_calls(*calls), "ok"]), tools=tools)
        token = CALLER.set("caller-value")
        try:
            result = agent.invoke(USER) if mode == "invoke" else asyncio.run(agent.ainvoke(USER))
        finally:
            CALLER.reset(token)
        outcomes.append([m.content for m in result["messages"] if m.type == "tool"])
    assert outcomes[1] == outcomes[0]
    assert set(outcomes[1]) == {"caller-value"}


@tool
def needs_runtime(x: int, runtime: ToolRuntime) -> str:
    """Use the runtime."""
    return str(x)


@pytest.mark.parametrize("mode", MODES)
def test_injected_runtime_is_handed_to_the_tool(mode: str) -> None:
    both = run_both([ai_tool_calls(("needs_runtime", {"x": 3}, "r1")), "done"], [needs_runtime], USER, mode=mode)
    assert_parity(both)
    assert [m.content for m in both.rs.unwrap()["messages"] if m.type == "tool"] == ["3"]


class Counted(BaseModel):
    """A count that a validator bumps."""

    n: int

    @field_validator("n")
    @classmethod
    def bump(cls, v: int) -> int:
        return v + 1


@pytest.mark.parametrize("mode", MODES)
def test_structured_response_is_the_parsed_object(mode: str) -> None:
    both = run_both([ai_tool_calls(("Counted", {"n": 1}, "s1"))], None, USER, mode=mode, response_format=Counted)
    assert_parity(both)
    assert both.rs.unwrap()["structured_response"] == both.ref.unwrap()["structured_response"] == Counted(n=1)


class Answer(BaseModel):
    """The answer."""

    text: str


@pytest.mark.parametrize("mode", MODES)
def test_structured_response_beside_another_tool_call(mode: str) -> None:
    script = [ai_tool_calls(("lookup", {"key": "x"}, "c1"), ("Answer", {"text": "t"}, "s1")), "never"]
    both = run_both(script, [lookup], USER, mode=mode, response_format=Answer)
    ref = assert_parity(both)
    assert [m.type for m in ref["messages"]] == ["human", "ai", "tool", "tool"]


@pytest.mark.parametrize("handle_errors", ["Custom retry text.", True])
def test_several_structured_responses_follow_handle_errors(handle_errors: object) -> None:
    script = [
        ai_tool_calls(("Answer", {"text": "a"}, "s1"), ("Answer", {"text": "b"}, "s2")),
        ai_tool_calls(("Answer", {"text": "c"}, "s3")),
    ]
    strategy = ToolStrategy(Answer, handle_errors=handle_errors)
    both = run_both(script, None, USER, response_format=strategy)
    assert_parity(both)


def test_several_structured_responses_without_retry_raise_like_deepagents() -> None:
    script = [ai_tool_calls(("Answer", {"text": "a"}, "s1"), ("Answer", {"text": "b"}, "s2"))]
    both = run_both(script, None, USER, response_format=ToolStrategy(Answer, handle_errors=False))
    assert type(both.rs.error) is type(both.ref.error)
    assert str(both.rs.error) == str(both.ref.error)


@pytest.mark.parametrize("mode", MODES)
def test_subagents_run_under_their_own_recursion_limit(mode: str) -> None:
    script = [
        ai_tool_calls(("task", {"description": "work", "subagent_type": "general-purpose"}, "t1")),
        ai_tool_calls(("lookup", {"key": "1"}, "c1")),
        ai_tool_calls(("lookup", {"key": "2"}, "c2")),
        ai_tool_calls(("lookup", {"key": "3"}, "c3")),
        "child done",
        "parent done",
    ]
    both = run_both(script, [lookup], USER, mode=mode, config={"recursion_limit": 7})
    ref = assert_parity(both)
    assert ref["messages"][-1].content == "parent done"
