"""Compiled subagents: a ``CompiledSubAgent``'s runnable run as the `task` tool's subagent, on
the caller's config and task, its result read back as deepagents reads it."""

from __future__ import annotations

from typing import Any, Self

from . import _convert
from ._structured import render_structured

_COMPILED_MISSING_MESSAGES = (
    "CompiledSubAgent must return a state containing a 'messages' key. "
    "Custom StateGraphs used with CompiledSubAgent should include 'messages' "
    "in their state schema to communicate results back to the main agent."
)


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
        # deepagents' order: the caller's other keys, then the task's messages.
        return {**{k: v for k, v in state.items() if k != "messages"}, "messages": messages}

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
    def _in_task(config: dict, task: dict | None, where: tuple = ()) -> dict:
        """The caller's config inside the `task` call's own task, as deepagents' `task` tool
        hands its task's config to the subagent: the thread graph's task when one runs it
        (its saver, namespace, scratchpad and resuming flag: a LangGraph graph then
        checkpoints under that task and resumes from there), else the task the core runs the
        call in (``where``: see `_in_call_task`)."""
        if task is None:
            return _in_call_task(config, where)
        from ._run_context import RUNTIME_KEY
        from ._task_channels import with_own
        from ._threads import _FEED

        # The caller's task keeps the run's carriers out of sight; the graph task's keys
        # replace its channels.
        ours = with_own(config.get("configurable", {}))
        own = {k: v for k, v in (task.get("configurable") or {}).items() if k != _FEED}
        if own.get(RUNTIME_KEY) is not None and ours.get(RUNTIME_KEY) is not None:
            # The thread graph runs without the run's context: the task's runtime gets it, as
            # deepagents' task carries it.
            own[RUNTIME_KEY] = own[RUNTIME_KEY].override(context=ours[RUNTIME_KEY].context)
        # The task's metadata too (the agent's `ls_integration`, the task's step and node):
        # LangGraph keeps the caller's metadata in the checkpoints the subagent's graph writes.
        metadata = {**(config.get("metadata") or {}), **(task.get("metadata") or {})}
        return {**config, "metadata": metadata, "configurable": {**ours, **own}}

    def invoke(self, state: dict, config: dict | None = None, parent: Any = None, *where: Any) -> dict:
        """The runnable's run; ``where``: the `task` call's id, the writer of its parts, its
        task namespace (an error leaving the run is noted with it), the caller's step and
        the call's place among its reply's calls."""
        with _noted(config, where):
            return self._invoke(state, config, parent, where)

    async def ainvoke(self, state: dict, config: dict | None = None, parent: Any = None, *where: Any) -> dict:
        with _noted(config, where):
            return await self._ainvoke(state, config, parent, where)

    def _invoke(self, state: dict, config: dict | None, parent: Any, where: tuple) -> dict:
        if not self._runnable_api:
            return self._output(self.runnable.invoke(self._input(state)))
        from langchain_core.runnables.config import set_config_context

        from ._subagent_parts import child_config
        from ._thread_feed import RUN_TASKS

        call_id, parts = (*where, None, None)[:2]
        tasks = RUN_TASKS.get()
        task = tasks.wait(call_id) if tasks and call_id else None
        config = child_config(self._in_task(self._traced(config, parent), task, (call_id, *where[2:])), parts)
        with set_config_context(config) as context, _placed(), _to_parent() as up:
            # Its own runs find their own tasks, not this run's.
            context.run(RUN_TASKS.set, None)
            result = context.run(self.runnable.invoke, self._input(state), self._explicit(config))
        return up.output if up.output is not None else self._output(result)

    async def _ainvoke(self, state: dict, config: dict | None, parent: Any, where: tuple) -> dict:
        if not self._runnable_api:
            return self._output(await self.runnable.ainvoke(self._input(state)))
        import asyncio

        from langchain_core.runnables.config import set_config_context

        from ._subagent_parts import child_config
        from ._thread_feed import RUN_TASKS

        call_id, parts = (*where, None, None)[:2]
        tasks = RUN_TASKS.get()
        task = await tasks.await_(call_id) if tasks and call_id else None
        config = child_config(self._in_task(self._traced(config, parent), task, (call_id, *where[2:])), parts)
        with set_config_context(config) as context, _placed(), _to_parent() as up:
            context.run(RUN_TASKS.set, None)
            coro = self.runnable.ainvoke(self._input(state), self._explicit(config))
            result = await asyncio.create_task(coro, context=context)
        return up.output if up.output is not None else self._output(result)


def _in_call_task(config: dict, where: tuple) -> dict:
    """``config`` inside the `tools` task the core runs the `task` call in (no thread graph
    follows the run): its namespace and task id (``where``: the call's id, its task's
    namespace, the caller's step and the call's index), the step's checkpoint map and the
    task's metadata, as LangGraph's tool node hands them to deepagents' `task` tool, so a
    LangGraph graph runs as a subgraph of that task (its nodes' namespaces under
    ``tools:<id>``), with the id the call's own config and callbacks carry."""
    if len(where) < 4 or not where[1]:
        return config
    _call_id, namespace, step, index = where[:4]
    from ._stream import task_metadata
    from ._task_config import task_configurable

    configurable = dict(config.get("configurable") or {})
    task_ns = "|".join(namespace)
    metadata = task_metadata(config.get("metadata") or {}, configurable, step, "tools", task_ns, None, index)
    # As the tool sees it (LangChain's `ensure_config`): the outermost task's namespace.
    metadata["checkpoint_ns"] = namespace[0]
    return {**config, "metadata": metadata, "configurable": task_configurable(config, configurable, task_ns, step)}


class _noted:
    """An exception leaving a compiled subagent's run leaves its `task` call's task (and the
    caller's): noted as LangGraph's runner notes it (``where[2]``: their namespace)."""

    def __init__(self, config: dict | None, where: tuple) -> None:
        self.config, self.namespace = config, where[2] if len(where) > 2 else None

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> bool:
        if isinstance(exc, Exception):
            from ._task_notes import note_tasks_error

            note_tasks_error(exc, self.config, self.namespace)
        return False


class _to_parent:
    """A compiled subagent's ``Command(graph=Command.PARENT)`` reaches the caller as
    LangGraph's ``ParentCommand``, addressed to this agent: it becomes the ``task`` call's
    output (``parent_command`` for the core), as LangGraph applies it as the task's writes."""

    def __init__(self) -> None:
        self.output: dict | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> bool:
        try:
            from langgraph.errors import ParentCommand
        except ImportError:  # pragma: no cover - without langgraph nothing raises it
            return False
        if not isinstance(exc, ParentCommand):
            return False
        from ._tool_commands import parent_output

        self.output = {"parent_command": parent_output(exc.args[0])}
        return True


class _placed:
    """An interrupt a compiled subagent raises ran in its own task: its ids are LangGraph's
    own (see `_task_interrupts.in_task`)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        if exc is None:
            return
        from langgraph.errors import GraphInterrupt

        from ._task_interrupts import PLACED

        if isinstance(exc, GraphInterrupt):
            setattr(exc, PLACED, True)
