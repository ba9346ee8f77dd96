"""Which write of the core's stream a step's task of one node takes.

LangGraph runs a step's tasks concurrently, and a step can hold several tasks of one node
(a ``Send``'s node beside the same node named by an edge, or two ``Send``s to it). Their
writes differ (each ran on its own input), so each task must take the write the core made
for it. The core runs such a step's tasks in LangGraph's task order (the sent ones by their
index in the step's sends, then the named one) and reports each task's place among its
node's tasks before it runs (``Event::TaskPlace``); a task finds the write of its own place.
Counting writes in order would not do: a task stopped by an ``interrupt()`` writes nothing,
and a resumed step's finished tasks run in neither the graph nor the core.
"""

from __future__ import annotations

from typing import Any


def place_of(node: str, arg: Any, config: dict) -> int | None:
    """The task's place among the step's tasks of ``node``, or ``None`` when any write of
    the node is its own (the model's calls to `tools` are matched by call instead)."""
    if node == "tools" and not isinstance(arg, dict):
        return None
    PUSH, _read_key, _tasks = _names()
    metadata = config.get("metadata") or {}
    path = metadata.get("langgraph_path") or ()
    if not path:
        return None
    # The model's calls (`Send("tools", [call])`) are one task to the core: not counted.
    same = [
        i
        for i, send in enumerate(step_sends(config))
        if getattr(send, "node", None) == node and (node != "tools" or isinstance(getattr(send, "arg", None), dict))
    ]
    if path[0] == PUSH and len(path) > 1 and isinstance(path[1], int):
        return sum(1 for i in same if i < path[1])
    return len(same)


def step_sends(config: dict) -> list:
    """The ``Send``s of the step a task of ``config`` runs in (LangGraph's tasks channel, as
    the step read it): a sent task's path indexes them."""
    _push, read_key, tasks = _names()
    read = (config.get("configurable") or {}).get(read_key)
    if read is None:
        return []
    try:
        return list(read(tasks) or [])
    except Exception:  # noqa: BLE001 - a graph without sends: none
        return []


#: LangGraph's ``PUSH``, ``CONFIG_KEY_READ`` and ``TASKS``, imported at the first call (this
#: module loads no LangGraph), then kept: an import at each task costs more than the look-up.
_NAMES: tuple[str, str, str] | None = None


def _names() -> tuple[str, str, str]:
    global _NAMES
    if _NAMES is None:
        from deepagents_rs._langgraph_private import CONFIG_KEY_READ, PUSH, TASKS

        _NAMES = (PUSH, CONFIG_KEY_READ, TASKS)
    return _NAMES
