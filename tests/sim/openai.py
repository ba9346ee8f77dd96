"""A simulated OpenAI API server for tests: Responses and Chat Completions (standard library only).

The server listens on 127.0.0.1 (ephemeral port) in a daemon thread, answers
``POST /v1/responses`` and ``POST /v1/chat/completions`` from one FIFO of scripted
replies, records every request, validates requests the way the real API does (so
malformed histories fail tests instead of passing silently), and simulates prompt
caching with a deterministic tokenizer and a virtual clock. The generic plumbing
(server thread, script, clock, gates, stream framing) is ``SimServer`` in
``tests/sim/_server.py``, shared with the Anthropic simulator.

Typical use::

    with SimOpenAI(min_cache_tokens=256) as sim:
        sim.script(tool_calls(("ls", {"path": "/"})), text("done"))
        client = openai.OpenAI(base_url=sim.base_url, api_key="sk-test")  # base_url ends in /v1
        ...
        assert sim.requests[1].body["input"][-1]["type"] == "function_call_output"
        assert sim.requests[1].response["usage"]["input_tokens_details"]["cached_tokens"] > 0

Scripting is API-neutral: a ``Turn`` (``text(...)``, ``tool_calls(...)``,
``reasoning(...)``, composed with ``+``) is rendered as a Responses ``response``
object or as a ``chat.completion``, whichever endpoint the request hit. Ids are
deterministic counters per server: ``resp_sim_N``, ``msg_sim_N``, ``rs_sim_N``,
``fc_sim_N`` with ``call_sim_N`` (the same N for one call), ``chatcmpl-sim-N``;
``created``/``created_at`` are ``EPOCH`` plus the virtual clock. Chat has no
reasoning items: a reasoning part only adds ``reasoning_tokens`` there.

Tokenizer: the request is rendered as one string, the *prompt*: one line per
tool, then the structured-output format, then ``instructions`` (Responses), then
each input item / message in order, each line ``<tag>`` + the compact JSON of
the object with its keys in received order (a string ``input`` is one user
message item). A token is 4 characters of that string: the prompt costs
``ceil(len / 4)`` tokens and token ``k`` ends at character ``4k``. Output tokens
are computed from the turn alone, so both endpoints report the same usage:
``ceil(len(text) / 4)`` per text part, ``ceil(len(name + arguments) / 4)`` per tool
call, plus the reasoning tokens (``ceil(len(summary) / 4)``, at least 1, unless
``reasoning(tokens=...)``); at least 1 in all.

Cache model (the pre-GPT-5.6 regime of shared/research/providers.md, 2.4 and 4.7):

* Automatic, no markers. The cache namespace is (API key, model,
  ``prompt_cache_key``): the key is part of the routing hash on the real API, so
  a request with another key (or none) never reads an entry written under a
  different key, and forks that send their parent's key share its entries. The
  real router also hashes the first ~256 tokens; here every cacheable prefix is
  at least ``min_cache_tokens`` long and hashed whole, which implies it.
* Boundaries are ``b = min_cache_tokens + cache_increment * k`` tokens (1024 +
  128k by default), up to the prompt's whole tokens. The read is the largest
  boundary whose prefix (the first ``4b`` characters) is live in the namespace,
  or 0. Prefixes are hashed with received key order, so reordering keys, tools
  or items misses from the first difference on.
* When the response starts (under one lock, reads before writes), every
  boundary of the request is stored or refreshed with the TTL (``cache_ttl``,
  default 600 virtual seconds; ``prompt_cache_retention: "24h"`` gives 24 h).
  A refresh never shortens an entry's life. Writes cost nothing and are reported
  as ``cache_write_tokens: 0`` (Responses).
* Usage: Responses ``input_tokens`` and Chat ``prompt_tokens`` are the whole
  prompt, cached tokens included; ``cached_tokens`` sits in
  ``input_tokens_details`` / ``prompt_tokens_details``. ``Recorded.cache`` has the
  accounting (``CacheReport``, with the seq of the request that wrote the entry read).
* ``context_window``: a prompt longer than that many tokens is answered 400
  ``context_length_exceeded`` (OpenAI's message and ``param`` for the endpoint)
  before it takes a scripted reply.

Streaming (``"stream": true``): Responses sends ``event: <type>`` / ``data: <json>``
events numbered by ``sequence_number``: ``response.created``,
``response.in_progress``, then per output item ``response.output_item.added``, its
content (reasoning summary parts and text deltas, ``content_part`` and
``output_text`` deltas, or ``function_call_arguments`` deltas) and
``response.output_item.done``, then ``response.completed`` (``response.incomplete``
for an incomplete turn) with the whole response and usage. Chat sends
``data: <chunk>`` lines: a first chunk with the role, content pieces, tool calls
grouped by ``index`` (the first delta of a call has its id, type, name and
``arguments: ""``, then argument fragments), a chunk with ``finish_reason``, with
``stream_options.include_usage`` one more chunk with ``choices: []`` and the usage
(every other chunk then has ``usage: null``), and ``data: [DONE]``. The events add
up to exactly the response the non-streaming path returns (same ids, usage and
cache accounting), which is ``Recorded.response`` in both cases;
``Recorded.stream`` logs the events as sent. ``response_events`` and
``chat_chunks`` render them without a server, for expected values.

Faults: a ``Reply`` with a status answers with OpenAI's error body
``{"error": {"message", "type", "param", "code"}}`` (presets: ``rate_limited``
with ``retry-after`` / ``retry-after-ms``, ``insufficient_quota``, ``server_error``
(500 or 503), ``auth_error``, ``context_overflow``, or any ``error_reply``);
``delay`` waits before the headers, ``stream_event_delay`` between events.
``StreamFault`` breaks a stream that already started: an in-stream error (the
SDK's flat ``ResponseErrorEvent`` shape, or the nested ``{"error": {...}}`` shape;
Chat: ``data: {"error": {...}}``), ``response.failed``, a truncated body, a TCP
reset, or an event whose ``data:`` is not JSON. Every answer carries
``x-request-id: req_sim_<seq>``; the simulator's own failures (empty script,
internal error) are loud 500s with ``x-should-retry: false``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from ._server import Frame, SimServer, _Handler, canonical_json, pieces
from ._server import StreamLog as _StreamLog

__all__ = [
    "EPOCH",
    "CacheReport",
    "Headers",
    "Recorded",
    "Reply",
    "SimError",
    "SimOpenAI",
    "StreamFault",
    "StreamLog",
    "Turn",
    "auth_error",
    "chat_chunks",
    "context_overflow",
    "error_reply",
    "insufficient_quota",
    "prompt_segments",
    "prompt_text",
    "rate_limited",
    "reasoning",
    "response_events",
    "server_error",
    "text",
    "tool_calls",
]

EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z; created / created_at = EPOCH + the virtual clock
TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
_TOOL_NAME_RE = re.compile(TOOL_NAME_PATTERN)
DEFAULT_CHAT_WINDOW = 128_000  # the window quoted in Chat's overflow message when context_window is None
OVERFLOW_RESPONSES = "Your input exceeds the context window of this model. Please adjust your input and try again."
_CHAT_OVERFLOW = (
    "This model's maximum context length is {window} tokens. However, your messages resulted in {tokens} tokens. "
    "Please reduce the length of the messages."
)
_BAD_JSON = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP "
    "library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"
)
_NO_KEY = (
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer "
    "auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from "
    "https://platform.openai.com/account/api-keys."
)
_SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"
_ROUTES = {("POST", "/v1/responses"): "responses", ("POST", "/v1/chat/completions"): "chat"}

Api = Literal["responses", "chat"]


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


# --------------------------------------------------------------------------- data types


@dataclass
class Reply:
    """A scripted reply with full control over the HTTP answer.

    ``body`` is a ``Turn`` (rendered for the endpoint, streamed when asked), a
    dict/list (sent as JSON as is, never streamed), a str/bytes (sent raw, e.g. an
    HTML page), or None: for a status other than 200, OpenAI's error body for the
    status, with ``error`` fields (``type``, ``code``, ``message``, ``param``)
    overriding the defaults. ``delay`` is real seconds to wait before the headers.

    ``stream=False`` answers a streamed request with plain JSON anyway (a server
    that ignores ``stream``). ``stream_fault`` breaks the stream part-way (see
    ``StreamFault``); it needs a streamed request, and a plain one gets a loud 500.
    """

    status: int = 200
    body: Turn | dict[str, Any] | list[Any] | str | bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    stream: bool | None = None
    stream_fault: StreamFault | None = None
    error: dict[str, Any] | None = None


@dataclass
class StreamFault:
    """A streamed reply that breaks off part-way (the HTTP status was already 200).

    ``after_events`` counts the events sent before the fault (Responses:
    ``response.created`` is event 1; Chat: the role chunk is event 1); ``None``
    means right after the first delta, so the client has seen part of the reply.
    Kinds:

    * ``"error"``: an in-stream error, then the body ends cleanly. Responses:
      ``event: error`` with the SDK's ``ResponseErrorEvent`` shape ``{"type":
      "error", "code", "message", "param", "sequence_number"}`` (``shape="flat"``)
      or the nested ``{"type": "error", "sequence_number", "error": {"type",
      "code", "message", "param"}}`` (``shape="nested"``, which the openai SDK
      raises on by itself). Chat: ``data: {"error": {"message", "type", "param",
      "code"}}``.
    * ``"failed"`` (Responses only): ``response.failed`` with the response so far
      (status ``failed``, ``error: {code, message}``), then the body ends.
    * ``"truncate"``: the body ends cleanly with no terminal event (no
      ``response.completed``; Chat: no usage chunk and no ``[DONE]``).
    * ``"reset"``: the connection is reset (TCP RST) with no more events.
    * ``"malformed"``: the next event goes out with its ``data:`` cut in half (not
      JSON), then the body ends cleanly.

    Cache writes are committed anyway: they happen when the response starts.
    """

    after_events: int | None = None
    kind: Literal["error", "failed", "truncate", "reset", "malformed"] = "error"
    error_type: str = "server_error"
    code: str | None = "server_error"
    message: str = _SERVER_ERROR
    param: str | None = None
    shape: Literal["flat", "nested"] = "flat"


def error_reply(
    status: int,
    *,
    type: str | None = None,
    code: str | None = None,
    message: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
    delay: float = 0.0,
) -> Reply:
    """A reply with OpenAI's error body; fields left None take the status's defaults."""
    fields = {"type": type, "code": code, "message": message, "param": param}
    return Reply(
        status=status,
        headers=dict(headers or {}),
        delay=delay,
        error={k: v for k, v in fields.items() if v is not None},
    )


def rate_limited(*, retry_after: float | None = None, retry_after_ms: int | None = None) -> Reply:
    """429 ``rate_limit_exceeded`` (type ``requests``), with ``retry-after`` / ``retry-after-ms`` when given."""
    headers: dict[str, str] = {}
    if retry_after is not None:
        headers["retry-after"] = f"{retry_after:g}"
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    return error_reply(429, type="requests", code="rate_limit_exceeded", headers=headers)


def insufficient_quota() -> Reply:
    """429 ``insufficient_quota``: must not be retried (the openai SDK retries every 429 anyway)."""
    return error_reply(429, type="insufficient_quota", code="insufficient_quota")


def server_error(status: int = 500) -> Reply:
    """500 (or 503, 502...) ``server_error``."""
    return error_reply(status)


def auth_error() -> Reply:
    """401 ``invalid_api_key``."""
    return error_reply(401)


def context_overflow() -> Reply:
    """400 ``context_length_exceeded`` with the endpoint's message and ``param`` (``input`` / ``messages``)."""
    return error_reply(400, code="context_length_exceeded")


