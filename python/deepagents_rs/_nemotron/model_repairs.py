"""The Nemotron 3 Ultra profile's repairs around model calls: rate-limit retries, the tool-call
fields ChatNVIDIA serializes from `additional_kwargs`, `<think>` blocks left in the answer, and
tool calls the model wrote as text (`<function=...>` blocks, or a JSON object) instead of
structured calls."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware.types import AgentMiddleware, ExtendedModelResponse, ModelResponse
from langchain_core.messages import AIMessage, ToolMessage

from deepagents_rs._langchain_private import _convert_to_openai_tool_calls
from deepagents_rs._nemotron import patterns as pat
from deepagents_rs._nemotron.conversation import request_tool_names

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langchain.agents.middleware.types import ModelCallResult, ModelRequest

#: Seconds to wait before each retry of a rate-limited model call.
_RATE_LIMIT_RETRY_DELAYS: tuple[float, ...] = (4.0, 12.0)
#: Shell names the model gives the `execute` tool in JSON calls.
_SHELL_ALIASES = {"bash": "execute", "sh": "execute", "shell": "execute"}


def _rate_limited(exc: BaseException) -> bool:
    """A provider's 429, by the error's class name, its `status_code`, or its message."""
    kind = type(exc).__name__.lower()
    said = str(exc).lower()
    return (
        "ratelimit" in kind
        or "rate_limit" in kind
        or getattr(exc, "status_code", None) == 429
        or "rate limit" in said
        or "rate-limit" in said
    )


class ModelRateLimitRetryMiddleware(AgentMiddleware):
    """Calls the model again, after a pause, when the provider answers 429 (rate limited)."""

    name = "ModelRateLimitRetryMiddleware"

    def __init__(self, retry_delays: tuple[float, ...] = _RATE_LIMIT_RETRY_DELAYS) -> None:
        self._retry_delays = retry_delays

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelCallResult]
    ) -> ModelCallResult:
        """The model's reply; a rate-limited call is retried after each of `retry_delays` seconds."""
        for delay in self._retry_delays:
            try:
                return handler(request)
            except Exception as exc:
                if not _rate_limited(exc):
                    raise
            time.sleep(delay)
        return handler(request)

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelCallResult]]
    ) -> ModelCallResult:
        """`wrap_model_call` under `ainvoke`."""
        for delay in self._retry_delays:
            try:
                return await handler(request)
            except Exception as exc:
                if not _rate_limited(exc):
                    raise
            await asyncio.sleep(delay)
        return await handler(request)


def _map_ai_messages(result: ModelCallResult, repair: Callable[[AIMessage], AIMessage]) -> ModelCallResult:
    """`result` with `repair` applied to each model message it carries, in whichever shape."""
    if isinstance(result, AIMessage):
        return repair(result)
    if isinstance(result, ExtendedModelResponse):
        return ExtendedModelResponse(
            model_response=_map_ai_messages(result.model_response, repair), command=result.command
        )
    if isinstance(result, ModelResponse):
        messages = [repair(m) if isinstance(m, AIMessage) else m for m in result.result]
        return ModelResponse(result=messages, structured_response=result.structured_response)
    return result


class ChatNVIDIAMessageCompatibilityMiddleware(AgentMiddleware):
    """Copies tool calls, and tool results' names, into `additional_kwargs`, where ChatNVIDIA
    reads them when it serializes a request."""

    name = "ChatNVIDIAMessageCompatibilityMiddleware"

    @staticmethod
    def _repair_message(message: AIMessage | ToolMessage) -> AIMessage | ToolMessage:
        extra = message.additional_kwargs
        if isinstance(message, AIMessage):
            if message.tool_calls and "tool_calls" not in extra:
                calls = _convert_to_openai_tool_calls(message.tool_calls)
                return message.model_copy(update={"additional_kwargs": {**extra, "tool_calls": calls}})
        elif getattr(message, "name", None) and "name" not in extra:
            return message.model_copy(update={"additional_kwargs": {**extra, "name": message.name}})
        return message

    @staticmethod
    def _repair_messages(messages: list[Any]) -> list[Any]:
        """The messages with their fields mirrored; the same list when none needed it."""
        repair = ChatNVIDIAMessageCompatibilityMiddleware._repair_message
        repaired = [repair(m) if isinstance(m, AIMessage | ToolMessage) else m for m in messages]
        return messages if all(a is b for a, b in zip(repaired, messages, strict=True)) else repaired

    @staticmethod
    def _with_repaired_messages(request: ModelRequest[Any]) -> ModelRequest[Any]:
        messages = list(request.messages or [])
        repaired = ChatNVIDIAMessageCompatibilityMiddleware._repair_messages(messages)
        return request if repaired is messages else request.override(messages=repaired)

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelCallResult]
    ) -> ModelCallResult:
        """Calls the model with the request's messages so mirrored."""
        return handler(self._with_repaired_messages(request))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelCallResult]]
    ) -> ModelCallResult:
        """`wrap_model_call` under `ainvoke`."""
        return await handler(self._with_repaired_messages(request))


