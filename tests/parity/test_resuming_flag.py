"""LangGraph's ``__pregel_resuming`` in a tool's config, side by side with deepagents: a
resumed run's loop marks the tasks of the step it resumes at (the interrupted call run
again), not the calls of later steps nor any call of a run that did not resume; the same
for a subagent's tool resumed inside its `task` call."""

from __future__ import annotations

import asyncio
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, interrupt

#: (tool, the flag its config had) for each call, in call order.
SEEN: list[Any] = []


@tool
def ask(x: int, config: RunnableConfig) -> str:
    """Ask a human."""
    SEEN.append(("ask", config["configurable"].get("__pregel_resuming", "absent")))
    return f"answer {interrupt('question?')}"


@tool
def note(x: int, config: RunnableConfig) -> str:
    """Note x."""
    SEEN.append(("note", config["configurable"].get("__pregel_resuming", "absent")))
    return f"noted {x}"


def _agent(module: Any, subagent: bool) -> Any:
    calls = [
        ai_tool_calls(("note", {"x": 1}, "c1")),
        ai_tool_calls(("ask", {"x": 2}, "c2")),
        ai_tool_calls(("note", {"x": 3}, "c3")),
    ]
    if not subagent:
        model = ScriptedChatModel([*calls, "done"])
        return module.create_deep_agent(model=model, tools=[ask, note], checkpointer=InMemorySaver())
    sub = {
        "name": "worker",
        "description": "Works.",
        "system_prompt": "Work.",
        "model": ScriptedChatModel([*calls, "sub done"]),
        "tools": [ask, note],
    }
    model = ScriptedChatModel([ai_tool_calls(("task", {"description": "do", "subagent_type": "worker"}, "t1")), "done"])
    return module.create_deep_agent(model=model, subagents=[sub], checkpointer=InMemorySaver())


def _seen(module: Any, subagent: bool, asynchronous: bool) -> list[Any]:
    agent = _agent(module, subagent)
    config = {"configurable": {"thread_id": "t"}}
    SEEN.clear()
    for payload in ({"messages": [{"role": "user", "content": "go"}]}, Command(resume="yes")):
        if asynchronous:
            result = asyncio.run(agent.ainvoke(payload, config))
        else:
            result = agent.invoke(payload, config)
        SEEN.append(("stopped", "__interrupt__" in result))
    return list(SEEN)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("subagent", [False, True], ids=["root_tool", "subagent_tool"])
def test_only_the_resumed_steps_tools_see_the_resuming_flag(subagent: bool, asynchronous: bool) -> None:
    ours = _seen(deepagents_rs, subagent, asynchronous)
    assert ours == _seen(deepagents, subagent, asynchronous)
    # Not a vacuous match: the resumed call saw the flag set, no other call saw it at all.
    assert ours == [
        ("note", "absent"),
        ("ask", "absent"),
        ("stopped", True),
        ("ask", True),
        ("note", "absent"),
        ("stopped", False),
    ]
