"""`deepagents.middleware.skills`'s public face: `SkillsMiddleware` and its texts.

Skills are found, shown to the model and pinned by the Rust core (`src/middleware/skills/`).
`SkillsMiddleware` here checks its arguments as deepagents does and hands the core its
configuration, with its skill tools (`_skill_tools`); `create_deep_agent(skills=[...])` builds one the way deepagents does, and a
user's own goes in `middleware=[...]`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

from .._core import LIMITS, SKILLS_SYSTEM_PROMPT, check_skills_prompt, skill_source_label
from ..backends.protocol import BackendProtocol
from ._core_face import CoreEntryFace, TracePolicyOnFirstUse
from ._skill_tools import SkillTools, resolver_of
from ._skills_frontmatter import frontmatter_views

# `SkillMetadata`, `SkillsState` and `SkillToolResolver` are here too, made when first asked for.
__all__ = ["SkillsMiddleware", "disclosed_skill_tool_names"]

#: The state keys of skills: two kept out of the output, two private.
SKILLS_OMITTED_KEYS = frozenset({"skills_metadata", "pinned_skills"})
SKILLS_PRIVATE_KEYS = frozenset({"skills_load_errors", "_skill_tools_disclosed"})
#: The state keys the skills entry reads around a model call.
_SKILLS_KEYS = ("skills_metadata", "skills_load_errors", "_skill_tools_disclosed")

#: deepagents' limits on skill files, as the core applies them.
MAX_SKILL_FILE_SIZE: int = LIMITS["MAX_SKILL_FILE_SIZE"]
MAX_SKILL_NAME_LENGTH: int = LIMITS["MAX_SKILL_NAME_LENGTH"]
MAX_SKILL_DESCRIPTION_LENGTH: int = LIMITS["MAX_SKILL_DESCRIPTION_LENGTH"]
MAX_SKILL_COMPATIBILITY_LENGTH: int = LIMITS["MAX_SKILL_COMPATIBILITY_LENGTH"]
MAX_SKILLS_LOAD_WARNINGS: int = LIMITS["MAX_SKILLS_LOAD_WARNINGS"]
MAX_SKILL_LOAD_WARNING_LENGTH: int = LIMITS["MAX_SKILL_LOAD_WARNING_LENGTH"]

_LAZY = ("SkillMetadata", "SkillsState", "SkillToolResolver")


@cache
def _lazy(name: str) -> Any:
    """deepagents' `SkillsState` and friends (None without LangChain)."""
    try:
        from . import _skills_state
    except ImportError:
        return None
    return getattr(_skills_state, name)


class _StateSchema:
    """A class attribute made when first read: deepagents' `SkillsState` needs LangChain."""

    def __get__(self, obj: Any, owner: type) -> type | None:
        return _lazy("SkillsState")


def _source(source: Any) -> tuple[str, str]:
    """A source as `(path, label)`: a bare path takes the label deepagents derives."""
    if isinstance(source, str):
        return source, skill_source_label(source)
    if isinstance(source, tuple) and len(source) == 2 and all(isinstance(part, str) for part in source):
        return source[0], source[1]
    raise TypeError(f"Invalid skill source: expected str or (str, str) tuple, got {source!r}")