def _without_think_blocks(message: AIMessage) -> AIMessage:
    """`message` with its `<think>` blocks taken out of the text; their contents become its
    `reasoning_content` unless it has one. Only plain-text content is looked at."""
    content = message.content
    if not isinstance(content, str) or "</think>" not in content.lower():
        return message
    clean = pat.THINK_BLOCK.sub("", content).strip()
    if clean == content:
        return message
    extra = dict(message.additional_kwargs)
    thoughts = [inner for inner in (m.group(1).strip() for m in pat.THINK_BLOCK.finditer(content)) if inner]
    if thoughts:
        extra.setdefault("reasoning_content", "\n\n".join(thoughts))
    return message.model_copy(update={"content": clean, "additional_kwargs": extra})


class NemotronReasoningTagCleanupMiddleware(AgentMiddleware):
    """Takes `<think>` blocks the model left in its answer out of the answer's text."""

    name = "NemotronReasoningTagCleanupMiddleware"

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelCallResult]
    ) -> ModelCallResult:
        """The model's reply without its `<think>` blocks."""
        return _map_ai_messages(handler(request), _without_think_blocks)

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelCallResult]]
    ) -> ModelCallResult:
        """`wrap_model_call` under `ainvoke`."""
        return _map_ai_messages(await handler(request), _without_think_blocks)


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "args": args, "id": uuid.uuid4().hex, "type": "tool_call"}


def _unquoted(text: str) -> str:
    return text.strip("\"'")


def _function_blocks(text: str, tools: set[str] | None) -> list[dict[str, Any]]:
    """`<function=NAME><parameter name=KEY>VALUE</parameter></function>` blocks naming an
    available tool (any tool when `tools` is `None`)."""
    calls = []
    for block in pat.FUNCTION_BLOCK.finditer(text):
        name = _unquoted(block.group(1))
        if tools is None or name in tools:
            args = {_unquoted(p.group(1)): p.group(2).strip() for p in pat.PARAMETER.finditer(block.group(2))}
            calls.append(_call(name, args))
    return calls


def _alternate_blocks(text: str, tools: set[str]) -> list[dict[str, Any]]:
    """`<function><name>NAME</name><parameter>KEY: VALUE</parameter></function>` blocks (the
    parameter may also be named) naming an available tool."""
    calls = []
    for block in pat.ALT_FUNCTION_BLOCK.finditer(text):
        body = block.group(1)
        found = pat.ALT_NAME.search(body)
        name = _unquoted((found.group(1) or found.group(2) or "").strip()) if found else ""
        if not name or name not in tools:
            continue
        args: dict[str, str] = {}
        for param in pat.ALT_PARAMETER.finditer(body):
            key, value = _unquoted((param.group(1) or "").strip()), param.group(2).strip()
            inline = None if key else pat.ALT_INLINE_ARG.match(value)
            if key:
                args[key] = value
            elif inline is not None:
                args[inline.group(1)] = inline.group(2).strip()
        calls.append(_call(name, args))
    return calls


def _json_call(text: str, tools: set[str] | None) -> list[dict[str, Any]]:
    """The call in `{"tool": NAME, "args": {...}}` (or `"cmd"`/`"command"` for a shell),
    read from the first `{` to the last `}`."""
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end <= start:
        return []
    try:
        obj = json.loads(text[start : end + 1])
    except ValueError:
        return []
    name = obj.get("tool") if isinstance(obj, dict) else None
    if not isinstance(name, str) or not name.strip():
        return []
    name = _SHELL_ALIASES.get(name.strip().lower(), name.strip())
    if tools is not None and name not in tools:
        return []
    args = obj.get("args")
    if not isinstance(args, dict):
        command = obj.get("cmd") or obj.get("command")
        args = {"command": command} if isinstance(command, str) else {}
    return [_call(name, args)]


def _text_calls(text: str, tools: set[str] | None) -> tuple[list[dict[str, Any]], str]:
    """The tool calls written in `text`, and the text left around them."""
    calls = _function_blocks(text, tools)
    if calls:
        return calls, pat.FUNCTION_BLOCK.sub("", text).replace("</tool_call>", "").strip()
    # The alternate form is only trusted against a known tool list.
    calls = _alternate_blocks(text, tools) if tools is not None else []
    if calls:
        return calls, pat.ALT_FUNCTION_BLOCK.sub("", text).replace("</tool_call>", "").strip()
    return _json_call(text, tools), ""


class NemotronTextToolCallParser(AgentMiddleware):
    """Turns tool calls the model wrote into its text into structured tool calls."""

    name = "NemotronTextToolCallParser"

    @staticmethod
    def _repair_message(message: AIMessage, valid_tools: set[str] | None = None) -> AIMessage:
        """A message without structured calls gets those written in its text (its `<think>`
        blocks removed first); the text around them stays as its content."""
        if message.tool_calls:
            return message
        message = _without_think_blocks(message)
        content = message.content
        text = content if isinstance(content, str) else ""
        if isinstance(content, list):
            text = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        calls, rest = _text_calls(text, valid_tools)
        if not calls:
            return message
        return message.model_copy(update={"tool_calls": calls, "content": rest})

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelCallResult]
    ) -> ModelCallResult:
        """The model's reply with the calls written in its text made structured (request's tools only)."""
        tools = set(request_tool_names(request))
        return _map_ai_messages(handler(request), lambda m: self._repair_message(m, tools))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelCallResult]]
    ) -> ModelCallResult:
        """`wrap_model_call` under `ainvoke`."""
        tools = set(request_tool_names(request))
        return _map_ai_messages(await handler(request), lambda m: self._repair_message(m, tools))
