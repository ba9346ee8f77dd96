"""Where ``AsyncSubAgentMiddleware`` sits in the main agent's stack, deepagents and
deepagents_rs side by side: its slot after ``PatchToolCallsMiddleware`` (ahead of the caller's
middleware and the harness profile's), a caller's entry of its name taking that slot, and a
harness profile excluding it. No server is needed: the model is offered the tools and
answers without calling them."""

from __future__ import annotations

from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain.agents.middleware import AgentMiddleware

from .harness import ScriptedChatModel, call_view
from .profile_support import isolated_profiles  # noqa: F401 - autouse fixture

SPEC = {"name": "researcher", "description": "Researches.", "graph_id": "child", "url": "http://127.0.0.1:9"}
OTHER = {"name": "writer", "description": "Writes.", "graph_id": "writer", "url": "http://127.0.0.1:9"}
USER = {"messages": [{"role": "user", "content": "hello"}]}


class Marker(AgentMiddleware):
    """A caller's middleware whose tool shows where it sits among the tools offered."""

    def __init__(self) -> None:
        super().__init__()

        def mark(x: str) -> str:
            """Mark."""
            return x

        from langchain_core.tools import tool

        self.tools = [tool(mark)]


def _calls(impl: Any, **kwargs: Any) -> list[dict]:
    model = ScriptedChatModel(["hi"])
    impl.create_deep_agent(model=model, **kwargs).invoke(USER)
    return [call_view(c) for c in model.calls]


def _tool_names(view: list[dict]) -> list[str]:
    return [t["function"]["name"] for t in view[0]["tools"]]


@pytest.mark.parametrize(
    "case",
    ["specs", "caller_entry_takes_the_slot", "caller_entry_alone", "profile_excludes"],
)
def test_the_async_subagents_slot(case):
    views = []
    for impl in (deepagents, deepagents_rs):
        kwargs: dict[str, Any] = {"subagents": [SPEC]}
        if case == "caller_entry_takes_the_slot":
            mine = impl.AsyncSubAgentMiddleware(async_subagents=[OTHER], system_prompt="Delegate.")
            kwargs["middleware"] = [Marker(), mine]
        elif case == "caller_entry_alone":
            mine = impl.AsyncSubAgentMiddleware(async_subagents=[OTHER], system_prompt="Delegate.")
            kwargs = {"middleware": [Marker(), mine]}
        elif case == "profile_excludes":
            impl.register_harness_profile(
                "scriptedchatmodel", impl.HarnessProfile(excluded_middleware=frozenset({"AsyncSubAgentMiddleware"}))
            )
        else:
            kwargs["middleware"] = [Marker()]
        views.append(_calls(impl, **kwargs))
    assert views[1] == views[0]
    names = _tool_names(views[1])
    async_tools = [n for n in names if n.endswith("async_task") or n == "list_async_tasks"]
    if case == "profile_excludes":
        assert async_tools == []
    else:
        assert len(async_tools) == 5
        # Ahead of the caller's middleware when it has the slot; after it when it is only
        # the caller's.
        ahead = names.index("start_async_task") < names.index("mark")
        assert ahead == (case != "caller_entry_alone")
