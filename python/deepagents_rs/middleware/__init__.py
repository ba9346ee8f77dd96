"""Import paths of ``deepagents.middleware`` that deepagents_rs provides so far."""

from __future__ import annotations

from .filesystem import FilesystemMiddleware, FilesystemPermission, FsToolName
from .memory import MemoryMiddleware
from .subagents import CompiledSubAgent, SubAgent
from .summarization import (
    DEEPAGENTS_DEFAULT_SUMMARY_PROMPT,
    SummarizationMiddleware,
    SummarizationToolMiddleware,
    create_summarization_tool_middleware,
)

__all__ = [
    "DEEPAGENTS_DEFAULT_SUMMARY_PROMPT",
    "CompiledSubAgent",
    "FilesystemMiddleware",
    "FilesystemPermission",
    "FsToolName",
    "MemoryMiddleware",
    "SubAgent",
    "SummarizationMiddleware",
    "SummarizationToolMiddleware",
    "create_summarization_tool_middleware",
]
