"""The notes LangGraph's runner adds to a task's error (``run_with_retry``): "During task
with name '<node>' and id '<task id>'", one per task the error leaves, innermost first (a
subagent's tool fails its own `tools` task, then the `tools` task of the `task` call that
ran the subagent).

A run a thread graph follows (a checkpointer, interrupts, a parent graph: ``_threads``) gets
them from LangGraph's own runner, which runs the graph's tasks; a run of the core alone has
no runner, so the tasks the core runs note their errors here, with the ids their configs
carry: a tool's from its adapter, a model or hook node's from the core when the node fails
(`src/agent/graph/task_note.rs`).
"""

from __future__ import annotations

from ._task_channels import own_value
from ._task_config import TASKS_KEY


def note_task_error(exc: BaseException, config: dict | None) -> None:
    """Notes ``exc``, raised in the task whose config is ``config``, as LangGraph's runner
    notes it on its way out of that task and each task around it."""
    if not _noted_here(exc, config):
        return
    ns = ((config or {}).get("metadata") or {}).get("langgraph_checkpoint_ns")
    if ns:
        _add_notes(exc, str(ns))


def note_node_error(exc: BaseException, config: dict | None, node: str, step: int, namespace: list[str]) -> None:
    """Notes ``exc``, raised in the task of ``node`` (a hook's node or ``model``) at ``step``
    of the run whose config is ``config`` and whose tasks' namespace is ``namespace``: the
    task id is the one the node's code saw in its config (`_task_config.node_task`)."""
    if not _noted_here(exc, config):
        return
    from ._task_config import task_namespace

    _add_notes(exc, task_namespace(config, list(namespace), step, None, node))


def node_notes(config: dict | None, node: str, step: int, namespace: list[str]) -> list[str]:
    """The notes an error of the core's own (a native provider's) gets leaving the task of
    ``node`` at ``step`` (see `note_node_error`), innermost first; none on a thread run, whose
    graph's runner notes the exception the error becomes."""
    if config is None or own_value(config.get("configurable") or {}, TASKS_KEY) is not None:
        return []
    from ._task_config import task_namespace

    return _notes(task_namespace(config, list(namespace), step, None, node))


def note_tasks_error(exc: BaseException, config: dict | None, namespace: list[str] | None) -> None:
    """Notes ``exc``, raised inside the tasks ``namespace`` names (a compiled subagent's run
    inside its `task` call's `tools` task), of the run whose config is ``config``."""
    if namespace and _noted_here(exc, config):
        _add_notes(exc, "|".join(namespace))


def _noted_here(exc: BaseException, config: dict | None) -> bool:
    """Whether ``exc`` gets its notes here: an error (not an interrupt or a parent command,
    which pass up unnoted) of a run no LangGraph runner runs the tasks of."""
    if not isinstance(exc, Exception) or config is None:
        return False
    configurable = config.get("configurable") or {}
    if own_value(configurable, TASKS_KEY) is not None:
        # LangGraph's runner runs the thread graph's tasks and notes the error itself.
        return False
    try:
        from langgraph.errors import GraphBubbleUp
    except ImportError:
        return False
    return not isinstance(exc, GraphBubbleUp)


def _add_notes(exc: BaseException, ns: str) -> None:
    """One note per task of the namespace ``ns``, innermost first; a note the error has
    already (it left an inner run's task) is not added twice."""
    notes = getattr(exc, "__notes__", ())
    for note in _notes(ns):
        if note not in notes:
            exc.add_note(note)


def _notes(ns: str) -> list[str]:
    """LangGraph's note for each task of the namespace ``ns``, innermost first."""
    out = []
    for segment in reversed(ns.split("|")):
        name, _, task_id = segment.rpartition(":")
        out.append(f"During task with name '{name}' and id '{task_id}'")
    return out
