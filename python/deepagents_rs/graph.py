"""``create_deep_agent``: the drop-in entry point. The agent it returns is ``_deep_agent.DeepAgent``
(also importable from here, resolved on first use)."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, get_type_hints

from . import _fs_interrupts, _graph_texts, _models
from ._assembly import (
    SchemaOf,
    StateKeys,
    _check_unique_middleware,
    _core_model,
    _deprecation_category,
    _human_in_the_loop,
    _split_filesystem,
    face_parts,
)
from ._backend_adapter import arg_uses_state, fs_config
from ._core import CoreAgent
from ._excluded_middleware import Exclusions, main_slots
from ._harness import described, profile_for, system_message, task_description
from ._lazy import lazy_names
from ._middleware import core_entries
from ._middleware_schema import reducer_defaults
from ._models import resolve_model
from ._output_keys import channel_order
from ._reducers import reducers_of
from ._structured import make_response_format, tools_may_end, with_schema_tool
from ._subagents import Parent, build_specs
from ._summarization import core_config as summarization_config
from ._threads import StateSchemas
from ._tools import ToolAdapter, to_adapter
from .backends.state import StateBackend
from .middleware.memory import MEMORY_CONTENTS_KEY, MemoryMiddleware
from .middleware.skills import SKILLS_OMITTED_KEYS, SKILLS_PRIVATE_KEYS, SkillsMiddleware, passed_skills_middleware

# `GENERAL_PURPOSE_SUBAGENT` is in deepagents' graph module too; the key, in ours since before.
from .middleware.subagents import GENERAL_PURPOSE_SUBAGENT, SUBAGENT_RESPONSE_FORMAT_CONFIG_KEY  # noqa: F401
from .profiles.harness.harness_profiles import REQUIRED_MIDDLEWARE_NAMES as _REQUIRED_MIDDLEWARE_NAMES  # noqa: F401

if TYPE_CHECKING:
    from ._deep_agent import DeepAgent

#: deepagents compiles its graph with this recursion limit.
DEFAULT_RECURSION_LIMIT = 9999
DEFAULT_MODEL = "anthropic:claude-sonnet-4-6"

_MODEL_NONE_WARNING = (
    "Passing `model=None` to `create_deep_agent` is deprecated and will be removed in "
    "deepagents==1.0.0. The `model` parameter type will change from "
    "`BaseChatModel | str | None` to `BaseChatModel | str`. Specify a model explicitly "
    "(e.g., `ChatAnthropic(model_name=...)`). See https://docs.langchain.com/oss/python/deepagents/models"
)

# Config keys that only steer LangChain tracing; with no tracer they have nothing to do.
_STATE_KEYS = ("messages", "files")


#: Where a run's config carries the agent's store to the tool runtime (``DeepAgent._prepare``).
_CONFIG_KEY_STORE = "__deepagents_rs_store"

#: The private state keys of deepagents' default middleware: never in the output nor an
#: isolated subagent's input. Summarization's event and session are checkpointed; the file
#: tools' blob cache is not (an untracked channel).
_DEFAULT_PRIVATE_KEYS = frozenset({"_summarization_event", "_summarization_session_id", "_blob_payloads"})


def create_deep_agent(
    model: str | Any | None = None,
    tools: Sequence[Any] | None = None,
    *,
    system_prompt: str | Any | None = None,
    middleware: Sequence[Any] = (),
    subagents: Sequence[Any] | None = None,
    skills: list[str] | None = None,
    memory: list[str] | None = None,
    permissions: list[Any] | None = None,
    backend: Any | None = None,
    interrupt_on: dict[str, Any] | None = None,
    response_format: Any | None = None,
    state_schema: type | None = None,
    context_schema: type | None = None,
    checkpointer: Any | None = None,
    store: Any | None = None,
    debug: bool = False,
    name: str | None = None,
    cache: Any | None = None,
) -> DeepAgent:
    """Create a deep agent, as ``deepagents.create_deep_agent`` does.

    Args:
        model: ``"anthropic:<model>"`` for the native Rust client (reads ``ANTHROPIC_API_KEY``
            and ``ANTHROPIC_BASE_URL``), or any LangChain ``BaseChatModel``, called back from
            Rust. ``None`` is deprecated and means ``"anthropic:claude-sonnet-4-6"``.
        tools: Plain functions (sync or async), LangChain tools, or dict tool specs.
        system_prompt: A string or a ``SystemMessage``; the harness profile of the model
            (``register_harness_profile``) may append to it.
        name: The agent's name, also set on its AI messages.

    The harness profile of the model shapes the agent and its subagents as in deepagents:
    prompt, tool descriptions, hidden tools, middleware, the general-purpose subagent.
    """
    # deepagents builds the default model itself, and looks its profile up on the built model.
    built_default = model is None
    if model is None:
        warnings.warn(_MODEL_NONE_WARNING, _deprecation_category(), stacklevel=2)
        model = DEFAULT_MODEL
    profile = profile_for(model, as_built=built_default)
    exclusions = Exclusions(profile)
    exclusions.check_required()

    raw_tools = list(tools or ())
    adapters = _adapt(described(raw_tools, profile.tool_description_overrides))
    system = system_message(system_prompt, profile)
    structured = make_response_format(response_format, model=model, tools=adapters)
    core_model = _own_resolver(_core_model)(model, with_schema_tool(adapters, structured))
    middleware, fs_override = _split_filesystem(middleware, permissions)
    hitl = _human_in_the_loop(
        _fs_interrupts.merged(_fs_interrupts.interrupt_on_from_permissions(permissions, backend), interrupt_on)
    )
    files = fs_config(backend, permissions, fs_override, store, profile.tool_description_overrides)
    agent_backend = StateBackend() if backend is None else backend
    # deepagents' skills: a user `SkillsMiddleware` of that name lends its sources when
    # `skills` is not given, so the default's slot exists for it to take (and the
    # general-purpose subagent, whose slot it takes too, gets it).
    user_skills = passed_skills_middleware(middleware or ())
    if skills is None and user_skills is not None:
        skills = user_skills.sources
    skills_mw = SkillsMiddleware(backend=agent_backend, sources=skills) if skills is not None else None
    gp_skills = user_skills or skills_mw
    parent = Parent(
        model=model,
        profile=profile,
        exclusions=exclusions,
        raw_tools=raw_tools,
        tools=adapters,
        middleware=list(middleware),
        skills=skills_mw is not None,
        memory=memory is not None,
        own_files=fs_override is not None,
        adapt=_adapt,
    )
    # deepagents routes the specs with a `graph_id` (AsyncSubAgent) to AsyncSubAgentMiddleware.
    async_specs = [s for s in subagents or () if isinstance(s, dict) and "graph_id" in s]
    async_mw = _async_subagents(async_specs)
    specs = build_specs(
        subagents,
        parent=parent,
        core_model=_own_resolver(_core_model),
        files=lambda perms, descriptions: fs_config(backend, perms, store=store, descriptions=descriptions),
        parent_permissions=permissions,
        interrupt_on=interrupt_on,
        fs_interrupt_on=lambda perms: _fs_interrupts.interrupt_on_from_permissions(perms, backend),
        gp_skills=gp_skills._core_config(store) if gp_skills is not None else None,
        skills=lambda sources: SkillsMiddleware(backend=agent_backend, sources=sources)._core_config(store),
    )
    # The harness profile's middleware and exclusions (after the subagents', as deepagents
    # builds them); the main agent and the general-purpose subagent answer for its
    # exclusions together.
    slots = main_slots(
        subagents=bool(specs),
        extra=profile.materialize_extra_middleware(),
        skills=skills_mw is not None,
        memory=memory is not None,
        interrupts=hitl,
        async_subagents=async_mw,
    )
    planned = exclusions.plan(slots, middleware)
    exclusions.verify()
    middleware = _with_parent_notifier(planned.user, planned.excluded)
    if not any(m is hitl for m in planned.kept):
        hitl = None
    if any(m is async_mw for m in planned.kept):
        middleware = _in_async_slot(async_mw, middleware)
    extra = [m for m in planned.kept if m is not hitl and m is not async_mw]
    # Every Python middleware of the chain: its state keys, hooks and stream transformers count.
    chain_middleware = [*middleware, *extra, *planned.caching, *([hitl] if hitl is not None else [])]
    # create_agent names replies only `if name:`; an empty name leaves them unnamed.
    bindables = {a.name: a.bindable for a in adapters}
    _check_unique_middleware(middleware)
    _check_unique_middleware(extra)
    mw_adapters = core_entries(middleware, bindables, store, response_format)
    profile_part = {
        "extra": core_entries(extra, bindables, store, response_format),
        "excluded": planned.excluded,
        "excluded_tools": sorted(profile.excluded_tools),
        "caching": core_entries(planned.caching, bindables, store, response_format),
    }
    # A user `state_schema` declares keys as middleware schemas do (input, output, private).
    schema = StateKeys.of([*chain_middleware, *([SchemaOf(state_schema)] if state_schema is not None else [])])
    schema.omit_output = schema.omit_output | _DEFAULT_PRIVATE_KEYS
    schema.private = schema.private | _DEFAULT_PRIVATE_KEYS
    # deepagents' state has a `files` channel only when a StateBackend holds files.
    files_channel = arg_uses_state(files["backend"])
    if not files_channel:
        schema.omit_output = schema.omit_output | {"files"}
        schema.unstreamed = schema.unstreamed | {"files"}
    # deepagents' memory: read through the agent's backend, in the main agent and its forks.
    memory_mw = (
        MemoryMiddleware(backend=agent_backend, sources=memory, add_cache_control=True) if memory is not None else None
    )
    if memory_mw is not None:
        schema.private = schema.private | {MEMORY_CONTENTS_KEY}
        schema.omit_output = schema.omit_output | {MEMORY_CONTENTS_KEY}
    if skills_mw is not None:
        schema.private = schema.private | SKILLS_PRIVATE_KEYS
        schema.omit_output = schema.omit_output | SKILLS_PRIVATE_KEYS | SKILLS_OMITTED_KEYS
        schema.input = schema.input | SKILLS_OMITTED_KEYS
        schema.stream_defaults = {**reducer_defaults([skills_mw]), **schema.stream_defaults}
    # deepagents' summarization keeps its history on the agent's backend, whatever backend a
    # user FilesystemMiddleware gives the file tools.
    history_files = files if fs_override is None else fs_config(backend, permissions, None, store)
    for spec in specs or ():
        if spec["kind"] == "isolated" and "state_schemas" in spec:
            # Its graph's keys that take one write per step (its schemas on deepagents'
            # `state_schema`, as `subagent_schemas` below).
            graph_schemas = _subagent_schemas(list(spec["state_schemas"]), state_schema)
            graph_state = _graph_state(graph_schemas)
            spec["last_value_keys"] = _last_value_keys(graph_state)
            spec["reducers"] = reducers_of(graph_state)
            if graph_state is not None:
                # deepagents invokes it on the caller's state, which its graph reads through
                # its own channels: what else the caller's state holds never reaches it.
                spec["state_keys"] = sorted(get_type_hints(graph_state))
    core = CoreAgent(
        core_model,
        adapters,
        system,
        name or None,
        specs or None,
        structured,
        mw_adapters,
        sorted(schema.private),
        files,
        summarization_config(core_model, history_files),
        memory_mw._core_config(store) if memory_mw is not None else None,
        skills_mw._core_config(store) if skills_mw is not None else None,
        profile_part,
        core_entries([hitl], bindables, store)[0] if hitl is not None else None,
        task_description(profile),
    )
    may_end = tools_may_end(structured, adapters)
    # The agent's class is known once LangGraph's import was tried: here, when the first
    # agent is created.
    from ._deep_agent import DeepAgent

    holders = [*chain_middleware, skills_mw, memory_mw]
    state_schemas, edges = face_parts(core.node_names, holders, state_schema, chain_middleware, may_end, files_channel)
    graph_state = _graph_state(state_schemas)
    core.set_last_value_keys(_last_value_keys(graph_state))
    schema.reducers = reducers_of(graph_state)
    schema.order = channel_order(graph_state)
    core.set_reducers(schema.reducers)
    return DeepAgent(
        core,
        name=name,
        model=model,
        schema=schema,
        store=store,
        # `True` (a subgraph keeping its own state in its parent's thread) and `False` (one
        # that never checkpoints) are LangGraph's, honoured by the thread graph.
        checkpointer=checkpointer if checkpointer is not None else None,
        state_schemas=state_schemas,
        subagent_schemas={
            # A fork runs the parent's chain: its channels too. deepagents builds every
            # subagent on the agent's `state_schema`.
            s["name"]: _subagent_schemas(
                [*(_middleware_schemas(state_schemas) if s["kind"] == "fork" else ()), *s["state_schemas"]],
                state_schema,
            )
            for s in specs
            if "state_schemas" in s
        },
        subagent_private={k for s in specs for k in s.get("private_keys") or ()},
        subagent_forks={s["name"] for s in specs if s["kind"] == "fork"},
        interrupts=hitl is not None,
        edges=edges,
        transformers=[t for m in chain_middleware for t in getattr(m, "transformers", ())],
        context_schema=context_schema,
        cache=cache,
        debug=debug,
    )


def _async_subagents(specs: list[dict]) -> Any:
    """deepagents' ``AsyncSubAgentMiddleware`` over the async subagent specs, if any."""
    if not specs:
        return None
    from .middleware.async_subagents import AsyncSubAgentMiddleware

    return AsyncSubAgentMiddleware(async_subagents=specs)