def _default_error(status: int, code: str | None) -> dict[str, Any]:
    """OpenAI's error fields for a status (and a code, for the 429s)."""
    if code == "insufficient_quota":
        message = (
            "You exceeded your current quota, please check your plan and billing details. For more information "
            "on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."
        )
        return {"type": "insufficient_quota", "code": "insufficient_quota", "message": message}
    if status == 429:
        message = (
            "Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s. "
            "Visit https://platform.openai.com/account/rate-limits to learn more."
        )
        return {"type": "requests", "code": "rate_limit_exceeded", "message": message}
    if status == 401:
        message = (
            "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."
        )
        return {"type": "invalid_request_error", "code": "invalid_api_key", "message": message}
    if status == 503:
        return {"type": "server_error", "code": None, "message": "The server is overloaded or not ready yet."}
    if status >= 500:
        return {"type": "server_error", "code": None, "message": _SERVER_ERROR}
    return {"type": "invalid_request_error", "code": None, "message": f"sim: scripted {status}"}


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


class SimError(Exception):
    """A request rejected the way the real API would reject it."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


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


# --------------------------------------------------------------------------- validation


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _missing(param: str) -> SimError:
    return SimError(400, f"Missing required parameter: '{param}'.", param=param, code="missing_required_parameter")


def _wrong_type(param: str, expected: str, value: Any) -> SimError:
    return SimError(
        400,
        f"Invalid type for '{param}': expected {expected}, but got {_kind(value)} instead.",
        param=param,
        code="invalid_type",
    )


def _invalid_value(param: str, value: Any, supported: list[str]) -> SimError:
    listed = ", ".join(f"'{s}'" for s in supported[:-1]) + f", and '{supported[-1]}'"
    return SimError(
        400, f"Invalid value: '{value}'. Supported values are: {listed}.", param=param, code="invalid_value"
    )


def _require(obj: dict[str, Any], key: str, where: str) -> Any:
    if key not in obj or obj[key] is None:
        raise _missing(f"{where}.{key}" if where else key)
    return obj[key]


def _check_common(body: Any, main: str) -> None:
    if not isinstance(body, dict):
        raise SimError(400, _BAD_JSON)
    model = _require(body, "model", "")
    if not isinstance(model, str):
        raise _wrong_type("model", "a string", model)
    _require(body, main, "")
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise _wrong_type("stream", "a boolean", stream)


def _check_tool_name(name: Any, param: str) -> None:
    if not isinstance(name, str):
        raise _wrong_type(param, "a string", name)
    if not _TOOL_NAME_RE.match(name):
        raise SimError(
            400,
            f"Invalid '{param}': string does not match pattern. Expected a string that matches the pattern "
            f"'^[a-zA-Z0-9_-]+$'.",
            param=param,
            code="invalid_value",
        )


def _check_parameters(schema: Any, param: str) -> None:
    if schema is not None and not isinstance(schema, dict):
        raise _wrong_type(param, "an object", schema)


# Hosted tools' output items a request may replay (the sim never runs these tools).
_SERVER_TOOL_ITEMS = (
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "mcp_call",
    "mcp_list_tools",
    # A generated image: a stored one is referred to by its id alone.
    "image_generation_call",
)


def _validate_responses(body: Any, strict: bool) -> None:
    """Reject what the Responses API rejects (the subset tests rely on)."""
    if isinstance(body, dict) and body.get("previous_response_id") is not None:
        # Stored responses are not simulated: every id is unknown.
        rid = body["previous_response_id"]
        raise SimError(
            400,
            f"Previous response with id '{rid}' not found.",
            param="previous_response_id",
            code="previous_response_not_found",
        )
    _check_common(body, "input")
    items = body["input"]
    if isinstance(items, str):
        items = []
    elif not isinstance(items, list):
        raise _wrong_type("input", "a string or an array", items)
    calls: dict[str, int] = {}
    answered: set[str] = set()
    for i, item in enumerate(items):
        where = f"input[{i}]"
        if not isinstance(item, dict):
            raise _wrong_type(where, "an object", item)
        kind = item.get("type", "message" if "role" in item else None)
        if kind is None:
            raise _missing(f"{where}.type")
        if kind == "message":
            role = _require(item, "role", where)
            roles = ["assistant", "system", "developer", "user"]
            if role not in roles:
                raise _invalid_value(f"{where}.role", role, roles)
            content = _require(item, "content", where)
            if not isinstance(content, (str, list)):
                raise _wrong_type(f"{where}.content", "a string or an array", content)
            for j, part in enumerate(content if isinstance(content, list) else []):
                if not isinstance(part, dict) or "type" not in part:
                    raise _missing(f"{where}.content[{j}].type")
        elif kind == "function_call":
            call_id = _require(item, "call_id", where)
            _require(item, "name", where)
            args = _require(item, "arguments", where)
            if not isinstance(args, str):
                raise _wrong_type(f"{where}.arguments", "a string", args)
            calls[call_id] = i
        elif kind == "function_call_output":
            call_id = _require(item, "call_id", where)
            output = _require(item, "output", where)
            if not isinstance(output, (str, list)):
                raise _wrong_type(f"{where}.output", "a string or an array", output)
            if strict and call_id not in calls:
                raise SimError(
                    400, f"No tool call found for function call output with call_id {call_id}.", param="input"
                )
            answered.add(call_id)
        elif kind in _SERVER_TOOL_ITEMS:
            # A hosted tool's call replayed from an earlier reply: only its id is checked.
            _require(item, "id", where)
        elif kind == "reasoning":
            summary = _require(item, "summary", where)
            if not isinstance(summary, list):
                raise _wrong_type(f"{where}.summary", "an array", summary)
        elif kind == "additional_tools":
            # Tools the model may call from this point of the conversation on.
            if item.get("role") != "developer":
                raise SimError(
                    400,
                    f"Invalid value: '{item.get('role')}'. Supported values are: 'developer'.",
                    param=f"{where}.role",
                )
            added = _require(item, "tools", where)
            if not isinstance(added, list):
                raise _wrong_type(f"{where}.tools", "an array", added)
            for j, tool in enumerate(added):
                if not isinstance(tool, dict) or _require(tool, "type", f"{where}.tools[{j}]") != "function":
                    raise SimError(400, "sim: only function tools are simulated", param=f"{where}.tools[{j}]")
                _check_tool_name(_require(tool, "name", f"{where}.tools[{j}]"), f"{where}.tools[{j}].name")
        elif kind == "item_reference":
            raise SimError(400, f"Item with id '{_require(item, 'id', where)}' not found.", param="input")
        else:
            raise SimError(400, f"sim: input item type '{kind}' is not simulated", param=f"{where}.type")
    if strict:
        for call_id in calls:
            if call_id not in answered:
                raise SimError(400, f"No tool output found for function call {call_id}.", param="input")
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise _wrong_type("tools", "an array", tools)
        for i, tool in enumerate(tools):
            where = f"tools[{i}]"
            if not isinstance(tool, dict):
                raise _wrong_type(where, "an object", tool)
            if _require(tool, "type", where) != "function" or not strict:
                continue
            _check_tool_name(_require(tool, "name", where), f"{where}.name")
            if "function" in tool:
                raise SimError(
                    400, f"Unknown parameter: '{where}.function'.", param=f"{where}.function", code="unknown_parameter"
                )
            _check_parameters(tool.get("parameters"), f"{where}.parameters")
            if tool.get("strict") is not None and not isinstance(tool["strict"], bool):
                raise _wrong_type(f"{where}.strict", "a boolean", tool["strict"])


def _validate_chat(body: Any, strict: bool) -> None:
    """Reject what Chat Completions rejects (the subset tests rely on)."""
    _check_common(body, "messages")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise _wrong_type("messages", "an array", messages)
    if not messages:
        raise SimError(
            400,
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            param="messages",
            code="empty_array",
        )
    if body.get("stream_options") is not None and not body.get("stream"):
        raise SimError(
            400,
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
            code="invalid_value",
        )
    roles = ["system", "assistant", "user", "function", "tool", "developer"]
    for i, msg in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(msg, dict):
            raise _wrong_type(where, "an object", msg)
        role = _require(msg, "role", where)
        if role not in roles:
            raise _invalid_value(f"{where}.role", role, roles)
        if role == "assistant" and msg.get("tool_calls"):
            for j, call in enumerate(msg["tool_calls"]):
                at = f"{where}.tool_calls[{j}]"
                _require(call, "id", at)
                fn = _require(call, "function", at)
                _require(fn, "name", f"{at}.function")
                args = _require(fn, "arguments", f"{at}.function")
                if not isinstance(args, str):
                    raise _wrong_type(f"{at}.function.arguments", "a string", args)
        elif role != "assistant" or not msg.get("function_call"):
            _require(msg, "content", where)
        if role == "tool":
            _require(msg, "tool_call_id", where)
    if strict:
        _check_chat_pairing(messages)
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise _wrong_type("tools", "an array", tools)
        for i, tool in enumerate(tools):
            where = f"tools[{i}]"
            if not isinstance(tool, dict):
                raise _wrong_type(where, "an object", tool)
            if _require(tool, "type", where) != "function" or not strict:
                continue
            fn = _require(tool, "function", where)
            if not isinstance(fn, dict):
                raise _wrong_type(f"{where}.function", "an object", fn)
            _check_tool_name(_require(fn, "name", f"{where}.function"), f"{where}.function.name")
            _check_parameters(fn.get("parameters"), f"{where}.function.parameters")


def _check_chat_pairing(messages: list[dict[str, Any]]) -> None:
    """Every assistant ``tool_calls`` id is answered by the ``tool`` messages right after it."""
    i = 0
    while i < len(messages):
        msg = messages[i]
        if msg["role"] == "tool":
            raise SimError(
                400,
                "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
                "'tool_calls'.",
                param=f"messages.[{i}].role",
            )
        ids = [c["id"] for c in msg.get("tool_calls") or []] if msg["role"] == "assistant" else []
        j = i + 1
        answered: set[str] = set()
        while ids and j < len(messages) and messages[j]["role"] == "tool":
            if messages[j]["tool_call_id"] not in ids:
                raise SimError(
                    400,
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
                    "'tool_calls'.",
                    param=f"messages.[{j}].role",
                )
            answered.add(messages[j]["tool_call_id"])
            j += 1
        missing = [x for x in ids if x not in answered]
        if missing:
            raise SimError(
                400,
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(missing)}",
                param=f"messages.[{i + 1}].role",
            )
        i = j if ids else i + 1


# --------------------------------------------------------------------------- server


class SimOpenAI(SimServer):
    """A scripted, recording, cache-simulating OpenAI server (Responses and Chat Completions).

    Args:
        min_cache_tokens: shortest prompt that is cached (1024 on the real API);
            tests usually lower it.
        cache_increment: step between cache boundaries above the minimum (128).
        cache_ttl: virtual seconds an entry lives after its last write or read.
        route_by_key: make ``prompt_cache_key`` part of the cache namespace (on by
            default, as on the real API); off, requests share entries whatever key.
        context_window: prompts longer than this many tokens get 400
            ``context_length_exceeded``; None never overflows.
        strict: validate tool-call pairing and tool shapes (on by default); the
            basic shape of the body is always checked.
        api_keys: the accepted keys; None accepts any ``Authorization: Bearer`` key.
        stream_text_chunk: characters per text / reasoning-summary delta.
        stream_json_chunk: characters per tool-argument fragment.
        stream_framing: ``"chunked"`` (one HTTP chunk per event, keep-alive) or
            ``"close"`` (no length; the body ends when the connection closes).
        stream_event_delay: real seconds between two events, for idle-timeout tests.

    ``base_url`` is ``http://127.0.0.1:PORT/v1``, what ``openai.OpenAI(base_url=...)``,
    ``OPENAI_BASE_URL`` and ``ChatOpenAI(base_url=...)`` take (``origin`` has no
    ``/v1``). The lifecycle, ``script``, ``pending``, ``advance``/``now``, ``reset``,
    ``handler_seconds`` and ``gate_after_first_delta`` come from ``SimServer``
    (tests/sim/_server.py); a gate holds a stream after its first text delta (or
    first argument / summary delta when the reply has no text).
    """

    _thread_name = "sim-openai"
    requests: list[Recorded]

    def __init__(
        self,
        *,
        min_cache_tokens: int = 1024,
        cache_increment: int = 128,
        cache_ttl: float = 600.0,
        route_by_key: bool = True,
        context_window: int | None = None,
        strict: bool = True,
        api_keys: list[str] | None = None,
        stream_text_chunk: int = 4,
        stream_json_chunk: int = 8,
        stream_framing: Literal["chunked", "close"] = "chunked",
        stream_event_delay: float = 0.0,
    ) -> None:
        if min_cache_tokens < 1 or cache_increment < 1:
            raise ValueError("min_cache_tokens and cache_increment must be positive")
        self.min_cache_tokens = min_cache_tokens
        self.cache_increment = cache_increment
        self.cache_ttl = cache_ttl
        self.route_by_key = route_by_key
        self.context_window = context_window
        self.strict = strict
        self.api_keys = None if api_keys is None else list(api_keys)
        self.stream_text_chunk = stream_text_chunk
        self.stream_json_chunk = stream_json_chunk
        self._cache: dict[str, _Entry] = {}
        self._ids = _Ids()
        super().__init__(stream_framing=stream_framing, stream_event_delay=stream_event_delay)
        self.base_url = f"{self.origin}/v1"

    # ---------------------------------------------------------------- public API

    def _check_reply(self, reply: Any) -> None:
        if not isinstance(reply, (Turn, Reply)):
            raise TypeError(f"a scripted reply must be a Turn or a Reply, got {type(reply).__name__}")

    def script(self, *replies: Turn | Reply) -> None:
        """Append replies to the FIFO; each valid request to either endpoint takes the next one."""
        super().script(*replies)

    def reset(self) -> None:
        """Drop the script, the gates, the request log and the cache; reset clock and id counters."""
        with self._lock:
            super().reset()
            self._cache.clear()
            self._ids = _Ids()

    def prompt(self, body: dict[str, Any], api: Api | None = None) -> str:
        """The rendered prompt of a request body (``api`` guessed from ``messages`` / ``input``)."""
        return prompt_text(body, api or ("chat" if "messages" in body else "responses"))

    def tokens(self, body: dict[str, Any], api: Api | None = None) -> int:
        """Prompt tokens of a request body: what ``input_tokens`` / ``prompt_tokens`` report."""
        return max(1, math.ceil(len(self.prompt(body, api)) / 4))

    def cacheable(self, tokens: int) -> int:
        """The largest cache boundary at most ``tokens`` long: 0 below the minimum.

        A request whose prompt shares its first ``n`` tokens with a live entry's
        reads ``cacheable(n)``; tests compute expectations with it.
        """
        if tokens < self.min_cache_tokens:
            return 0
        return self.min_cache_tokens + (tokens - self.min_cache_tokens) // self.cache_increment * self.cache_increment

    def shared_tokens(self, a: dict[str, Any], b: dict[str, Any]) -> int:
        """Whole tokens two request bodies have in common at the start of their prompts."""
        pa, pb = self.prompt(a), self.prompt(b)
        n = 0
        while n < min(len(pa), len(pb)) and pa[n] == pb[n]:
            n += 1
        return n // 4

    # ---------------------------------------------------------------- request handling

    def _handle(self, h: _Handler) -> None:
        raw, headers, body = self._read(h)
        started = time.perf_counter()
        path = h.path.split("?", 1)[0]
        api: Any = _ROUTES.get((h.command, path))
        rec = self._log(
            lambda seq: Recorded(
                seq=seq, method=h.command, path=h.path, headers=Headers(headers), raw=raw, body=body, api=api
            )
        )
        try:
            outcome = self._dispatch(api, h.command, path, headers, raw, body, rec.seq)
        except SimError as e:
            outcome = _Outcome(e.status, e.body())
        # A simulator bug must surface as a loud 500, not as a hung client.
        except Exception as e:  # noqa: BLE001
            outcome = self._loud_500(f"sim: internal error: {type(e).__name__}: {e}")
        rec.status = outcome.status
        rec.cache = outcome.cache
        out_headers = {"x-request-id": f"req_sim_{rec.seq}", **outcome.headers}
        if outcome.stream:
            self._send_stream(h, api, outcome, rec, started, out_headers)
        else:
            self._send_json(h, outcome.status, outcome.body, out_headers, rec, started)

    @staticmethod
    def _loud_500(message: str) -> _Outcome:
        # x-should-retry keeps SDK retries from hiding (and slowing down) the failure.
        err = SimError(500, message, type="server_error")
        return _Outcome(500, err.body(), {"x-should-retry": "false"})

    def _authenticate(self, headers: dict[str, str]) -> None:
        auth = headers.get("authorization", "")
        key = auth[len("Bearer ") :].strip() if auth.startswith("Bearer ") else ""
        if not key:
            raise SimError(401, _NO_KEY, code="invalid_api_key")
        if self.api_keys is not None and key not in self.api_keys:
            masked = key[:3] + "*" * max(0, len(key) - 7) + key[-4:] if len(key) > 8 else key[:2] + "***"
            raise SimError(
                401,
                f"Incorrect API key provided: {masked}. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
                code="invalid_api_key",
            )

    def _overflow(self, api: Api, total: int, window: int | None) -> SimError:
        if api == "responses":
            return SimError(400, OVERFLOW_RESPONSES, param="input", code="context_length_exceeded")
        window = window or DEFAULT_CHAT_WINDOW
        message = _CHAT_OVERFLOW.format(window=window, tokens=max(total, window + 1))
        return SimError(400, message, param="messages", code="context_length_exceeded")

    def _dispatch(
        self,
        api: Api | None,
        method: str,
        path: str,
        headers: dict[str, str],
        raw: bytes,
        body: Any,
        seq: int,
    ) -> _Outcome:
        if api is None:
            raise SimError(404, f"Invalid URL ({method} {path})")
        self._authenticate(headers)
        if body is None:
            raise SimError(400, _BAD_JSON)
        if api == "responses":
            _validate_responses(body, self.strict)
        else:
            _validate_chat(body, self.strict)
        streamed = bool(body.get("stream"))
        total = self.tokens(body, api)
        if self.context_window is not None and total > self.context_window:
            raise self._overflow(api, total, self.context_window)

        reply = self._pop_reply()
        if reply is None:
            return self._loud_500("sim: no scripted reply left")
        fault: StreamFault | None = None
        extra: dict[str, str] = {}
        if isinstance(reply, Reply):
            if reply.delay > 0:
                time.sleep(reply.delay)
            if reply.stream_fault is not None:
                if not (streamed and reply.stream is not False and isinstance(reply.body, Turn)):
                    return self._loud_500("sim: a stream fault was scripted but the reply is not streamed")
                if reply.stream_fault.kind == "failed" and api == "chat":
                    return self._loud_500("sim: stream fault 'failed' is for the Responses API only")
            fault = reply.stream_fault
            if reply.stream is False:
                streamed = False
            extra = dict(reply.headers)
            if reply.status != 200:
                if reply.body is not None:
                    return _Outcome(reply.status, reply.body, extra)
                fields = {**_default_error(reply.status, (reply.error or {}).get("code")), **(reply.error or {})}
                if fields.get("code") == "context_length_exceeded" and "message" not in (reply.error or {}):
                    over = self._overflow(api, total, self.context_window)
                    fields.setdefault("param", over.param)
                    fields["message"] = over.message
                err = SimError(
                    reply.status,
                    fields["message"],
                    type=fields["type"],
                    param=fields.get("param"),
                    code=fields.get("code"),
                )
                return _Outcome(reply.status, err.body(), extra)
            if not isinstance(reply.body, Turn):
                return _Outcome(200, reply.body if reply.body is not None else b"", extra)
            turn = reply.body
        else:
            turn = reply

        # Cache accounting happens when the response starts, under the lock, so an
        # entry becomes usable by later requests only once this one is answered.
        with self._lock:
            report = self._account_cache(body, api, headers, seq)
            rendered = self._render(api, turn, body, report)
        return _Outcome(200, rendered, extra, report, stream=streamed, fault=fault)

    def _render(self, api: Api, turn: Turn, body: dict[str, Any], report: CacheReport) -> dict[str, Any]:
        output, reasoning_tokens = _turn_tokens(turn)
        created = EPOCH + int(self._clock)
        if api == "responses":
            usage = {
                "input_tokens": report.total_tokens,
                "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": report.cached_tokens},
                "output_tokens": output,
                "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
                "total_tokens": report.total_tokens + output,
            }
            return _render_response(turn, body, self._ids, usage, created)
        usage = {
            "prompt_tokens": report.total_tokens,
            "completion_tokens": output,
            "total_tokens": report.total_tokens + output,
            "prompt_tokens_details": {"cached_tokens": report.cached_tokens, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": reasoning_tokens,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }
        return _render_chat(turn, body, self._ids, usage, created)

    # ---------------------------------------------------------------- cache simulation

    def _account_cache(self, body: dict[str, Any], api: Api, headers: dict[str, str], seq: int) -> CacheReport:
        prompt = prompt_text(body, api)
        total = max(1, math.ceil(len(prompt) / 4))
        key = body.get("prompt_cache_key")
        namespace = canonical_json(
            [headers.get("authorization", ""), body["model"], key if self.route_by_key else None]
        )
        ttl = 86400.0 if body.get("prompt_cache_retention") == "24h" else self.cache_ttl
        now = self._clock
        for k in [k for k, e in self._cache.items() if e.expires_at <= now]:
            del self._cache[k]

        # Prefix hashes at each boundary: H(namespace, prompt[: 4 * b]), computed incrementally.
        hasher = hashlib.sha256(namespace.encode() + b"\0")
        boundaries: list[tuple[int, str]] = []
        done = 0
        for b in range(self.min_cache_tokens, len(prompt) // 4 + 1, self.cache_increment):
            hasher.update(prompt[done : 4 * b].encode())
            done = 4 * b
            boundaries.append((b, hasher.copy().hexdigest()))

        # Reads before writes: a request never reads what it writes itself.
        cached, creator = 0, None
        for b, digest in reversed(boundaries):
            entry = self._cache.get(digest)
            if entry is not None:
                entry.hits += 1
                cached, creator = b, entry.creator_seq
                break
        for b, digest in boundaries:
            entry = self._cache.get(digest)
            if entry is None:
                self._cache[digest] = _Entry(b, now + ttl, seq)
            else:
                entry.expires_at = max(entry.expires_at, now + ttl)
        return CacheReport(
            total_tokens=total,
            cached_tokens=cached,
            prompt_cache_key=key,
            hit_creator_seq=creator,
            stored=[b for b, _ in boundaries],
            ttl=ttl,
        )

    # ---------------------------------------------------------------- streaming

    def _send_stream(
        self,
        h: _Handler,
        api: Api,
        outcome: _Outcome,
        rec: Recorded,
        started: float,
        headers: dict[str, str],
    ) -> None:
        resp = outcome.body
        rec.stream = StreamLog()
        rec.response = resp
        if api == "responses":
            events = response_events(resp, text_chunk=self.stream_text_chunk, json_chunk=self.stream_json_chunk)
            frames: list[Frame] = [(name, data, _sse(name, data)) for name, data in events]
        else:
            include_usage = bool((rec.body.get("stream_options") or {}).get("include_usage"))
            chunks = chat_chunks(
                resp, include_usage=include_usage, text_chunk=self.stream_text_chunk, json_chunk=self.stream_json_chunk
            )
            frames = [("chunk", c, _sse(None, c)) for c in chunks]
            frames.append(("[DONE]", None, b"data: [DONE]\n\n"))
        deltas = [i for i, (name, data, _) in enumerate(frames) if _delta_of(name, data) is not None]
        texts = [i for i in deltas if _delta_of(frames[i][0], frames[i][1])[0] == "text"]  # type: ignore[index]
        gate_at = (texts or deltas or [None])[0]

        fault = outcome.fault
        cut = len(frames)
        fault_frames: list[Frame] = []
        if fault is not None:
            if fault.after_events is not None:
                cut = max(0, min(fault.after_events, len(frames)))
            else:
                cut = deltas[0] + 1 if deltas else len(frames) - 1
            fault_frames = self._fault_frames(api, fault, frames, cut, resp)

        def timeout_frame(message: str) -> Frame:
            gate_fault = StreamFault(message=message)
            return self._fault_frames(api, gate_fault, frames, len(rec.stream.events), resp)[0]  # type: ignore[union-attr]

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

    @staticmethod
    def _fault_frames(api: Api, fault: StreamFault, frames: list[Frame], cut: int, resp: dict[str, Any]) -> list[Frame]:
        """What a fault sends after the first ``cut`` frames (nothing for truncate and reset)."""
        fields = {"type": fault.error_type, "code": fault.code, "message": fault.message, "param": fault.param}
        if fault.kind == "error":
            if api == "chat":
                data: dict[str, Any] = {"error": {k: fields[k] for k in ("message", "type", "param", "code")}}
                return [("error", data, _sse(None, data))]
            if fault.shape == "nested":
                data = {"type": "error", "sequence_number": cut, "error": fields}
            else:
                data = {"type": "error", "code": fault.code, "message": fault.message, "param": fault.param}
                data["sequence_number"] = cut
            return [("error", data, _sse("error", data))]
        if fault.kind == "failed":
            done = [d["item"] for name, d, _ in frames[:cut] if name == "response.output_item.done"]
            failed = {
                **resp,
                "status": "failed",
                "completed_at": None,
                "error": {"code": fault.code, "message": fault.message},
                "output": done,
                "usage": None,
            }
            data = {"type": "response.failed", "sequence_number": cut, "response": failed}
            return [("response.failed", data, _sse("response.failed", data))]
        if fault.kind == "malformed":
            name, source, _ = frames[min(cut, len(frames) - 1)]
            payload = json.dumps(source, separators=(",", ":"), ensure_ascii=False) if source else "[DONE]"
            broken = payload[: max(1, len(payload) // 2)]
            return [("malformed", broken, _sse(name if api == "responses" else None, broken))]
        return []
