"""Import paths of ``deepagents.middleware`` that deepagents_rs provides so far."""

from __future__ import annotations

from typing import Any

from .filesystem import FilesystemMiddleware, FilesystemPermission, FsToolName
from .memory import MemoryMiddleware
from .skills import SkillsMiddleware
from .subagents import CompiledSubAgent, SubAgent

__all__ = [
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
]


def __getattr__(name: str) -> Any:
    # deepagents' skills types need LangChain: made when first asked for.
    if name in ("SkillMetadata", "SkillsState", "SkillToolResolver"):
        from . import skills

        return getattr(skills, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
