"""Tests of the scripted chat model and message normalization (tests/fake_models.py)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

# The helpers live next to this file; make them importable however pytest roots the run.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_models import (
    ScriptedChatModel,
    ScriptExhaustedError,
    ai_tool_calls,
    normalize_messages,
)


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


def test_strings_become_ai_messages_and_calls_are_recorded() -> None:
    model = ScriptedChatModel(["one", AIMessage(content="two")])
    assert model._llm_type == "scripted-chat"
    first = model.invoke([HumanMessage("hi")])
    second = model.invoke("again", stop=["END"])
    assert (first.content, second.content) == ("one", "two")
    assert [c.messages[-1].content for c in model.calls] == ["hi", "again"]
    assert model.calls[0].tools == [] and model.calls[0].kwargs == {}
    assert model.calls[1].kwargs == {"stop": ["END"]}
    assert model.remaining == 0


def test_replies_are_copies() -> None:
    scripted = AIMessage(content=[{"type": "text", "text": "x"}])
    model = ScriptedChatModel([scripted, scripted])
    out = model.invoke("hi")
    out.content[0]["text"] = "mutated"  # type: ignore[index]
    assert model.invoke("hi").content == [{"type": "text", "text": "x"}]


def test_bind_tools_records_openai_tools_on_the_shared_log() -> None:
    model = ScriptedChatModel([ai_tool_calls(("get_weather", {"city": "Paris"})), "done"])
    bound = model.bind_tools([get_weather], tool_choice="auto")
    msg = bound.invoke("weather?")
    assert msg.tool_calls == [
        {
            "name": "get_weather",
            "args": {"city": "Paris"},
            "id": "call_0_0",
            "type": "tool_call",
        }
    ]
    assert len(model.calls) == 1
    call = model.calls[0]
    assert call.tool_names == ["get_weather"]
    assert call.tools[0]["type"] == "function"
    assert call.tools[0]["function"]["parameters"]["properties"]["city"]["type"] == "string"
    assert call.kwargs == {"tool_choice": "auto"}
    # A shallow copy (what middleware may make) still records into the same list.
    model.model_copy().invoke("copy")
    assert len(model.calls) == 2


def test_async_calls_are_recorded() -> None:
    model = ScriptedChatModel(["async reply"])
    out = asyncio.run(model.ainvoke([SystemMessage("sys"), HumanMessage("hi")]))
    assert out.content == "async reply"
    assert [m.type for m in model.calls[0].messages] == ["system", "human"]


def test_exhausted_script_raises_clearly() -> None:
    model = ScriptedChatModel(["only"])
    model.invoke("a")
    with pytest.raises(ScriptExhaustedError, match=r"call #2 but only 1 scripted response"):
        model.invoke("b")
    assert len(model.calls) == 2  # the failing call is recorded too


def test_normalize_messages_modes() -> None:
    msgs = [
        HumanMessage("hi", id="h-123"),
        AIMessage(
            content="",
            id="a-9",
            tool_calls=[{"name": "ls", "args": {"path": "/"}, "id": "toolu_x"}],
        ),
        ToolMessage("a.txt", tool_call_id="toolu_x", name="ls", id="t-1"),
        AIMessage(content="done", id="a-10", name="agent"),
    ]
    kept = normalize_messages(msgs)
    assert kept[1]["tool_calls"] == [{"name": "ls", "args": {"path": "/"}, "id": "toolu_x"}]
    assert kept[2] == {
        "type": "tool",
        "id": "t-1",
        "content": "a.txt",
        "name": "ls",
        "tool_calls": [],
        "tool_call_id": "toolu_x",
        "status": "success",
        "additional_kwargs": {},
        "response_metadata": {},
    }
    stable = normalize_messages(msgs, ids="stable")
    assert [m["id"] for m in stable] == ["msg-0", "msg-1", "msg-2", "msg-3"]
    assert stable[1]["tool_calls"][0]["id"] == stable[2]["tool_call_id"] == "call-0"
    assert stable[3]["name"] == "agent"
    dropped = normalize_messages(msgs, ids="drop")
    assert all(m["id"] is None and m["tool_call_id"] is None for m in dropped)

    # Two runs with different random ids compare equal once stabilized.
    other = [m.model_copy(update={"id": f"other-{i}"}) for i, m in enumerate(msgs)]
    assert normalize_messages(other, ids="stable") == stable


def test_reference_create_deep_agent_runs_on_the_scripted_model() -> None:
    deepagents = pytest.importorskip("deepagents")
    model = ScriptedChatModel(
        [
            ai_tool_calls(("write_file", {"file_path": "/notes.txt", "content": "hello"})),
            ai_tool_calls(("get_weather", {"city": "Paris"})),
            "All done.",
        ]
    )
    agent = deepagents.create_deep_agent(model=model, tools=[get_weather], system_prompt="You are helpful.")
    out = agent.invoke({"messages": [HumanMessage("write a note, then check the weather")]})

    assert len(model.calls) == 3 and model.remaining == 0
    first = model.calls[0]
    assert first.messages[0].type == "system" and "You are helpful." in first.messages[0].text
    for name in (
        "ls",
        "read_file",
        "write_file",
        "edit_file",
        "glob",
        "grep",
        "task",
        "get_weather",
    ):
        assert name in first.tool_names
    last_call = [m.type for m in model.calls[2].messages]
    assert last_call == ["system", "human", "ai", "tool", "ai", "tool"]

    normalized = normalize_messages(out["messages"], ids="stable")
    assert [m["type"] for m in normalized] == [
        "human",
        "ai",
        "tool",
        "ai",
        "tool",
        "ai",
    ]
    assert normalized[2]["tool_call_id"] == "call-0" and normalized[4]["tool_call_id"] == "call-1"
    assert normalized[4]["content"] == "Sunny in Paris"
    assert normalized[-1]["content"] == "All done."
    assert "/notes.txt" in out["files"]


def test_reference_create_deep_agent_async() -> None:
    deepagents = pytest.importorskip("deepagents")
    model = ScriptedChatModel([ai_tool_calls(("ls", {"path": "/"})), "Nothing here."])
    agent = deepagents.create_deep_agent(model=model)
    out = asyncio.run(agent.ainvoke({"messages": [HumanMessage("list files")]}))
    assert out["messages"][-1].content == "Nothing here."
    assert [m.type for m in model.calls[1].messages][-2:] == ["ai", "tool"]


def test_reference_subagent_calls_share_the_log() -> None:
    deepagents = pytest.importorskip("deepagents")
    model = ScriptedChatModel(
        [
            ai_tool_calls(
                (
                    "task",
                    {
                        "description": "find the answer",
                        "subagent_type": "general-purpose",
                    },
                )
            ),
            "The answer is 42.",  # the sub-agent's reply
            "It is 42.",
        ]
    )
    agent = deepagents.create_deep_agent(model=model)
    out = agent.invoke({"messages": [HumanMessage("what is the answer?")]})
    assert out["messages"][-1].content == "It is 42."
    assert len(model.calls) == 3
    assert "find the answer" in str(model.calls[1].messages[-1].content)
    assert normalize_messages([out["messages"][-2]])[0]["content"] == "The answer is 42."
