"""deepagents' `MemoryState`, which needs LangChain: imported only when asked for.

No `from __future__ import annotations` here: LangChain reads the annotations at runtime.
"""

from typing import Annotated, NotRequired

from langchain.agents.middleware.types import AgentState, PrivateStateAttr


class MemoryState(AgentState):
    """State schema for `MemoryMiddleware`: `memory_contents` maps each source path to its
    loaded content; private, so it is never in the agent's output."""

    memory_contents: NotRequired[Annotated[dict[str, str], PrivateStateAttr]]
