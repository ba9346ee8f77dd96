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

from .. import _core
from .._core import LIMITS, SKILLS_SYSTEM_PROMPT, check_skills_prompt, skill_source_label
from ..backends.protocol import BackendProtocol
from ._core_face import CoreEntryFace, TakesContextAndResponseTypes, TracePolicyOnFirstUse
from ._skill_parts import (  # noqa: F401  # deepagents' private helpers, called by name
    _alist_skills,
    _alist_skills_with_errors,
    _format_skill_annotations,
    _list_skills,
    _list_skills_with_errors,
    _parse_skill_metadata,
    _skill_metadata_from_response,
    _truncate_skill_load_warning,
    _validate_metadata,
    _validate_skill_name,
    logger,
    warn,
)
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

_LAZY = ("SkillMetadata", "SkillsState", "SkillsStateUpdate", "SkillToolResolver")

SkillSource = str | tuple[str, str]
"""A skill source: a path (labelled after its last component), or a `(path, label)` pair."""


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


def _source_path(source: Any) -> str:
    """A source's path (deepagents' helper of that name)."""
    return _source(source)[0]


def _derive_source_label(source: Any) -> str:
    """A source's label: a pair's own, or the one deepagents derives from a bare path."""
    return _source(source)[1]


def _source(source: Any) -> tuple[str, str]:
    """A source as `(path, label)`: a bare path takes the label deepagents derives."""
    if isinstance(source, str):
        return source, skill_source_label(source)
    if isinstance(source, tuple) and len(source) == 2 and all(isinstance(part, str) for part in source):
        return source[0], source[1]
    raise TypeError(f"Invalid skill source: expected str or (str, str) tuple, got {source!r}")


class SkillsMiddleware(TakesContextAndResponseTypes, CoreEntryFace):
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

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Appends each skill named in `pinned_skills` (loaded, readable, first mention) as a
        user message holding its `SKILL.md` without the frontmatter, and clears the key;
        None when no skill is named."""
        from ._entry_call import before_model

        return before_model(self, state, runtime)

    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """`before_model` under `ainvoke`."""
        from ._entry_call import abefore_model

        return await abefore_model(self, state, runtime)

    def modify_request(self, request: Any) -> Any:
        """The request with the skills section added to its system message."""
        from ._entry_call import modify_request

        if self.system_prompt_template is None:
            return request
        # Without a resolver: the section only, no skill tools asked for or disclosed.
        return modify_request(self, request, _SKILLS_KEYS, tools=None)

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        """`handler` on the request with the skills section added to its system message and
        the tools of the skills read in its conversation disclosed; the response records
        the skill tools the call disclosed."""
        from ._entry_call import wrap

        return wrap(self, request, handler, _SKILLS_KEYS, self._call(request))

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        """`wrap_model_call` with an async `handler`."""
        from ._entry_call import awrap

        return await awrap(self, request, handler, _SKILLS_KEYS, self._call(request))

    def _call(self, request: Any) -> tuple[Any, Any]:
        """The entry for one model call outside a deepagents_rs agent, and how its handler gets
        each tool the entry passes on: the request's own by name (a deferred one the call
        discloses as an undeferred copy), a skill tool as the resolver answered it."""
        from .._core import EntryCall
        from ._entry_call import entry
        from ._summarization_call import _tool_spec

        runtime = getattr(request, "runtime", None)
        answered: dict[str, Any] = {}
        if self._tools_given:
            tools = self._skill_tools.for_call(runtime)
            answered = tools.answered
            call = EntryCall({**self._core_config(getattr(runtime, "store", None)), "tools": tools})
        else:
            call = entry(self, runtime)
        own = {_tool_spec(t)[0]: t for t in request.tools or ()}

        def tool_of(name: str, deferred: bool, description: str) -> Any:
            # The skills entry never changes a description.
            tool = own.get(name)
            if tool is None:
                return answered[name]
            extras = getattr(tool, "extras", None) or {}
            if not deferred and extras.get("defer_loading") is True:
                kept = {key: value for key, value in extras.items() if key != "defer_loading"}
                return tool.model_copy(update={"extras": kept})
            return tool

        return call, tool_of

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        """Runs a disclosed skill tool (the one its include name stands for now); a call to
        any other tool the agent does not have fails as an unknown tool."""
        include = _disclosed_record(request.state).get(request.tool_call["name"])
        if request.tool is not None or include is None:
            return handler(request)
        from langgraph.runtime import get_runtime

        return handler(self._with_tool(request, include, self._skill_tools.answer(include, get_runtime())))

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        """`wrap_tool_call` with an async `handler` (and resolver)."""
        include = _disclosed_record(request.state).get(request.tool_call["name"])
        if request.tool is not None or include is None:
            return await handler(request)
        from langgraph.runtime import get_runtime

        tools = await self._skill_tools.aanswer(include, get_runtime())
        return await handler(self._with_tool(request, include, tools))

    @staticmethod
    def _with_tool(request: Any, include: str, tools: list[Any]) -> Any:
        name = request.tool_call["name"]
        tool = next((t for t in tools if t.name == name), None)
        if tool is None:
            warn(f"Skill tool '{name}' was disclosed via '{include}', but the resolver no longer returns it")
            return request
        return request.override(tool=tool)

    def _format_skills_locations(self) -> str:
        """The sources as the skills section lists them."""
        return _core.skills_locations(list(zip(self.sources, self.source_labels, strict=True)))

    def _format_skills_list(self, skills: list[Any]) -> str:
        """The skills as the section lists them (where to create some, when there are none)."""
        return _core.skills_list_text(list(zip(self.sources, self.source_labels, strict=True)), skills)

    def _format_skills_load_warnings(self, errors: list[str]) -> str:
        """The load warnings block of the section (empty without errors)."""
        return _core.skills_load_warnings(errors)

    def _core_config(self, store: Any = None) -> dict[str, Any]:
        """The configuration the core builds its skills entry from."""
        from .._backend_adapter import backend_arg

        return {
            "kind": "skills",
            "backend": backend_arg(self._backend, store),
            "sources": list(zip(self.sources, self.source_labels, strict=True)),
            "system_prompt": self.system_prompt_template,
            "read_frontmatter": frontmatter_views,
            "warn": warn,
            "tools": self._skill_tools,
        }


def _disclosed_record(state: Mapping[str, object]) -> dict[str, str]:
    """`state`'s record of the skill tools disclosed to the latest model call (tool name to
    include name), empty when missing or not a `{str: str}` dict."""
    record = state.get("_skill_tools_disclosed")
    if not isinstance(record, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in record.items()):
        return {}
    return record


def disclosed_skill_tool_names(state: Mapping[str, object]) -> frozenset[str]:
    """The skill tools disclosed to the latest model call, from `state`'s record (empty for
    a missing record or one that is not a `{str: str}` dict)."""
    return frozenset(_disclosed_record(state))


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
