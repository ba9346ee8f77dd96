"""A subagent's ``values`` chunks under ``subgraphs=True`` show the keys of the subagent's own
graph, side by side with deepagents: a parent key declared only by the parent's middleware's
``state_schema`` is not in a general-purpose or custom subagent's chunks (their graphs lack
it), but is in a fork's (it runs the parent's middleware's schemas) and in a subagent's that
has that middleware; declared by ``create_deep_agent``'s ``state_schema=``, every subagent
has it. Without a saver and on a thread. A tool the subagent calls sees the same state: the
key is in it only where the subagent's graph has it.
"""

from __future__ import annotations

from typing import Any, NotRequired

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain.tools import ToolRuntime, tool
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

#: Forked subagents are a beta feature of deepagents (a warning on each run).
pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


class _NotesState(AgentState):
    notes: NotRequired[str]


class _Declares(AgentMiddleware):
    state_schema = _NotesState


def _subagents(kind: str) -> list[dict[str, Any]] | None:
    if kind == "general-purpose":
        return None
    spec: dict[str, Any] = {"name": kind, "description": "Does work.", "system_prompt": "Work."}
    if kind == "fork":
        spec["mode"] = "fork"
    if kind == "declaring":
        spec["middleware"] = [_Declares()]
    return [spec]


def _chunks(module: Any, kind: str, declared_by: str, saver: bool) -> list:
    script = [
        ai_tool_calls(("task", {"description": "d", "subagent_type": kind}, "t1")),
        AIMessage("sub done"),
        AIMessage("done"),
    ]
    kwargs: dict[str, Any] = (
        {"middleware": [_Declares()]} if declared_by == "middleware" else {"state_schema": _NotesState}
    )
    agent = module.create_deep_agent(
        model=ScriptedChatModel(script),
        subagents=_subagents(kind),
        checkpointer=InMemorySaver() if saver else None,
        **kwargs,
    )
    config = {"configurable": {"thread_id": "t"}}
    payload = {"messages": [("user", "go")], "notes": "parent notes"}
    out = []
    for ns, chunk in agent.stream(payload, config, stream_mode="values", subgraphs=True):
        out.append((tuple(n.split(":")[0] for n in ns), sorted(chunk), chunk.get("notes")))
    return out


@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize("declared_by", ["middleware", "state_schema"])
@pytest.mark.parametrize("kind", ["general-purpose", "worker", "declaring", "fork"])
def test_subagent_values_show_its_keys(kind: str, declared_by: str, saver: bool) -> None:
    theirs = _chunks(deepagents, kind, declared_by, saver)
    ours = _chunks(deepagents_rs, kind, declared_by, saver)
    sub = [keys for ns, keys, _ in theirs if ns]
    assert sub, "the reference streamed no subagent values"
    # The reference's subagent shows the key only where its graph has it.
    has_key = declared_by == "state_schema" or kind in ("declaring", "fork")
    assert all(("notes" in keys) == has_key for keys in sub)
    assert ours == theirs


def _seen_by_tool(module: Any, kind: str, declared_by: str) -> list:
    seen: list = []

    @tool
    def peek(runtime: ToolRuntime) -> str:
        """Look at the state."""
        seen.append(runtime.state.get("notes", "<absent>"))
        return "ok"

    script = [
        ai_tool_calls(("task", {"description": "d", "subagent_type": kind}, "t1")),
        ai_tool_calls(("peek", {}, "p1")),
        AIMessage("sub done"),
        AIMessage("done"),
    ]
    kwargs: dict[str, Any] = (
        {"middleware": [_Declares()]} if declared_by == "middleware" else {"state_schema": _NotesState}
    )
    subagents = _subagents(kind)
    for spec in subagents or ():
        spec["tools"] = [peek]
    agent = module.create_deep_agent(model=ScriptedChatModel(script), tools=[peek], subagents=subagents, **kwargs)
    agent.invoke({"messages": [("user", "go")], "notes": "parent notes"})
    return seen


@pytest.mark.parametrize("declared_by", ["middleware", "state_schema"])
@pytest.mark.parametrize("kind", ["general-purpose", "worker", "declaring"])
def test_subagent_state_holds_its_keys(kind: str, declared_by: str) -> None:
    theirs = _seen_by_tool(deepagents, kind, declared_by)
    has_key = declared_by == "state_schema" or kind == "declaring"
    assert theirs == ["parent notes" if has_key else "<absent>"]
    assert _seen_by_tool(deepagents_rs, kind, declared_by) == theirs
