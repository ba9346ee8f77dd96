"""Import paths of ``deepagents.middleware`` that deepagents_rs provides so far."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from .filesystem import FilesystemMiddleware, FilesystemPermission, FsToolName
from .memory import MemoryMiddleware
from .skills import SkillsMiddleware
from .subagents import CompiledSubAgent, SubAgent
from .unsupported_content import UnsupportedContentMiddleware

if TYPE_CHECKING:
    from ._subagent_middleware import SubAgentMiddleware
    from .async_subagents import AsyncSubAgent, AsyncSubAgentMiddleware, TaskEvent
    from .skills import SkillMetadata, SkillsState, SkillToolResolver
    from .summarization import (
        DEEPAGENTS_DEFAULT_SUMMARY_PROMPT,
        SummarizationMiddleware,
        SummarizationToolMiddleware,
        create_summarization_tool_middleware,
    )

# Made when first asked for, as they need LangChain: deepagents' skills types, the
# rubric's names, and summarization's face (its token counter's default is LangChain's
# `count_tokens_approximately`).
__getattr__, __dir__ = lazy_names(
    globals(),
    {
        "AsyncSubAgent": ".async_subagents",
        "AsyncSubAgentMiddleware": ".async_subagents",
        "TaskEvent": ".async_subagents",
        "SubAgentMiddleware": "._subagent_middleware",
        "SkillMetadata": ".skills",
        "SkillsState": ".skills",
        "SkillToolResolver": ".skills",
        "DEEPAGENTS_DEFAULT_SUMMARY_PROMPT": ".summarization",
        "SummarizationMiddleware": ".summarization",
        "SummarizationToolMiddleware": ".summarization",
        "create_summarization_tool_middleware": ".summarization",
        "RubricMiddleware": ".rubric",
        "GRADER_SYSTEM_PROMPT": ".rubric",
        "RUBRIC_GRADER_MESSAGE_SOURCE": ".rubric",
        "GraderResponse": "._rubric_types",
        "GraderVerdict": "._rubric_types",
        "CriterionEval": "._rubric_types",
        "CriterionFail": "._rubric_types",
        "CriterionPass": "._rubric_types",
        "RubricEvaluation": "._rubric_types",
        "RubricResult": "._rubric_types",
        "RubricState": "._rubric_types",
    },
)

__all__ = [
    "DEEPAGENTS_DEFAULT_SUMMARY_PROMPT",
    "AsyncSubAgent",
    "AsyncSubAgentMiddleware",
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
    "TaskEvent",
    "UnsupportedContentMiddleware",
    "create_summarization_tool_middleware",
]
# The rubric's names, made when first asked for (`lazy_names` above).
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
# deepagents' middleware for LangChain's own agents, made when first asked for.
__all__ += ["SubAgentMiddleware"]
