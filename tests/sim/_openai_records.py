"""What the simulated OpenAI server records: each request with its answer, its cache accounting
and, for a stream, the events sent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ._openai_replies import (
    Api,
    StreamFault,
)
from ._server import StreamLog as _StreamLog


@dataclass
class CacheReport:
    """Cache accounting of one successful request (what the usage was computed from)."""

    total_tokens: int
    cached_tokens: int
    prompt_cache_key: str | None
    hit_creator_seq: int | None  # seq of the request that wrote the entry read
    stored: list[int]  # boundaries (in tokens) written or refreshed
    ttl: float


class Headers(dict[str, str]):
    """Lower-case request headers whose repr hides the ``authorization`` value."""

    def __repr__(self) -> str:
        shown = {k: ("<redacted>" if k == "authorization" else v) for k, v in self.items()}
        return repr(shown)


@dataclass
class Recorded:
    """One HTTP request the server received, with what it answered."""

    seq: int
    method: str
    path: str
    headers: Headers  # lower-case names; the repr hides authorization
    raw: bytes
    body: Any  # parsed JSON, or None when the body was not JSON
    api: Api | None = None  # the endpoint, None for an unknown route
    status: int = 0
    response: Any = None  # parsed JSON sent back, or the raw str for non-JSON bodies
    cache: CacheReport | None = None
    handler_seconds: float = 0.0  # from the body read to the first byte of the answer
    # For a streamed reply: the events as they went out. ``response`` is then what the
    # events add up to (what the non-streaming path would have sent).
    stream: StreamLog | None = None

    @property
    def retry_count(self) -> int | None:
        """The SDK's ``x-stainless-retry-count`` (0 for a first attempt), or None if not sent."""
        value = self.headers.get("x-stainless-retry-count")
        return int(value) if value is not None else None


class StreamLog(_StreamLog):
    """What the server sent for a streamed reply, updated while it sends.

    ``events`` are (name, data): Responses (event type, data); Chat (``"chunk"``,
    chunk), (``"error"``, data) and (``"[DONE]"``, None). A ``"malformed"`` event is
    logged with its raw text. ``complete`` means the terminal event was sent.
    """

    def deltas(self, kind: Literal["text", "arguments", "reasoning"] = "text") -> list[str]:
        """The text / tool-argument / reasoning-summary pieces, in the order sent."""
        out: list[str] = []
        for name, data in self.events:
            piece = _delta_of(name, data)
            if piece is not None and piece[0] == kind:
                out.append(piece[1])
        return out


def _delta_of(name: str, data: Any) -> tuple[str, str] | None:
    """(kind, piece) for an event carrying a non-empty piece of text, arguments or reasoning."""
    if name == "chunk":
        choices = data.get("choices") or []
        if not choices:
            return None
        delta = choices[0]["delta"]
        if delta.get("content"):
            return ("text", delta["content"])
        for call in delta.get("tool_calls") or []:
            if call.get("function", {}).get("arguments"):
                return ("arguments", call["function"]["arguments"])
        return None
    kinds = {
        "response.output_text.delta": "text",
        "response.function_call_arguments.delta": "arguments",
        "response.reasoning_summary_text.delta": "reasoning",
    }
    if name in kinds and data.get("delta"):
        return (kinds[name], data["delta"])
    return None


@dataclass
class _Entry:
    tokens: int
    expires_at: float
    creator_seq: int
    hits: int = 0


@dataclass
class _Outcome:
    status: int
    body: Any  # dict -> JSON, str/bytes -> raw
    headers: dict[str, str] = field(default_factory=dict)
    cache: CacheReport | None = None
    stream: bool = False
    fault: StreamFault | None = None
