"""Subagent specs: deepagents' ``SubAgent`` / ``CompiledSubAgent`` dicts, validated and
normalized into what the Rust ``task`` tool runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import _fs_interrupts
from ._assembly import _check_unique_middleware
from ._compiled_subagent import RunnableAdapter
from ._core import DEFAULT_GENERAL_PURPOSE_DESCRIPTION, DEFAULT_SUBAGENT_PROMPT
from ._excluded_middleware import Exclusions, Planned, subagent_slots
from ._harness import described, general_purpose_system, has_stack_part, profile_for, subagent_system
from ._structured import make_response_format, with_schema_tool
from ._summarization import core_config as summarization_config
from ._tools import ToolAdapter, to_adapter
from .profiles.harness.harness_profiles import GeneralPurposeSubagentProfile, HarnessProfile

GENERAL_PURPOSE = "general-purpose"
_SUBAGENT_KEYS = {
    "name",
    "description",
    "system_prompt",
    "tools",
    "model",
    "middleware",
    "interrupt_on",
    "skills",
    "permissions",
    "response_format",
    "mode",
}
_COMPILED_KEYS = {"name", "description", "runnable", "mode"}


def _warn_fork_beta() -> None:
    try:
        from deepagents_rs._langchain_private import warn_beta
    except ModuleNotFoundError:
        return
    # deepagents emits this for any fork; emitting it too keeps warning filters equivalent.
    warn_beta(name="forked subagents", obj_type="feature")


def _mode(spec: dict) -> str:
    """The spec's context mode (`"isolated"` when it has none: deepagents takes an explicit
    `None` as no mode), after deepagents' checks of it."""
    mode = spec.get("mode")
    if mode not in (None, "isolated", "fork"):
        raise ValueError(f"SubAgent '{spec['name']}' has invalid mode '{mode}'; expected 'isolated' or 'fork'")
    if mode == "fork" and spec.get("skills"):
        raise ValueError(
            f"SubAgent '{spec['name']}' cannot set skills under mode='fork'; the parent's skills are inherited instead."
        )
    return "isolated" if mode is None else mode


def _middleware_adapters(middleware: Sequence[Any] | None, tools: list[Any], response_format: Any = None) -> list[Any]:
    from ._middleware import core_entries

    _check_unique_middleware(middleware)
    return core_entries(middleware or (), {t.name: t.bindable for t in tools}, response_format=response_format)


def _private_keys(middleware: Sequence[Any] | None, skills: bool = False) -> list[str]:
    """The private state keys of a subagent with this middleware (and skills, if it has them)."""
    from ._middleware_schema import schema_omissions
    from .middleware.skills import SKILLS_PRIVATE_KEYS

    own = set(SKILLS_PRIVATE_KEYS) if skills else set()
    if not middleware:
        return sorted(own)
    omit_input, omit_output = schema_omissions(list(middleware))
    return sorted((omit_input & omit_output) | own)


def _spec_skills(spec: dict) -> list[Any] | None:
    """A declarative subagent's skill sources: its own ``skills`` when not empty, else those of
    a ``SkillsMiddleware`` of that name in its ``middleware`` (whose slot it then takes)."""
    from .middleware.skills import passed_skills_middleware

    if spec.get("skills"):
        return list(spec["skills"])
    passed = passed_skills_middleware(spec.get("middleware") or ())
    return passed.sources if passed is not None else None


@dataclass
class Parent:
    """What subagents take from the agent that delegates to them."""

    #: The model as the caller gave it (a string, or a chat model).
    model: Any
    profile: HarnessProfile
    #: The profile's exclusions, shared with the general-purpose subagent's stack.
    exclusions: Exclusions
    #: The tools as the caller gave them, and as adapters described by the profile.
    raw_tools: list[Any]
    tools: list[ToolAdapter]
    #: The caller's middleware (its `FilesystemMiddleware` and the human-in-the-loop entry
    #: aside).
    middleware: list[Any]
    skills: bool
    memory: bool
    #: Whether the caller gave its own `FilesystemMiddleware` (the profile then has no say
    #: in the file tools' descriptions).
    own_files: bool
    #: Adapters for tools as the caller gave them (its ordering included).
    adapt: Callable[[Sequence[Any]], list[ToolAdapter]]

    def profile_of(self, spec: dict) -> HarnessProfile:
        """The profile of a declarative subagent's model (its own, else the one it inherits)."""
        if "model" in spec:
            return profile_for(spec["model"])
        # deepagents hands the subagent the chat model it built from the caller's.
        return profile_for(self.model, as_built=True)

    def describes_otherwise(self, profile: HarnessProfile) -> bool:
        """Whether `profile` describes tools otherwise than the caller's profile."""
        return dict(profile.tool_description_overrides) != dict(self.profile.tool_description_overrides)

    def tools_for(self, profile: HarnessProfile) -> list[ToolAdapter]:
        """The caller's tools as `profile` describes them."""
        if not self.describes_otherwise(profile):
            return self.tools
        return self.adapt(described(self.raw_tools, profile.tool_description_overrides) or [])


