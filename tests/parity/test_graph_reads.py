"""What code written for deepagents reads off or patches into its graph module and compiled
graph, side by side with deepagents: the tools its tool node runs, by name
(``graph.nodes["tools"].bound._tools_by_name``), and ``deepagents.graph.resolve_model``,
which resolves every model string of ``create_deep_agent`` (the agent's and its subagents'),
replaced by a test's own."""

from __future__ import annotations

import asyncio
from typing import Any
from unittest.mock import patch

import deepagents
import deepagents_rs
import pytest
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import tool

from .harness import MODES, ScriptedChatModel, ai_tool_calls, norm

USER = {"messages": [{"role": "user", "content": "go"}]}


@tool("sample_tool")
def sample_tool(x: str) -> str:
    """A sample tool."""
    return x


class WithTool(AgentMiddleware):
    tools = [sample_tool]  # noqa: RUF012 - LangChain's class attribute


def _tool_names(module: Any, **kwargs: Any) -> list[str]:
    agent = module.create_deep_agent(model=ScriptedChatModel([]), **kwargs)
    return list(agent.nodes["tools"].bound._tools_by_name)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"tools": [sample_tool]},
        {"middleware": [WithTool()]},
        {"subagents": [{"name": "w", "description": "w", "system_prompt": "s"}]},
    ],
    ids=["default", "tools", "middleware_tools", "subagents"],
)
def test_the_tool_nodes_tools_by_name(kwargs: dict) -> None:
    ref = _tool_names(deepagents, **kwargs)
    assert _tool_names(deepagents_rs, **kwargs) == ref
    assert "write_file" in ref


def _patched(module: Any, mode: str) -> tuple:
    """A deep agent (and a subagent) built from model strings, through a replaced
    ``resolve_model`` that hands out scripted models."""
    built: list[str] = []
    models = {
        "claude-sonnet-4-6": ScriptedChatModel(
            [ai_tool_calls(("task", {"description": "d", "subagent_type": "w"}, "c1")), "done"]
        ),
        "sub-model": ScriptedChatModel(["sub done"]),
    }

    def resolve(spec: Any) -> Any:
        built.append(spec)
        return models[spec]

    target = "deepagents.graph.resolve_model" if module is deepagents else "deepagents_rs.graph.resolve_model"
    with patch(target, side_effect=resolve):
        spec = {"name": "w", "description": "w", "system_prompt": "s", "model": "sub-model"}
        agent = module.create_deep_agent(model="claude-sonnet-4-6", subagents=[spec])
    result = agent.invoke(USER) if mode == "invoke" else asyncio.run(agent.ainvoke(USER))
    return norm(result["messages"]), sorted(set(built)), [len(m.calls) for m in models.values()]


@pytest.mark.parametrize("mode", MODES)
def test_a_replaced_resolve_model_builds_every_model(mode: str) -> None:
    ref = _patched(deepagents, mode)
    assert _patched(deepagents_rs, mode) == ref
    assert ref[1] == ["claude-sonnet-4-6", "sub-model"]
    assert ref[2] == [2, 1]
