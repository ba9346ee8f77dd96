"""deepagents' `SummarizationState`, which needs LangChain: imported only when asked for.

No `from __future__ import annotations` here: LangChain reads the annotations at runtime.
"""

from typing import Annotated, Any, NotRequired

from langchain.agents.middleware.types import AgentState, PrivateStateAttr


class SummarizationState(AgentState):
    """State schema for `SummarizationMiddleware`: the latest summarization event and the
    session id naming the history file; both private, so never in the agent's output."""

    _summarization_event: Annotated[NotRequired[Any], PrivateStateAttr]
    _summarization_session_id: Annotated[NotRequired[str], PrivateStateAttr]