def _with_parent_notifier(middleware: list[Any], excluded: list[str]) -> list[Any]:
    """Inside an Agent Server (the graph built where ``langgraph_api`` runs it), deepagents'
    ``_ParentNotifierMiddleware`` takes its slot, so a run an async subagent tool started on
    this deployment wakes its launcher when it ends. Elsewhere the core's no-op entry keeps
    the slot (no run can be woken there: notifications go through the server's own API)."""
    name = "_ParentNotifierMiddleware"
    if "langgraph_api" not in sys.modules or name in excluded or any(m.name == name for m in middleware):
        return middleware
    from .middleware._async_parent_notifier import _ParentNotifierMiddleware

    return [_ParentNotifierMiddleware(), *middleware]


def _in_async_slot(async_mw: Any, middleware: list[Any]) -> list[Any]:
    """The caller's middleware with the async subagents' entry first: its slot follows the
    core's last (``PatchToolCallsMiddleware``), where the caller's entries not replacing a
    slot begin. A caller's entry of its name takes the slot instead (the last one given)."""
    mine = [m for m in middleware if m.name == async_mw.name]
    entry = mine[-1] if mine else async_mw
    return [entry, *(m for m in middleware if m.name != async_mw.name)]


def _graph_state(schemas: Any) -> type | None:
    """The resolved state schema of the graph over ``schemas`` (its channels), made once for
    the agent's key tables; None without LangChain, whose resolver makes it."""
    from ._threads import _state_schemas

    try:
        return _state_schemas(schemas)[0]
    except ImportError:
        return None


