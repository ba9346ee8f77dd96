"""A scripted LangChain chat model and message normalization for parity tests.

``ScriptedChatModel`` works with both the reference ``deepagents.create_deep_agent``
and ``deepagents_rs``: it answers each call with the next scripted AIMessage and
records what it was called with, so a test can compare the calls the two
implementations make.
"""

from __future__ import annotations

import copy
import json
import re
import threading
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr, field_validator

__all__ = [
    "Call",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "StreamingScriptedChatModel",
    "ai_tool_calls",
    "normalize_messages",
]


@dataclass
class Call:
    """One model call as the model received it."""

    messages: list[BaseMessage]
    tools: list[dict[str, Any]] = field(default_factory=list)  # OpenAI tool dicts
    # Everything else bound or passed: stop, tool_choice, ...
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered in this call, in order."""
        return [t.get("function", {}).get("name", t.get("name")) for t in self.tools]


def ai_tool_calls(
    *calls: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str | None],
    content: str = "",
) -> AIMessage:
    """An AIMessage calling tools; each call is ``(name, args)`` or ``(name, args, id)``.

    Calls without an id get ``call_<n>_<k>`` from the model that returns them.
    """
    tool_calls: list[Any] = [
        {
            "name": c[0],
            "args": c[1],
            "id": c[2] if len(c) > 2 else None,
            "type": "tool_call",
        }
        for c in calls
    ]
    return AIMessage(content=content, tool_calls=tool_calls)


class ScriptExhaustedError(AssertionError):
    """The code under test called the model more times than the script allows."""


class ScriptedChatModel(BaseChatModel):
    """A chat model that replays scripted AIMessages and records every call.

    ``ScriptedChatModel(["hello", AIMessage(content="", tool_calls=[...])])``.
    Strings become ``AIMessage(content=str)``. Tool calls without an id get a
    deterministic ``call_<n>_<k>`` id. ``calls`` is one list shared by every copy
    and binding of the model (``bind_tools`` returns a binding of this same
    instance, and pydantic's shallow ``model_copy`` keeps the same list), so the
    test sees calls made through any of them.
    """

    responses: list[BaseMessage] = Field(default_factory=list)
    calls: list[Call] = Field(default_factory=list, exclude=True)
    # Sub-agents may call the model from several threads at once.
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, responses: Sequence[BaseMessage | str] | None = None, **kwargs: Any) -> None:
        super().__init__(responses=list(responses or []), **kwargs)

    @field_validator("responses", mode="before")
    @classmethod
    def _promote_strings(cls, value: Any) -> list[BaseMessage]:
        return [AIMessage(content=v) if isinstance(v, str) else v for v in value]

    @property
    def _llm_type(self) -> str:
        return "scripted-chat"

    @property
    def remaining(self) -> int:
        """Scripted responses not used yet."""
        return len(self.responses) - len(self.calls)

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Any],
        **kwargs: Any,
    ) -> Runnable[Any, AIMessage]:
        """Bind tools as OpenAI tool dicts, like the provider integrations do."""
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _next(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
    ) -> ChatResult:
        extra = dict(kwargs)
        tools = extra.pop("tools", None) or []
        if stop is not None:
            extra["stop"] = stop
        with self._lock:
            index = len(self.calls)
            self.calls.append(Call(messages=list(messages), tools=list(tools), kwargs=extra))
            if index >= len(self.responses):
                last = messages[-1].content if messages else None
                raise ScriptExhaustedError(
                    f"ScriptedChatModel: call #{index + 1} but only {len(self.responses)} scripted "
                    f"response(s); last message was {last!r}"
                )
            reply = copy.deepcopy(self.responses[index])
        if isinstance(reply, AIMessage):
            for k, tc in enumerate(reply.tool_calls):
                if not tc.get("id"):
                    tc["id"] = f"call_{index}_{k}"
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:  # fmt: skip
        return self._next(messages, stop, kwargs)

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:  # fmt: skip
        return self._next(messages, stop, kwargs)


IdMode = Literal["keep", "stable", "drop"]


class _IdMap:
    """Maps raw ids to placeholders in order of first appearance."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.seen: dict[str, str] = {}

    def __call__(self, raw: str | None) -> str | None:
        if raw is None:
            return None
        if raw not in self.seen:
            self.seen[raw] = f"{self.prefix}{len(self.seen)}"
        return self.seen[raw]


def normalize_messages(msgs: Sequence[BaseMessage], *, ids: IdMode = "keep") -> list[dict[str, Any]]:
    """Turn messages into plain dicts that compare equal across implementations.

    Every dict has the keys ``type, id, content, name, tool_calls, tool_call_id,
    status``; ``tool_calls`` is a list of ``{name, args, id}``.

    ``ids``: ``"keep"`` leaves ids as they are; ``"stable"`` replaces message ids
    with ``msg-0, msg-1, ...`` and tool call ids (including ToolMessage
    ``tool_call_id``) with ``call-0, call-1, ...`` by order of first appearance,
    so runs that generate random ids still compare equal while their
    call/result pairing stays checked; ``"drop"`` sets every id to None.
    """
    msg_ids = _IdMap("msg-")
    call_ids = _IdMap("call-")

    def map_msg(raw: str | None) -> str | None:
        if ids == "stable":
            return msg_ids(raw)
        return None if ids == "drop" else raw

    def map_call(raw: str | None) -> str | None:
        if ids == "stable":
            return call_ids(raw)
        return None if ids == "drop" else raw

    out: list[dict[str, Any]] = []
    for m in msgs:
        tool_calls = [
            {
                "name": tc["name"],
                "args": copy.deepcopy(tc["args"]),
                "id": map_call(tc.get("id")),
            }
            for tc in getattr(m, "tool_calls", None) or []
        ]
        out.append(
            {
                "type": m.type,
                "id": map_msg(m.id),
                "content": copy.deepcopy(m.content),
                "name": m.name,
                "tool_calls": tool_calls,
                "tool_call_id": map_call(getattr(m, "tool_call_id", None)),
                "status": getattr(m, "status", None),
                "additional_kwargs": copy.deepcopy(getattr(m, "additional_kwargs", {})),
                "response_metadata": copy.deepcopy(getattr(m, "response_metadata", {})),
            }
        )
    return out


class StreamingScriptedChatModel(ScriptedChatModel):
    """A ``ScriptedChatModel`` that can also stream its scripted replies.

    ``_stream``/``_astream`` yield, for each reply: one ``AIMessageChunk`` per
    whitespace-separated word of its text, the spaces kept as LangChain-style tokens
    (``"Calling my_tool"`` gives ``"Calling"`` and ``" my_tool"``); then one chunk per tool
    call carrying ``tool_call_chunks=[{name, args (a JSON string), id, index}]``; then an
    empty chunk with ``chunk_position="last"`` (which also carries the reply's
    ``usage_metadata`` and ``response_metadata``, if any).

    Calls are recorded in ``calls`` as by ``ScriptedChatModel``. ``call_kinds`` records, per
    call, whether LangChain streamed it (``"stream"``) or generated it whole
    (``"generate"``); like ``calls`` it is shared by every copy and binding of the model.
    ``stream_calls`` and ``generate_calls`` count them.
    """

    call_kinds: list[str] = Field(default_factory=list, exclude=True)

    @property
    def _llm_type(self) -> str:
        return "streaming-scripted-chat"

    @property
    def stream_calls(self) -> int:
        """How many calls went through ``_stream``/``_astream``."""
        return self.call_kinds.count("stream")

    @property
    def generate_calls(self) -> int:
        """How many calls went through ``_generate``/``_agenerate``."""
        return self.call_kinds.count("generate")

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:  # fmt: skip
        self.call_kinds.append("generate")
        return self._next(messages, stop, kwargs)

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:  # fmt: skip
        self.call_kinds.append("generate")
        return self._next(messages, stop, kwargs)

    def _chunks(self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]) -> list[Any]:
        self.call_kinds.append("stream")
        reply = self._next(messages, stop, kwargs).generations[0].message
        return _stream_chunks(reply)

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:  # fmt: skip
        yield from self._chunks(messages, stop, kwargs)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages, stop, kwargs):
            yield chunk


