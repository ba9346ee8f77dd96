"""The stream parts LangGraph's loop makes of a task a tool pushes (a functional-API
``@task`` called inside it, `_task_calls`): its ``tasks`` start when pushed, and when done
its ``updates`` part (``{name: result}``) and its ``tasks`` result, each also as a
``debug`` part. The core runs the tool without that loop, so the call writes them into the
run's stream through the core's writer of the tool's step (``StreamWriter.part``), under
the namespace of the graph the tool runs in; the shaper shows the modes asked for.
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from ._task_channels import own_value

#: Where a tool task's configurable carries the core's writer (`_stream.config_with_writer`).
PUSHED_PARTS_KEY = "__deepagents_rs_pushed_parts"


class PushedParts:
    """The parts of one pushed task, written through ``writer``."""

    __slots__ = ("ns", "step", "task", "writer")

    def __init__(self, writer: Any, ns: tuple, name: str, input: Any, config: dict) -> None:
        configurable = config.get("configurable") or {}
        self.writer = writer
        self.ns = ns
        self.step = (config.get("metadata") or {}).get("langgraph_step")
        # What LangGraph's mappers read of a task.
        self.task = SimpleNamespace(
            id=configurable.get("__pregel_task_id"),
            name=name,
            input=input,
            triggers=("__pregel_push",),
            config=config,
        )

    @staticmethod
    def source(caller: Any) -> tuple | None:
        """``(writer, namespace)`` of the tasks ``caller`` (a `_task_calls.Caller`) pushes,
        when the run streams their parts: the core's writer of the calling tool's step and
        the namespace of the graph the tool runs in, which a task pushed by a pushed task
        is a task of too."""
        if caller.pushed is not None:
            return caller.pushed
        writer = own_value(caller.configurable, PUSHED_PARTS_KEY)
        if writer is None or not writer.parts:
            return None
        caller_ns = str(caller.configurable.get("checkpoint_ns") or "")
        return writer, tuple(caller_ns.split("|")[:-1]) if caller_ns else ()

    @staticmethod
    def of(caller: Any, name: str, input: Any, config: Any) -> PushedParts | None:
        """The parts of the task ``caller`` pushes (``config`` makes the pushed task's
        config), when the run streams them."""
        source = PushedParts.source(caller)
        if source is None:
            return None
        return PushedParts(source[0], source[1], name, input, config())

    def started(self) -> None:
        from langgraph.pregel.debug import map_debug_tasks

        for payload in map_debug_tasks([self.task]):
            self._write("tasks", payload)

    def finished(self, writes: list[tuple[str, Any]], cached: bool = False) -> None:
        """The parts of the task's end: ``writes`` its writes (its result under
        ``__return__``, or its error under ``__error__``); a cached result has no
        ``tasks`` result, as LangGraph's loop streams it."""
        from langgraph.pregel.debug import map_debug_task_results

        from deepagents_rs._langgraph_private import map_output_updates

        for update in map_output_updates([], [(self.task, writes)], cached):
            self._write("updates", update)
        if not cached:
            for payload in map_debug_task_results((self.task, writes), []):
                self._write("tasks", payload)

    def _write(self, mode: str, payload: Any) -> None:
        self.writer.part((self.ns, mode, payload))
        kind = "task_result" if "result" in payload else "task"
        if mode == "tasks":
            timestamp = datetime.now(UTC).isoformat()
            debug = {"step": self.step, "timestamp": timestamp, "type": kind, "payload": payload}
            self.writer.part((self.ns, "debug", debug))
