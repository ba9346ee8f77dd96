"""The keys LangGraph puts in a task's ``configurable`` and ``Runtime.execution_info``, for the
tasks the core runs itself (a tool call's `tools` task): the task's id and namespace, the
checkpoint it runs from (``checkpoint_map``, by namespace) and ``checkpoint_id`` cleared.

On a checkpointed thread the checkpoint a task runs from is one the thread graph wrote
(``_threads``): each of the graph's tasks records its step's ``checkpoint_map``, and the task
the core runs waits for its step's (the graph follows the core a little behind).
Without a saver LangGraph still numbers its in-memory checkpoints; the core has none, so a
step gets an id of the same form (uuid6, the step as clock sequence), one per run and step.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import Any

#: LangGraph's configurable keys (``langgraph._internal._constants``), spelled out so the
#: module imports without LangGraph.
TASK_ID_KEY = "__pregel_task_id"
CHECKPOINT_MAP_KEY = "checkpoint_map"
#: Where a checkpointed run's config carries its thread graph's `TaskConfigs`.
TASKS_KEY = "__deepagents_rs_task_configs"

#: The ids made for runs without a saver, by (run config, namespace, step): a run's config is
#: one object for its whole run, so its tool calls of one step share their checkpoint id.
#: Bounded: a finished run's entries are dropped once newer runs need the room.
_MADE: collections.OrderedDict[tuple[int, str, int], str] = collections.OrderedDict()
_MADE_LIMIT = 4096
_made_lock = threading.Lock()
#: How long (seconds) a task waits at most for the thread graph to start its step.
_GRAPH_PATIENCE = 5.0


def _made_checkpoint(run: Any, ns: str, step: int) -> str:
    from langgraph.checkpoint.base.id import uuid6

    if run is None:
        # No run config to tell this run's tasks from another's: an id of the call's own.
        return str(uuid6(clock_seq=max(step, 0)))
    key = (id(run), ns, step)
    with _made_lock:
        found = _MADE.get(key)
        if found is None:
            found = _MADE[key] = str(uuid6(clock_seq=max(step, 0)))
            while len(_MADE) > _MADE_LIMIT:
                _MADE.popitem(last=False)
        else:
            _MADE.move_to_end(key)
        return found


def _thread_checkpoints(configurable: dict, step: int) -> dict | None:
    """The checkpoint map of the thread graph's tasks of ``step``, when the run is followed
    by one (see ``_thread_feed.TaskConfigs.step_started``)."""
    tasks = configurable.get(TASKS_KEY)
    if tasks is None:
        return None
    # The graph starts the step once it has the core's previous node: nothing it waits for
    # is this call, so waiting for it cannot deadlock, except on a thread running an event
    # loop (an async tool's, maybe the graph's own): there only what is known is read.
    return tasks.step_checkpoints(step, 0.0 if _on_loop_thread() else _GRAPH_PATIENCE)


def _on_loop_thread() -> bool:
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def task_configurable(run: Any, configurable: dict, task_ns: str, step: int | None) -> dict:
    """``configurable`` with the keys of the task whose namespace is ``task_ns`` (its own
    segment last, ``<node>:<task id>``), at ``step`` of the agent's graph."""
    task_id = task_ns.rsplit(":", 1)[-1]
    parents = task_ns.split("|")[:-1]
    checkpoints: dict[str, str] = {}
    if step is not None:
        known = _thread_checkpoints(configurable, step) if not parents else None
        if known is not None:
            checkpoints.update(known)
        else:
            # The agent's graph, then each parent task's graph (a subagent's), deepest last:
            # only the deepest is numbered by this step.
            for depth in range(len(parents) + 1):
                ns = "|".join(parents[:depth])
                checkpoints[ns] = _made_checkpoint(run, ns, step if depth == len(parents) else -1)
    return {
        **configurable,
        TASK_ID_KEY: task_id,
        "checkpoint_id": None,
        CHECKPOINT_MAP_KEY: checkpoints,
        "checkpoint_ns": task_ns,
    }


def execution_info(configurable: dict) -> Any:
    """LangGraph's ``ExecutionInfo`` for the task ``configurable`` describes."""
    from langgraph.runtime import ExecutionInfo

    ns = configurable.get("checkpoint_ns") or ""
    parent = ns.rsplit("|", 1)[0] if "|" in ns else ""
    return ExecutionInfo(
        checkpoint_id=(configurable.get(CHECKPOINT_MAP_KEY) or {}).get(parent, ""),
        checkpoint_ns=ns,
        task_id=configurable.get(TASK_ID_KEY, ""),
        thread_id=configurable.get("thread_id"),
        run_id=None,
        node_first_attempt_time=time.time(),
    )
