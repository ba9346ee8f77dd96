"""deepagents' `SummarizationState` and `SummarizationDefaults`, which need LangChain:
imported only when asked for.

No `from __future__ import annotations` here: LangChain reads the annotations at runtime.
"""

from typing import Annotated, NotRequired, TypedDict

from langchain.agents.middleware.summarization import ContextSize
from langchain.agents.middleware.types import AgentState, PrivateStateAttr

from .summarization import SummarizationEvent, TruncateArgsSettings


class SummarizationState(AgentState):
    """State schema for `SummarizationMiddleware`: the latest summarization event and the
    session id naming the history file; both private, so never in the agent's output."""

    _summarization_event: Annotated[NotRequired[SummarizationEvent | None], PrivateStateAttr]
    _summarization_session_id: Annotated[NotRequired[str | None], PrivateStateAttr]


class SummarizationDefaults(TypedDict):
    """What `compute_summarization_defaults` returns for a model: when to summarize, what
    to keep, and when and how far to shorten old tool-call arguments."""

    trigger: ContextSize
    keep: ContextSize
    truncate_args_settings: TruncateArgsSettings
