"""The order in which a step's tasks of one node take their writes from the core's stream.

LangGraph runs a step's tasks concurrently, and a step can hold several tasks of one node
(a ``Send``'s node beside the same node named by an edge, or two ``Send``s to it). Their
writes differ (each ran on its own input), and LangGraph applies a step's writes in task
order, so each task must take the write the core made for it. The core runs the step's
tasks of one node in LangGraph's task order (the sent ones by their index in the step's
sends, then the named one), so each task takes its turn among its node's tasks in that order.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

#: A node's tasks in one step: ``(step, node)``; with the task's place among them.
Turn = tuple[tuple[Any, str], int]


def turn_of(node: str, arg: Any, config: dict) -> Turn | None:
    """The task's place among the step's tasks of ``node``, or ``None`` when it need not
    wait for any (the model's calls to `tools` are matched by call instead)."""
    if node == "tools" and not isinstance(arg, dict):
        return None
    from langgraph._internal._constants import PUSH

    metadata = config.get("metadata") or {}
    path = metadata.get("langgraph_path") or ()
    if not path:
        return None
    sends = step_sends(config)
    same = [i for i, send in enumerate(sends) if getattr(send, "node", None) == node]
    if path[0] == PUSH and len(path) > 1 and isinstance(path[1], int):
        place = sum(1 for i in same if i < path[1])
    else:
        place = len(same)
    return (metadata.get("langgraph_step"), node), place


def step_sends(config: dict) -> list:
    """The ``Send``s of the step a task of ``config`` runs in (LangGraph's tasks channel, as
    the step read it): a sent task's path indexes them."""
    from langgraph._internal._constants import CONFIG_KEY_READ, TASKS

    read = (config.get("configurable") or {}).get(CONFIG_KEY_READ)
    if read is None:
        return []
    try:
        return list(read(TASKS) or [])
    except Exception:  # noqa: BLE001 - a graph without sends: none
        return []


class TaskTurns:
    """How many tasks of each node have taken their write, per step; a task waits for the
    ones before it."""

    def __init__(self) -> None:
        self._taken: dict[tuple[Any, str], int] = {}
        self._changed = threading.Condition()
        self._achanged: asyncio.Condition | None = None

    def wait(self, turn: Turn | None, timeout: float = 60.0) -> None:
        if turn is None or turn[1] == 0:
            return
        key, place = turn
        with self._changed:
            self._changed.wait_for(lambda: self._taken.get(key, 0) >= place, timeout)

    def took(self, turn: Turn | None) -> None:
        if turn is None:
            return
        with self._changed:
            self._taken[turn[0]] = self._taken.get(turn[0], 0) + 1
            self._changed.notify_all()

    async def await_(self, turn: Turn | None) -> None:
        if turn is None or turn[1] == 0:
            return
        import asyncio

        if self._achanged is None:
            self._achanged = asyncio.Condition()
        key, place = turn
        async with self._achanged:
            try:
                await asyncio.wait_for(self._achanged.wait_for(lambda: self._taken.get(key, 0) >= place), 60.0)
            except TimeoutError:
                return

    async def atook(self, turn: Turn | None) -> None:
        if turn is None:
            return
        import asyncio

        if self._achanged is None:
            self._achanged = asyncio.Condition()
        async with self._achanged:
            self._taken[turn[0]] = self._taken.get(turn[0], 0) + 1
            self._achanged.notify_all()
