"""Subagent specs, as ``deepagents.middleware.subagents`` defines them, and
``SubAgentMiddleware`` (its ``task`` tool and ``create_sub_agent``) for LangChain's own
``create_agent``.

``create_deep_agent(subagents=[...])`` takes plain dicts; these TypedDicts type them. The
middleware's names need LangChain: they are made when first asked for.
"""

# No `from __future__ import annotations` here: TypedDict reads NotRequired from real annotations.

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

from .._core import DEFAULT_GENERAL_PURPOSE_DESCRIPTION, DEFAULT_SUBAGENT_PROMPT, SUBAGENT_TEXTS
from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._subagent_middleware import SubAgentMiddleware
    from ._task_tool import TaskToolSchema, create_sub_agent


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

TASK_TOOL_DESCRIPTION = SUBAGENT_TEXTS["TASK_TOOL_DESCRIPTION"]
"""The ``task`` tool's description; ``{available_agents}`` takes the subagents' listing."""

_FORKED_SUBAGENT_TOOL_NOTE = SUBAGENT_TEXTS["FORKED_SUBAGENT_TOOL_NOTE"]
"""Ends a fork's line in the listing: without it the model reads every subagent as
stateless and may not delegate to a fork."""


def _describe_subagent_for_tool(name: str, description: str, *, forked: bool) -> str:
    """One subagent's line in the ``task`` tool's listing."""
    return f"- {name}: {description}{_FORKED_SUBAGENT_TOOL_NOTE if forked else ''}"


GENERAL_PURPOSE_SUBAGENT: SubAgent = {
    "name": "general-purpose",
    "description": DEFAULT_GENERAL_PURPOSE_DESCRIPTION,
    "system_prompt": DEFAULT_SUBAGENT_PROMPT,
}

__getattr__, __dir__ = lazy_names(
    globals(),
    {
        "SubAgentMiddleware": "._subagent_middleware",
        **dict.fromkeys(
            (
                "TaskToolSchema",
                "create_sub_agent",
                "_build_task_tool",
                "_fork_messages",
                "_get_subagent_response_format",
                "_is_unchanged",
                "_subagent_tracing_context",
                "_ForkTaskToolMiddleware",
                "_ForkedContextState",
                "_EXCLUDED_STATE_KEYS",
                "_FORK_EXCLUDED_STATE_KEYS",
                "_FORKED_CONTEXT_KEY",
                "_FORK_RECURSION_REFUSAL",
                "_FORK_TASK_PREAMBLE",
                "_TASK_TOOL_INJECTED_ARGS",
                "_validate_unique_subagent_names",
                "_validate_subagent_mode",
                "_is_compiled_subagent",
                "_is_forked_subagent",
                "_is_forked_compiled_subagent",
            ),
            "._task_tool",
        ),
    },
)

__all__ = [
    "DEFAULT_GENERAL_PURPOSE_DESCRIPTION",
    "DEFAULT_SUBAGENT_PROMPT",
    "GENERAL_PURPOSE_SUBAGENT",
    "SUBAGENT_RESPONSE_FORMAT_CONFIG_KEY",
    "TASK_TOOL_DESCRIPTION",
    "CompiledSubAgent",
    "SubAgent",
    "SubAgentMiddleware",
    "TaskToolSchema",
    "create_sub_agent",
]