class SkillsMiddleware(CoreEntryFace):
    """Loads agent skills from backend sources and lists them in the system prompt.

    Each skill is a directory holding a `SKILL.md` with YAML frontmatter (`name`,
    `description`, ...). The sources are listed through `backend` once per thread (again
    when `skills_metadata` is set to `None`); later sources override earlier ones by name.
    The model sees each skill's name and description, and reads the file when it applies.

    Args:
        backend: Backend the sources are listed and read through.
        sources: Skill directories: a path, or a `(path, label)` pair.
        system_prompt: Template of the skills section, with `{skills_locations}`,
            `{skills_load_warnings}` and `{skills_list}` slots; `None` loads skills
            without showing them.
        tools: Skill tools: a list of tools (plain functions converted as `create_agent`
            converts them), or a `SkillToolResolver` returning the tools an include name
            stands for. A skill lists them under `metadata.include_tools` in its
            frontmatter; the model is offered them once it has read that skill (or the
            skill is pinned), for as long as the read stays in the conversation, and a
            call to one before that fails as an unknown tool.

    Raises:
        TypeError: For a source that is neither a str nor a `(str, str)` tuple, a
            `system_prompt` that is neither `str` nor `None`, a single tool as `tools`, or
            a provider-native tool dict among them.
        ValueError: If `system_prompt` lacks a slot, or two `tools` share a name.
    """

    trace_policy = TracePolicyOnFirstUse()
    state_schema = _StateSchema()
    """deepagents' `SkillsState`."""

    def __init__(
        self, *, backend: BackendProtocol, sources: Sequence[str | tuple[str, str]],
        system_prompt: str | None = SKILLS_SYSTEM_PROMPT, tools: Any = None,
    ) -> None:  # fmt: skip
        """Check and keep the settings, under deepagents' attribute names."""
        check_skills_prompt(system_prompt)
        pairs = [_source(s) for s in sources]
        resolver = resolver_of(tools)
        self._backend = backend
        self.sources: list[str] = [path for path, _ in pairs]
        self.source_labels: list[str] = [label for _, label in pairs]
        self.system_prompt_template = system_prompt
        # Not in `self.tools`, which the agent registers: a skill tool runs only when
        # disclosed.
        self.tools: list[Any] = []
        self._skill_tools = SkillTools(resolver)
        self._tools_given = tools is not None

    def before_agent(self, state: Any, runtime: Any, config: RunnableConfig) -> dict[str, Any] | None:
        """Lists the sources through the backend into `skills_metadata` (later sources
        overriding earlier ones by name) and `skills_load_errors`, unless `skills_metadata`
        holds a list already."""
        from ._entry_call import before_agent

        return before_agent(self, state, runtime, config)

    async def abefore_agent(self, state: Any, runtime: Any, config: RunnableConfig) -> dict[str, Any] | None:
        """`before_agent` under `ainvoke`."""
        from ._entry_call import abefore_agent

        return await abefore_agent(self, state, runtime, config)

    def modify_request(self, request: Any) -> Any:
        """The request with the skills section added to its system message."""
        from ._entry_call import modify_request

        if self.system_prompt_template is None:
            return request
        self._check_direct_call()
        return modify_request(self, request, _SKILLS_KEYS)

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        """`handler` on the request with the skills section added to its system message;
        the response records the skill tools the call disclosed."""
        return self._wrap(request, handler)

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        """`wrap_model_call` with an async `handler`."""
        from ._entry_call import awrap

        self._check_direct_call()
        return await awrap(self, request, handler, _SKILLS_KEYS)

    def _wrap(self, request: Any, handler: Any) -> Any:
        from ._entry_call import wrap

        self._check_direct_call()
        return wrap(self, request, handler, _SKILLS_KEYS)

    def _check_direct_call(self) -> None:
        # The core discloses skill tools by changing the request's tools, which the direct
        # call does not hand back yet.
        if self._tools_given:
            raise NotImplementedError(
                "deepagents_rs: SkillsMiddleware(tools=...) runs only inside a deepagents_rs agent; "
                "its model hook outside one (LangChain's create_agent, a direct call) takes no skill tools yet"
            )

    def _core_config(self, store: Any = None) -> dict[str, Any]:
        """The configuration the core builds its skills entry from."""
        from .._backend_adapter import backend_arg

        return {
            "kind": "skills",
            "backend": backend_arg(self._backend, store),
            "sources": list(zip(self.sources, self.source_labels, strict=True)),
            "system_prompt": self.system_prompt_template,
            "read_frontmatter": frontmatter_views,
            "tools": self._skill_tools,
        }


def disclosed_skill_tool_names(state: Mapping[str, object]) -> frozenset[str]:
    """The skill tools disclosed to the latest model call, from `state`'s record (empty for
    a missing record or one that is not a `{str: str}` dict)."""
    record = state.get("_skill_tools_disclosed")
    if not isinstance(record, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in record.items()):
        return frozenset()
    return frozenset(record)


def passed_skills_middleware(middleware: Sequence[Any]) -> SkillsMiddleware | None:
    """A `SkillsMiddleware` that takes the skills slot by its name, as deepagents looks for one."""
    return next((m for m in middleware if isinstance(m, SkillsMiddleware) and m.name == "SkillsMiddleware"), None)


def __getattr__(name: str) -> Any:
    # `SkillsState` and friends need LangChain: made when first asked for.
    if name in _LAZY:
        value = _lazy(name)
        if value is not None:
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
