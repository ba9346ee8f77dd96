"""``update_state(..., task_id=...)``: a write made as a pending task (here, the answer to a
tool that stopped for a human) counts as that task's result, and the run goes on from there,
as in deepagents; sync and async."""

from __future__ import annotations

import asyncio

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt


@tool
def ask(question: str) -> str:
    """Ask a human."""
    return interrupt(question)


def _session(module, asynchronous):
    model = ScriptedChatModel(responses=[ai_tool_calls(("ask", {"question": "ok?"}, "call-1")), AIMessage("thanks")])
    agent = module.create_deep_agent(model=model, tools=[ask], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    answer = {"messages": [ToolMessage("yes", tool_call_id="call-1")]}

    async def run_async():
        await agent.ainvoke({"messages": [("user", "go")]}, config)
        (task,) = (await agent.aget_state(config)).tasks
        await agent.aupdate_state(config, answer, task_id=task.id)
        after = await agent.aget_state(config)
        return task, after, await agent.ainvoke(None, config)

    if asynchronous:
        task, after, result = asyncio.run(run_async())
    else:
        agent.invoke({"messages": [("user", "go")]}, config)
        (task,) = agent.get_state(config).tasks
        agent.update_state(config, answer, task_id=task.id)
        after = agent.get_state(config)
        result = agent.invoke(None, config)
    history = [(s.metadata["step"], s.metadata["source"], s.next) for s in agent.get_state_history(config)]
    return (
        task.name,
        after.next,
        [(m.type, m.content) for m in result["messages"]],
        history,
        len(model.calls),
    )


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_write_as_pending_task(asynchronous):
    ours = _session(deepagents_rs, asynchronous)
    assert ours == _session(deepagents, asynchronous)
    assert ours[1] == ("model",)
    assert ours[2][-2:] == [("tool", "yes"), ("ai", "thanks")]
