"""Import paths of ``deepagents.middleware`` that deepagents_rs provides so far."""

from __future__ import annotations

from typing import Any

from . import summarization as _summarization
from .filesystem import FilesystemMiddleware, FilesystemPermission, FsToolName
from .memory import MemoryMiddleware
from .skills import SkillsMiddleware
from .subagents import CompiledSubAgent, SubAgent
from .unsupported_content import UnsupportedContentMiddleware

# Summarization's public names, from its face module.
DEEPAGENTS_DEFAULT_SUMMARY_PROMPT = _summarization.DEEPAGENTS_DEFAULT_SUMMARY_PROMPT
SummarizationMiddleware = _summarization.SummarizationMiddleware
SummarizationToolMiddleware = _summarization.SummarizationToolMiddleware
create_summarization_tool_middleware = _summarization.create_summarization_tool_middleware

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
    "UnsupportedContentMiddleware",
    "create_summarization_tool_middleware",
]


def __getattr__(name: str) -> Any:
    # deepagents' skills types need LangChain: made when first asked for.
    if name in ("SkillMetadata", "SkillsState", "SkillToolResolver"):
        from . import skills

        return getattr(skills, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
