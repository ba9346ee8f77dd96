"""A simulated Anthropic Messages API server for tests (standard library only).

The server listens on 127.0.0.1 (ephemeral port) in a daemon thread, answers
``POST /v1/messages`` from a FIFO of scripted replies, records every request,
validates requests the way the real API does (so malformed histories fail tests
instead of passing silently), and simulates prompt caching with a deterministic
tokenizer and a virtual clock.

Typical use::

    with SimAnthropic(min_cache_tokens=64) as sim:
        sim.script(tool_use(("ls", {"path": "/"})), text("done"))
        os.environ["ANTHROPIC_BASE_URL"] = sim.base_url
        ...
        assert sim.requests[1].body["messages"][-1]["role"] == "user"
        assert sim.requests[1].response["usage"]["cache_read_input_tokens"] > 0

Cache model (see shared/research/providers.md, sections 1.8 and 4.6):

* The prompt is the ordered block list tools -> system blocks -> message content
  blocks. A string ``system`` or string message ``content`` is one text block, so
  ``"hi"`` and ``[{"type": "text", "text": "hi"}]`` are the same prefix.
* A block costs ``ceil(len(canonical_json(block)) / 4)`` tokens, where the block
  is taken without its ``cache_control`` (moving a marker is free on the real
  API, so it must not change the prefix).
* Prefix hashes chain over blocks and start from the model, so caches are per
  model. Blocks are hashed with their *received* key order: a client that
  reorders JSON keys between turns loses its cache on the real API and must lose
  it here too.
* Breakpoints are blocks carrying ``cache_control`` plus, with a top-level
  ``cache_control``, the last cacheable block of the messages.
* Read = the longest live prefix among the ``lookback`` positions ending at each
  breakpoint; every breakpoint prefix of at least ``min_cache_tokens`` is then
  stored (or refreshed) and the tokens from the read up to the last stored
  breakpoint are reported as written.

Streaming (``"stream": true``): the reply is sent as ``text/event-stream`` the way
the Messages API sends it (section 1.6): ``message_start`` (usage with the cache
fields, ``output_tokens`` 1), one ``ping``, then per content block
``content_block_start`` / ``content_block_delta``... / ``content_block_stop``
(text in ``text_delta`` pieces of ``stream_text_chunk`` characters, tool input as
``input_json_delta`` fragments of ``stream_json_chunk`` characters after an empty
first one, thinking as ``thinking_delta`` pieces and one ``signature_delta``), then
``message_delta`` (stop reason, cumulative usage) and ``message_stop``. Events go
out one HTTP chunk each (chunked transfer; ``stream_framing="close"`` ends the body
by closing the connection instead). The events add up to exactly the message the
non-streaming path returns: same ids, usage and cache accounting, and the same
``Recorded.response``; ``Recorded.stream`` logs the events as they were sent.
``stream_events`` renders a message without a server, for expected values.

Pacing and faults for streaming clients: ``sim.gate_after_first_delta()`` holds the
next stream after its first text delta until the test sets the returned event, and
``Reply(body=..., stream_fault=StreamFault(...))`` sends an ``event: error``
(``overloaded_error`` by default), ends the body early, resets the connection, or
sends an event whose ``data:`` is not JSON, mid-stream.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from ._server import Frame, SimServer, _Handler, canonical_json
from ._server import StreamLog as _StreamLog
from ._server import pieces as _pieces

__all__ = [
    "Block",
    "Breakpoint",
    "CacheReport",
    "Recorded",
    "Reply",
    "SimAnthropic",
    "SimError",
    "StreamFault",
    "StreamLog",
    "block_tokens",
    "canonical_json",
    "message",
    "prompt_blocks",
    "sse_bytes",
    "stream_events",
    "text",
    "tool_use",
]

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


def _as_blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list) and all(isinstance(b, dict) for b in content):
        return list(content)
    raise SimError(400, f"{where}: Input should be a valid string or a list of content blocks")


def _turns(body: dict[str, Any], merge_consecutive: bool) -> list[tuple[str, list[dict[str, Any]]]]:
    """Messages as (role, blocks), merged when consecutive same-role turns are allowed."""
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for i, msg in enumerate(body.get("messages") or []):
        blocks = _as_blocks(msg.get("content"), f"messages.{i}.content")
        role = msg.get("role")
        if merge_consecutive and turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    return turns


def prompt_blocks(body: dict[str, Any], *, merge_consecutive: bool = False) -> list[Block]:
    """The request's prompt as the ordered block list tools -> system -> messages."""
    blocks: list[Block] = []
    for tool in body.get("tools") or []:
        blocks.append(Block("tools", None, False, tool, block_tokens(tool)))
    system = body.get("system")
    if system is not None:
        for sb in _as_blocks(system, "system"):
            blocks.append(Block("system", None, False, sb, block_tokens(sb)))
    for role, content in _turns(body, merge_consecutive):
        for j, b in enumerate(content):
            blocks.append(Block("messages", role, j == 0, b, block_tokens(b)))
    return blocks


