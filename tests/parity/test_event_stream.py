"""LangChain's event stream (``astream_events``/``stream_events``, version v2) over the agent
reads as it reads over deepagents' graph: the same runs (graph, nodes, model, tools,
subagents), in the same order, with the same nesting and chunks."""

from __future__ import annotations

import asyncio

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


@tool
def shout(text: str) -> str:
    """Say it louder."""
    return text.upper()


class Note(AgentMiddleware):
    def before_model(self, state, runtime):
        return None

    def after_model(self, state, runtime):
        return None


def _replies(case):
    if case == "subagent":
        return {
            "main": [
                ai_tool_calls(("task", {"description": "look it up", "subagent_type": "general-purpose"})),
                AIMessage("reported"),
            ],
            "sub": [AIMessage("looked")],
        }
    # One call a turn: parallel calls run concurrently in both, in no fixed order.
    return {
        "main": [
            ai_tool_calls(("write_file", {"file_path": "/n.md", "content": "hi"})),
            ai_tool_calls(("shout", {"text": "hey"})),
            AIMessage("done"),
        ]
    }


def _compiled_agent(module, saver=None):
    """A `task` call to a ``CompiledSubAgent`` (LangChain's agent graph, calling a tool)."""
    from langchain.agents import create_agent

    inner = create_agent(
        model=ScriptedChatModel(responses=[ai_tool_calls(("shout", {"text": "hey"})), AIMessage("looked")]),
        tools=[shout],
        name="helper",
    )
    main = ScriptedChatModel(
        responses=[ai_tool_calls(("task", {"description": "look", "subagent_type": "helper"})), AIMessage("reported")]
    )
    subagents = [{"name": "helper", "description": "Looks.", "runnable": inner}]
    return module.create_deep_agent(model=main, subagents=subagents, checkpointer=saver)


def _agent(module, case, saver=None):
    if case == "compiled":
        return _compiled_agent(module, saver)
    replies = _replies(case)
    if case == "subagent":
        # One model for both: the subagent's call comes between the parent's two.
        script = [replies["main"][0], replies["sub"][0], replies["main"][1]]
    else:
        script = replies["main"]
    kwargs = {"tools": [shout]}
    if case == "middleware":
        kwargs["middleware"] = [Note()]
    return module.create_deep_agent(model=ScriptedChatModel(responses=script), checkpointer=saver, **kwargs)


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in ("created_at", "modified_at", "id")}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "content") and hasattr(value, "type"):
        return (value.type, value.content, [(c["name"], c["args"]) for c in getattr(value, "tool_calls", None) or []])
    if hasattr(value, "update"):  # a LangGraph Command
        return ("command", _plain(value.update))
    return value


def _event(ev):
    meta = ev["metadata"]
    chunk = ev["data"].get("chunk") if ev["event"] == "on_chain_stream" else None
    return (ev["event"], ev["name"], meta.get("langgraph_node"), len(ev["parent_ids"]), _plain(chunk))


def _events(module, case, sync=False, saver=None):
    agent = _agent(module, case, saver)
    config = {"configurable": {"thread_id": "t"}} if saver else None
    payload = {"messages": [("user", "go")]}
    if sync:
        return [_event(e) for e in agent.stream_events(payload, config, version="v2")]

    async def collect():
        return [_event(e) async for e in agent.astream_events(payload, config, version="v2")]

    return asyncio.run(collect())


@pytest.mark.parametrize("case", ["tools", "middleware", "subagent", "compiled"])
def test_async_event_stream(case):
    assert _events(deepagents_rs, case) == _events(deepagents, case)


def test_sync_v2_event_stream_refused_alike():
    errors = []
    for module in (deepagents_rs, deepagents):
        with pytest.raises(NotImplementedError) as info:
            _events(module, "tools", sync=True)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("case", ["tools", "subagent", "compiled"])
def test_checkpointed_event_stream(case):
    """Through a saver too (the thread graph follows the core): the same sequence."""
    assert _events(deepagents_rs, case, saver=InMemorySaver()) == _events(deepagents, case, saver=InMemorySaver())
