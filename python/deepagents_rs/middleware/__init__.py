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

#: The rubric's names (its modules need LangChain: imported when first asked for).
_RUBRIC_NAMES = {
    "RubricMiddleware": "rubric",
    "GRADER_SYSTEM_PROMPT": "rubric",
    "RUBRIC_GRADER_MESSAGE_SOURCE": "rubric",
    "GraderResponse": "_rubric_types",
    "GraderVerdict": "_rubric_types",
    "CriterionEval": "_rubric_types",
    "CriterionFail": "_rubric_types",
    "CriterionPass": "_rubric_types",
    "RubricEvaluation": "_rubric_types",
    "RubricResult": "_rubric_types",
    "RubricState": "_rubric_types",
}

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
# The rubric's names, made when first asked for (`__getattr__` below).
__all__ += [
    "GRADER_SYSTEM_PROMPT",
    "RUBRIC_GRADER_MESSAGE_SOURCE",
    "CriterionEval",
    "CriterionFail",
    "CriterionPass",
    "GraderResponse",
    "GraderVerdict",
    "RubricEvaluation",
    "RubricMiddleware",
    "RubricResult",
    "RubricState",
]


def __getattr__(name: str) -> Any:
    # deepagents' skills types need LangChain: made when first asked for.
    if name in ("SkillMetadata", "SkillsState", "SkillToolResolver"):
        from . import skills

        return getattr(skills, name)
    if name in _RUBRIC_NAMES:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_RUBRIC_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
