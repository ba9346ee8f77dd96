"""Built-in profile of Claude Opus 4.7: deepagents' system-prompt suffix for it, kept with the other
Anthropic suffixes in `deepagents_rs._harness_texts`."""

from __future__ import annotations

from deepagents_rs._harness_texts import SYSTEM_PROMPT_SUFFIXES
from deepagents_rs.profiles.harness.harness_profiles import HarnessProfile, _register_harness_profile_impl

_MODEL_SPEC = "anthropic:claude-opus-4-7"
_SYSTEM_PROMPT_SUFFIX = SYSTEM_PROMPT_SUFFIXES[_MODEL_SPEC]


def register() -> None:
    """Add the profile under its model (called once, by the bootstrap)."""
    _register_harness_profile_impl(_MODEL_SPEC, HarnessProfile(system_prompt_suffix=_SYSTEM_PROMPT_SUFFIX))
