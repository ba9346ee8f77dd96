"""``DeepAgentState``: deepagents' agent state, the base a ``state_schema`` extends.

LangChain's ``AgentState`` with ``messages`` kept as a delta channel (each checkpoint stores
the messages a step added, not the whole list), merged as LangGraph's ``add_messages`` merges.
Needs LangChain and LangGraph; ``deepagents_rs.DeepAgentState`` imports it on first use.
"""

from typing import Annotated, Required

from langchain.agents.middleware.types import AgentState
from langchain_core.messages import AnyMessage
from langgraph.channels.delta import DeltaChannel

from ._messages_reducer import _messages_reducer
from ._threads import _SNAPSHOT_FREQUENCY


class DeepAgentState(AgentState):
    """AgentState with `DeltaChannel` on messages to reduce checkpoint growth from O(N²) to O(N)."""

    messages: Required[Annotated[list[AnyMessage], DeltaChannel(_messages_reducer, snapshot_frequency=_SNAPSHOT_FREQUENCY)]]  # fmt: skip


__all__ = ["DeepAgentState"]
