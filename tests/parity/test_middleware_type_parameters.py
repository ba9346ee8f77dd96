"""Parity: deepagents' middleware classes generic in the run's context and response types
(``MemoryMiddleware[Ctx, Resp]``), the ones that are not, and the module names deepagents'
own tests reach (``logger`` of memory, skills and summarization, ``middleware.permissions``,
the backends' re-imported protocol names), side by side.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

import pytest

IMPLS = ("deepagents", "deepagents_rs")

CLASSES = [
    ("middleware.filesystem", "FilesystemMiddleware"),
    ("middleware.memory", "MemoryMiddleware"),
    ("middleware.skills", "SkillsMiddleware"),
    ("middleware.unsupported_content", "UnsupportedContentMiddleware"),
    ("middleware.rubric", "RubricMiddleware"),
    ("middleware.async_subagents", "AsyncSubAgentMiddleware"),
    ("middleware.summarization", "SummarizationToolMiddleware"),
    ("middleware.patch_tool_calls", "PatchToolCallsMiddleware"),
]

ARGUMENTS: list[Any] = [(int, str), int, (int,), (int, str, bytes), ()]


def outcome(fn: Any) -> Any:
    try:
        alias = fn()
    except TypeError as e:
        return ("TypeError", str(e).replace("deepagents_rs.", "deepagents."))
    return ("alias", type(alias).__name__, alias.__origin__.__name__, alias.__args__)


@pytest.mark.parametrize(("module", "name"), CLASSES)
@pytest.mark.parametrize("arguments", ARGUMENTS, ids=range(len(ARGUMENTS)))
def test_subscription(module: str, name: str, arguments: Any) -> None:
    ref, ours = (getattr(importlib.import_module(f"{impl}.{module}"), name) for impl in IMPLS)
    assert outcome(lambda: ours[arguments]) == outcome(lambda: ref[arguments])


def test_alias_makes_the_middleware() -> None:
    from deepagents_rs.backends import StateBackend
    from deepagents_rs.middleware.memory import MemoryMiddleware

    made = MemoryMiddleware[dict, str](backend=StateBackend(), sources=["/AGENTS.md"])
    assert type(made) is MemoryMiddleware
    assert made.sources == ["/AGENTS.md"]


@pytest.mark.parametrize("module", ["middleware.memory", "middleware.skills", "middleware.summarization"])
def test_module_logger(module: str) -> None:
    ref, ours = (importlib.import_module(f"{impl}.{module}").logger for impl in IMPLS)
    assert isinstance(ours, logging.Logger)
    assert isinstance(ref, logging.Logger)


def test_permissions_module() -> None:
    from deepagents_rs.middleware import filesystem, permissions

    assert permissions.FilesystemPermission is filesystem.FilesystemPermission
    assert permissions.__all__ == importlib.import_module("deepagents.middleware.permissions").__all__


@pytest.mark.parametrize("module", ["backends.filesystem", "backends.context_hub"])
def test_backends_reimports(module: str) -> None:
    """The protocol and utils names deepagents' backend modules import are importable from
    ours, and are the protocol's own."""
    ref = importlib.import_module(f"deepagents.{module}")
    ours = importlib.import_module(f"deepagents_rs.{module}")
    names = []
    for source in ("backends.protocol", "backends.utils"):
        ref_source = importlib.import_module(f"deepagents.{source}")
        our_source = importlib.import_module(f"deepagents_rs.{source}")
        for name, value in vars(ref).items():
            if name.startswith("__") or vars(ref_source).get(name) is not value:
                continue
            if not isinstance(value, str) and not getattr(value, "__module__", "").startswith("deepagents"):
                continue  # the standard library's names
            if name in {"_filter_files_by_path", "_relative_to_root"}:
                continue  # helpers of deepagents' context hub the core's hub does not have
            names.append(name)
            assert getattr(ours, name) is getattr(our_source, name)
    assert "FILE_NOT_FOUND" in names
