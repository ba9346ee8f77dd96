"""Tools that LangGraph's tool node hands the run to (``ToolRuntime``, ``InjectedState``)
and that answer with a ``Command`` writing state keys: ``write_todos`` from LangChain's
``TodoListMiddleware``, deepagents' opt-in planning tool, and a user tool of the same kind."""

from __future__ import annotations

from typing import Annotated, NotRequired

import pytest
from langchain.agents.middleware import AgentMiddleware, AgentState, TodoListMiddleware
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.prebuilt import InjectedState
from langgraph.types import Command

from .harness import MODES, ai_tool_calls, assert_parity, run_both


@pytest.mark.parametrize("mode", MODES)
def test_write_todos_updates_the_todos_key(mode: str) -> None:
    todos = [{"content": "read the docs", "status": "in_progress"}, {"content": "write it", "status": "pending"}]
    script = [
        ai_tool_calls(("write_todos", {"todos": todos})),
        ai_tool_calls(("write_todos", {"todos": [{**todos[0], "status": "completed"}, todos[1]]})),
        "done",
    ]
    both = run_both(
        script, None, {"messages": [{"role": "user", "content": "plan"}]}, mode=mode, middleware=[TodoListMiddleware()]
    )
    assert_parity(both)
    ref, rs = both.ref.unwrap(), both.rs.unwrap()
    assert rs["todos"] == ref["todos"] == [{**todos[0], "status": "completed"}, todos[1]]
    assert [t["function"]["name"] for t in both.rs.calls[0].tools][-1] == "write_todos"


@tool
def remember(note: str, runtime: ToolRuntime) -> Command:
    """Remember a note next to what the run has seen."""
    seen = len(runtime.state["messages"])
    return Command(
        update={
            "notes": [note],
            "messages": [ToolMessage(f"noted after {seen} messages", tool_call_id=runtime.tool_call_id)],
        }
    )


@tool
def count(state: Annotated[dict, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Count the messages so far."""
    return f"{len(state['messages'])} messages, files: {sorted(state.get('files') or {})}"


class _NotesState(AgentState):
    notes: NotRequired[list[str]]


class _Notes(AgentMiddleware):
    """Declares the ``notes`` key ``remember`` writes (LangGraph refuses undeclared keys)."""

    state_schema = _NotesState


@pytest.mark.parametrize("mode", MODES)
def test_tools_get_the_runtime_and_the_state(mode: str) -> None:
    script = [
        ai_tool_calls(("write_file", {"file_path": "/a.md", "content": "x"})),
        ai_tool_calls(("remember", {"note": "n1"}), ("count", {})),
        "done",
    ]
    both = run_both(
        script,
        [remember, count],
        {"messages": [{"role": "user", "content": "go"}]},
        mode=mode,
        middleware=[_Notes()],
    )
    assert_parity(both)
    rs = both.rs.unwrap()
    assert rs["notes"] == ["n1"]
    contents = [m.content for m in rs["messages"] if m.type == "tool"]
    assert contents[1:] == ["noted after 4 messages", "4 messages, files: ['/a.md']"]