# --------------------------------------------------------------------------- validation


def _check_cache_control(cc: Any, where: str) -> str:
    """Validate a cache_control marker and return its TTL."""
    if not isinstance(cc, dict) or cc.get("type") != "ephemeral":
        raise SimError(400, f"{where}.cache_control.type: Input should be 'ephemeral'")
    ttl = cc.get("ttl", "5m")
    if ttl not in TTL_SECONDS:
        raise SimError(400, f"{where}.cache_control.ttl: Input should be '5m' or '1h'")
    return ttl


def _validate(body: Any, merge_consecutive: bool) -> None:
    """Reject what the real Messages API rejects (the subset tests rely on)."""
    if not isinstance(body, dict):
        raise SimError(400, "Request body must be a JSON object")
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            raise SimError(400, f"{key}: Field required")
    if not isinstance(body["model"], str) or not body["model"]:
        raise SimError(400, "model: Input should be a valid string")
    max_tokens = body["max_tokens"]
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
        raise SimError(400, "max_tokens: Input should be a valid non-negative integer")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise SimError(400, "messages: Input should be a valid list")
    if not messages:
        raise SimError(400, "messages: at least one message is required")
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise SimError(400, f"messages.{i}: Input should be a valid dictionary")
        # A `system` turn after the first is how a model taking mid-conversation system
        # messages gets one in place (its tool-change blocks' beta header is not checked).
        if msg.get("role") not in ("user", "assistant") and not (i > 0 and msg.get("role") == "system"):
            raise SimError(400, f"messages.{i}.role: Input should be 'user' or 'assistant'")
        if "content" not in msg:
            raise SimError(400, f"messages.{i}.content: Field required")
    if messages[0]["role"] != "user":
        raise SimError(400, 'messages: first message must use the "user" role')
    if not merge_consecutive:
        for i in range(1, len(messages)):
            if messages[i]["role"] == messages[i - 1]["role"]:
                role = messages[i]["role"]
                raise SimError(
                    400,
                    f'messages: roles must alternate between "user" and "assistant", '
                    f'but found multiple "{role}" roles in a row',
                )

    turns = _turns(body, merge_consecutive)
    for i, (_role, blocks) in enumerate(turns):
        if not blocks and i != len(turns) - 1:
            raise SimError(
                400,
                f"messages.{i}: all messages must have non-empty content except for the optional final assistant message",
            )
        for j, b in enumerate(blocks):
            if b.get("type") == "text" and b.get("text", "") == "":
                raise SimError(
                    400,
                    f"messages.{i}.content.{j}: text content blocks must be non-empty",
                )

    _validate_tool_pairing(turns)

    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
            raise SimError(400, "tools: Input should be a valid list of tool definitions")
        for i, tool in enumerate(tools):
            kind = tool.get("type", "custom")
            if not isinstance(tool.get("name"), str) or not _TOOL_NAME_RE.match(tool["name"]):
                raise SimError(
                    400,
                    f"tools.{i}.{kind}.name: String should match pattern '{TOOL_NAME_PATTERN}'",
                )
            if kind == "custom" and "input_schema" not in tool:
                raise SimError(400, f"tools.{i}.custom.input_schema: Field required")

    system = body.get("system")
    if system is not None:
        for j, sb in enumerate(_as_blocks(system, "system")):
            if sb.get("type") != "text":
                raise SimError(400, f"system.{j}.type: Input should be 'text'")

    _breakpoints(body, merge_consecutive)  # raises on a bad marker or too many


