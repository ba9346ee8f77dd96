"""Rendering a turn as a Responses ``response`` or a ``chat.completion``, their stream events, and
the prompt the simulated tokenizer counts."""

from __future__ import annotations

import itertools
import json
from typing import Any

from ._openai_replies import (
    Api,
)
from ._openai_turns import Turn, _arguments
from ._server import canonical_json, pieces

# --------------------------------------------------------------------------- rendering


def _render_response(turn: Turn, request: dict[str, Any], ids: _Ids, usage: dict[str, Any], created: int) -> dict:
    """The Responses ``response`` object for a turn."""
    include = request.get("include") or []
    output: list[dict[str, Any]] = []
    for part in turn.parts:
        if part["type"] == "reasoning":
            item: dict[str, Any] = {
                "id": ids.next("rs_sim_"),
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": s} for s in part["summary"]],
            }
            if part["encrypted"] is not None and "reasoning.encrypted_content" in include:
                item["encrypted_content"] = part["encrypted"]
        elif part["type"] == "text":
            item = {
                "id": ids.next("msg_sim_"),
                "type": "message",
                "status": "completed",
                "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": part["text"]}],
                "role": "assistant",
            }
        else:
            n = ids.bump("call")
            item = {
                "id": f"fc_sim_{n}",
                "type": "function_call",
                "status": "completed",
                "arguments": _arguments(part),
                "call_id": part["call_id"] or f"call_sim_{n}",
                "name": part["name"],
            }
        output.append(item)
    if turn.incomplete and output and output[-1]["type"] != "reasoning":
        output[-1]["status"] = "incomplete"
    reasoning_config = request.get("reasoning") or {}
    return {
        "id": ids.next("resp_sim_"),
        "object": "response",
        "created_at": created,
        "status": "incomplete" if turn.incomplete else "completed",
        "background": False,
        "completed_at": None if turn.incomplete else created,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if turn.incomplete else None,
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"),
        "max_tool_calls": request.get("max_tool_calls"),
        "model": request["model"],
        "output": output,
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "previous_response_id": None,
        "prompt_cache_key": request.get("prompt_cache_key"),
        "prompt_cache_retention": request.get("prompt_cache_retention"),
        "reasoning": {"effort": reasoning_config.get("effort"), "summary": reasoning_config.get("summary")},
        "safety_identifier": request.get("safety_identifier"),
        "service_tier": "default",
        "store": request.get("store", True),
        "temperature": request.get("temperature", 1.0),
        "text": request.get("text") or {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools") or [],
        "top_logprobs": request.get("top_logprobs", 0),
        "top_p": request.get("top_p", 1.0),
        "truncation": request.get("truncation", "disabled"),
        "usage": usage,
        "user": None,
        "metadata": request.get("metadata") or {},
    }


def _render_chat(turn: Turn, request: dict[str, Any], ids: _Ids, usage: dict[str, Any], created: int) -> dict:
    """The ``chat.completion`` object for a turn (reasoning parts only count as tokens)."""
    texts = [p["text"] for p in turn.parts if p["type"] == "text"]
    calls = []
    for part in turn.parts:
        if part["type"] == "tool_call":
            n = ids.bump("call")
            calls.append(
                {
                    "id": part["call_id"] or f"call_sim_{n}",
                    "type": "function",
                    "function": {"name": part["name"], "arguments": _arguments(part)},
                }
            )
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(texts) if texts else None,
        "refusal": None,
        "annotations": [],
    }
    if calls:
        message["tool_calls"] = calls
    finish = "length" if turn.incomplete else "tool_calls" if calls else "stop"
    return {
        "id": f"chatcmpl-sim-{ids.bump('chatcmpl')}",
        "object": "chat.completion",
        "created": created,
        "model": request["model"],
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": usage,
        "service_tier": "default",
        "system_fingerprint": "fp_sim",
    }


class _Ids:
    """Per-server id counters: ``next("msg_sim_")`` gives msg_sim_1, msg_sim_2..."""

    def __init__(self) -> None:
        self.counters: dict[str, int] = {}

    def bump(self, name: str) -> int:
        self.counters[name] = self.counters.get(name, 0) + 1
        return self.counters[name]

    def next(self, prefix: str) -> str:
        return f"{prefix}{self.bump(prefix)}"


