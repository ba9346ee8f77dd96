"""``create_deep_agent(state_schema=...)``: a ``DeepAgentState`` subclass's keys are taken as
input, kept in the state, given to tools and middleware, written by tools' Commands, shown in
the output (private and output-omitted keys as LangGraph keeps them) and checkpointed, as in
deepagents."""

from __future__ import annotations

from typing import Annotated, NotRequired

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import OmitFromOutput, PrivateStateAttr
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import InjectedState
from langgraph.types import Command


def _schema(module):
    class MoodState(module.DeepAgentState):
        mood: NotRequired[str]
        visits: NotRequired[int]
        secret: NotRequired[Annotated[str, PrivateStateAttr]]
        scratch: NotRequired[Annotated[str, OmitFromOutput]]

    return MoodState


@tool
def cheer(state: Annotated[dict, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Lift the mood."""
    message = ToolMessage(f"was {state.get('mood')}, visits {state.get('visits')}", tool_call_id=tool_call_id)
    return Command(update={"mood": "cheerful", "visits": state.get("visits", 0) + 1, "messages": [message]})


class Count(AgentMiddleware):
    def before_model(self, state, runtime):
        return {"visits": state.get("visits", 0) + 1, "scratch": "seen"}


def _run(module, saver=None):
    model = ScriptedChatModel(responses=[ai_tool_calls(("cheer", {})), AIMessage("better")])
    agent = module.create_deep_agent(
        model=model, tools=[cheer], middleware=[Count()], state_schema=_schema(module), checkpointer=saver
    )
    config = {"configurable": {"thread_id": "t"}} if saver else None
    result = agent.invoke({"messages": [("user", "hi")], "mood": "grumpy", "secret": "s", "scratch": "x"}, config)
    out = {k: v for k, v in result.items() if k != "messages"}
    tools = [m.content for m in result["messages"] if m.type == "tool"]
    state = None
    if saver:
        values = agent.get_state(config).values
        state = {k: v for k, v in values.items() if k not in ("messages", "files")}
    return out, tools, state, sorted(agent.get_input_jsonschema()["properties"]), agent.output_channels


@pytest.mark.parametrize("saver", [None, InMemorySaver], ids=["plain", "checkpointed"])
def test_state_schema_keys(saver):
    ours = _run(deepagents_rs, saver() if saver else None)
    theirs = _run(deepagents, saver() if saver else None)
    assert ours == theirs
    assert ours[0]["mood"] == "cheerful" and ours[0]["visits"] == 3
    assert ours[1] == ["was grumpy, visits 1"]
