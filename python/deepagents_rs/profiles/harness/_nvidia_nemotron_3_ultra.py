"""Built-in profile of NVIDIA Nemotron 3 Ultra, wherever it is served: a system-prompt suffix,
a `read_file` description that insists on reading whole files page by page, and middleware
that repairs the model's observed tool-calling, file, context and final-answer habits.

The middleware, outermost first (the order matters: the budget stops before any other model
call work, the argument shim runs before the `read_file` notice reads the arguments):

- `NemotronProgressBudgetMiddleware` and `NemotronPolicyNudgeMiddleware` (`budget`, `nudges`);
- `NemotronToolCallShim`, `ReadFileContinuationNoticeMiddleware` (`tool_repairs`) and
  LangChain's `ToolRetryMiddleware` retrying a failed file tool once;
- `ModelRateLimitRetryMiddleware`, `ChatNVIDIAMessageCompatibilityMiddleware`,
  `NemotronReasoningTagCleanupMiddleware`, `NemotronTextToolCallParser` (`model_repairs`);
- `FollowupDisciplineMiddleware`, `EntityResolutionGuardMiddleware`,
  `FinalAnswerGuardMiddleware` (`guards`).

They live in `deepagents_rs._nemotron` (this package mirrors deepagents' module layout) and
load on first use. Registered per model (not provider-wide), under each spec the serving
clients report.
"""

from __future__ import annotations

import importlib
from typing import Any

from deepagents_rs._nemotron import texts
from deepagents_rs.profiles.harness.harness_profiles import HarnessProfile, _register_harness_profile_impl

#: Where each middleware (and helper) lives; loaded on first use, so that registering the
#: profile (which every agent's first profile lookup does) loads no LangChain.
_LAZY = {
    "NemotronProgressBudgetMiddleware": "budget",
    "NemotronPolicyNudgeMiddleware": "nudges",
    "NemotronPolicyNudgeState": "nudges",
    "NemotronToolCallShim": "tool_repairs",
    "ReadFileContinuationNoticeMiddleware": "tool_repairs",
    "ModelRateLimitRetryMiddleware": "model_repairs",
    "ChatNVIDIAMessageCompatibilityMiddleware": "model_repairs",
    "NemotronReasoningTagCleanupMiddleware": "model_repairs",
    "NemotronTextToolCallParser": "model_repairs",
    "FollowupDisciplineMiddleware": "guards",
    "FollowupDisciplineState": "guards",
    "EntityResolutionGuardMiddleware": "guards",
    "EntityResolutionGuardState": "guards",
    "FinalAnswerGuardMiddleware": "guards",
    "FinalAnswerGuardState": "guards",
    "_tool_name_is_domain": "conversation:is_domain_tool",
    "_tool_name_is_mutation": "conversation:is_mutation_tool",
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, _, attr = where.partition(":")
    value = getattr(importlib.import_module(f"deepagents_rs._nemotron.{module}"), attr or name)
    globals()[name] = value
    return value


# NVIDIA's API twice (`ChatNVIDIA` reports `NVIDIA`, `init_chat_model("nvidia:...")` `nvidia`),
# then the other providers serving the model.
_NEMOTRON_ULTRA_MODEL_SPECS: tuple[str, ...] = tuple(
    f"{provider}:{model}"
    for provider, model in (
        ("NVIDIA", "nvidia/nemotron-3-ultra-550b-a55b"),
        ("nvidia", "nvidia/nemotron-3-ultra-550b-a55b"),
        ("baseten", "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B"),
        ("fireworks", "accounts/fireworks/models/nemotron-3-ultra-nvfp4"),
        ("fireworks", "accounts/fireworks/models/nemotron-3-ultra-bf16"),
        ("openrouter", "nvidia/nemotron-3-ultra-550b-a55b"),
        ("nebius", "nvidia/Nemotron-3-Ultra-550b-a55b"),
        ("together", "nvidia/nemotron-3-ultra-550b-a55b"),
    )
)
"""The model specs the profile is registered under (provider and identifier as reported)."""

_FILESYSTEM_TOOLS: tuple[str, ...] = ("ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep")
"""deepagents' file tools (the retry middleware retries these)."""

_DEFAULT_READ_LIMIT = 500
"""The `limit` the shim gives a `read_file` call without one."""

_EMPTY_TOOL_PLACEHOLDER = texts.EMPTY_TOOL_RESULT
_SYSTEM_PROMPT_SUFFIX = texts.SYSTEM_PROMPT_SUFFIX
_READ_FILE_DESCRIPTION_OVERRIDE = texts.READ_FILE_DESCRIPTION
_HARNESS_PROFILE_SUFFIX_MARKER = "<state_changes>"
"""A section only this profile's suffix has (tests look for it)."""

_STACK = (
    "NemotronProgressBudgetMiddleware",
    "NemotronPolicyNudgeMiddleware",
    "NemotronToolCallShim",
    "ReadFileContinuationNoticeMiddleware",
    "ToolRetryMiddleware",
    "ModelRateLimitRetryMiddleware",
    "ChatNVIDIAMessageCompatibilityMiddleware",
    "NemotronReasoningTagCleanupMiddleware",
    "NemotronTextToolCallParser",
    "FollowupDisciplineMiddleware",
    "EntityResolutionGuardMiddleware",
    "FinalAnswerGuardMiddleware",
)
"""The profile's middleware by name, outermost first."""


def _build_extra_middleware() -> list[Any]:
    """A fresh stack for each agent (the middleware keeps no state, the retry's is its own)."""
    from langchain.agents.middleware import ToolRetryMiddleware

    # One immediate retry of a failed file tool; a second failure goes to the model as it is.
    once = {"max_retries": 1, "initial_delay": 0.0, "max_delay": 0.0, "backoff_factor": 1.0, "jitter": False}
    file_tool_retry = ToolRetryMiddleware(tools=list(_FILESYSTEM_TOOLS), on_failure="continue", **once)
    return [file_tool_retry if name == "ToolRetryMiddleware" else __getattr__(name)() for name in _STACK]


def register() -> None:
    """Add the profile under each Nemotron 3 Ultra spec (called once, by the bootstrap)."""
    overrides = {"read_file": _READ_FILE_DESCRIPTION_OVERRIDE}
    profile = HarnessProfile(
        extra_middleware=_build_extra_middleware,
        tool_description_overrides=overrides,
        system_prompt_suffix=_SYSTEM_PROMPT_SUFFIX,
    )
    for key in _NEMOTRON_ULTRA_MODEL_SPECS:
        _register_harness_profile_impl(key, profile)