def response_events(resp: dict[str, Any], *, text_chunk: int = 4, json_chunk: int = 8) -> list[tuple[str, dict]]:
    """The Responses stream events (type, data) for a complete ``response`` object.

    They add up, by the SDK's accumulation rules, to exactly ``resp``: the
    ``created`` / ``in_progress`` snapshots have no output and no usage, each item
    is built by its events, and ``response.completed`` (``response.incomplete``)
    carries ``resp`` itself.
    """
    seq = itertools.count()
    events: list[tuple[str, dict[str, Any]]] = []

    def ev(kind: str, **fields: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": next(seq), **fields}))

    head = {
        **resp,
        "status": "in_progress",
        "completed_at": None,
        "incomplete_details": None,
        "output": [],
        "usage": None,
    }
    ev("response.created", response=head)
    ev("response.in_progress", response=head)
    for index, item in enumerate(resp["output"]):
        at = {"item_id": item["id"], "output_index": index}
        if item["type"] == "reasoning":
            # The added item has no summary yet and no encrypted_content (clients take it from .done).
            added = {k: ([] if k == "summary" else v) for k, v in item.items() if k != "encrypted_content"}
            ev("response.output_item.added", output_index=index, item=added)
            for j, part in enumerate(item["summary"]):
                ev("response.reasoning_summary_part.added", **at, summary_index=j, part={**part, "text": ""})
                for piece in pieces(part["text"], text_chunk):
                    ev("response.reasoning_summary_text.delta", **at, summary_index=j, delta=piece)
                ev("response.reasoning_summary_text.done", **at, summary_index=j, text=part["text"])
                ev("response.reasoning_summary_part.done", **at, summary_index=j, part=part)
        elif item["type"] == "message":
            ev("response.output_item.added", output_index=index, item={**item, "status": "in_progress", "content": []})
            for k, part in enumerate(item["content"]):
                ev("response.content_part.added", **at, content_index=k, part={**part, "text": ""})
                for piece in pieces(part["text"], text_chunk):
                    ev("response.output_text.delta", **at, content_index=k, delta=piece, logprobs=[])
                ev("response.output_text.done", **at, content_index=k, text=part["text"], logprobs=[])
                ev("response.content_part.done", **at, content_index=k, part=part)
        else:  # function_call
            ev(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            for piece in pieces(item["arguments"], json_chunk):
                ev("response.function_call_arguments.delta", **at, delta=piece)
            ev("response.function_call_arguments.done", **at, arguments=item["arguments"])
        ev("response.output_item.done", output_index=index, item=item)
    ev("response.incomplete" if resp["status"] == "incomplete" else "response.completed", response=resp)
    return events


def chat_chunks(
    completion: dict[str, Any],
    *,
    include_usage: bool = False,
    text_chunk: int = 4,
    json_chunk: int = 8,
) -> list[dict[str, Any]]:
    """The Chat stream chunks for a complete ``chat.completion`` (``[DONE]`` not included).

    The first chunk has the role (and, for a reply without text, the first tool
    call's start); content comes in pieces; a tool call's first delta has its
    ``index``, id, type, name and ``arguments: ""`` and later ones argument
    fragments; then a chunk with ``finish_reason``; with ``include_usage`` a last
    chunk with ``choices: []`` and the usage, and ``usage: null`` on all others.
    """
    base = {"id": completion["id"], "object": "chat.completion.chunk"}
    base.update({k: completion[k] for k in ("created", "model", "service_tier", "system_fingerprint")})
    choice = completion["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        out = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        if include_usage:
            out["usage"] = None
        return out

    def start(i: int, call: dict[str, Any]) -> dict[str, Any]:
        fn = {"name": call["function"]["name"], "arguments": ""}
        return {"index": i, "id": call["id"], "type": "function", "function": fn}

    calls = message.get("tool_calls") or []
    content = message.get("content")
    first: dict[str, Any] = {"role": "assistant", "content": "" if content is not None else None, "refusal": None}
    if content is None and calls:
        first["tool_calls"] = [start(0, calls[0])]
    chunks = [chunk(first)]
    for piece in pieces(content or "", text_chunk):
        chunks.append(chunk({"content": piece}))
    for i, call in enumerate(calls):
        if i > 0 or content is not None:
            chunks.append(chunk({"tool_calls": [start(i, call)]}))
        for piece in pieces(call["function"]["arguments"], json_chunk):
            chunks.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    chunks.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        chunks.append({**base, "choices": [], "usage": completion["usage"]})
    return chunks


def _sse(name: str | None, data: Any) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return (f"event: {name}\n" if name else "").encode() + f"data: {payload}\n\n".encode()


# --------------------------------------------------------------------------- prompt model


def prompt_segments(body: dict[str, Any], api: Api) -> list[tuple[str, Any]]:
    """The request's prompt as (tag, object) pairs in render order (see the module docstring)."""
    segments: list[tuple[str, Any]] = [("tool", t) for t in body.get("tools") or []]
    if api == "responses":
        fmt = (body.get("text") or {}).get("format") if isinstance(body.get("text"), dict) else None
        if fmt is not None:
            segments.append(("format", fmt))
        if body.get("instructions") is not None:
            segments.append(("instructions", body["instructions"]))
        items = body.get("input")
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        segments.extend(("item", item) for item in items or [])
    else:
        if body.get("response_format") is not None:
            segments.append(("format", body["response_format"]))
        segments.extend(("message", m) for m in body.get("messages") or [])
    return segments


def prompt_text(body: dict[str, Any], api: Api) -> str:
    """The rendered prompt string whose 4-character pieces are the tokens."""
    return "".join(f"<{tag}>{canonical_json(obj)}\n" for tag, obj in prompt_segments(body, api))
