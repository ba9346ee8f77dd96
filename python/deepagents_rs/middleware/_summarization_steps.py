"""`SummarizationMiddleware`'s private steps under deepagents' names and signatures.

deepagents' callers (its own tests, subclasses, the compact tool) call these one by one or
replace them on an instance. Each is the core's own step (`_core.SummarizationCall`'s
methods, the same functions the entry and the core's tool run); this module converts
messages to and from the core and keeps a state backend's writes for the flow that asked.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from .. import _convert, _core

logger = logging.getLogger("deepagents.middleware.summarization")

#: The state's `files` the steps of one flow read, and what a state backend wrote during
#: it (the flow puts it in its state update). Outside a flow: nothing to read or keep.
_FLOW_FILES: ContextVar[dict[str, Any] | None] = ContextVar("summarization_flow_files", default=None)


@contextmanager
def flow_files(files: Any) -> Any:
    """Steps run inside read `files` and keep their writes in the yielded dict's
    `"written"`."""
    holder: dict[str, Any] = {"files": dict(files or {}), "written": {}}
    token = _FLOW_FILES.set(holder)
    try:
        yield holder
    finally:
        _FLOW_FILES.reset(token)


def _flow_state_files() -> Any:
    holder = _FLOW_FILES.get()
    return None if holder is None else holder["files"]


def _keep_written(written: Any) -> None:
    holder = _FLOW_FILES.get()
    if holder is not None and written:
        holder["written"].update(written)
        holder["files"].update(written)


def _core_messages(messages: list[Any]) -> list[dict]:
    return [_convert.to_core(m) for m in messages]


def _messages(dicts: list[dict]) -> list[Any]:
    return [_convert.from_core(d) for d in dicts]


def _is_ai(message: Any) -> bool:
    from langchain_core.messages import AIMessage

    return isinstance(message, AIMessage)


def drop_bound_reasoning(message: Any) -> Any:
    """The core's `_drop_bound_reasoning`: an AI message without the reasoning blocks bound
    to the history before it; any other message, or one without them, as it is."""
    if not _is_ai(message) or not isinstance(message.content, list):
        return message
    dropped = _core.drop_bound_reasoning(_convert.to_core(message))
    if dropped is None:
        return message
    return message.model_copy(update={"content": dropped["content"]})


class SummarizationSteps:
    """The private steps of `SummarizationMiddleware` (mixed into it)."""

    _backend: Any
    _history_path_prefix: str

    # -- the conversation the model sees -------------------------------------------------

    @staticmethod
    def _apply_event_to_messages(messages: list[Any], event: Any) -> list[Any]:
        """The conversation as the model sees it after `event`: its summary, then the state's
        messages from its cutoff on (those from before the summary without their bound
        reasoning); a malformed event is ignored."""
        if event is None:
            return list(messages)
        try:
            summary, cutoff = event["summary_message"], event["cutoff_index"]
        except (KeyError, TypeError) as exc:
            logger.warning("Malformed _summarization_event (missing keys): %s", exc)
            return list(messages)
        if cutoff > len(messages):
            logger.warning(
                "Summarization cutoff_index %d exceeds message count %d; remaining slice will be empty",
                cutoff,
                len(messages),
            )
            return [summary]
        created_at = event.get("created_at_index")
        bound_until = created_at if isinstance(created_at, int) else cutoff
        kept = [
            drop_bound_reasoning(m) if i < bound_until else m for i, m in enumerate(messages[cutoff:], start=cutoff)
        ]
        return [summary, *kept]

    @staticmethod
    def _compute_state_cutoff(event: Any, effective_cutoff: int) -> int:
        """A cut in the seen conversation as an index into the state's messages."""
        if event is None:
            return effective_cutoff
        previous = event.get("cutoff_index")
        if not isinstance(previous, int):
            logger.warning("Malformed _summarization_event: missing cutoff_index")
            return effective_cutoff
        return _core.state_cutoff(previous, effective_cutoff)

    def _get_effective_messages(self, request: Any) -> list[Any]:
        """The request's messages after the state's summarization event."""
        return self._apply_event_to_messages(request.messages, request.state.get("_summarization_event"))

    # -- the summary message and the history file ----------------------------------------

    def _get_session_id(self, state: Mapping[str, Any]) -> str:
        """The session the state names, or a new one (the history file's name)."""
        existing = state.get("_summarization_session_id")
        if isinstance(existing, str) and existing:
            return existing
        import uuid

        return f"session_{uuid.uuid4().hex}"

    def _get_history_path(self, session_id: str) -> str:
        """Where `session_id`'s summarized history is kept."""
        return f"{self._history_path_prefix}/{session_id}.md"

    def _is_summary_message(self, msg: Any) -> bool:
        """Whether `msg` is an earlier summarization's summary message."""
        from langchain_core.messages import HumanMessage

        return isinstance(msg, HumanMessage) and msg.additional_kwargs.get("lc_source") == "summarization"

    def _filter_summary_messages(self, messages: list[Any]) -> list[Any]:
        """`messages` without earlier summary messages."""
        return [m for m in messages if not self._is_summary_message(m)]

    def _build_new_messages_with_path(self, summary: str, file_path: str | None) -> list[Any]:
        """The summary message, naming the history file when there is one."""
        return [_convert.from_core(_core.summary_message(summary, file_path))]

    # -- the core's steps -----------------------------------------------------------------

    def _step_call(self) -> Any:
        from ._summarization_call import entry

        return entry(self, None)

    def _step_backend(self, backend: Any) -> Any:
        """`backend` as the core's step takes it: `None` for the middleware's own."""
        if backend is self._backend:
            return None
        from .._backend_adapter import backend_arg
        from ..backends.state import StateBackend
        from ._summarization_call import _state_outside_graph, _state_reachable

        if type(backend) is StateBackend and not _state_reachable():
            backend = _state_outside_graph()
        return backend_arg(backend, None, any_object=True)

    def _get_profile_limits(self) -> int | None:
        """The model profile's `max_input_tokens`."""
        from .summarization import _profile_limit

        return _profile_limit(self.model)  # type: ignore[attr-defined]

    def _determine_cutoff_index(self, messages: list[Any]) -> int:
        """How many of `messages` the keep policy summarizes (never parting a tool call from
        its results)."""
        return self._step_call().cutoff(_core_messages(messages))

    def _partition_messages(self, conversation_messages: list[Any], cutoff_index: int) -> tuple[list[Any], list[Any]]:
        """The messages to summarize and those kept."""
        return conversation_messages[:cutoff_index], conversation_messages[cutoff_index:]

    def _create_summary(self, messages_to_summarize: list[Any]) -> str:
        """The summary text of `messages_to_summarize`."""
        return self._step_call().summarize(_core_messages(messages_to_summarize), False)

    async def _acreate_summary(self, messages_to_summarize: list[Any]) -> str:
        """`_create_summary` under `ainvoke`."""
        return await self._step_call().summarize(_core_messages(messages_to_summarize), True)

    def _offload_to_backend(self, backend: Any, messages: list[Any], session_id: str) -> str | None:
        """`messages` appended to the session's history file on `backend`: its path, or
        `None` when the backend failed."""
        call = self._step_call()
        path, written = call.offload(
            _core_messages(messages), session_id, self._step_backend(backend), _flow_state_files(), False
        )
        _keep_written(written)
        return path

    async def _aoffload_to_backend(self, backend: Any, messages: list[Any], session_id: str) -> str | None:
        """`_offload_to_backend` under `ainvoke`."""
        call = self._step_call()
        path, written = await call.offload(
            _core_messages(messages), session_id, self._step_backend(backend), _flow_state_files(), True
        )
        _keep_written(written)
        return path

    def _offload_inline_media(self, backend: Any, messages: list[Any]) -> tuple[list[Any], int]:
        """`messages` with their inline media stored on `backend` and referenced by path
        (the same list when there are none), and how many blocks could not be stored."""
        call = self._step_call()
        out, failed, written = call.offload_media(
            _core_messages(messages), self._step_backend(backend), _flow_state_files(), False
        )
        _keep_written(written)
        return (messages if out is None else _messages(out)), failed

    async def _aoffload_inline_media(self, backend: Any, messages: list[Any]) -> tuple[list[Any], int]:
        """`_offload_inline_media` under `ainvoke`."""
        call = self._step_call()
        out, failed, written = await call.offload_media(
            _core_messages(messages), self._step_backend(backend), _flow_state_files(), True
        )
        _keep_written(written)
        return (messages if out is None else _messages(out)), failed

    def _count_tokens(self, messages: list[Any], system_message: Any, tools: list[Any] | None) -> int:
        """The token count of a request: its system message, `messages` and `tools`."""
        own = self._own_counter  # type: ignore[attr-defined]
        if own is not None:
            from .._summarization import TokenCounterAdapter

            return TokenCounterAdapter(own).count_request(messages, system_message, tools)
        from ._summarization_call import _tool_spec

        count = self._step_call().count_tokens(
            {
                "system": None if system_message is None else _convert.to_core(system_message),
                "messages": _core_messages(messages),
                "tools": [_tool_spec(t) for t in tools or ()],
            }
        )
        return int(count)


