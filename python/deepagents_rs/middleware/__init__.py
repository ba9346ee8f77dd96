"""Import paths of ``deepagents.middleware`` that deepagents_rs provides so far."""

from __future__ import annotations

from . import summarization as _summarization
from .filesystem import FilesystemMiddleware, FilesystemPermission, FsToolName
from .memory import MemoryMiddleware
from .subagents import CompiledSubAgent, SubAgent

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
    "SubAgent",
    "SummarizationMiddleware",
    "SummarizationToolMiddleware",
    "create_summarization_tool_middleware",
]
