"""The simulated Anthropic server's data: the API's limits and error types, scripted replies and
stream faults, prompt blocks and cache breakpoints, what each request recorded, ``SimError``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ._server import StreamLog as _StreamLog

TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
_TOOL_NAME_RE = re.compile(TOOL_NAME_PATTERN)
MAX_CACHE_BREAKPOINTS = 4
TTL_SECONDS: dict[str, float] = {"5m": 300.0, "1h": 3600.0}

# Error type the real API uses for each status, for replies scripted without a body.
_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
_NOT_CACHEABLE_TYPES = frozenset({"thinking", "redacted_thinking"})


# --------------------------------------------------------------------------- data types


@dataclass
class Reply:
    """A scripted reply with full control over the HTTP answer.

    ``body`` may be a dict (sent as JSON; for status 200 it is completed like a
    plain dict reply), a str/bytes (sent raw, e.g. an HTML 413 page) or None (an
    Anthropic-shaped error for the status). ``delay`` is real seconds to wait
    before answering, for client timeout tests.

    For a streamed request (``"stream": true``) a 200 dict body is sent as SSE
    events; ``stream=False`` sends it as plain JSON anyway (a server that ignores
    ``stream``). ``stream_fault`` breaks the stream part-way (see ``StreamFault``);
    it needs a streamed request, and a plain one gets a loud 500 instead.
    """

    status: int = 200
    body: dict[str, Any] | str | bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    stream: bool | None = None
    stream_fault: StreamFault | None = None


@dataclass
class StreamFault:
    """A streamed reply that breaks off part-way (the HTTP status was already 200).

    ``after_events`` counts the SSE events sent before the fault (``message_start``
    is event 1, the ``ping`` event 2); ``None`` means right after the first
    ``content_block_delta``, so the client has seen part of the message. Kinds:

    * ``"error"``: an ``event: error`` with ``{"type": "error", "error": {"type":
      error_type, "message": message}}`` (by default the API's mid-stream
      ``overloaded_error`` ``"Overloaded"``), then the body ends cleanly;
    * ``"truncate"``: the body ends cleanly with no more events (no ``message_stop``);
    * ``"reset"``: the connection is reset (TCP RST) with no more events;
    * ``"malformed"``: the next event goes out with its ``data:`` line cut in half
      (not JSON), then the body ends cleanly, as a broken proxy would send it.

    Cache writes are committed anyway, as the real API commits them when the
    response starts.
    """

    after_events: int | None = None
    kind: Literal["error", "truncate", "reset", "malformed"] = "error"
    error_type: str = "overloaded_error"
    message: str = "Overloaded"


@dataclass(frozen=True)
class Block:
    """One block of the cacheable prompt, in render order."""

    section: str  # "tools" | "system" | "messages"
    role: str | None  # message role for message blocks
    new_message: bool  # first block of a (merged) message
    # The block as received (string content promoted to a text block).
    data: dict[str, Any]
    tokens: int


@dataclass(frozen=True)
class Breakpoint:
    """A cache breakpoint: a block index in the prompt and its TTL."""

    index: int
    ttl: str
    source: str  # "explicit" | "top-level"


@dataclass
class CacheReport:
    """Cache accounting of one successful request (what the usage was computed from)."""

    total_tokens: int
    breakpoints: list[Breakpoint]
    hit_index: int | None  # block index of the prefix that was read
    hit_creator_seq: int | None  # seq of the request that wrote the entry read
    read: int
    written: int
    written_5m: int
    written_1h: int
    stored: list[int]  # block indices whose prefix was written or refreshed


@dataclass
class Recorded:
    """One HTTP request the server received, with what it answered."""

    seq: int
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    raw: bytes
    body: Any  # parsed JSON, or None when the body was not JSON
    status: int = 0
    response: Any = None  # parsed JSON sent back, or the raw str for non-JSON bodies
    cache: CacheReport | None = None
    # Benchmark support (benches/tool_loop.py): real seconds the server spent on this
    # request, from having read the whole body to starting to send the answer (includes
    # validation, cache simulation and any scripted delay; excludes the
    # http.server request-line/header parsing that happens before the handler).
    handler_seconds: float = 0.0
    # For a reply sent as SSE: the events as they went out. ``response`` is then the
    # message those events add up to (what the non-streaming path would have sent).
    stream: StreamLog | None = None


class StreamLog(_StreamLog):
    """What the server sent for a streamed reply, updated while it sends.

    ``events`` are (event name, data) in the order sent; ``complete`` means
    ``message_stop`` (the last event) was sent; ``fault`` is ``StreamFault.kind``
    once the fault was applied (a ``"malformed"`` event is logged with its raw
    text as data).
    """

    def deltas(self, kind: str = "text_delta") -> list[str]:
        """The payloads of the ``content_block_delta`` events of one delta type, in order."""
        key = {
            "text_delta": "text",
            "input_json_delta": "partial_json",
            "thinking_delta": "thinking",
            "signature_delta": "signature",
        }[kind]
        return [
            data["delta"][key]
            for name, data in self.events
            if name == "content_block_delta" and data["delta"]["type"] == kind
        ]


class SimError(Exception):
    """A request rejected the way the real API would reject it."""

    def __init__(self, status: int, message: str, error_type: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.error_type = error_type or _ERROR_TYPES.get(status, "api_error")


@dataclass
class _Entry:
    tokens: int
    ttl_s: float
    expires_at: float
    creator_seq: int
    hits: int = 0


@dataclass
class _Outcome:
    status: int
    body: Any  # dict -> JSON, str/bytes -> raw
    headers: dict[str, str] = field(default_factory=dict)
    cache: CacheReport | None = None
    stream: bool = False  # send the (message) body as SSE events
    fault: StreamFault | None = None
