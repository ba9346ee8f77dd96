"""deepagents' `SkillsState`, `SkillMetadata` and `SkillToolResolver`, which need LangChain
and LangGraph: imported only when asked for.

No `from __future__ import annotations` here: LangChain reads the annotations at runtime.
"""

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, NotRequired, TypedDict

from langchain.agents.middleware.types import AgentState, OmitFromOutput, PrivateStateAttr
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime


class SkillMetadata(TypedDict):
    """A skill as its `SKILL.md` frontmatter describes it (Agent Skills specification)."""

    path: str
    name: str
    description: str
    license: str | None
    compatibility: str | None
    metadata: dict[str, str]
    allowed_tools: list[str]


def _append_skill_names(left: list[str] | None, right: list[str] | None) -> list[str]:
    """Two writes of `pinned_skills` in one step add up; a missing one counts as empty."""
    return [*(left or []), *(right or [])]


class SkillsState(AgentState):
    """State schema for `SkillsMiddleware`: the loaded skills and the names to pin are kept
    out of the output; the load's errors and the disclosure record are private."""

    pinned_skills: NotRequired[Annotated[list[str], OmitFromOutput, _append_skill_names]]
    skills_metadata: NotRequired[Annotated[list[SkillMetadata] | None, OmitFromOutput]]
    skills_load_errors: NotRequired[Annotated[list[str], PrivateStateAttr]]
    _skill_tools_disclosed: NotRequired[Annotated[dict[str, str], PrivateStateAttr]]


SkillToolResolver = Callable[[str, Runtime], Sequence[BaseTool] | Awaitable[Sequence[BaseTool]]]
"""Returns the skill tools one `metadata.include_tools` name stands for."""


class SkillsStateUpdate(TypedDict):
    """A state update of the skills middleware: the loaded skills, and the sources' errors."""

    skills_metadata: list[SkillMetadata]
    # A string, as deepagents' (its module postpones annotations): typed as not required,
    # the key is required at runtime (`__required_keys__`) as in deepagents.
    skills_load_errors: "NotRequired[list[str]]"
