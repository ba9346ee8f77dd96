"""The simulated Anthropic server's stream: a message as Messages API SSE events."""

from __future__ import annotations

import json
from typing import Any

from ._server import pieces as _pieces

# --------------------------------------------------------------------------- streaming


def stream_events(
    msg: dict[str, Any],
    *,
    text_chunk: int = 4,
    json_chunk: int = 8,
) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events (name, data) the Messages API sends for a complete message.

    ``msg`` is a full response body (as the non-streaming path returns it). The
    events add up, by the SDK's accumulation rules, to exactly ``msg``: the
    ``message_start`` usage is the final usage with ``output_tokens`` 1 (the API
    counts the first token there), and ``message_delta`` carries the cumulative
    ``input_tokens``, cache counts and final ``output_tokens`` (``MessageDeltaUsage``
    has no ``cache_creation`` breakdown; that is in ``message_start`` only).
    """
    usage = dict(msg.get("usage") or {})
    start_usage = dict(usage)
    start_usage["output_tokens"] = min(1, usage.get("output_tokens", 0))
    start = {k: v for k, v in msg.items() if k not in ("content", "stop_reason", "stop_sequence", "usage")}
    start.update(content=[], stop_reason=None, stop_sequence=None, usage=start_usage)
    # The API's key order: id, type, role, model, content, stop_reason, stop_sequence, usage.
    order = ["id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage"]
    start = {**{k: start[k] for k in order if k in start}, **start}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),
    ]

    def delta(index: int, body: dict[str, Any]) -> None:
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": body}))

    for index, block in enumerate(msg.get("content") or []):
        kind = block.get("type")
        if kind == "text":
            first = {**block, "text": ""}
            pieces = [("text_delta", "text", p) for p in _pieces(block.get("text", ""), text_chunk)]
        elif kind == "tool_use":
            # The API's key order: type, id, name, input.
            first = {k: block[k] for k in ("type", "id", "name") if k in block}
            first = {**first, "input": {}, **{k: v for k, v in block.items() if k not in first and k != "input"}}
            args = block.get("input") or {}
            # The first fragment is empty, as the API sends it; no input at all is that fragment alone.
            frags = [""] + (_pieces(json.dumps(args, ensure_ascii=False), json_chunk) if args else [])
            pieces = [("input_json_delta", "partial_json", f) for f in frags]
        elif kind == "thinking":
            first = {**block, "thinking": "", "signature": ""}
            pieces = [("thinking_delta", "thinking", p) for p in _pieces(block.get("thinking", ""), text_chunk)]
            pieces.append(("signature_delta", "signature", block.get("signature", "")))
        else:  # redacted_thinking, server tool blocks...: whole in the start event
            first, pieces = dict(block), []
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": first}))
        for dtype, key, value in pieces:
            delta(index, {"type": dtype, key: value})
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))

    delta_usage = {
        k: usage[k]
        for k in (
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
            "output_tokens_details",
            "server_tool_use",
        )
        if k in usage
    }
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": msg.get("stop_reason"), "stop_sequence": msg.get("stop_sequence")},
                "usage": delta_usage,
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def sse_bytes(name: str, data: dict[str, Any]) -> bytes:
    """One SSE event on the wire: ``event:`` and ``data:`` lines and a blank line."""
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"event: {name}\ndata: {payload}\n\n".encode()
