"""Subagent specs: deepagents' ``SubAgent`` / ``CompiledSubAgent`` dicts, validated and
normalized into what the Rust ``task`` tool runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import _convert, _fs_interrupts
from ._core import DEFAULT_GENERAL_PURPOSE_DESCRIPTION, DEFAULT_SUBAGENT_PROMPT
from ._structured import make_response_format, render_structured, with_schema_tool
from ._summarization import core_config as summarization_config
from ._tools import ToolAdapter, to_adapter

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
#: The file tools every declarative subagent has (its own ``FilesystemMiddleware``).
_FS_TOOLS = ("ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep", "execute")
_COMPILED_MISSING_MESSAGES = (
    "CompiledSubAgent must return a state containing a 'messages' key. "
    "Custom StateGraphs used with CompiledSubAgent should include 'messages' "
    "in their state schema to communicate results back to the main agent."
)


def _warn_fork_beta() -> None:
    try:
        from langchain_core._api.beta_decorator import warn_beta
    except ImportError:
        return
    # deepagents emits this for any fork; emitting it too keeps warning filters equivalent.
    warn_beta(name="forked subagents", obj_type="feature")


def _mode(spec: dict) -> str:
    mode = spec.get("mode", "isolated")
    if mode not in ("isolated", "fork"):
        raise ValueError(f"SubAgent '{spec['name']}' has invalid mode '{mode}'; expected 'isolated' or 'fork'")
    if mode == "fork" and spec.get("skills"):
        raise ValueError(
            f"SubAgent '{spec['name']}' cannot set skills under mode='fork'; the parent's skills are inherited instead."
        )
    return mode


def _task_result(result: dict) -> str:
    """deepagents' task result from a runnable's state: its structured response as JSON, else
    the text of the last AI message object with any (dicts do not count, as in deepagents)."""
    if result.get("structured_response") is not None:
        return render_structured(result["structured_response"])
    for message in reversed(result["messages"]):
        if _convert.is_ai_message(message):
            text = message.text.rstrip() if message.text else ""
            if text:
                return text
    return ""


class RunnableAdapter:
    """Runs a CompiledSubAgent's runnable on ``{"messages": [...], "files": {...}}``."""

    def __init__(self, name: str, runnable: Any) -> None:
        if not callable(getattr(runnable, "invoke", None)):
            raise TypeError(
                f"CompiledSubAgent '{name}': 'runnable' must have invoke/ainvoke, got {type(runnable).__name__}"
            )
        self.name = name
        # deepagents names the runnable's runs after the subagent.
        with_config = getattr(runnable, "with_config", None)
        # A LangChain Runnable takes the caller's config; any other object with invoke/ainvoke
        # is called with the state alone.
        self._runnable_api = with_config is not None
        self.runnable = (
            with_config({"metadata": {"lc_agent_name": name}, "run_name": name}) if with_config else runnable
        )

    @staticmethod
    def _input(state: dict) -> dict:
        messages = [_convert.from_core(m) for m in state["messages"]]
        if messages:
            # deepagents hands the child a fresh task message: the child's graph gives it its id.
            messages[-1].id = None
        return {**state, "messages": messages}

    @staticmethod
    def _output(result: Any) -> dict:
        if not isinstance(result, dict) or "messages" not in result:
            raise ValueError(_COMPILED_MISSING_MESSAGES)
        out: dict[str, Any] = {"messages": [_convert.to_core(m) for m in result["messages"]]}
        if isinstance(result.get("files"), dict):
            out["files"] = result["files"]
        out["result"] = _task_result(result)
        return out

    # deepagents passes the caller's config as LangGraph does: only `configurable` (marked
    # as a subagent run) explicitly; the rest as the ambient parent config, under which the
    # runnable's own bound config (a recursion_limit, say) wins.
    @staticmethod
    def _explicit(config: dict) -> dict:
        return {"configurable": {**config.get("configurable", {}), "ls_agent_type": "subagent"}}

    @staticmethod
    def _traced(config: dict | None, parent: Any) -> dict:
        """The caller's config; traced, the child's runs nest under the `task` tool run."""
        config = dict(config or {})
        if parent is not None:
            config["callbacks"] = parent.get_child()
        return config

    @staticmethod
    def _in_task(config: dict, task: dict | None) -> dict:
        """The caller's config inside the `task` call's own task, when a thread graph runs
        it: its saver, namespace, scratchpad and resuming flag, as deepagents' `task` tool
        hands its task's config to the subagent (a LangGraph graph then checkpoints under
        that task and resumes from there)."""
        if task is None:
            return config
        from ._threads import _FEED

        own = {k: v for k, v in (task.get("configurable") or {}).items() if k != _FEED}
        return {**config, "configurable": {**config.get("configurable", {}), **own}}

    def invoke(self, state: dict, config: dict | None = None, parent: Any = None, call_id: str | None = None) -> dict:
        if not self._runnable_api:
            return self._output(self.runnable.invoke(self._input(state)))
        from langchain_core.runnables.config import set_config_context

        from ._thread_feed import RUN_TASKS

        tasks = RUN_TASKS.get()
        config = self._in_task(self._traced(config, parent), tasks.wait(call_id) if tasks and call_id else None)
        with set_config_context(config) as context, _placed():
            # Its own runs find their own tasks, not this run's.
            context.run(RUN_TASKS.set, None)
            result = context.run(self.runnable.invoke, self._input(state), self._explicit(config))
        return self._output(result)

    async def ainvoke(
        self, state: dict, config: dict | None = None, parent: Any = None, call_id: str | None = None
    ) -> dict:
        if not self._runnable_api:
            return self._output(await self.runnable.ainvoke(self._input(state)))
        import asyncio

        from langchain_core.runnables.config import set_config_context

        from ._thread_feed import RUN_TASKS

        tasks = RUN_TASKS.get()
        task = await tasks.await_(call_id) if tasks and call_id else None
        config = self._in_task(self._traced(config, parent), task)
        with set_config_context(config) as context, _placed():
            context.run(RUN_TASKS.set, None)
            coro = self.runnable.ainvoke(self._input(state), self._explicit(config))
            result = await asyncio.create_task(coro, context=context)
        return self._output(result)