def build_specs(
    subagents: Sequence[dict] | None,
    *,
    parent: Parent,
    core_model: Callable[[Any, list[ToolAdapter]], Any],
    files: Callable[[Any, Any], dict],
    parent_permissions: Any = None,
    interrupt_on: dict | None = None,
    fs_interrupt_on: Callable[[Any], dict] | None = None,
    gp_skills: dict | None = None,
    skills: Callable[[Any], dict] | None = None,
) -> list[dict]:
    """The specs for the core's ``task`` tool, general-purpose subagent included (first,
    unless the user supplies one of that name, which then keeps its own position, or the
    harness profile leaves it out).

    ``core_model(model, tools)`` turns a model into what the core takes. ``files(permissions,
    descriptions)`` is the file tools' configuration for a subagent with those permissions and
    tool descriptions; a spec's own ``permissions`` replace the parent's. ``gp_skills`` is the
    general-purpose subagent's skills entry (the parent's); ``skills(sources)`` makes a
    declarative subagent's own. Each declarative subagent gets the harness profile of its
    model, as deepagents applies it (the general-purpose one gets the parent's).
    """

    def own_files(spec: dict, profile: HarnessProfile) -> dict:
        return files(spec.get("permissions", parent_permissions), profile.tool_description_overrides)

    def gate_of(spec: dict) -> list[Any]:
        """A subagent's human-in-the-loop gate: its own `interrupt_on` (else the parent's),
        with the interrupts of its permissions (else the parent's)."""
        return _gate(
            _fs_interrupts.merged(
                fs_interrupt_on(spec.get("permissions", parent_permissions)) if fs_interrupt_on else {},
                spec.get("interrupt_on", interrupt_on),
            )
        )

    specs: list[dict] = []
    user = list(subagents or [])
    forks = False
    for spec in user:
        if not isinstance(spec, dict):
            raise TypeError(f"A subagent must be a dict (SubAgent or CompiledSubAgent), got {type(spec).__name__}")
        if "graph_id" in spec:
            # An AsyncSubAgent: `AsyncSubAgentMiddleware`'s (`graph.create_deep_agent`).
            continue
        name = spec["name"]
        description = spec["description"]
        compiled = "runnable" in spec
        allowed = _COMPILED_KEYS if compiled else _SUBAGENT_KEYS
        unknown = set(spec) - allowed
        if unknown:
            kind = "CompiledSubAgent" if compiled else "SubAgent"
            raise ValueError(f"{kind} '{name}' has unknown keys {sorted(unknown)}; expected some of {sorted(allowed)}")
        mode = _mode(spec)
        forks = forks or mode == "fork"
        if compiled:
            specs.append(
                {
                    "name": name,
                    "description": description,
                    "kind": "compiled",
                    "mode": mode,
                    "runnable": RunnableAdapter(name, spec["runnable"]),
                }
            )
            continue
        profile = parent.profile_of(spec)
        overrides = profile.tool_description_overrides
        # A `tools` key, even None or [], means no inherited user tools (deepagents: `or []`).
        tools = [to_adapter(t) for t in described(spec["tools"] or [], overrides)] if "tools" in spec else None
        if mode == "fork":
            specs.append(_fork(spec, tools, profile, parent, core_model, own_files, *_fork_gate(spec, gate_of)))
            continue
        extra = profile.materialize_extra_middleware()
        exclusions = Exclusions(profile)
        exclusions.check_required()
        spec_skills = _spec_skills(spec)
        planned = exclusions.plan(
            subagent_slots(extra=extra, skills=spec_skills is not None), spec.get("middleware") or ()
        )
        exclusions.verify()
        gate = gate_of(spec)
        model = spec.get("model", parent.model)
        tools = parent.tools_for(profile) if tools is None else tools
        response_format = make_response_format(spec.get("response_format"), model=model, tools=tools)
        bindable_tools = with_schema_tool(tools, response_format)
        spec_model = core_model(model, bindable_tools)
        spec_files = own_files(spec, profile)
        python_middleware = [*planned.user, *planned.kept, *planned.caching, *gate]
        specs.append(
            {
                "name": name,
                "description": description,
                "kind": "isolated",
                "model": spec_model,
                "summarization": summarization_config(spec_model, spec_files),
                "tools": tools,
                "system": subagent_system(spec.get("system_prompt", ""), profile),
                "response_format": response_format,
                "middleware": _middleware_adapters(planned.user, bindable_tools, spec.get("response_format")),
                "profile": _profile_part(planned, profile, bindable_tools),
                "interrupts": _interrupts(gate, bindable_tools),
                "private_keys": _private_keys(python_middleware, spec_skills is not None),
                "files": spec_files,
                "skills": skills(spec_skills) if spec_skills is not None and skills is not None else None,
                "state_schemas": _state_schemas(python_middleware),
            }
        )
    if forks:
        _warn_fork_beta()
    gp = parent.profile.general_purpose_subagent or GeneralPurposeSubagentProfile()
    if gp.enabled is not False and not any(s["name"] == GENERAL_PURPOSE for s in specs):
        specs.insert(
            0,
            _general_purpose(
                gp, parent, parent_permissions, core_model, own_files, gp_skills, interrupt_on, fs_interrupt_on
            ),
        )
    return specs