#: The steps the core's entry calls on the face when a caller replaced them there.
_SUMMARY_STEPS = ("_create_summary", "_acreate_summary")
_OFFLOAD_STEPS = ("_offload_to_backend", "_aoffload_to_backend")


def _replaced(face: Any, name: str) -> bool:
    return name in vars(face) or getattr(type(face), name) is not getattr(SummarizationSteps, name)


def replaced_steps(face: Any) -> tuple[bool, bool]:
    """Whether the summary step, and the history offload, are replaced on `face` (on the
    instance or in a subclass)."""
    return any(_replaced(face, n) for n in _SUMMARY_STEPS), any(_replaced(face, n) for n in _OFFLOAD_STEPS)


class ReplacedSteps:
    """A face's replaced steps as the core's entry calls them: `invoke`/`ainvoke` the summary
    (as a `summarizer` is called), `offload`/`aoffload` the history file."""

    def __init__(self, face: Any) -> None:
        self.face = face

    def invoke(self, messages: list[dict], config: Any = None, parent: Any = None) -> str:
        return self.face._create_summary(_messages(messages))

    async def ainvoke(self, messages: list[dict], config: Any = None, parent: Any = None) -> str:
        return await self.face._acreate_summary(_messages(messages))

    def offload(self, messages: list[dict], session: str) -> str | None:
        return self.face._offload_to_backend(self.face._backend, _messages(messages), session)

    async def aoffload(self, messages: list[dict], session: str) -> str | None:
        return await self.face._aoffload_to_backend(self.face._backend, _messages(messages), session)