def _stream_chunks(reply: BaseMessage) -> list[ChatGenerationChunk]:
    """The chunks ``StreamingScriptedChatModel`` streams for one scripted reply."""
    chunks: list[ChatGenerationChunk] = []
    content = reply.content
    if isinstance(content, str):
        words = re.findall(r"\s*\S+", content)
        rest = content[len("".join(words)) :]
        if rest:  # trailing whitespace stays on the last word
            words = [*words[:-1], words[-1] + rest] if words else [rest]
        chunks.extend(ChatGenerationChunk(message=AIMessageChunk(content=w)) for w in words)
    elif content:
        chunks.append(ChatGenerationChunk(message=AIMessageChunk(content=copy.deepcopy(content))))
    for index, tc in enumerate(getattr(reply, "tool_calls", None) or []):
        tool_call_chunk = {"name": tc["name"], "args": json.dumps(tc["args"]), "id": tc["id"], "index": index}
        chunks.append(ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[tool_call_chunk])))
    last: dict[str, Any] = {"content": "", "chunk_position": "last"}
    if getattr(reply, "usage_metadata", None):
        last["usage_metadata"] = copy.deepcopy(reply.usage_metadata)
    if reply.response_metadata:
        last["response_metadata"] = copy.deepcopy(reply.response_metadata)
    chunks.append(ChatGenerationChunk(message=AIMessageChunk(**last)))
    return chunks


class CallTimes(BaseChatModel):
    """Calls ``tool`` ``times`` times in a row, then answers ``done``; each run decides from
    its own messages, so concurrent runs share the model."""

    tool: str
    times: int = 3

    @property
    def _llm_type(self) -> str:
        return "call-times"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Runnable[Any, AIMessage]:
        return self.bind(**kwargs)

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:  # fmt: skip
        answered = sum(isinstance(m, ToolMessage) for m in messages)
        if answered >= self.times:
            reply = AIMessage(content="done")
        else:
            call = {"name": self.tool, "args": {"text": "hi"}, "id": f"call_{uuid.uuid4().hex}", "type": "tool_call"}
            reply = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=reply)])

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:  # fmt: skip
        return self._generate(messages, stop)