def _state_schemas(middleware: Sequence[Any] | None) -> list[type]:
    """The state schemas a subagent's own middleware declare (its graph's channels, when its
    run is checkpointed as a subgraph of its task)."""
    return [m.state_schema for m in middleware or () if getattr(m, "state_schema", None) is not None]


def _general_purpose(
    gp: GeneralPurposeSubagentProfile,
    parent: Parent,
    permissions: Any,
    core_model: Callable[[Any, list[ToolAdapter]], Any],
    own_files: Callable[[dict, HarnessProfile], dict],
    skills: dict | None,
    interrupt_on: dict | None,
    fs_interrupt_on: Callable[[Any], dict] | None,
) -> dict:
    """deepagents' general-purpose subagent: the parent's model, tools and profile, the
    profile's edits of its description and prompt."""
    profile = parent.profile
    extra = profile.materialize_extra_middleware()
    base = subagent_slots(extra=extra, skills=skills is not None)
    # The caller's middleware reaches it only where it takes one of its slots by name.
    slot_names = {e.name for e in base}
    inherited = [m for m in parent.middleware if m.name in slot_names]
    planned = parent.exclusions.plan(base, inherited)
    extra_names = {m.name for m in extra}
    # Of those, the core takes the ones standing in for the profile's middleware (skills come
    # as `skills`).
    user = [m for m in planned.user if m.name in extra_names]
    gate = _gate(_fs_interrupts.merged(fs_interrupt_on(permissions) if fs_interrupt_on else {}, interrupt_on))
    gp_model = core_model(parent.model, parent.tools)
    gp_files = own_files({}, profile)
    return {
        "name": GENERAL_PURPOSE,
        "description": DEFAULT_GENERAL_PURPOSE_DESCRIPTION if gp.description is None else gp.description,
        "kind": "isolated",
        "model": gp_model,
        "summarization": summarization_config(gp_model, gp_files),
        "tools": parent.tools,
        "system": general_purpose_system(DEFAULT_SUBAGENT_PROMPT, profile),
        "files": gp_files,
        "middleware": _middleware_adapters(user, parent.tools),
        "profile": _profile_part(planned, profile, parent.tools),
        "interrupts": _interrupts(gate, parent.tools),
        "private_keys": _private_keys([*user, *planned.kept, *gate], skills is not None),
        "skills": skills,
        "state_schemas": _state_schemas([*user, *planned.kept, *gate]),
    }


def _profile_part(planned: Planned, profile: HarnessProfile, tools: list[Any]) -> dict:
    """A stack's harness-profile part as the core takes it (its middleware: unique names, as
    create_agent requires). The provider caching middleware all go to the core, which skips
    one per request when the request's model is not of the classes it acts on
    (`_excluded_middleware.acts_only_on`)."""
    _check_unique_middleware(planned.kept)
    return {
        "extra": _middleware_adapters(planned.kept, tools),
        "excluded": planned.excluded,
        "excluded_tools": sorted(profile.excluded_tools),
        "caching": _middleware_adapters(planned.caching, tools),
    }


def _interrupts(gate: list[Any], tools: list[Any]) -> Any:
    return _middleware_adapters(gate, tools)[0] if gate else None


def _gate(interrupt_on: dict | None) -> list[Any]:
    """A declarative subagent's human-in-the-loop middleware: its own `interrupt_on`, else
    the parent's, as deepagents gives it."""
    if not interrupt_on:
        return []
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    return [HumanInTheLoopMiddleware(interrupt_on=dict(interrupt_on))]


#: The name the parent's human-in-the-loop gate has in its chain.
_GATE_NAME = "HumanInTheLoopMiddleware"


def _named(middleware: Any, name: str) -> bool:
    return getattr(middleware, "name", None) == name