def _last_value_keys(graph_state: type | None) -> list[str]:
    """The keys of the graph whose resolved state schema is ``graph_state`` that take one
    write per step."""
    from ._tool_commands import last_value_keys

    if graph_state is None:
        # Without LangChain (deepagents_rs runs without it) there is no Python middleware and
        # no `Command`: only the core writes these keys, once per step.
        return []
    return sorted(last_value_keys(graph_state))


def _subagent_schemas(schemas: list[type], state_schema: type | None) -> list[type]:
    return schemas if state_schema is None or state_schema in schemas else [state_schema, *schemas]


def _middleware_schemas(schemas: Sequence[type] | StateSchemas) -> list[type]:
    return list(schemas.middleware if isinstance(schemas, StateSchemas) else schemas)


def _adapt(tools: Sequence[Any] | None) -> list[ToolAdapter]:
    """Adapters for the tools the caller gave, ordered as create_agent offers them: its tool
    node's tools first, dict (provider-side) specs last."""
    adapters = [to_adapter(t) for t in tools or ()]
    return [a for a in adapters if a.executable] + [a for a in adapters if not a.executable]


_default_model_warned = False


def _own_resolver(core_model: Any) -> Any:
    """``core_model`` with this module's ``resolve_model`` resolving model strings when it has
    been replaced (deepagents resolves every string, the agent's and its subagents', through
    its graph module's ``resolve_model``); the package's own serves a native provider's
    string with the native client instead."""
    resolver = resolve_model  # read when called: a patched one is this module's
    if resolver is _models.resolve_model:
        return core_model

    def resolved(model: Any, tools: list[ToolAdapter]) -> Any:
        return core_model(resolver(model) if isinstance(model, str) else model, tools)

    return resolved


