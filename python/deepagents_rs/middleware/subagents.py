"""Subagent specs, as ``deepagents.middleware.subagents`` defines them.

``create_deep_agent(subagents=[...])`` takes plain dicts; these TypedDicts type them.
"""

# No `from __future__ import annotations` here: TypedDict reads NotRequired from real annotations.

from collections.abc import Callable, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from .._core import DEFAULT_GENERAL_PURPOSE_DESCRIPTION, DEFAULT_SUBAGENT_PROMPT


class SubAgent(TypedDict):
    """A declarative subagent.

    By default it is isolated: it starts with only the task description. ``mode="fork"``
    makes it continue the caller's conversation instead (and keeps the caller's prompt cache).
    """

    name: str
    description: str
    tools: NotRequired[Sequence[Any | Callable | dict[str, Any]]]
    model: NotRequired[str | Any]
    middleware: NotRequired[list[Any]]
    interrupt_on: NotRequired[dict[str, bool | Any]]
    skills: NotRequired[list[str]]
    permissions: NotRequired[list[Any]]
    response_format: NotRequired[Any]
    system_prompt: NotRequired[str]
    mode: NotRequired[Literal["isolated", "fork"]]


class CompiledSubAgent(TypedDict):
    """A prebuilt runnable as a subagent: anything with ``invoke``/``ainvoke`` over
    ``{"messages": [...]}`` that returns a state with ``messages``."""

    name: str
    description: str
    runnable: Any
    mode: NotRequired[Literal["isolated", "fork"]]


SUBAGENT_RESPONSE_FORMAT_CONFIG_KEY = "__deepagents_subagent_response_format"
"""The run config's ``configurable`` key under which a caller asks an agent run as a
subagent to answer in a response format of its choosing."""

GENERAL_PURPOSE_SUBAGENT: SubAgent = {
    "name": "general-purpose",
    "description": DEFAULT_GENERAL_PURPOSE_DESCRIPTION,
    "system_prompt": DEFAULT_SUBAGENT_PROMPT,
}

__all__ = [
    "DEFAULT_GENERAL_PURPOSE_DESCRIPTION",
    "DEFAULT_SUBAGENT_PROMPT",
    "GENERAL_PURPOSE_SUBAGENT",
    "SUBAGENT_RESPONSE_FORMAT_CONFIG_KEY",
    "CompiledSubAgent",
    "SubAgent",
]
