"""Import paths of ``deepagents.middleware`` that deepagents_rs provides so far."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from .filesystem import FilesystemMiddleware, FilesystemPermission, FsToolName
from .memory import MemoryMiddleware
from .skills import SkillsMiddleware
from .subagents import CompiledSubAgent, SubAgent

if TYPE_CHECKING:
    from .skills import SkillMetadata, SkillsState, SkillToolResolver
    from .summarization import (
        DEEPAGENTS_DEFAULT_SUMMARY_PROMPT,
        SummarizationMiddleware,
        SummarizationToolMiddleware,
        create_summarization_tool_middleware,
    )

# Made when first asked for, as they need LangChain: deepagents' skills types, and
# summarization's face (its token counter's default is LangChain's `count_tokens_approximately`).
__getattr__, __dir__ = lazy_names(
    globals(),
    {
        "SkillMetadata": ".skills",
        "SkillsState": ".skills",
        "SkillToolResolver": ".skills",
        "DEEPAGENTS_DEFAULT_SUMMARY_PROMPT": ".summarization",
        "SummarizationMiddleware": ".summarization",
        "SummarizationToolMiddleware": ".summarization",
        "create_summarization_tool_middleware": ".summarization",
    },
)

__all__ = [
    "DEEPAGENTS_DEFAULT_SUMMARY_PROMPT",
    "CompiledSubAgent",
    "FilesystemMiddleware",
    "FilesystemPermission",
    "FsToolName",
    "MemoryMiddleware",
    "SkillMetadata",
    "SkillToolResolver",
    "SkillsMiddleware",
    "SkillsState",
    "SubAgent",
    "SummarizationMiddleware",
    "SummarizationToolMiddleware",
    "create_summarization_tool_middleware",
]
