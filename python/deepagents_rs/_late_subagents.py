"""The subagents of a resumed step whose `tools` tasks start after the core's run has (see
``_thread_feed``): the run is told which will come, and each is handed over when its task
starts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class LateSubagents:
    """The subagents of a resumed step whose tasks start after the core's run has: LangGraph
    runs a step's tasks as its executor has room, so when more subagents stopped in a step
    than it has threads, some tasks start only once others have finished. The run is told
    which calls those are (``awaited``), their `task` calls wait for them, and each is handed
    over when its task starts (``hand_over``). ``convert`` makes a subagent the core's form."""

    def __init__(self, convert: Callable[[tuple], tuple]) -> None:
        self._convert = convert
        self.awaited: list[str] = []

    def expect(self, stopped: list[str], starting: list | None) -> None:
        """``stopped``: the step's calls whose subagents stopped inside; ``starting``: the
        subagents the run starts with."""
        first = {s[0] for s in starting or ()}
        self.awaited = [c for c in stopped if c not in first]

    def hand_over(self, events: Any, subagent: tuple) -> None:
        if subagent[0] not in self.awaited:
            raise RuntimeError(f"deepagents_rs: subagent of call {subagent[0]!r} resumed unexpectedly (a bug)")
        self.awaited.remove(subagent[0])
        events.resume_subagent(self._convert(subagent))
