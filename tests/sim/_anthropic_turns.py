"""Scripting the simulated Anthropic server: the messages it answers with (text, tool use), and a
block's tokens as the cache sees it."""

from __future__ import annotations

import copy
import math
from typing import Any

from ._server import canonical_json

# --------------------------------------------------------------------------- helpers


def block_tokens(block: dict[str, Any]) -> int:
    """Deterministic token count of one prompt block (its ``cache_control`` excluded)."""
    return max(1, math.ceil(len(canonical_json(_cache_view(block))) / 4))


def message(
    content_blocks: list[dict[str, Any]],
    *,
    stop_reason: str,
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An assistant message body. The server fills id, model, stop_sequence and usage.

    ``usage`` keys, when given, override the computed ones (e.g. ``output_tokens``).
    """
    body: dict[str, Any] = {
        "type": "message",
        "role": "assistant",
        "content": copy.deepcopy(content_blocks),
        "stop_reason": stop_reason,
    }
    if usage is not None:
        body["usage"] = dict(usage)
    return body


def text(text: str, *, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    """An assistant message with one text block and ``stop_reason`` ``end_turn``."""
    return message([{"type": "text", "text": text}], stop_reason="end_turn", usage=usage)


def tool_use(
    *calls: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str],
    text: str | None = None,
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An assistant message calling tools, ``stop_reason`` ``tool_use``.

    Each call is ``(name, input)`` or ``(name, input, id)``. Without an id the
    server assigns ``toolu_sim_N`` when it sends the reply, so ids are
    deterministic per server instance (and identical across the Python reference
    and the Rust port when both run the same script).
    """
    if not calls:
        raise ValueError("tool_use() needs at least one call")
    blocks: list[dict[str, Any]] = []
    if text is not None:
        blocks.append({"type": "text", "text": text})
    for call in calls:
        if len(call) == 2:
            name, args = call  # type: ignore[misc]
            blocks.append({"type": "tool_use", "name": name, "input": args})
        elif len(call) == 3:
            name, args, call_id = call  # type: ignore[misc]
            blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": args})
        else:
            raise ValueError(f"tool call must be (name, input) or (name, input, id), got {call!r}")
    return message(blocks, stop_reason="tool_use", usage=usage)


# --------------------------------------------------------------------------- prompt model


def _cache_view(block: dict[str, Any]) -> dict[str, Any]:
    """The block as the cache sees it: no marker, equivalent spellings unified."""
    view = {k: v for k, v in block.items() if k != "cache_control"}
    if view.get("type") == "tool_result":
        content = view.get("content")
        if isinstance(content, str):
            view["content"] = [{"type": "text", "text": content}]
        elif isinstance(content, list):
            view["content"] = [
                {k: v for k, v in sub.items() if k != "cache_control"} if isinstance(sub, dict) else sub
                for sub in content
            ]
        if view.get("is_error") is False:
            del view["is_error"]
    return view
