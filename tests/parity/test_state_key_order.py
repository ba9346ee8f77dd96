"""The order of the keys of a run's result, of its ``values`` chunks and of
``get_state().values``, side by side with deepagents: LangGraph's channel order (the resolved
state schema's: ``messages``, ``structured_response``, ``files``, then the middleware's and
the user's keys), whatever order the input gave them in. With a user ``state_schema``, a
middleware's schema, memory and skills; with and without a saver."""

from __future__ import annotations

import operator
from typing import Annotated, Any, NotRequired

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command


class _Schema(AgentState):
    zeta: NotRequired[int]
    acc: NotRequired[Annotated[list, operator.add]]


class _Own(AgentState):
    alpha: NotRequired[str]


class _Keys(AgentMiddleware):
    state_schema = _Own


@tool
def write(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Write the keys."""
    update = {"alpha": "a", "acc": ["t"], "zeta": 2}
    return Command(update={**update, "messages": [ToolMessage("ok", tool_call_id=tool_call_id)]})


def _files() -> dict:
    skill = "---\nname: s\ndescription: a skill\n---\nbody\n"
    entry = {"encoding": "utf-8", "created_at": "t", "modified_at": "t"}
    return {"/AGENTS.md": {**entry, "content": "memo"}, "/skills/s/SKILL.md": {**entry, "content": skill}}


KINDS = {
    "schema": {"state_schema": _Schema, "middleware": [_Keys()]},
    "memory and skills": {"state_schema": _Schema, "memory": ["/AGENTS.md"], "skills": ["/skills/"]},
}


def _agent(module: Any, kind: str, saver: bool) -> Any:
    return module.create_deep_agent(
        model=ScriptedChatModel(responses=[ai_tool_calls(("write", {})), AIMessage("done")]),
        tools=[write],
        checkpointer=InMemorySaver() if saver else None,
        **KINDS[kind],
    )


def _run(module: Any, kind: str, saver: bool) -> dict:
    agent = _agent(module, kind, saver)
    config = {"configurable": {"thread_id": "t"}}
    # The input lists the keys in an order of its own.
    payload = {"acc": ["in"], "zeta": 1, "files": _files(), "messages": [("user", "go")]}
    if kind == "schema":
        payload["alpha"] = "in"
    chunks = [list(c) for c in agent.stream(payload, config, stream_mode="values")]
    out = {"values": chunks}
    if saver:
        out["state"] = list(agent.get_state(config).values)
    out["result"] = list(_agent(module, kind, saver).invoke(payload, config))
    return out


@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_keys_come_in_langgraph_s_channel_order(kind, saver):
    theirs = _run(deepagents, kind, saver)
    assert theirs["result"].index("files") < theirs["result"].index("acc")
    assert _run(deepagents_rs, kind, saver) == theirs
