"""deepagents' async subagents: ``AsyncSubAgent`` specs (recognised by ``graph_id``) and
``AsyncSubAgentMiddleware``, which launches background runs on an Agent Protocol server
(a LangGraph deployment, ``langgraph dev``, or this deployment over in-process ASGI when a
spec has no ``url``) and tracks them as tasks in the ``async_tasks`` state key.

The middleware is a LangChain ``AgentMiddleware`` the core's hook chain runs like any other
Python entry (``_middleware.MiddlewareAdapter``), in deepagents' slot (right after
``PatchToolCallsMiddleware``). Its tools (``start_async_task``, ``check_async_task``,
``update_async_task``, ``cancel_async_task``, ``list_async_tasks``) answer with a
``Command`` writing their ``ToolMessage`` and the task records; the core merges the records
into ``async_tasks`` by task id (``DICT_MERGED_KEYS``, deepagents' dict reducer). On the
async path its hooks check unfinished tasks and add a notification message per new outcome
(before each model call, when the run starts, and after a final answer, giving the model
another turn).

The server side is the LangGraph SDK's (``langgraph_sdk``). Each operation below is written
once, as a generator that yields the SDK calls it makes (``_Call``) and receives their
results; ``_run_sync`` and ``_run_async`` carry them out on the SDK's sync or async client.
"""

from __future__ import annotations

import asyncio
import dataclasses
import html
import json
import logging
import urllib.parse
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from copy import deepcopy
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from langchain.agents.middleware.types import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
    TracePolicy,
    hook_config,
    omit_payload,
)
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, convert_to_messages
from langchain_core.tools import StructuredTool
from pydantic import BaseModel, Field

from . import _async_subagent_texts as texts

logger = logging.getLogger(__name__)


class AsyncSubAgent(TypedDict):
    """An async subagent: a graph (``graph_id``, a graph name or assistant id) on an Agent
    Protocol server at ``url`` (none: this deployment, over in-process ASGI, async runs only).

    ``headers`` go with each request (``x-auth-scheme: langsmith`` is added unless given);
    ``webhook`` is called by the server when a run ends; ``update_strategy`` is how a
    follow-up meets an active run (``"interrupt"``, the default, or ``"enqueue"``);
    ``notify_parent`` (default ``True``) lets the subagent wake this agent when it ends
    while this agent is idle; ``mode="fork"`` sends the conversation so far with the task.
    """

    name: str
    description: str
    graph_id: str
    url: NotRequired[str]
    headers: NotRequired[dict[str, str]]
    webhook: NotRequired[str]
    update_strategy: NotRequired[Literal["interrupt", "enqueue"]]
    notify_parent: NotRequired[bool]
    mode: NotRequired[Literal["isolated", "fork"]]


class AsyncTask(TypedDict):
    """A tracked task, as the ``async_tasks`` state key holds it (keyed by ``task_id``, the
    subagent's thread id). Timestamps are UTC, ``YYYY-MM-DDTHH:MM:SSZ``."""

    task_id: str
    agent_name: str
    thread_id: str
    run_id: str
    superseded_run_ids: NotRequired[list[str]]
    status: str
    created_at: str
    last_checked_at: str
    last_updated_at: str


def _tasks_reducer(existing: dict[str, AsyncTask] | None, update: dict[str, AsyncTask]) -> dict[str, AsyncTask]:
    """Each write's tasks replace the ones of their ids; the others stay."""
    return {**(existing or {}), **update}


class AsyncSubAgentState(AgentState):
    """The agent's state with its tracked async tasks."""

    async_tasks: Annotated[NotRequired[dict[str, AsyncTask]], _tasks_reducer]


class TaskEvent(TypedDict):
    """How a task ended or paused, as a notification message carries it (in
    ``additional_kwargs["deepagents_notification"]``)."""

    task_id: str
    agent_name: str
    status: Literal["success", "error", "timeout", "cancelled", "waiting"]
    run_id: NotRequired[str]


