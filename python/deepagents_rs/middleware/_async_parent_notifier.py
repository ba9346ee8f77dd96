"""The subagent's side of async subagents: waking the agent that launched it."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain.agents.middleware.types import (
    AgentMiddleware,
    ModelRequest,
    ModelResponse,
    TracePolicy,
    omit_payload,
)

from . import _async_subagent_texts as texts
from ._async_launch import _plain_context
from ._async_outcomes import _event, _final_content, _notification
from ._async_tasks import (
    _PARENT_KEY,
)

logger = logging.getLogger("deepagents_rs.middleware.async_subagents")


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
    from . import async_subagents

    client = async_subagents.get_client()
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