def get_default_model() -> Any:
    """The model ``model=None`` stands for: ``ChatAnthropic(model_name="claude-sonnet-4-6")``
    (needs ``langchain-anthropic``, and ``ANTHROPIC_API_KEY`` when called).

    Deprecated since deepagents 0.5.3 (warned once per process, as deepagents warns); pass
    a model explicitly.
    """
    global _default_model_warned
    if not _default_model_warned:
        _default_model_warned = True
        warnings.warn(_graph_texts.DEFAULT_MODEL_DEPRECATED, _deprecation_category(), stacklevel=2)
    from langchain_anthropic import ChatAnthropic

    return ChatAnthropic(model_name=DEFAULT_MODEL.partition(":")[2])


# `DeepAgent` (a LangGraph graph when LangGraph is installed) and `DeepAgentState` need
# LangChain and LangGraph: imported when first asked for.
# deepagents' middleware-stack helpers are its graph module's too; they need LangChain.
_lazy_getattr, __dir__ = lazy_names(
    globals(),
    {
        "DeepAgent": "._deep_agent",
        "DeepAgentState": "._deep_state",
        "_REQUIRED_MIDDLEWARE_CLASSES": "._graph_middleware",
        "_apply_custom_middleware": "._graph_middleware",
    },
)


def __getattr__(name: str) -> Any:
    # deepagents' legacy base prompt stays readable, with its deprecation warning each time.
    if name == "BASE_AGENT_PROMPT":
        warnings.warn(_graph_texts.BASE_AGENT_PROMPT_DEPRECATED, _deprecation_category(), stacklevel=2)
        return _graph_texts.LEGACY_BASE_AGENT_PROMPT
    return _lazy_getattr(name)


__all__ = ["DeepAgent", "create_deep_agent"]