class StartAsyncTaskSchema(BaseModel):
    """Input schema for the `start_async_task` tool."""

    description: str = Field(description=texts.ARG_DESCRIPTION)
    subagent_type: str = Field(description=texts.ARG_SUBAGENT_TYPE)


class CheckAsyncTaskSchema(BaseModel):
    """Input schema for the `check_async_task` tool."""

    task_id: str = Field(description=texts.ARG_TASK_ID)


class UpdateAsyncTaskSchema(BaseModel):
    """Input schema for the `update_async_task` tool."""

    task_id: str = Field(description=texts.ARG_TASK_ID)
    message: str = Field(description=texts.ARG_MESSAGE)


class CancelAsyncTaskSchema(BaseModel):
    """Input schema for the `cancel_async_task` tool."""

    task_id: str = Field(description=texts.ARG_TASK_ID)


_StatusFilter = Literal["running", "pending", "waiting", "success", "error", "cancelled", "all"]


class ListAsyncTasksSchema(BaseModel):
    """Input schema for the `list_async_tasks` tool."""

    status_filter: _StatusFilter | None = Field(default=None, description=texts.ARG_STATUS_FILTER)


ASYNC_TASK_TOOL_DESCRIPTION = texts.START_DESCRIPTION

# -- statuses ---------------------------------------------------------------------------------

_WAITING = "waiting"
#: A task's status when its run finished but its thread moved on.
_FROM_THREAD = {"interrupted": _WAITING, "busy": "running", "error": "error"}
#: Statuses that never change: a list does not ask the server about them.
_FINAL = frozenset({"cancelled", "success", "error", "timeout", "interrupted"})
#: Statuses the hooks keep checking.
_OPEN = frozenset({"running", "pending", _WAITING})
#: Statuses worth a notification.
_NOTIFIED = frozenset({"success", "error", "timeout", "cancelled", _WAITING})
_MEDIA = frozenset({"image", "audio", "video", "file"})
#: deepagents' limit for large tool results (4 characters a token, 20,000 tokens).
_MAX_RESULT_CHARS = 4 * 20_000
_PULL_TIMEOUT_SECONDS = 5
_NOTIFICATION_KEY = "deepagents_notification"
_PARENT_KEY = "deepagents_parent"
_NEST_UNDER_PARENT = "ls_nest_under_parent"
_SUMMARIZATION_EVENT_KEY = "_summarization_event"
#: The file tools' offloaded media: the run's payload cache, and a block's reference key.
_BLOB_PAYLOADS_KEY = "_blob_payloads"
_BLOB_REF_KEY = "deepagents_blob"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _status_of(run: Mapping[str, Any], thread: Mapping[str, Any] | None) -> str:
    """The task's status: its run's, except that a run cancelled on the server reads as
    ``cancelled`` and a finished run's thread tells a pause (``waiting``) or a newer run."""
    status = run["status"]
    if status == "interrupted":
        return "cancelled"
    if status == "success" and thread is not None:
        return _FROM_THREAD.get(thread.get("status"), "success")
    return status


def _seen(task: AsyncTask, status: str, run_id: str, now: str | None = None) -> AsyncTask:
    """The task as a check left it (its update time moves only when something changed)."""
    now = now or _now()
    record: AsyncTask = {**task, "run_id": run_id, "status": status, "last_checked_at": now}
    if (status, run_id) != (task["status"], task["run_id"]):
        record["last_updated_at"] = now
    return record


def _new_task(task_id: str, agent: str, run_id: str) -> AsyncTask:
    """A task just launched: its thread is its id, its run running."""
    now = _now()
    times = dict.fromkeys(("created_at", "last_checked_at", "last_updated_at"), now)
    return {
        "task_id": task_id,
        "agent_name": agent,
        "thread_id": task_id,
        "run_id": run_id,
        "status": "running",
        **times,
    }  # type: ignore[typeddict-item]


