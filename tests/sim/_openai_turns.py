"""Scripting the simulated OpenAI server: API-neutral turns (text, tool calls, reasoning) and
their output tokens."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ._server import canonical_json

# --------------------------------------------------------------------------- scripting


@dataclass
class Turn:
    """One scripted model turn, API-neutral; ``a + b`` puts b's parts after a's.

    ``parts`` are small dicts (build them with ``text``, ``tool_calls`` and
    ``reasoning``): ``{"type": "text", "text"}``, ``{"type": "tool_call", "name",
    "arguments", "call_id"}`` (arguments a dict, sent as compact JSON, or a str sent
    as is; call_id None means ``call_sim_N``), ``{"type": "reasoning", "summary":
    [str], "encrypted": str | None, "tokens": int | None}``. ``output_tokens``
    overrides the computed count. ``incomplete`` ends the turn as if
    ``max_output_tokens`` was hit: Responses status ``incomplete`` (reason
    ``max_output_tokens``), Chat ``finish_reason`` ``length``.
    """

    parts: list[dict[str, Any]] = field(default_factory=list)
    output_tokens: int | None = None
    incomplete: bool = False

    def __add__(self, other: Turn) -> Turn:
        if not isinstance(other, Turn):
            return NotImplemented
        return Turn(
            [*self.parts, *other.parts],
            other.output_tokens if other.output_tokens is not None else self.output_tokens,
            self.incomplete or other.incomplete,
        )


def text(text: str, *, output_tokens: int | None = None, incomplete: bool = False) -> Turn:
    """A turn with one text part (a ``message`` item / the Chat ``content``)."""
    return Turn([{"type": "text", "text": text}], output_tokens, incomplete)


def tool_calls(*calls: tuple[str, dict[str, Any] | str] | tuple[str, dict[str, Any] | str, str]) -> Turn:
    """A turn calling tools: each call is ``(name, arguments)`` or ``(name, arguments, call_id)``."""
    if not calls:
        raise ValueError("tool_calls() needs at least one call")
    parts: list[dict[str, Any]] = []
    for call in calls:
        if len(call) not in (2, 3):
            raise ValueError(f"a tool call must be (name, arguments) or (name, arguments, call_id), got {call!r}")
        parts.append({"type": "tool_call", "name": call[0], "arguments": call[1], "call_id": (call + (None,))[2]})
    return Turn(parts)


def reasoning(*summary: str, encrypted: str | None = None, tokens: int | None = None) -> Turn:
    """A reasoning part: summary texts, opaque ``encrypted`` content, its token count.

    Responses renders it as a ``reasoning`` item (``encrypted_content`` only when the
    request asks for ``include: ["reasoning.encrypted_content"]``, as the API does);
    Chat only counts its tokens as ``reasoning_tokens``.
    """
    return Turn([{"type": "reasoning", "summary": list(summary), "encrypted": encrypted, "tokens": tokens}])


def _arguments(part: dict[str, Any]) -> str:
    args = part["arguments"]
    return args if isinstance(args, str) else canonical_json(args)


def _turn_tokens(turn: Turn) -> tuple[int, int]:
    """(output_tokens, reasoning_tokens) of a turn; see the module docstring."""
    reasoning_tokens = visible = 0
    for part in turn.parts:
        if part["type"] == "reasoning":
            given = part["tokens"]
            reasoning_tokens += given if given is not None else max(1, math.ceil(len("".join(part["summary"])) / 4))
        elif part["type"] == "text":
            visible += math.ceil(len(part["text"]) / 4)
        else:
            visible += math.ceil(len(part["name"] + _arguments(part)) / 4)
    output = turn.output_tokens if turn.output_tokens is not None else max(1, reasoning_tokens + visible)
    return output, reasoning_tokens
