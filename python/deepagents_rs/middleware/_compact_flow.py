"""The `compact_conversation` tool of a LangChain agent, step by step.

Each step is its `SummarizationMiddleware`'s private method (the core's own step), so a
caller that replaces one of them on the instance (deepagents' tests do) changes what the
tool does, as with deepagents. The texts and the eligibility rule are the core's.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Any

from .. import _convert, _core
from ._summarization_steps import flow_files

logger = logging.getLogger("deepagents.middleware.summarization")

_EVENT_KEY = "_summarization_event"
_SESSION_KEY = "_summarization_session_id"


def _tool_answer(text: str, tool_call_id: str) -> Any:
    from langchain_core.messages import ToolMessage

    return ToolMessage(content=text, tool_call_id=tool_call_id)


class CompactSteps:
    """The compact tool's steps on `SummarizationToolMiddleware` (mixed into it)."""

    _summarization: Any

    @staticmethod
    def _nothing_to_compact(tool_call_id: str) -> Any:
        """The answer when there is nothing to compact."""
        from langgraph.types import Command

        return Command(update={"messages": [_tool_answer(_core.NOTHING_TO_COMPACT, tool_call_id)]})

    @staticmethod
    def _compact_error(tool_call_id: str, exc: BaseException) -> Any:
        """The answer when compacting failed (the state is left as it was)."""
        from langgraph.types import Command

        text = _core.COMPACT_FAILED.replace("{error}", f"{type(exc).__name__}: {exc}")
        return Command(update={"messages": [_tool_answer(text, tool_call_id)]})

    def _is_eligible_for_compaction(self, messages: list[Any]) -> bool:
        """Whether the conversation is at least half way to one of the summarization's
        trigger clauses (the token kinds by the last reply's reported usage)."""
        from langchain_core.messages import AIMessage

        clauses = [
            list(c.items()) if isinstance(c, dict) else [tuple(c)]
            for c in self._summarization._lc_helper._trigger_clauses
        ]
        last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        call = self._summarization._step_call()
        return call.compact_eligible(clauses, len(messages), None if last_ai is None else _convert.to_core(last_ai))

    def _build_compact_result(
        self,
        runtime: Any,
        to_summarize: list[Any],
        summary: str,
        file_path: str | None,
        event: Any,
        cutoff: int,
        session_id: str,
    ) -> Any:
        """The tool's `Command`: the new event, the session, and its answer."""
        from langgraph.types import Command

        s = self._summarization
        new_event = {
            "cutoff_index": s._compute_state_cutoff(event, cutoff),
            "summary_message": s._build_new_messages_with_path(summary, file_path)[0],
            "file_path": file_path,
            "created_at_index": len(runtime.state.get("messages", [])),
        }
        answer = _core.COMPACTED.replace("{n}", str(len(to_summarize)))
        return Command(
            update={
                _EVENT_KEY: new_event,
                _SESSION_KEY: session_id,
                "messages": [_tool_answer(answer, runtime.tool_call_id)],
            }
        )

    def _compact_start(self, runtime: Any) -> _Compaction | Any:
        """What both flows do first: the seen conversation, its cut and the part to
        summarize; or the answer when there is nothing to compact (or the cut failed)."""
        s = self._summarization
        tool_call_id = runtime.tool_call_id or ""
        event = runtime.state.get(_EVENT_KEY)
        effective = s._apply_event_to_messages(runtime.state.get("messages", []), event)
        # Too early for the trigger, or a keep policy that keeps it all: nothing to do.
        cutoff = s._determine_cutoff_index(effective) if self._is_eligible_for_compaction(effective) else 0
        if cutoff == 0:
            return self._nothing_to_compact(tool_call_id)
        session_id = s._get_session_id(runtime.state)
        try:
            to_summarize, _ = s._partition_messages(effective, cutoff)
        except Exception as exc:  # the tool answers with the error, as deepagents' does
            logger.exception("compact_conversation tool failed")
            return self._compact_error(tool_call_id, exc)
        return _Compaction(self, runtime, event, cutoff, session_id, to_summarize)

    def _run_compact(self, runtime: Any) -> Any:
        """The tool under `invoke`."""
        c = self._compact_start(runtime)
        if not isinstance(c, _Compaction):
            return c
        s = self._summarization
        with c.steps():
            summary = s._create_summary(c.to_summarize)
            c.file_path = s._offload_to_backend(s._backend, c.to_summarize, c.session_id)
            c.summary = summary
        return c.result()

    async def _arun_compact(self, runtime: Any) -> Any:
        """The tool under `ainvoke`."""
        c = self._compact_start(runtime)
        if not isinstance(c, _Compaction):
            return c
        s = self._summarization
        with c.steps():
            summary = await s._acreate_summary(c.to_summarize)
            c.file_path = await s._aoffload_to_backend(s._backend, c.to_summarize, c.session_id)
            c.summary = summary
        return c.result()


class _Compaction:
    """One compaction under way: what the flows share, and its outcome."""

    def __init__(
        self, face: Any, runtime: Any, event: Any, cutoff: int, session_id: str, to_summarize: list[Any]
    ) -> None:
        self.face, self.runtime, self.event, self.cutoff = face, runtime, event, cutoff
        self.session_id, self.to_summarize = session_id, to_summarize
        self.summary: str | None = None
        self.file_path: str | None = None
        self.error: Any = None
        self.written: dict[str, Any] = {}

    @contextmanager
    def steps(self) -> Any:
        """Around the summary and the history offload: a state backend's writes are kept,
        and a failure becomes the tool's error answer (the state left as it was)."""
        with flow_files(self.runtime.state.get("files")) as files:
            try:
                yield
            except Exception as exc:  # the tool answers with the error, as deepagents' does
                logger.exception("compact_conversation tool failed")
                self.error = self.face._compact_error(self.runtime.tool_call_id or "", exc)
        self.written = files["written"]

    def result(self) -> Any:
        if self.error is not None:
            return self.error
        command = self.face._build_compact_result(
            self.runtime, self.to_summarize, self.summary, self.file_path, self.event, self.cutoff, self.session_id
        )
        # A state backend's writes (the history file) go to the state with the event.
        if self.written:
            command.update["files"] = self.written
        return command
