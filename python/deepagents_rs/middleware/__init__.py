"""Import paths of ``deepagents.middleware`` that deepagents_rs provides so far."""

from __future__ import annotations

from .filesystem import FilesystemMiddleware, FilesystemPermission, FsToolName
from .memory import MemoryMiddleware
from .subagents import CompiledSubAgent, SubAgent

__all__ = [
    "CompiledSubAgent",
    "FilesystemMiddleware",
    "FilesystemPermission",
    "FsToolName",
    "MemoryMiddleware",
    "SubAgent",
]
