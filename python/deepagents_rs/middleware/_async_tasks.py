"""The records of async subagent tasks: the specs' and tasks' types, statuses and timestamps."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from langchain.agents.middleware.types import (
    AgentState,
)
from pydantic import BaseModel, Field

from . import _async_subagent_texts as texts


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
