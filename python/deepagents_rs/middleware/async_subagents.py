"""deepagents' async subagents: ``AsyncSubAgent`` specs (recognised by ``graph_id``) and
``AsyncSubAgentMiddleware``, which launches background runs on an Agent Protocol server
(a LangGraph deployment, ``langgraph dev``, or this deployment over in-process ASGI when a
spec has no ``url``) and tracks them as tasks in the ``async_tasks`` state key.

The middleware is a LangChain ``AgentMiddleware`` the core's hook chain runs like any other
Python entry (``_middleware.MiddlewareAdapter``), in deepagents' slot (right after
``PatchToolCallsMiddleware``). Its tools (``start_async_task``, ``check_async_task``,
``update_async_task``, ``cancel_async_task``, ``list_async_tasks``) answer with a
``Command`` writing their ``ToolMessage`` and the task records; the records are merged
into ``async_tasks`` by task id by the key's reducer (``_tasks_reducer``, which the core
runs as it runs every state reducer). On the
async path its hooks check unfinished tasks and add a notification message per new outcome
(before each model call, when the run starts, and after a final answer, giving the model
another turn).

The server side is the LangGraph SDK's (``langgraph_sdk``). Each operation here is written
once, as a generator that yields the SDK calls it makes (``_Call``) and receives their
results; ``_run_sync`` and ``_run_async`` carry them out on the SDK's sync or async client.
The pieces live beside this module: the task records (``_async_tasks``), the SDK drivers
(``_async_sdk``), what a run answered and its notifications (``_async_outcomes``), what a
launch sends (``_async_launch``), and the subagent's side (``_async_parent_notifier``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from langchain.agents.middleware import types as middleware_types
from langchain.agents.middleware.types import (
    AgentMiddleware,
    ModelRequest,
    ModelResponse,
    TracePolicy,
    hook_config,
    omit_payload,
)
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import StructuredTool
from langgraph_sdk import get_client, get_sync_client  # noqa: F401 - the clients' factories, patched here by tests as in deepagents
from pydantic import BaseModel

from . import _async_subagent_texts as texts

logger = logging.getLogger(__name__)

__all__ = [
    "ASYNC_TASK_TOOL_DESCRIPTION",
    "AsyncSubAgent",
    "AsyncSubAgentMiddleware",
    "AsyncSubAgentState",
    "AsyncTask",
    "CancelAsyncTaskSchema",
    "CheckAsyncTaskSchema",
    "ListAsyncTasksSchema",
    "StartAsyncTaskSchema",
    "TaskEvent",
    "UpdateAsyncTaskSchema",
]
from . import _async_tasks
from ._async_launch import _describe, _run_options, _task_messages, _thread_metadata
from ._async_outcomes import (
    _check_output,
    _check_result,
    _marker,
    _notification,
    _outcome_update,
    _superseded_content,
)
from ._async_sdk import _Call, _Clients, _observe, _Op, _run_async, _run_sync
from ._async_sdk import _headers as _sdk_headers
from ._async_tasks import (
    _FINAL,
    _OPEN,
    _PULL_TIMEOUT_SECONDS,
    _WAITING,
    ASYNC_TASK_TOOL_DESCRIPTION,
    AsyncSubAgent,
    AsyncSubAgentState,
    AsyncTask,
    CancelAsyncTaskSchema,
    CheckAsyncTaskSchema,
    ListAsyncTasksSchema,
    StartAsyncTaskSchema,
    TaskEvent,
    UpdateAsyncTaskSchema,
    _new_task,
    _now,
    _seen,
    _status_of,
    _StatusFilter,
)
from ._utils import append_to_system_message

# -- the tools --------------------------------------------------------------------------------


def _command(tool_call_id: str | None, content: Any, tasks: dict[str, AsyncTask]) -> Any:
    from langgraph.types import Command

    return Command(update={"messages": [ToolMessage(content, tool_call_id=tool_call_id)], "async_tasks": tasks})


def _tracked(runtime: Any, task_id: str) -> AsyncTask | str:
    task = (runtime.state.get("async_tasks") or {}).get(task_id.strip())
    return task if task else texts.NOT_TRACKED.format(task_id=task_id)


class _Tools:
    """The five tools over one set of specs; each operation is a generator run by the sync
    or the async driver."""

    def __init__(self, specs: list[AsyncSubAgent]) -> None:
        self.specs = {s["name"]: s for s in specs}
        self.clients = _Clients(self.specs)

    def build(self) -> list[StructuredTool]:
        listing = "\n".join(_describe(s) for s in self.specs.values())
        queued = ", ".join(f"`{n}`" for n, s in self.specs.items() if s.get("update_strategy") == "enqueue")
        update = texts.UPDATE_DESCRIPTION + (texts.UPDATE_QUEUED_EXCEPTION.format(agents=queued) if queued else "")
        return [
            self._tool(
                "start_async_task",
                self._start,
                texts.START_DESCRIPTION.format(available_agents=listing),
                StartAsyncTaskSchema,
            ),
            self._tool("check_async_task", self._check, texts.CHECK_DESCRIPTION, CheckAsyncTaskSchema),
            self._tool("update_async_task", self._update, update, UpdateAsyncTaskSchema),
            self._tool("cancel_async_task", self._cancel, texts.CANCEL_DESCRIPTION, CancelAsyncTaskSchema),
            self._list_tool(),
        ]

    def _tool(self, name: str, op: Callable[..., _Op], description: str, schema: type[BaseModel]) -> StructuredTool:
        fields = list(schema.model_fields)

        def sync(runtime: ToolRuntime, **kwargs: Any) -> Any:
            return _run_sync(self.clients, op(runtime, **kwargs))

        async def coro(runtime: ToolRuntime, **kwargs: Any) -> Any:
            return await _run_async(self.clients, op(runtime, **kwargs))

        # LangGraph's tool node injects `runtime` by the annotation of a named parameter.
        for fn in (sync, coro):
            fn.__signature__ = _signature(fields, schema)  # type: ignore[attr-defined]
            fn.__name__ = name
        return StructuredTool.from_function(
            name=name, func=sync, coroutine=coro, description=description, infer_schema=False, args_schema=schema
        )

    def _list_tool(self) -> StructuredTool:
        def list_async_tasks(runtime: ToolRuntime, status_filter: _StatusFilter | None = None) -> Any:
            tasks = self._filtered(runtime, status_filter)
            if not tasks:
                return texts.NO_TASKS
            live = [_run_sync(self.clients, self._live(t)) for t in tasks]
            return self._listed(tasks, live, runtime.tool_call_id)

        async def alist_async_tasks(runtime: ToolRuntime, status_filter: _StatusFilter | None = None) -> Any:
            tasks = self._filtered(runtime, status_filter)
            if not tasks:
                return texts.NO_TASKS
            live = await asyncio.gather(*(_run_async(self.clients, self._live(t)) for t in tasks))
            return self._listed(tasks, list(live), runtime.tool_call_id)

        return StructuredTool.from_function(
            name="list_async_tasks",
            func=list_async_tasks,
            coroutine=alist_async_tasks,
            description=texts.LIST_DESCRIPTION,
            infer_schema=False,
            args_schema=ListAsyncTasksSchema,
        )

    # -- operations

    def _start(self, runtime: Any, description: str, subagent_type: str) -> _Op:
        spec = self.specs.get(subagent_type)
        if spec is None:
            allowed = ", ".join(f"`{n}`" for n in self.specs)
            return texts.UNKNOWN_TYPE.format(name=subagent_type, allowed=allowed)
        messages = _task_messages(spec, runtime.state, description)
        try:
            thread = yield _Call(
                subagent_type, "threads", "create", {"metadata": _thread_metadata(spec, runtime.config or {})}
            )
            run = yield _Call(
                subagent_type,
                "runs",
                "create",
                {
                    "thread_id": thread["thread_id"],
                    "assistant_id": spec["graph_id"],
                    "input": {"messages": messages},
                    **_run_options(spec, runtime),
                },
            )
        except Exception as exc:  # noqa: BLE001 - the SDK's errors are untyped
            logger.warning("Failed to launch async subagent '%s': %s", subagent_type, exc)
            return texts.LAUNCH_FAILED.format(name=subagent_type, error=exc)
        task_id = thread["thread_id"]
        task = _new_task(task_id, subagent_type, run["run_id"])
        return _command(runtime.tool_call_id, texts.LAUNCHED.format(task_id=task_id), {task_id: task})

    def _check(self, runtime: Any, task_id: str) -> _Op:
        task = _tracked(runtime, task_id)
        if isinstance(task, str):
            return task
        try:
            run, thread = yield from _observe(task)
        except Exception as exc:  # noqa: BLE001
            return texts.STATUS_FAILED.format(error=exc)
        result = _check_result(run, task["thread_id"], thread)
        if task["status"] == "cancelled" and result["status"] == _WAITING:
            # Cancelled while paused: its thread still shows the pause.
            result = {"status": "cancelled", "thread_id": result["thread_id"]}
        record = _seen(task, result["status"], run["run_id"])
        return _command(runtime.tool_call_id, _check_output(result), {task["task_id"]: record})

    def _update(self, runtime: Any, task_id: str, message: str) -> _Op:
        task = _tracked(runtime, task_id)
        if isinstance(task, str):
            return task
        spec = self.specs[task["agent_name"]]
        strategy = spec.get("update_strategy", "interrupt")
        if strategy == "enqueue" and _second_update(runtime, task["task_id"]):
            return texts.PARALLEL_UPDATE.format(task_id=task["task_id"])
        try:
            run = yield _Call(
                task["agent_name"],
                "runs",
                "create",
                {
                    "thread_id": task["thread_id"],
                    "assistant_id": spec["graph_id"],
                    "input": {"messages": [{"role": "user", "content": message}]},
                    "multitask_strategy": strategy,
                    **_run_options(spec, runtime),
                },
            )
        except Exception as exc:  # noqa: BLE001
            logger.warning("Failed to update async subagent '%s': %s", task["agent_name"], exc)
            return texts.UPDATE_FAILED.format(error=exc)
        record: AsyncTask = {**task, "run_id": run["run_id"], "status": "running", "last_updated_at": _now()}
        if strategy == "enqueue" and task["status"] in ("running", "pending"):
            said = texts.UPDATE_QUEUED.format(task_id=task["task_id"])
        else:
            said = texts.UPDATED.format(task_id=task["task_id"])
            if task["status"] == _WAITING:
                said += texts.UPDATED_WAITING
        if strategy == "enqueue":
            # Runs queued on a thread start in order: earlier ones matter only while the task is open.
            earlier = task.get("superseded_run_ids", []) if task["status"] in _OPEN else []
            record["status"] = run["status"]
            record["superseded_run_ids"] = [*earlier, task["run_id"]]
        return _command(runtime.tool_call_id, said, {task["task_id"]: record})

    def _cancel(self, runtime: Any, task_id: str) -> _Op:
        task = _tracked(runtime, task_id)
        if isinstance(task, str):
            return task
        # A paused subagent has no active run: marking the task is enough.
        if task["status"] != _WAITING:
            where = {"thread_id": task["thread_id"]}
            try:
                yield _Call(task["agent_name"], "runs", "cancel", {**where, "run_id": task["run_id"]})
            except Exception as exc:  # noqa: BLE001
                return texts.CANCEL_FAILED.format(error=exc)
            # Earlier runs still active, newest first (so none queued behind starts).
            for run_id in reversed(task.get("superseded_run_ids", [])):
                try:
                    run = yield _Call(task["agent_name"], "runs", "get", {**where, "run_id": run_id})
                    if run["status"] in ("running", "pending"):
                        yield _Call(task["agent_name"], "runs", "cancel", {**where, "run_id": run_id})
                except Exception:
                    logger.warning("Failed to cancel earlier run %s of task %s", run_id, task["task_id"], exc_info=True)
        now = _now()
        record: AsyncTask = {**task, "status": "cancelled", "last_checked_at": now, "last_updated_at": now}
        return _command(
            runtime.tool_call_id, texts.CANCELLED.format(task_id=task["task_id"]), {task["task_id"]: record}
        )

    def _live(self, task: AsyncTask) -> _Op:
        """``(status, run_id)`` from the server, the recorded ones if that fails."""
        if task["status"] in _FINAL:
            return task["status"], task["run_id"]
        try:
            run, thread = yield from _observe(task)
        except Exception as exc:
            logger.warning(
                "Failed to fetch live status for task %s (agent=%s), returning cached status %r",
                task["task_id"],
                task["agent_name"],
                task["status"],
                exc_info=exc,
            )
            return task["status"], task["run_id"]
        return _status_of(run, thread), run["run_id"]

    @staticmethod
    def _filtered(runtime: Any, status_filter: str | None) -> list[AsyncTask]:
        tasks = list((runtime.state.get("async_tasks") or {}).values())
        if not status_filter or status_filter == "all":
            return tasks
        return [t for t in tasks if t["status"] == status_filter]

    @staticmethod
    def _listed(tasks: list[AsyncTask], live: list[tuple[str, str]], tool_call_id: str | None) -> Any:
        now = _now()
        lines = [
            texts.LIST_ENTRY.format(task_id=t["task_id"], agent=t["agent_name"], status=s)
            for t, (s, _) in zip(tasks, live, strict=True)
        ]
        records = {t["task_id"]: _seen(t, s, r, now) for t, (s, r) in zip(tasks, live, strict=True)}
        return _command(tool_call_id, texts.LIST_HEADER.format(count=len(lines)) + "\n".join(lines), records)


def _signature(fields: list[str], schema: type[BaseModel]) -> Any:
    import inspect

    params = [inspect.Parameter(f, inspect.Parameter.POSITIONAL_OR_KEYWORD) for f in fields]
    params.append(inspect.Parameter("runtime", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=ToolRuntime))
    return inspect.Signature(params)


def _second_update(runtime: Any, task_id: str) -> bool:
    """Whether an earlier ``update_async_task`` call of this model turn already targets the
    task: parallel calls read the same state, so only the first may queue a follow-up."""
    messages = runtime.state.get("messages") or []
    turn = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    ids = [
        c["id"]
        for c in (turn.tool_calls if turn else [])
        if c["name"] == "update_async_task" and str(c["args"].get("task_id", "")).strip() == task_id
    ]
    return runtime.tool_call_id in ids[1:]


# -- the middleware ---------------------------------------------------------------------------


def _build_async_subagent_tools(agents: list[AsyncSubAgent]) -> list[StructuredTool]:
    """The five async subagent tools (start, check, update, cancel, list) over ``agents``,
    as the middleware builds them."""
    return _Tools(list(agents)).build()


# deepagents' private names for the header and task-merge rules, importable from here.
_resolve_headers = _sdk_headers
_tasks_reducer = _async_tasks._tasks_reducer


def _validate(specs: Sequence[AsyncSubAgent]) -> None:
    if not specs:
        raise ValueError(texts.NONE_GIVEN)
    names = [s["name"] for s in specs]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ValueError(texts.DUPLICATES.format(names=duplicates))
    for spec in specs:
        strategy = spec.get("update_strategy", "interrupt")
        if strategy not in ("interrupt", "enqueue"):
            raise ValueError(texts.BAD_STRATEGY.format(name=spec["name"], value=strategy))
        mode = spec.get("mode", "isolated")
        if mode not in ("isolated", "fork"):
            raise ValueError(texts.BAD_MODE.format(name=spec["name"], value=mode))


# Generic in the run's context and response types, as deepagents declares it.
class AsyncSubAgentMiddleware(AgentMiddleware[Any, middleware_types.ContextT, middleware_types.ResponseT]):
    """deepagents' ``AsyncSubAgentMiddleware``: the async subagent tools over
    ``async_subagents`` (each with ``name``, ``description``, ``graph_id``), their tasks in
    ``async_tasks``, and, on the async path (``ainvoke``, as the Agent Server runs agents),
    a notification when a task finishes, fails or waits for its user. ``system_prompt`` is
    appended to the agent's with the list of async subagents."""

    trace_policy = TracePolicy(process_inputs=omit_payload)
    state_schema = AsyncSubAgentState

    def __init__(self, *, async_subagents: list[AsyncSubAgent], system_prompt: str | None = None) -> None:
        super().__init__()
        _validate(async_subagents)
        if any(s.get("mode") == "fork" for s in async_subagents):
            from deepagents_rs._langchain_private import warn_beta

            warn_beta(name="forked subagents", obj_type="feature")
        tools = _Tools(list(async_subagents))
        # The hooks' own clients, as deepagents' middleware keeps a cache beside its tools'
        # (a patched factory sees one call for each).
        self._clients = _Clients(tools.specs)
        self.tools = tools.build()
        self.system_prompt: str | None = system_prompt
        if system_prompt:
            listing = "\n".join(_describe(s) for s in async_subagents)
            self.system_prompt = system_prompt + texts.SYSTEM_PROMPT_AGENTS + listing

    # -- hooks: the sync path leaves the tasks to the tools

    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self._record_notification(state)

    async def abefore_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        recorded = self._record_notification(state) or {}
        tasks = {**(state.get("async_tasks") or {}), **recorded.get("async_tasks", {})}
        pulled = await self._pull(tasks)
        out = {**recorded, **pulled}
        if recorded.get("messages"):
            out["messages"] = [*recorded["messages"], *pulled.get("messages", [])]
        out["async_tasks"] = {**recorded.get("async_tasks", {}), **pulled.get("async_tasks", {})}
        return out

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return None

    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return await self._pull(state.get("async_tasks") or {}) or None

    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return None

    @hook_config(can_jump_to=["model"])
    async def aafter_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        messages = state.get("messages") or []
        if not messages or getattr(messages[-1], "tool_calls", None):
            return None
        pulled = await self._pull(state.get("async_tasks") or {})
        if not pulled.get("messages"):
            return pulled or None
        return {**pulled, "jump_to": "model"}

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        if self.system_prompt is None:
            return handler(request)
        return handler(
            request.override(system_message=append_to_system_message(request.system_message, self.system_prompt))
        )

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        if self.system_prompt is None:
            return await handler(request)
        return await handler(
            request.override(system_message=append_to_system_message(request.system_message, self.system_prompt))
        )

    # -- checking tasks

    async def _pull(self, tasks: Mapping[str, AsyncTask]) -> dict[str, Any]:
        """Checks the open tasks: their new records, and a notification per new outcome."""
        open_tasks = [t for t in tasks.values() if t["status"] in _OPEN]
        found = await asyncio.gather(*(self._look(t) for t in open_tasks))
        records: dict[str, AsyncTask] = {}
        messages: list[dict[str, Any]] = []
        for task, seen in zip(open_tasks, found, strict=True):
            if seen is None:
                continue
            run, thread = seen
            status = _status_of(run, thread)
            if status == task["status"] and run["run_id"] == task["run_id"]:
                continue
            records[task["task_id"]] = _seen(task, status, run["run_id"])
            if status != task["status"]:
                update = _outcome_update(task, run, thread, status)
                if update is not None:
                    messages.append(_notification(update))
        out: dict[str, Any] = {"async_tasks": records} if records else {}
        if messages:
            out["messages"] = messages
        return out

    async def _look(self, task: AsyncTask) -> tuple[Any, Any] | None:
        try:
            return await asyncio.wait_for(_run_async(self._clients, _observe(task)), _PULL_TIMEOUT_SECONDS)
        except Exception:
            logger.warning("Failed to check task %s", task["task_id"], exc_info=True)
            return None

    @staticmethod
    def _record_notification(state: Mapping[str, Any]) -> dict[str, Any] | None:
        """When a notification started this run, the task's record takes its outcome (so no
        check reports it again); one from a run a queued follow-up superseded is reworded."""
        messages = state.get("messages") or []
        event = _marker(messages[-1]) if messages else None
        task = (state.get("async_tasks") or {}).get(event["task_id"]) if event else None
        if event is None or task is None:
            return None
        run_id = event.get("run_id", task["run_id"])
        if run_id in task.get("superseded_run_ids", []):
            last = messages[-1]
            return {"messages": [last.model_copy(update={"content": _superseded_content(last, event)})]}
        if run_id != task["run_id"] and task["status"] not in _OPEN:
            return None
        return {"async_tasks": {task["task_id"]: _seen(task, event["status"], run_id)}}
