"""A tool's ``Command`` writing a key the agent's state does not declare, side by side with
deepagents: LangGraph ignores a write to a channel the graph does not have, so the key is in
neither the result, the streamed updates and values, nor a checkpointed thread; a key the
agent's ``state_schema`` (or a middleware's) declares is kept; a subagent's tool is held to
the subagent's state."""

from __future__ import annotations

from typing import Any, NotRequired

import deepagents
import deepagents_rs
import pytest
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from .harness import ScriptedChatModel, ai_tool_calls, norm, norm_files
from .test_tool_commands import PassOn

USER = {"messages": [{"role": "user", "content": "go"}]}


@tool("t")
def noting(x: str, runtime: ToolRuntime) -> Command:
    """Do the thing."""
    return Command(update={"note": x, "messages": [ToolMessage("done", tool_call_id=runtime.tool_call_id)]})


class NoteState(AgentState):
    note: NotRequired[str]


class NoteMiddleware(AgentMiddleware):
    state_schema = NoteState


SCRIPT = [ai_tool_calls(("t", {"x": "1"})), AIMessage("fin")]
SUB_SCRIPT = [
    ai_tool_calls(("task", {"description": "d", "subagent_type": "sub"})),
    ai_tool_calls(("t", {"x": "2"})),
    AIMessage("sub done"),
    AIMessage("fin"),
]
SUBAGENT = {"name": "sub", "description": "s", "system_prompt": "p", "tools": [noting]}

CASES: dict[str, tuple[list, dict[str, Any]]] = {
    "undeclared": (SCRIPT, {"tools": [noting]}),
    "undeclared_checkpointed": (SCRIPT, {"tools": [noting], "checkpointer": "saver"}),
    "through_wrap_tool_call": (SCRIPT, {"tools": [noting], "middleware": [PassOn()]}),
    "state_schema_declares": (SCRIPT, {"tools": [noting], "state_schema": NoteState}),
    "middleware_declares": (SCRIPT, {"tools": [noting], "middleware": [NoteMiddleware()]}),
    "subagent_undeclared": (SUB_SCRIPT, {"tools": [], "subagents": [SUBAGENT]}),
    "root_declares_subagent_not": (SUB_SCRIPT, {"tools": [], "subagents": [SUBAGENT], "state_schema": NoteState}),
}


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: (norm(v) if k == "messages" else norm_files(v) if k == "files" else _shape(v)) for k, v in value.items()
        }
    if isinstance(value, tuple):
        return tuple(_shape(v) for v in value)
    return value


def _run(module: Any, name: str, stream: bool) -> Any:
    script, kwargs = CASES[name]
    kwargs = dict(kwargs)
    config = None
    if kwargs.get("checkpointer") == "saver":
        kwargs["checkpointer"] = InMemorySaver()
        config = {"configurable": {"thread_id": "t"}}
    agent = module.create_deep_agent(model=ScriptedChatModel(list(script)), **kwargs)
    if stream:
        chunks = agent.stream(USER, config, stream_mode=["updates", "values"], subgraphs=True)
        return [(len(ns), mode, _shape(chunk)) for ns, mode, chunk in chunks]
    result = _shape(agent.invoke(USER, config))
    if config is not None:
        return result, _shape(agent.get_state(config).values)
    return result


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_undeclared_keys_of_a_tool_command(name: str, stream: bool) -> None:
    assert _run(deepagents_rs, name, stream) == _run(deepagents, name, stream)
