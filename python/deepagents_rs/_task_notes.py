"""The notes LangGraph's runner adds to a task's error (``run_with_retry``): "During task
with name '<node>' and id '<task id>'", one per task the error leaves, innermost first (a
subagent's tool fails its own `tools` task, then the `tools` task of the `task` call that
ran the subagent).

A run a thread graph follows (a checkpointer, interrupts, a parent graph: ``_threads``) gets
them from LangGraph's own runner, which runs the graph's tasks; a run of the core alone has
no runner, so the tasks the core runs note their errors here, with the ids their configs
carry.
"""

from __future__ import annotations

from ._task_channels import own_value
from ._task_config import TASKS_KEY


def note_task_error(exc: BaseException, config: dict | None) -> None:
    """Notes ``exc``, raised in the task whose config is ``config``, as LangGraph's runner
    notes it on its way out of that task and each task around it."""
    if not isinstance(exc, Exception) or config is None:
        return
    configurable = config.get("configurable") or {}
    if own_value(configurable, TASKS_KEY) is not None:
        # LangGraph's runner runs the thread graph's tasks and notes the error itself.
        return
    try:
        from langgraph.errors import GraphBubbleUp
    except ImportError:
        return
    if isinstance(exc, GraphBubbleUp):
        # An interrupt or a parent command passes up unnoted.
        return
    ns = (config.get("metadata") or {}).get("langgraph_checkpoint_ns")
    if not ns:
        return
    notes = getattr(exc, "__notes__", ())
    for segment in reversed(str(ns).split("|")):
        name, _, task_id = segment.rpartition(":")
        note = f"During task with name '{name}' and id '{task_id}'"
        if note not in notes:
            exc.add_note(note)