# -- the SDK calls, made by one of two drivers ------------------------------------------------


@dataclasses.dataclass
class _Call:
    """One SDK call for the named subagent's client: ``client.<group>.<method>(**kwargs)``."""

    agent: str
    group: str
    method: str
    kwargs: dict[str, Any]


_Op = Generator[_Call, Any, Any]


def _run_sync(clients: _Clients, op: _Op) -> Any:
    """Runs ``op``'s calls on the sync clients; a failed call is raised in ``op``."""
    send: Any = None
    error: BaseException | None = None
    while True:
        try:
            call = op.throw(error) if error is not None else op.send(send)
        except StopIteration as done:
            return done.value
        error = None
        try:
            client = clients.sync(call.agent)
            send = getattr(getattr(client, call.group), call.method)(**call.kwargs)
        except Exception as exc:  # noqa: BLE001 - handed to the operation
            error = exc


async def _run_async(clients: _Clients, op: _Op) -> Any:
    """Runs ``op``'s calls on the async clients."""
    send: Any = None
    error: BaseException | None = None
    while True:
        try:
            call = op.throw(error) if error is not None else op.send(send)
        except StopIteration as done:
            return done.value
        error = None
        try:
            client = clients.async_(call.agent)
            send = await getattr(getattr(client, call.group), call.method)(**call.kwargs)
        except Exception as exc:  # noqa: BLE001 - handed to the operation
            error = exc


def _headers(spec: AsyncSubAgent) -> dict[str, str]:
    headers = dict(spec.get("headers") or {})
    headers.setdefault("x-auth-scheme", "langsmith")
    return headers


class _Clients:
    """The SDK clients, one per (url, headers), made when first needed."""

    def __init__(self, specs: Mapping[str, AsyncSubAgent]) -> None:
        self.specs = specs
        self._sync: dict[Any, Any] = {}
        self._async: dict[Any, Any] = {}

    def _key(self, spec: AsyncSubAgent) -> Any:
        return spec.get("url"), frozenset(_headers(spec).items())

    def sync(self, name: str) -> Any:
        spec = self.specs[name]
        if spec.get("url") is None:
            raise ValueError(texts.NO_URL_SYNC.format(name=name))
        key = self._key(spec)
        if key not in self._sync:
            from langgraph_sdk import get_sync_client

            self._sync[key] = get_sync_client(url=spec.get("url"), headers=_headers(spec))
        return self._sync[key]

    def async_(self, name: str) -> Any:
        spec = self.specs[name]
        key = self._key(spec)
        if key not in self._async:
            from langgraph_sdk import get_client

            self._async[key] = get_client(url=spec.get("url"), headers=_headers(spec))
        return self._async[key]


def _observe(task: AsyncTask) -> _Op:
    """``(run, thread)``: the task's newest run and, once that run finished, its thread.

    A tracked run another client's run interrupted hands over to the thread's newest run
    (unless the parent cancelled the task); so does a finished run whose thread is busy or
    failed since.
    """
    where = {"thread_id": task["thread_id"]}
    agent = task["agent_name"]
    run = yield _Call(agent, "runs", "get", {**where, "run_id": task["run_id"]})
    if run["status"] == "interrupted" and task["status"] != "cancelled":
        run = next(iter((yield _Call(agent, "runs", "list", {**where, "limit": 1}))), run)
    if run["status"] != "success":
        return run, None
    thread = yield _Call(agent, "threads", "get", where)
    if thread is not None and thread.get("status") in ("busy", "error"):
        run = next(iter((yield _Call(agent, "runs", "list", {**where, "limit": 1}))), run)
    return run, thread


