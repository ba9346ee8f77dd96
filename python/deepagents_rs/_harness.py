"""Harness profiles applied to the stacks `create_deep_agent` builds.

Which profile: the one of the model each stack runs (`profile_for`); a model string is looked
up as written, a model object (or a string a subagent inherits, which deepagents has built by
then) by the provider and identifier it reports. What it does to a stack:

- the prompt: its `base_system_prompt` replaces the stack's base and its suffix follows
  (`_apply_profile_prompt`); the main agent's base is empty and follows the caller's prompt;
- the tools: `tool_description_overrides` rewrite the caller's LangChain and dict tools
  (`described`), the file tools (through their configuration) and `task`;
- the middleware: `extra_middleware` joins the stack after the caller's, `excluded_middleware`
  drops entries (`_excluded_middleware`), `excluded_tools` hides tools (the core's last
  entry); each stack's part goes to the core as its `profile` (`_subagents._profile_part`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import _compat, _convert
from .profiles.harness.harness_profiles import (
    GeneralPurposeSubagentProfile,
    HarnessProfile,
    _apply_profile_prompt,
    _harness_profile_for_model,
)


class _Built:
    """What deepagents' resolved chat model reports, for a model string deepagents_rs serves
    itself: the identifier and the provider LangChain would give it."""

    def __init__(self, provider: str, name: str) -> None:
        self.model_name = name
        self._provider = provider

    def _get_ls_params(self) -> dict[str, str]:
        return {"ls_provider": self._provider}


def profile_for(model: Any, *, as_built: bool = False) -> HarnessProfile:
    """The harness profile of `model`: a string is looked up as written unless `as_built`
    (a subagent inheriting its parent's model, or `model=None`'s default: deepagents looks those
    up on the chat model it built), an object by what it reports."""
    if not isinstance(model, str):
        return _harness_profile_for_model(model, None)
    if not as_built:
        return _harness_profile_for_model(None, model)
    from ._model_spec import _BUILTIN_PROVIDERS, parse_model_spec
    from .profiles.provider.provider_profiles import get_provider_profile

    # The provider `init_chat_model` would pick (a provider profile may name it), reported as
    # LangChain's integration for it reports itself (for the native providers, Anthropic and
    # OpenAI, under that same name).
    provider_profile = get_provider_profile(model)
    chosen = provider_profile.init_kwargs.get("model_provider") if provider_profile is not None else None
    provider, name = parse_model_spec(model, chosen)
    built = type(_BUILTIN_PROVIDERS.get(provider, ("", "BaseChatModel"))[1], (_Built,), {})
    return _harness_profile_for_model(built(provider, name), None)


def system_message(system_prompt: Any, profile: HarnessProfile) -> dict:
    """The main agent's system message: the caller's prompt, then the profile's (its base and
    suffix) after a blank line: appended to a string, or as a block of a `SystemMessage`."""
    own = _apply_profile_prompt(profile, "")
    system = _convert.system_to_core(system_prompt)
    if not own:
        return system
    if system_prompt is None:
        system["content"] = own
    elif isinstance(system_prompt, str):
        system["content"] = f"{system_prompt}\n\n{own}"
    else:
        content = system["content"]
        # Its content blocks, as LangChain lists them (an empty text has none).
        blocks = ([{"type": "text", "text": content}] if content else []) if isinstance(content, str) else list(content)
        system["content"] = [*blocks, {"type": "text", "text": f"\n\n{own}"}]
    return system


def subagent_system(system_prompt: Any, profile: HarnessProfile) -> dict:
    """A declarative subagent's system message: its own prompt as the profile shapes it."""
    if isinstance(system_prompt, str):
        system_prompt = _apply_profile_prompt(profile, system_prompt)
    return _convert.system_to_core(system_prompt)


def general_purpose_system(default: str, profile: HarnessProfile) -> dict:
    """The general-purpose subagent's system message: the profile's own prompt for it wins over
    its `base_system_prompt`, and the suffix follows either."""
    own = (profile.general_purpose_subagent or GeneralPurposeSubagentProfile()).system_prompt
    if own is None:
        return _convert.system_to_core(_apply_profile_prompt(profile, default))
    suffix = profile.system_prompt_suffix
    return _convert.system_to_core(own if suffix is None else f"{own}\n\n{suffix}")


def described(tools: Sequence[Any] | None, overrides: Any) -> list[Any] | None:
    """`tools` with the profile's descriptions: LangChain tools and dict tools are copied with
    the new one, plain functions kept as they are (deepagents has no hook for them)."""
    if tools is None or not overrides:
        return None if tools is None else list(tools)
    from ._tools import _tool_name

    out = []
    for tool in tools:
        name = _tool_name(tool)
        description = overrides.get(name) if name is not None else None
        if description is not None and isinstance(tool, dict):
            tool = {**tool, "description": description}
        elif description is not None and _compat.is_lc_tool(tool):
            tool = tool.model_copy(update={"description": description})
        out.append(tool)
    return out


def task_description(profile: HarnessProfile) -> str | Callable[[str], str] | None:
    """The `task` tool's description from the profile: as written, or, when it has the
    `{available_agents}` slot, a function filling it with the list of subagents."""
    template = profile.tool_description_overrides.get("task")
    if template is None or "{available_agents}" not in template:
        return template
    return lambda listing: template.format(available_agents=listing)


def has_stack_part(profile: HarnessProfile) -> bool:
    """Whether the profile changes a stack's middleware or tool set (not only texts)."""
    return bool(profile.extra_middleware or profile.excluded_middleware or profile.excluded_tools)