def _validate_tool_pairing(turns: list[tuple[str, list[dict[str, Any]]]]) -> None:
    for i, (role, blocks) in enumerate(turns):
        if role == "assistant":
            ids = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
            if not ids:
                continue
            answered: set[Any] = set()
            if i + 1 < len(turns) and turns[i + 1][0] == "user":
                answered = {b.get("tool_use_id") for b in turns[i + 1][1] if b.get("type") == "tool_result"}
            missing = [str(x) for x in ids if x not in answered]
            if missing:
                raise SimError(
                    400,
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block "
                    f"in the next message.",
                )
        else:
            previous: set[Any] = set()
            if i > 0 and turns[i - 1][0] == "assistant":
                previous = {b.get("id") for b in turns[i - 1][1] if b.get("type") == "tool_use"}
            seen_other = False
            for j, b in enumerate(blocks):
                if b.get("type") != "tool_result":
                    seen_other = True
                    continue
                if b.get("tool_use_id") not in previous:
                    raise SimError(
                        400,
                        f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{b.get('tool_use_id')}. Each `tool_result` block must have a corresponding `tool_use` "
                        f"block in the previous message.",
                    )
                if seen_other:
                    # Wording approximated; the rule itself is documented.
                    raise SimError(
                        400,
                        f"messages.{i}.content.{j}: `tool_result` blocks must come first in the user message "
                        f"content, before any other block",
                    )


def _breakpoints(body: dict[str, Any], merge_consecutive: bool) -> list[Breakpoint]:
    """Explicit markers plus the top-level one, validated, in prefix order."""
    blocks = prompt_blocks(body, merge_consecutive=merge_consecutive)
    found: list[Breakpoint] = []
    for i, b in enumerate(blocks):
        cc = b.data.get("cache_control")
        if cc is None:
            continue
        where = f"{b.section}.block_{i}"
        ttl = _check_cache_control(cc, where)
        if b.data.get("type") in _NOT_CACHEABLE_TYPES:
            raise SimError(
                400,
                f"{where}: cache_control cannot be set on {b.data.get('type')} blocks",
            )
        found.append(Breakpoint(i, ttl, "explicit"))
    top = body.get("cache_control")
    count = len(found)
    if top is not None:
        ttl = _check_cache_control(top, "body")
        count += 1  # the real API counts the top-level marker even though it lands on a block
        for i in range(len(blocks) - 1, -1, -1):
            b = blocks[i]
            if b.section != "messages":
                break
            if b.data.get("type") in _NOT_CACHEABLE_TYPES or (b.data.get("type") == "text" and not b.data.get("text")):
                continue
            found.append(Breakpoint(i, ttl, "top-level"))
            break
    if count > MAX_CACHE_BREAKPOINTS:
        raise SimError(
            400,
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {count}.",
        )
    found.sort(key=lambda bp: bp.index)
    seen_5m = False
    for bp in found:
        if bp.ttl == "5m":
            seen_5m = True
        elif seen_5m:
            # Wording approximated; the ordering rule is documented.
            raise SimError(
                400,
                "a cache_control block with ttl='1h' cannot come after one with ttl='5m'",
            )
    return found


# --------------------------------------------------------------------------- server