class _placed:
    """An interrupt a compiled subagent raises ran in its own task: its ids are LangGraph's
    own (see `_thread_feed._in_task`)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        if exc is None:
            return
        from langgraph.errors import GraphInterrupt

        from ._thread_feed import PLACED

        if isinstance(exc, GraphInterrupt):
            setattr(exc, PLACED, True)


def _middleware_adapters(middleware: Sequence[Any] | None, tools: list[Any], response_format: Any = None) -> list[Any]:
    from ._middleware import core_entries

    names = [m.name for m in middleware or ()]
    if len(names) != len(set(names)):
        raise AssertionError("Please remove duplicate middleware instances.")
    return core_entries(middleware or (), {t.name: t.bindable for t in tools}, response_format=response_format)


def _private_keys(middleware: Sequence[Any] | None, skills: bool = False) -> list[str]:
    """The private state keys of a subagent with this middleware (and skills, if it has them)."""
    from ._middleware import schema_omissions
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


def build_specs(
    subagents: Sequence[dict] | None,
    *,
    parent_model: Any,
    parent_tools: list[ToolAdapter],
    core_model: Callable[[Any, list[ToolAdapter]], Any],
    system_message: Callable[[Any, Any], dict],
    files: Callable[[Any], dict] | None = None,
    parent_permissions: Any = None,
    interrupt_on: dict | None = None,
    fs_interrupt_on: Callable[[Any], dict] | None = None,
    gp_skills: dict | None = None,
    skills: Callable[[Any], dict] | None = None,
) -> list[dict]:
    """The specs for the core's ``task`` tool, general-purpose subagent included (first,
    unless the user supplies one of that name, which then keeps its own position).

    ``core_model(model, tools)`` turns a model into what the core takes; ``system_message``
    is the parent's prompt assembly (profile suffix included). ``files(permissions)`` is the
    file tools' configuration for a subagent with those permissions; a spec's own
    ``permissions`` replace the parent's. ``gp_skills`` is the general-purpose subagent's
    skills entry (the parent's); ``skills(sources)`` makes a declarative subagent's own.
    """

    def own_files(spec: dict) -> dict | None:
        if files is None:
            return None
        return files(spec.get("permissions", parent_permissions))

    specs: list[dict] = []
    user = list(subagents or [])
    forks = False
    for spec in user:
        if not isinstance(spec, dict):
            raise TypeError(f"A subagent must be a dict (SubAgent or CompiledSubAgent), got {type(spec).__name__}")
        if "graph_id" in spec:
            raise NotImplementedError(
                f"deepagents_rs: async subagents ('{spec.get('name')}') are not supported yet; they are planned."
            )
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
        # A `tools` key, even None or [], means no inherited user tools (deepagents: `or []`).
        tools = [to_adapter(t) for t in (spec["tools"] or [])] if "tools" in spec else None
        if mode == "fork":
            fork = _fork_spec(spec, tools, parent_model, parent_tools, core_model)
            if spec.get("response_format"):
                fork_tools = tools if tools is not None else parent_tools
                fork["response_format"] = make_response_format(
                    spec["response_format"], model=spec.get("model", parent_model), tools=fork_tools
                )
                if "model" in fork:
                    # Its own model binds the schema tool as the model's own tool.
                    fork["model"] = core_model(spec["model"], with_schema_tool(fork_tools, fork["response_format"]))
            if "permissions" in spec and files is not None:
                fork["files"] = files(spec["permissions"])
            # A fork runs the parent's chain, its human-in-the-loop gate included, unless its
            # own `interrupt_on` or `permissions` make another (deepagents builds a fork's
            # gate from them as for any subagent).
            own_gate: list[Any] = []
            if "interrupt_on" in spec or "permissions" in spec:
                own_gate = _gate(
                    _fs_interrupts.merged(
                        fs_interrupt_on(spec.get("permissions", parent_permissions)) if fs_interrupt_on else {},
                        spec.get("interrupt_on", interrupt_on),
                    )
                )
                parent_gate = _fs_interrupts.merged(
                    fs_interrupt_on(parent_permissions) if fs_interrupt_on else {}, interrupt_on
                )
                if not own_gate and parent_gate:
                    raise NotImplementedError(
                        f"deepagents_rs: SubAgent '{name}': a fork without the parent's human-in-the-loop "
                        "gate (an empty interrupt_on of its own) is planned."
                    )
            if spec.get("middleware") or own_gate:
                # Merged over the parent's chain by name (deepagents shares the parent's
                # instances and lets a same-name spec entry take its place).
                fork["middleware"] = _middleware_adapters(
                    [*(spec.get("middleware") or ()), *own_gate], tools or parent_tools, spec.get("response_format")
                )
            if "model" in fork and not any(_named(m, "SummarizationMiddleware") for m in spec.get("middleware") or ()):
                # A fork of another model summarizes by that model's limits (deepagents builds
                # its summarization from the fork's model), into the caller's history files.
                own = summarization_config(fork["model"], own_files(spec))
                if own is not None:
                    fork.setdefault("middleware", []).append({**own, "kind": "summarization"})
            # Its state as a subgraph: the parent's chain (the caller adds its schemas) and its own.
            fork["state_schemas"] = _state_schemas([*(spec.get("middleware") or ()), *own_gate])
            if own_gate:
                fork["private_keys"] = _private_keys(own_gate)
            specs.append(fork)
            continue
        gate = _gate(
            _fs_interrupts.merged(
                fs_interrupt_on(spec.get("permissions", parent_permissions)) if fs_interrupt_on else {},
                spec.get("interrupt_on", interrupt_on),
            )
        )
        model = spec.get("model", parent_model)
        tools = parent_tools if tools is None else tools
        response_format = make_response_format(spec.get("response_format"), model=model, tools=tools)
        bindable_tools = with_schema_tool(tools, response_format)
        spec_model = core_model(model, bindable_tools)
        spec_files = own_files(spec)
        spec_skills = _spec_skills(spec)
        specs.append(
            {
                "name": name,
                "description": description,
                "kind": "isolated",
                "model": spec_model,
                "summarization": summarization_config(spec_model, spec_files),
                "tools": tools,
                "system": system_message(spec.get("system_prompt", ""), model),
                "response_format": response_format,
                "middleware": _middleware_adapters(
                    [*(spec.get("middleware") or ()), *gate], bindable_tools, spec.get("response_format")
                ),
                "private_keys": _private_keys([*(spec.get("middleware") or ()), *gate], spec_skills is not None),
                "files": spec_files,
                "skills": skills(spec_skills) if spec_skills is not None and skills is not None else None,
                "state_schemas": _state_schemas([*(spec.get("middleware") or ()), *gate]),
            }
        )
    if forks:
        _warn_fork_beta()
    if not any(s["name"] == GENERAL_PURPOSE for s in specs):
        gp_gate = _gate(
            _fs_interrupts.merged(fs_interrupt_on(parent_permissions) if fs_interrupt_on else {}, interrupt_on)
        )
        gp_model = core_model(parent_model, parent_tools)
        gp_files = own_files({})
        specs.insert(
            0,
            {
                "name": GENERAL_PURPOSE,
                "description": DEFAULT_GENERAL_PURPOSE_DESCRIPTION,
                "kind": "isolated",
                "model": gp_model,
                "summarization": summarization_config(gp_model, gp_files),
                "tools": parent_tools,
                "system": system_message(DEFAULT_SUBAGENT_PROMPT, parent_model),
                "files": gp_files,
                "middleware": _middleware_adapters(gp_gate, parent_tools),
                "private_keys": _private_keys(gp_gate, gp_skills is not None),
                "skills": gp_skills,
                "state_schemas": _state_schemas(gp_gate),
            },
        )
    return specs


def _state_schemas(middleware: Sequence[Any] | None) -> list[type]:
    """The state schemas a subagent's own middleware declare (its graph's channels, when its
    run is checkpointed as a subgraph of its task)."""
    return [m.state_schema for m in middleware or () if getattr(m, "state_schema", None) is not None]


def _gate(interrupt_on: dict | None) -> list[Any]:
    """A declarative subagent's human-in-the-loop middleware: its own `interrupt_on`, else
    the parent's, as deepagents gives it."""
    if not interrupt_on:
        return []
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    return [HumanInTheLoopMiddleware(interrupt_on=dict(interrupt_on))]


def _named(middleware: Any, name: str) -> bool:
    return getattr(middleware, "name", None) == name


def _fork_spec(
    spec: dict,
    tools: list[ToolAdapter] | None,
    parent_model: Any,
    parent_tools: list[ToolAdapter],
    core_model: Callable[[Any, list[ToolAdapter]], Any],
) -> dict:
    """A fork keeps the parent's system prompt and tool list byte for byte, so its first
    request is served from the parent's prompt cache. Where deepagents changes them (an own
    ``system_prompt``, narrower ``tools``), we carry the instructions in the task message and
    enforce the narrower tools when they are called."""
    out: dict[str, Any] = {"name": spec["name"], "description": spec["description"], "kind": "fork"}
    if "model" in spec and spec["model"] is not parent_model:
        out["model"] = core_model(spec["model"], tools if tools is not None else parent_tools)
    if spec.get("system_prompt"):
        out["instructions"] = spec["system_prompt"]
    if tools is not None:
        parent_names = {t.name for t in parent_tools}
        names = [t.name for t in tools]
        if set(names) <= parent_names:
            out["allowed_tools"] = [*_FS_TOOLS, "task", *names]
        else:
            out["extra_tools"] = tools
    return out