def _fork_gate(spec: dict, gate_of: Callable[[dict], list[Any]]) -> tuple[list[Any], bool]:
    """A fork's own human-in-the-loop gate, when its `interrupt_on` or `permissions` make one
    (deepagents builds a fork's gate from them as for any subagent), and whether it runs
    without the parent's: a spec that says so and makes none (an empty `interrupt_on`) has no
    gate in deepagents. Neither key: it runs the parent's."""
    if "interrupt_on" not in spec and "permissions" not in spec:
        return [], False
    own = gate_of(spec)
    return own, not own and bool(gate_of({}))


def _fork(
    spec: dict,
    tools: list[ToolAdapter] | None,
    profile: HarnessProfile,
    parent: Parent,
    core_model: Callable[[Any, list[ToolAdapter]], Any],
    own_files: Callable[[dict, HarnessProfile], dict],
    own_gate: list[Any],
    ungated: bool = False,
) -> dict:
    """A fork keeps the parent's system prompt and tool list byte for byte, so its first
    request is served from the parent's prompt cache. Where deepagents changes them (an own
    ``system_prompt``, narrower ``tools``), we carry the instructions in the task message and
    enforce the narrower tools when they are called.

    Its stack is deepagents' fork stack: the parent's, with the harness profile of the fork's
    model. When a profile (its own or the parent's) has middleware or exclusions, the core
    rebuilds the parent's chain with the fork's part (``profile``) and middleware (``user``:
    the parent's and the spec's merged by name, less what the profile excludes).

    ``own_gate`` is the fork's own human-in-the-loop gate (``_fork_gate``): it takes the
    place of the parent's by name; ``ungated``: the fork runs without the parent's."""
    out: dict[str, Any] = {"name": spec["name"], "description": spec["description"], "kind": "fork"}
    fork_tools = tools if tools is not None else parent.tools_for(profile)
    if "model" in spec and spec["model"] is not parent.model:
        out["model"] = core_model(spec["model"], fork_tools)
    if spec.get("system_prompt"):
        out["instructions"] = spec["system_prompt"]
    if tools is not None:
        parent_names = {t.name for t in parent.tools}
        names = [t.name for t in tools]
        if set(names) <= parent_names:
            out["allowed_tools"] = names
        else:
            out["extra_tools"] = tools
    if parent.describes_otherwise(profile):
        # Its descriptions replace the parent's (the file tools' come with its own `files`).
        out["described_tools"] = fork_tools
    if spec.get("response_format"):
        out["response_format"] = make_response_format(
            spec["response_format"], model=spec.get("model", parent.model), tools=fork_tools
        )
        if "model" in out:
            # Its own model binds the schema tool as the model's own tool.
            out["model"] = core_model(spec["model"], with_schema_tool(fork_tools, out["response_format"]))
    own_middleware = list(spec.get("middleware") or ())
    excluded: list[str] = []
    kept: list[Any] = []
    if has_stack_part(profile) or has_stack_part(parent.profile):
        extra = profile.materialize_extra_middleware()
        exclusions = Exclusions(profile)
        exclusions.check_required()
        # deepagents' `{m.name: m for m in [*parent, *spec]}`: a spec entry takes the place of
        # the parent's of its name.
        merged = list({m.name: m for m in [*parent.middleware, *own_middleware]}.values())
        base = subagent_slots(extra=extra, skills=parent.skills, memory=parent.memory)
        planned = exclusions.plan(base, merged)
        exclusions.verify()
        out["profile"] = _profile_part(planned, profile, fork_tools)
        out["user"] = _middleware_adapters(planned.user, fork_tools, spec.get("response_format"))
        excluded, kept = planned.excluded, planned.kept
        # Its own gate takes the parent's place by name.
        merged_over = own_gate
    else:
        # Merged over the parent's chain by name (deepagents shares the parent's instances
        # and lets a same-name spec entry take its place), its own gate included.
        merged_over = [*own_middleware, *own_gate]
    if merged_over:
        out["middleware"] = _middleware_adapters(merged_over, fork_tools, spec.get("response_format"))
    if ungated:
        out["without"] = [_GATE_NAME]
    # Its state as a subgraph: the parent's chain (the caller adds its schemas) and its own.
    out["state_schemas"] = _state_schemas([*own_middleware, *kept, *own_gate])
    if own_gate or kept:
        out["private_keys"] = _private_keys([*kept, *own_gate])
    if "permissions" in spec or (parent.describes_otherwise(profile) and not parent.own_files):
        out["files"] = own_files(spec, profile)
    summarized = any(_named(m, "SummarizationMiddleware") for m in [*parent.middleware, *own_middleware])
    if "model" in out and not summarized and "SummarizationMiddleware" not in excluded:
        # A fork of another model summarizes by that model's limits (deepagents builds its
        # summarization from the fork's model), into the caller's history files.
        own = summarization_config(out["model"], own_files(spec, profile))
        if own is not None:
            out.setdefault("middleware", []).append({**own, "kind": "summarization"})
    return out