# -- what a task's subagent answered ----------------------------------------------------------


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _final_content(values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The subagent's last message as standard content blocks."""
    messages = values.get("messages") or []
    if not messages:
        return [_text(texts.NO_OUTPUT)]
    try:
        return list(convert_to_messages(messages[-1:])[0].content_blocks)
    except ValueError:
        last = messages[-1]
        return [_text(str(last.get("content", "") if isinstance(last, Mapping) else last))]


def _interrupts(thread: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    pending = [item for items in ((thread or {}).get("interrupts") or {}).values() for item in items]
    return [{"id": item["id"], "value": item["value"]} for item in pending]


def _check_result(run: Mapping[str, Any], thread_id: str, thread: Mapping[str, Any] | None) -> dict[str, Any]:
    status = _status_of(run, thread)
    result: dict[str, Any] = {"status": status, "thread_id": thread_id}
    if status == "pending":
        result["note"] = texts.PENDING_NOTE
    elif status == "success":
        values = (thread or {}).get("values")
        result["result"] = _final_content(values if isinstance(values, Mapping) else {})
    elif status == "error":
        result["error"] = str(run.get("error")) if run.get("error") else texts.RUN_ERROR
    elif status == _WAITING:
        result["interrupts"] = _interrupts(thread)
        result["note"] = texts.WAITING_NOTE
    return result


def _check_output(result: dict[str, Any]) -> Any:
    """A check result as tool content: JSON, the answer's text in ``result``; an answer with
    media follows the status JSON as its own blocks."""
    blocks = result.get("result")
    if not isinstance(blocks, list):
        return json.dumps(result)
    if all(b["type"] not in _MEDIA for b in blocks):
        return json.dumps({**result, "result": "".join(b["text"] for b in blocks if b["type"] == "text")})
    head = {k: v for k, v in result.items() if k != "result"}
    answer = [_text(b["text"]) if b["type"] == "text" else dict(b) for b in blocks if b["type"] in _MEDIA | {"text"}]
    return [_text(json.dumps(head)), *answer]


# -- notifications ----------------------------------------------------------------------------


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_RESULT_CHARS else text[:_MAX_RESULT_CHARS] + texts.CLIPPED


def _header(event: Mapping[str, Any]) -> dict[str, Any]:
    return _text(
        texts.NOTIFICATION_HEADER.format(
            task_id=_escape(event["task_id"]),
            agent_name=_escape(event["agent_name"]),
            status=_escape(event["status"]),
        )
    )


def _notification_content(update: Mapping[str, Any]) -> list[dict[str, Any]]:
    blocks = [_header(update)]
    if "result" in update:
        body = [
            _text(_escape(_clip(b["text"]))) if b["type"] == "text" else dict(b)
            for b in update["result"]
            if b["type"] == "text" or b["type"] in _MEDIA
        ]
        blocks += [_text("<result>\n"), *body, _text("\n</result>\n")]
    details = {k: update[k] for k in ("error", "interrupts") if k in update}
    if details:
        blocks.append(_text(f"<details>{_escape(_clip(json.dumps(details, default=str)))}</details>\n"))
    blocks.append(_text(texts.NOTIFICATION_CLOSE + texts.NEXT_STEP[update["status"]]))
    return blocks


def _event(task_id: str, agent_name: str, status: str, run_id: str | None, **details: Any) -> dict[str, Any]:
    event = {"task_id": task_id, "agent_name": agent_name, "status": status, **details}
    if run_id:
        event["run_id"] = run_id
    return event


def _notification(update: Mapping[str, Any]) -> dict[str, Any]:
    """A task update as the user-role message the model reads, marked with its event."""
    marker = {k: update[k] for k in ("task_id", "agent_name", "status", "run_id") if k in update}
    return {"role": "user", "content": _notification_content(update), _NOTIFICATION_KEY: marker}


def _outcome_update(task: AsyncTask, run: Mapping[str, Any], thread: Any, status: str) -> dict[str, Any] | None:
    """The update a check's outcome is reported with, or ``None`` when it is not worth one."""
    if status not in _NOTIFIED:
        return None
    found = _check_result(run, task["thread_id"], thread)
    details: dict[str, Any] = {"interrupts": found["interrupts"]} if "interrupts" in found else {}
    if status == "success":
        details["result"] = found["result"]
    elif status == "error":
        details["error"] = texts.NOTIFICATION_FAILED
    return _event(task["task_id"], task["agent_name"], status, run.get("run_id", task["run_id"]), **details)


def _marker(message: Any) -> dict[str, Any] | None:
    event = (getattr(message, "additional_kwargs", None) or {}).get(_NOTIFICATION_KEY)
    return event if isinstance(event, dict) else None


def _superseded_content(message: Any, event: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An earlier run's notification with a closing that says so."""
    content = message.content
    last = content[-1] if isinstance(content, list) and content else None
    if isinstance(last, dict) and str(last.get("text", "")).startswith("</task-notification>"):
        body = [b for b in content[:-1] if isinstance(b, dict)]
    else:
        body = [_header(event)]
    return [*body, _text(texts.SUPERSEDED)]


# -- what a launch sends ----------------------------------------------------------------------


def _parent_of(config: Mapping[str, Any], spec: AsyncSubAgent) -> dict[str, str]:
    """This agent as the subagent's runs know it: its thread, and (for a subagent on this
    deployment that may notify it) its assistant."""
    configurable = config.get("configurable") or {}
    metadata = config.get("metadata") or {}
    parent: dict[str, str] = {}
    if configurable.get("thread_id"):
        parent["thread_id"] = str(configurable["thread_id"])
    assistant = metadata.get("assistant_id") or configurable.get("assistant_id")
    if assistant and not spec.get("url") and spec.get("notify_parent") is not False:
        parent["assistant_id"] = str(assistant)
    return parent


def _thread_metadata(spec: AsyncSubAgent, config: Mapping[str, Any]) -> dict[str, str]:
    parent = _parent_of(config, spec)
    metadata = {"subagent_name": spec["name"]}
    if "thread_id" in parent:
        metadata["parent_thread_id"] = parent["thread_id"]
    if "assistant_id" in parent:
        metadata["parent_assistant_id"] = parent["assistant_id"]
    return metadata


def _trace_headers(spec: AsyncSubAgent) -> dict[str, str]:
    """LangSmith headers for a subagent on this deployment while tracing is on, else none."""
    if spec.get("url"):
        return {}
    from langsmith.run_helpers import get_current_run_tree

    tree = get_current_run_tree()
    if tree is None or not tree.trace_id:
        return {}
    baggage = [v for k, v in (spec.get("headers") or {}).items() if k.lower() == "baggage" and v]
    baggage.append(f"langsmith-metadata={urllib.parse.quote(json.dumps({_NEST_UNDER_PARENT: True}))}")
    if tree.session_name:
        baggage.append(f"langsmith-project={urllib.parse.quote(tree.session_name)}")
    return {"langsmith-trace": tree.dotted_order, "baggage": ",".join(baggage)}


def _plain_context(context: Any) -> dict[str, Any] | None:
    """A run context as JSON data for another run, without the parent reference."""
    data: Any = context
    if isinstance(context, BaseModel):
        data = context.model_dump(mode="json")
    elif dataclasses.is_dataclass(context) and not isinstance(context, type):
        data = dataclasses.asdict(context)
    plain = {str(k): v for k, v in data.items() if k != _PARENT_KEY} if isinstance(data, Mapping) else {}
    return plain or None


def _run_options(spec: AsyncSubAgent, runtime: Any) -> dict[str, Any]:
    """``runs.create``'s options: trace headers, the webhook, and this run's context (a
    subagent on this deployment) or else the parent reference."""
    options: dict[str, Any] = {"headers": _trace_headers(spec)}
    if spec.get("webhook"):
        options["webhook"] = spec["webhook"]
    context = None if spec.get("url") else _plain_context(runtime.context)
    if context is not None:
        options["context"] = context
    else:
        parent = _parent_of(runtime.config or {}, spec)
        if parent:
            options["config"] = {"configurable": {_PARENT_KEY: parent}}
    return options


def _effective_history(state: Mapping[str, Any]) -> list[Any]:
    """The conversation as the model sees it (after a summary), without the turn calling the
    tool."""
    history = list(state.get("messages") or [])
    if history and isinstance(history[-1], AIMessage) and history[-1].tool_calls:
        history.pop()
    event = state.get(_SUMMARIZATION_EVENT_KEY)
    if isinstance(event, Mapping) and "summary_message" in event and "cutoff_index" in event:
        cutoff = event["cutoff_index"]
        summary = event["summary_message"]
        summary = convert_to_messages([summary])[0] if isinstance(summary, dict) else summary
        history = [summary, *history[cutoff:]] if cutoff <= len(history) else [summary]
    return history


def _task_messages(spec: AsyncSubAgent, state: Mapping[str, Any], description: str) -> list[dict[str, Any]]:
    """The launch's input: the task alone, or (a fork) the conversation then the task."""
    if spec.get("mode") != "fork":
        return [{"role": "user", "content": description}]
    messages = [*_effective_history(state), HumanMessage(content=texts.FORK_PREAMBLE + description)]
    messages = deepcopy(
        [m.model_copy(update={"artifact": None}) if isinstance(m, ToolMessage) else m for m in messages]
    )
    messages = _with_media(messages, state.get(_BLOB_PAYLOADS_KEY) or {})
    return [m.model_dump(exclude={"artifact": True, "additional_kwargs": {"lc_evicted_to"}}) for m in messages]


def _with_media(messages: list[Any], payloads: Mapping[str, str]) -> list[Any]:
    """The messages with the media the file tools offloaded put back (a block naming its
    payload's digest, ``deepagents_blob``), from the run's payload cache; a payload not there
    becomes deepagents' notice."""

    def restored(block: Any) -> Any:
        if not isinstance(block, dict) or _BLOB_REF_KEY not in block:
            return block
        digest = block[_BLOB_REF_KEY]
        payload = payloads.get(digest) if isinstance(digest, str) else None
        if payload is None:
            return _text(texts.MISSING_BLOB)
        kept = {k: v for k, v in block.items() if k != _BLOB_REF_KEY}
        kept["base64"] = payload
        return kept

    out = []
    for m in messages:
        content = m.content
        if isinstance(content, list) and any(isinstance(b, dict) and _BLOB_REF_KEY in b for b in content):
            m = m.model_copy(update={"content": [restored(b) for b in content]})
        out.append(m)
    return out


def _describe(spec: AsyncSubAgent) -> str:
    return f"- {spec['name']}: {spec['description']}{texts.FORK_SUFFIX if spec.get('mode') == 'fork' else ''}"


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


def _with_prompt(system: SystemMessage | None, text: str) -> SystemMessage:
    blocks = list(system.content_blocks) if system else []
    blocks.append(_text(f"\n\n{text}" if blocks else text))
    return SystemMessage(content_blocks=blocks)


class AsyncSubAgentMiddleware(AgentMiddleware):
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
            from langchain_core._api.beta_decorator import warn_beta

            warn_beta(name="forked subagents", obj_type="feature")
        tools = _Tools(list(async_subagents))
        self._clients = tools.clients
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
        return handler(request.override(system_message=_with_prompt(request.system_message, self.system_prompt)))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        if self.system_prompt is None:
            return await handler(request)
        return await handler(request.override(system_message=_with_prompt(request.system_message, self.system_prompt)))

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


# -- the subagent's side: waking the agent that launched it ------------------------------------

#: Parent thread statuses a notification run may start on (not running, not waiting for a human).
_DELIVERABLE = frozenset({"idle", "error"})


def _launcher(config: Mapping[str, Any]) -> dict[str, str] | None:
    """The agent that launched this run's task (the run's parent reference, else its task
    thread's metadata, which the Agent Server copies into every run), or ``None``."""
    reference = (config.get("configurable") or {}).get(_PARENT_KEY)
    if isinstance(reference, dict):
        return reference
    metadata = config.get("metadata") or {}
    if "parent_thread_id" not in metadata:
        return None
    out = {"thread_id": str(metadata["parent_thread_id"])}
    if "parent_assistant_id" in metadata:
        out["assistant_id"] = str(metadata["parent_assistant_id"])
    return out


async def _wake_parent(parent: Mapping[str, str], update: dict[str, Any], context: dict[str, Any] | None) -> None:
    """Starts a notification run on the parent's thread while it is idle (or its last run
    failed); a busy parent finds the outcome itself. Never raises."""
    from langgraph_sdk import get_client

    client = get_client()
    try:
        thread = await client.threads.get(thread_id=parent["thread_id"])
        if thread.get("status") not in _DELIVERABLE:
            return
        await client.runs.create(
            thread_id=parent["thread_id"],
            assistant_id=parent["assistant_id"],
            input={"messages": [_notification(update)]},
            multitask_strategy="reject",
            **({"context": context} if context is not None else {}),
        )
    except Exception as exc:  # noqa: BLE001 - the SDK's errors are untyped
        code = getattr(getattr(exc, "response", None), "status_code", None)
        # 404: the parent is gone; 409: it just became busy.
        (logger.debug if code in (404, 409) else logger.warning)(
            "Didn't deliver the notification for task %s", update["task_id"], exc_info=True
        )


class _ParentNotifierMiddleware(AgentMiddleware):
    """deepagents' ``_ParentNotifierMiddleware``: when this agent's run was started by an
    async subagent tool on this deployment, its end (answer or failed model call) wakes the
    launching agent. Outside an Agent Server the core's own no-op entry stands in its slot."""

    trace_policy = TracePolicy(process_inputs=omit_payload)

    def __init__(self) -> None:
        super().__init__()
        self._reported: dict[str, None] = {}

    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return None

    async def aafter_agent(self, state: Any, runtime: Any, config: Any = None) -> dict[str, Any] | None:
        await self._report(config or {}, "success", runtime.context, result=_final_content(state))
        return None

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        return handler(request)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        from langgraph.errors import GraphInterrupt

        try:
            return await handler(request)
        except GraphInterrupt:
            raise
        except Exception as exc:
            from langchain_core.runnables.config import var_child_runnable_config

            failure = texts.FAILURE.format(kind=type(exc).__name__)
            await self._report(var_child_runnable_config.get() or {}, "error", request.runtime.context, error=failure)
            raise

    async def _report(self, config: Mapping[str, Any], status: str, context: Any, **details: Any) -> None:
        """Once per run, for the top-level graph of a run an async subagent tool started."""
        parent = _launcher(config)
        namespace = str((config.get("configurable") or {}).get("checkpoint_ns") or "")
        if not parent or "|" in namespace:
            return
        metadata = config.get("metadata") or {}
        configurable = config.get("configurable") or {}
        # LangGraph copies the configurable's `run_id` into the metadata, where deepagents reads it.
        run_id = metadata.get("run_id") or configurable.get("run_id")
        run_id = str(run_id) if run_id else None
        if run_id is None or run_id in self._reported:
            return
        self._reported[run_id] = None
        if len(self._reported) > 1000:
            del self._reported[next(iter(self._reported))]
        if "thread_id" not in parent or "assistant_id" not in parent:
            return
        name = str(metadata.get("subagent_name") or metadata.get("graph_id") or "subagent")
        task_id = str(configurable.get("thread_id", ""))
        await _wake_parent(parent, _event(task_id, name, status, run_id, **details), _plain_context(context))


__all__ = [
    "ASYNC_TASK_TOOL_DESCRIPTION",
    "AsyncSubAgent",
    "AsyncSubAgentMiddleware",
    "AsyncSubAgentState",
    "AsyncTask",
    "TaskEvent",
]
