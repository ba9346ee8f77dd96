"""A tool's error leaves the run with the notes LangGraph's runner adds to a task's error
("During task with name 'tools' and id '<task id>'"), one per task it leaves, innermost
first, side by side with deepagents: with and without a saver, from ``invoke``, ``stream``
and ``ainvoke``, a subagent's tool failing its own task and the `task` call's. Each note's
id is the task id the failing tool's config carries (its ``langgraph_checkpoint_ns``)."""

from __future__ import annotations

from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from .error_notes_support import run_error, task_notes

#: The failing tool's task namespace, as its config had it (the last call's).
SEEN: list[str] = []


@tool
def boom(x: int, config: RunnableConfig) -> str:
    """Fail."""
    SEEN.append(config["metadata"]["langgraph_checkpoint_ns"])
    raise RuntimeError(f"kaboom {x}")


def _agent(module: Any, subagent: bool, saver: bool) -> Any:
    kwargs: dict[str, Any] = {"checkpointer": InMemorySaver()} if saver else {}
    if not subagent:
        return module.create_deep_agent(
            model=ScriptedChatModel([ai_tool_calls(("boom", {"x": 1}, "c1")), "done"]), tools=[boom], **kwargs
        )
    sub = {
        "name": "worker",
        "description": "Works.",
        "system_prompt": "Work.",
        "model": ScriptedChatModel([ai_tool_calls(("boom", {"x": 2}, "c2")), "sub done"]),
        "tools": [boom],
    }
    model = ScriptedChatModel([ai_tool_calls(("task", {"description": "do", "subagent_type": "worker"}, "c1")), "done"])
    return module.create_deep_agent(model=model, subagents=[sub], **kwargs)


def _failure(module: Any, api: str, subagent: bool, saver: bool) -> tuple[BaseException, str]:
    agent = _agent(module, subagent, saver)
    payload = {"messages": [{"role": "user", "content": "go"}]}
    config = {"configurable": {"thread_id": "t"}}
    SEEN.clear()
    return run_error(agent, api, payload, config), SEEN[-1]


@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize("subagent", [False, True], ids=["root_tool", "subagent_tool"])
@pytest.mark.parametrize("api", ["invoke", "stream", "ainvoke"])
def test_a_tools_error_carries_its_tasks_notes(api: str, subagent: bool, saver: bool) -> None:
    shapes = []
    for module in (deepagents, deepagents_rs):
        exc, task_ns = _failure(module, api, subagent, saver)
        assert str(exc) == f"kaboom {2 if subagent else 1}"
        # Each task the error left, innermost first: the ids the tool's own config names.
        expected = [tuple(segment.split(":")) for segment in reversed(task_ns.split("|"))]
        found = task_notes(exc, module.__name__)
        assert found == expected, module.__name__
        shapes.append([name for name, _ in found])
    assert shapes[0] == shapes[1] == (["tools", "tools"] if subagent else ["tools"])