class SimAnthropic(SimServer):
    """A scripted, recording, cache-simulating Anthropic Messages API server.

    Args:
        min_cache_tokens: shortest prefix that is cached (1024 for Sonnet/Opus
            4.x, 2048 for Haiku 3.x, 4096 for Opus 4.5+); tests usually lower it.
        lookback: how many positions, ending at a breakpoint, are searched for a
            cached prefix (the real API checks about 20 blocks).
        merge_consecutive_roles: accept consecutive same-role messages and merge
            them, as the real API does. Off by default: neither LangChain nor our
            port should ever send them, so the simulator flags it as a bug.
        stream_text_chunk: characters per ``text_delta`` / ``thinking_delta``.
        stream_json_chunk: characters per ``input_json_delta`` fragment.
        stream_framing: ``"chunked"`` (one HTTP chunk per event, keep-alive) or
            ``"close"`` (no length; the body ends when the connection closes).
        stream_event_delay: real seconds between two events, for idle-timeout tests.

    ``base_url`` is ``http://127.0.0.1:PORT``, what ``anthropic.Anthropic(base_url=...)``
    and ``ANTHROPIC_BASE_URL`` take. The lifecycle, ``script``, ``pending``,
    ``advance``/``now``, ``handler_seconds`` and ``gate_after_first_delta`` (which
    holds a stream after ``message_start``, ``ping``, the first block's start and its
    first delta) come from ``SimServer`` (tests/sim/_server.py).
    """

    _thread_name = "sim-anthropic"
    requests: list[Recorded]

    def __init__(
        self,
        *,
        min_cache_tokens: int = 1024,
        lookback: int = 20,
        merge_consecutive_roles: bool = False,
        stream_text_chunk: int = 4,
        stream_json_chunk: int = 8,
        stream_framing: Literal["chunked", "close"] = "chunked",
        stream_event_delay: float = 0.0,
    ) -> None:
        self.min_cache_tokens = min_cache_tokens
        self.lookback = lookback
        self.merge_consecutive_roles = merge_consecutive_roles
        self.stream_text_chunk = stream_text_chunk
        self.stream_json_chunk = stream_json_chunk
        self._cache: dict[str, _Entry] = {}
        self._msg_counter = 0
        self._tool_counter = 0
        super().__init__(stream_framing=stream_framing, stream_event_delay=stream_event_delay)

    # ---------------------------------------------------------------- public API

    def _check_reply(self, reply: Any) -> None:
        if not isinstance(reply, (dict, Reply)):
            raise TypeError(f"a scripted reply must be a dict or a Reply, got {type(reply).__name__}")

    def script(self, *replies: dict[str, Any] | Reply) -> None:
        """Append replies to the FIFO; each request to /v1/messages that passes validation takes one."""
        super().script(*replies)

    def reset(self) -> None:
        """Drop the script, the gates, the request log and the cache; reset clock and id counters."""
        with self._lock:
            super().reset()
            self._cache.clear()
            self._msg_counter = self._tool_counter = 0

    def blocks(self, body: dict[str, Any]) -> list[Block]:
        """The prompt blocks of a request body, as the cache simulation sees them."""
        return prompt_blocks(body, merge_consecutive=self.merge_consecutive_roles)

    def tokens(self, body: dict[str, Any], upto: int | None = None) -> int:
        """Prompt tokens of a request body, or of its prefix ending at block index ``upto``.

        Tests compute expected usage with this instead of hard-coding numbers.
        """
        blocks = self.blocks(body)
        if upto is not None:
            blocks = blocks[: upto + 1]
        return sum(b.tokens for b in blocks)

    # ---------------------------------------------------------------- request handling

    def _handle(self, h: _Handler) -> None:
        raw, headers, body = self._read(h)
        started = time.perf_counter()
        rec = self._log(
            lambda seq: Recorded(seq=seq, method=h.command, path=h.path, headers=headers, raw=raw, body=body)
        )
        try:
            outcome = self._dispatch(h.command, urlsplit(h.path).path, headers, raw, body, rec.seq)
        except SimError as e:
            outcome = self._error(e.status, e.error_type, e.message)
        # A simulator bug must surface as a loud 500, not as a hung client.
        except Exception as e:  # noqa: BLE001
            outcome = self._error(500, "api_error", f"sim: internal error: {type(e).__name__}: {e}")
            outcome.headers["x-should-retry"] = "false"
        rec.status = outcome.status
        rec.cache = outcome.cache
        if outcome.stream:
            self._send_stream(h, outcome, rec, started)
        else:
            headers = {"request-id": f"req_sim_{rec.seq}", **outcome.headers}
            self._send_json(h, outcome.status, outcome.body, headers, rec, started)

    def _dispatch(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        raw: bytes,
        body: Any,
        seq: int,
    ) -> _Outcome:
        if method != "POST" or path != "/v1/messages":
            raise SimError(404, f"sim: no route for {method} {path}", "not_found_error")
        if not headers.get("x-api-key") and not headers.get("authorization", "").startswith("Bearer "):
            # The SDK sends `Authorization: Bearer <key>` for api keys since 2.x; both are accepted.
            raise SimError(401, "x-api-key header is required", "authentication_error")
        if not headers.get("anthropic-version"):
            raise SimError(400, "anthropic-version: header is required")
        if body is None and raw:
            raise SimError(400, "There was an error parsing the body: invalid JSON")
        _validate(body, self.merge_consecutive_roles)
        streamed = body.get("stream", False)
        if not isinstance(streamed, bool):
            raise SimError(400, "stream: Input should be a valid boolean")

        reply = self._pop_reply()
        if reply is None:
            err = self._error(500, "api_error", "sim: no scripted reply left")
            # Keep SDK retries from hiding (and slowing down) the failure.
            err.headers["x-should-retry"] = "false"
            return err

        fault: StreamFault | None = None
        if isinstance(reply, Reply):
            if reply.delay > 0:
                time.sleep(reply.delay)
            if reply.stream_fault is not None and not (streamed and reply.stream is not False):
                err = self._error(500, "api_error", "sim: a stream fault was scripted but the reply is not streamed")
                err.headers["x-should-retry"] = "false"
                return err
            fault = reply.stream_fault
            if reply.stream is False:
                streamed = False
            if reply.status != 200:
                out = (
                    self._error(
                        reply.status,
                        _ERROR_TYPES.get(reply.status, "api_error"),
                        f"sim: scripted {reply.status}",
                    )
                    if reply.body is None
                    else _Outcome(reply.status, reply.body)
                )
                out.headers.update(reply.headers)
                return out
            if not isinstance(reply.body, dict):
                return _Outcome(
                    200,
                    reply.body if reply.body is not None else b"",
                    dict(reply.headers),
                )
            payload, extra = reply.body, dict(reply.headers)
        else:
            payload, extra = reply, {}

        # Cache accounting happens when the response starts, under the lock, so an
        # entry becomes usable by later requests only once this one is answered.
        with self._lock:
            report = self._account_cache(body, seq)
            completed = self._complete(payload, body, report)
        return _Outcome(200, completed, extra, report, stream=streamed, fault=fault)

    def _complete(self, payload: dict[str, Any], request: dict[str, Any], report: CacheReport) -> dict[str, Any]:
        self._msg_counter += 1
        content = payload.get("content", [])
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use" and not block.get("id"):
                self._tool_counter += 1
                block["id"] = f"toolu_sim_{self._tool_counter}"
        usage: dict[str, Any] = {
            "input_tokens": report.total_tokens - report.read - report.written,
            "cache_creation_input_tokens": report.written,
            "cache_read_input_tokens": report.read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": report.written_5m,
                "ephemeral_1h_input_tokens": report.written_1h,
            },
            "output_tokens": max(1, math.ceil(len(canonical_json(content)) / 4)),
            "service_tier": "standard",
        }
        usage.update(payload.get("usage") or {})
        out: dict[str, Any] = {
            "id": payload.get("id") or f"msg_sim_{self._msg_counter}",
            "type": "message",
            "role": "assistant",
            "model": payload.get("model") or request["model"],
            "content": content,
            "stop_reason": payload.get("stop_reason", "end_turn"),
            "stop_sequence": payload.get("stop_sequence"),
            "usage": usage,
        }
        # Keep any other field a test scripted on purpose (e.g. "container").
        for k, v in payload.items():
            out.setdefault(k, v)
        return out

    # ---------------------------------------------------------------- cache simulation

    def _account_cache(self, body: dict[str, Any], seq: int) -> CacheReport:
        blocks = self.blocks(body)
        bps = _breakpoints(body, self.merge_consecutive_roles)
        chain = self._chain(body, blocks)
        cum: list[int] = []
        running = 0
        for b in blocks:
            running += b.tokens
            cum.append(running)
        now = self._clock
        for key in [k for k, e in self._cache.items() if e.expires_at <= now]:
            del self._cache[key]

        # Reads before writes: a request never reads what it writes itself.
        hit: int | None = None
        for bp in bps:
            lowest = max(0, bp.index - self.lookback + 1)
            for p in range(bp.index, lowest - 1, -1):
                if cum[p] < self.min_cache_tokens:
                    break  # shorter prefixes are below the minimum too
                if chain[p] in self._cache:
                    if hit is None or cum[p] > cum[hit]:
                        hit = p
                    break
        read = cum[hit] if hit is not None else 0
        creator: int | None = None
        if hit is not None:
            entry = self._cache[chain[hit]]
            entry.hits += 1
            entry.expires_at = max(entry.expires_at, now + entry.ttl_s)
            creator = entry.creator_seq

        stored: list[int] = []
        last_written = last_1h = None
        for bp in bps:
            if cum[bp.index] < self.min_cache_tokens:
                continue
            ttl_s = TTL_SECONDS[bp.ttl]
            key = chain[bp.index]
            entry = self._cache.get(key)
            if entry is None:
                self._cache[key] = _Entry(cum[bp.index], ttl_s, now + ttl_s, seq)
            else:
                entry.ttl_s = max(entry.ttl_s, ttl_s)
                entry.expires_at = max(entry.expires_at, now + ttl_s)
            stored.append(bp.index)
            if cum[bp.index] > read:
                last_written = bp.index
                if bp.ttl == "1h":
                    last_1h = bp.index
        written = cum[last_written] - read if last_written is not None else 0
        written_1h = cum[last_1h] - read if last_1h is not None else 0
        return CacheReport(
            total_tokens=running,
            breakpoints=bps,
            hit_index=hit,
            hit_creator_seq=creator,
            read=read,
            written=written,
            written_5m=written - written_1h,
            written_1h=written_1h,
            stored=stored,
        )

    def _chain(self, body: dict[str, Any], blocks: list[Block]) -> list[str]:
        """Prefix hashes: entry i identifies the prompt up to and including block i."""
        h = hashlib.sha256(f"model\0{body['model']}".encode()).hexdigest()
        # Changing tool_choice or thinking invalidates message-level entries only,
        # as in the API's invalidation table: mix them in before the first message block.
        salt = canonical_json([body.get("tool_choice"), body.get("thinking")])
        salted = False
        out: list[str] = []
        for b in blocks:
            if b.section == "messages" and not salted:
                h = hashlib.sha256(f"{h}\0salt\0{salt}".encode()).hexdigest()
                salted = True
            tag = f"{b.section}\0{b.role}\0{int(b.new_message)}"
            h = hashlib.sha256(f"{h}\0{tag}\0{canonical_json(_cache_view(b.data))}".encode()).hexdigest()
            out.append(h)
        return out

    # ---------------------------------------------------------------- responses

    def _error(self, status: int, error_type: str, msg: str) -> _Outcome:
        return _Outcome(status, {"type": "error", "error": {"type": error_type, "message": msg}})

    def _send_stream(self, h: _Handler, outcome: _Outcome, rec: Recorded, started: float) -> None:
        """Send a completed message as SSE events, each written (and so flushed) on its own."""
        msg = outcome.body
        events = stream_events(msg, text_chunk=self.stream_text_chunk, json_chunk=self.stream_json_chunk)
        frames: list[Frame] = [(name, data, sse_bytes(name, data)) for name, data in events]
        rec.stream = StreamLog()
        rec.response = msg
        fault = outcome.fault
        cut = len(events)
        if fault is not None:
            if fault.after_events is None:
                names = [name for name, _ in events]
                cut = names.index("content_block_delta") + 1 if "content_block_delta" in names else len(events) - 1
            else:
                cut = max(0, min(fault.after_events, len(events)))
        fault_frames: list[Frame] = []
        if fault is not None and fault.kind == "error":
            data = {"type": "error", "error": {"type": fault.error_type, "message": fault.message}}
            fault_frames = [("error", data, sse_bytes("error", data))]
        elif fault is not None and fault.kind == "malformed":
            name, data = events[cut] if cut < len(events) else ("message_stop", {"type": "message_stop"})
            payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
            broken = payload[: max(1, len(payload) // 2)]
            fault_frames = [("malformed", broken, f"event: {name}\ndata: {broken}\n\n".encode())]
        # The gate holds the stream after its first text delta (or first delta of any kind).
        deltas = [i for i, (name, _) in enumerate(events) if name == "content_block_delta"]
        texts = [i for i in deltas if events[i][1]["delta"]["type"] == "text_delta"]
        gate_at = (texts or deltas or [None])[0]

        def timeout_frame(message: str) -> Frame:
            data = {"type": "error", "error": {"type": "api_error", "message": message}}
            return ("error", data, sse_bytes("error", data))

        headers = {"request-id": f"req_sim_{rec.seq}", **outcome.headers}
        self._send_frames(
            h,
            rec,
            started,
            headers,
            frames,
            cut=cut,
            gate_at=gate_at,
            fault=fault.kind if fault is not None else None,
            fault_frames=fault_frames,
            timeout_frame=timeout_frame,
        )
