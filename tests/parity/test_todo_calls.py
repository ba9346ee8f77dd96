"""Parity: LangChain's ``TodoListMiddleware`` in a deep agent refuses ``write_todos`` called more
than once in one AI message: every such call gets the same error tool message (with no tool name), none of them
writes ``todos``, and the run goes on to the model's next turn. A single call in a later turn
still writes. (One call per turn is compared in ``test_injected_tools.py``.)"""

from __future__ import annotations

import pytest
from langchain.agents.middleware import TodoListMiddleware

from .harness import MODES, ai_tool_calls, assert_parity, run_both

REFUSED = (
    "Error: The `write_todos` tool should never be called multiple times in parallel."
    " Please call it only once per model invocation to update the todo list."
)

PLAN = [{"content": "sketch the API", "status": "in_progress"}, {"content": "ship", "status": "pending"}]
DONE = [{**PLAN[0], "status": "completed"}, {**PLAN[1], "status": "in_progress"}]


def _todos(todos: list[dict]) -> tuple[str, dict]:
    return ("write_todos", {"todos": todos})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("copies", [2, 3])
def test_parallel_write_todos_are_all_refused(copies: int, mode: str) -> None:
    calls = [_todos(PLAN if i % 2 == 0 else DONE) for i in range(copies)]
    script = [ai_tool_calls(*calls), ai_tool_calls(("ls", {"path": "/"}), _todos(DONE)), "planned"]
    both = run_both(
        script, None, {"messages": [{"role": "user", "content": "plan"}]}, mode=mode, middleware=[TodoListMiddleware()]
    )
    ref = assert_parity(both)
    rs = both.rs.unwrap()
    assert rs.get("todos") == ref.get("todos") == DONE
    tool_messages = [m for m in ref["messages"] if m.type == "tool"]
    assert [(m.name, m.content, m.status) for m in tool_messages[:copies]] == [(None, REFUSED, "error")] * copies
    assert [m.status for m in tool_messages[copies:]] == ["success", "success"]
    # The second model call already saw the refusals, and the run ended on the scripted reply.
    assert [m.type for m in both.ref.calls[1].messages[-copies:]] == ["tool"] * copies
    assert ref["messages"][-1].content == "planned"


@pytest.mark.parametrize("mode", MODES)
def test_parallel_write_todos_leave_no_todos(mode: str) -> None:
    script = [ai_tool_calls(_todos(PLAN), _todos(DONE)), "gave up"]
    both = run_both(
        script, None, {"messages": [{"role": "user", "content": "plan"}]}, mode=mode, middleware=[TodoListMiddleware()]
    )
    ref = assert_parity(both)
    assert both.rs.unwrap().get("todos", []) == ref.get("todos", []) == []
