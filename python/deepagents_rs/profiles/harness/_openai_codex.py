"""Built-in profile of the OpenAI Codex models: a suffix shaping how they work (act without
asking, batch tool calls, keep the to-do list tidy) and the `write_todos` tool the suffix
refers to. Registered per model, so other OpenAI models are untouched."""

from __future__ import annotations

from typing import Any

from deepagents_rs._harness_texts import CODEX_SYSTEM_PROMPT_SUFFIX
from deepagents_rs.profiles.harness.harness_profiles import HarnessProfile, _register_harness_profile_impl

_SYSTEM_PROMPT_SUFFIX = CODEX_SYSTEM_PROMPT_SUFFIX

_CODEX_MODEL_SPECS = ("openai:gpt-5.1-codex", "openai:gpt-5.2-codex", "openai:gpt-5.3-codex")
"""The Codex models: one suffix fits the family."""


def _build_extra_middleware() -> list[Any]:
    """LangChain's `TodoListMiddleware`, a new one for each stack (no state shared between them)."""
    from langchain.agents.middleware import TodoListMiddleware

    return [TodoListMiddleware()]


def register() -> None:
    """Add the Codex profile to the registry under each Codex model (called once, by the bootstrap)."""
    profile = HarnessProfile(system_prompt_suffix=_SYSTEM_PROMPT_SUFFIX, extra_middleware=_build_extra_middleware)
    for spec in _CODEX_MODEL_SPECS:
        _register_harness_profile_impl(spec, profile)
