"""deepagents' `PatchToolCallsMiddleware`, for LangChain's `create_agent` and direct calls:
before the agent runs, each tool call in the history that never got a result gets an error
result right after its AI message, so a provider accepts the conversation.

Which calls dangle and what their results say is the core's (`_core.dangling_tool_results`,
the `PatchToolCallsMiddleware` entry every deepagents_rs agent runs).
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime

from .. import _convert
from .._core import dangling_tool_results
from ._core_face import TracePolicyOnFirstUse


class PatchToolCallsMiddleware(AgentMiddleware):
    """Middleware to patch dangling tool calls in the messages history."""

    trace_policy = TracePolicyOnFirstUse()
    """Hook inputs are left out of traces (LangChain's `omit_payload`), as deepagents does."""

    def before_agent(self, state: AgentState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """The history with an error result after every call that has none (the whole
        history replaced), or `None` when every call has its result."""
        messages = state["messages"]
        if not messages:
            return None
        results = dangling_tool_results([_convert.to_core(m) for m in messages])
        if results is None:
            return None
        following: dict[int, list[Any]] = {}
        for after, result in results:
            message = _convert.from_core(result)
            # The graph's reducer gives it an id, as for deepagents' new `ToolMessage`.
            message.id = None
            following.setdefault(after, []).append(message)
        patched: list[Any] = []
        for i, message in enumerate(messages):
            patched.append(message)
            patched.extend(following.get(i, ()))
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *patched]}
