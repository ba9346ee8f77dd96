"""A simulated OpenAI API server for tests: Responses and Chat Completions (standard library only).

The server listens on 127.0.0.1 (ephemeral port) in a daemon thread, answers
``POST /v1/responses`` and ``POST /v1/chat/completions`` from one FIFO of scripted
replies, records every request, validates requests the way the real API does (so
malformed histories fail tests instead of passing silently), and simulates prompt
caching with a deterministic tokenizer and a virtual clock. The generic plumbing
(server thread, script, clock, gates, stream framing) is ``SimServer`` in
``tests/sim/_server.py``, shared with the Anthropic simulator. This module holds the server;
its parts are ``_openai_turns`` (scripting), ``_openai_replies`` (replies, faults, error bodies),
``_openai_records`` (what is recorded), ``_openai_render`` (responses, stream events, the prompt)
and ``_openai_validation`` (request checks); every public name is importable from here.

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
import json
import math
import time
from typing import Any, Literal

from ._openai_records import CacheReport, Headers, Recorded, StreamLog, _delta_of, _Entry, _Outcome
from ._openai_render import (
    _Ids,
    _render_chat,
    _render_response,
    _sse,
    chat_chunks,
    prompt_segments,
    prompt_text,
    response_events,
)
from ._openai_replies import (
    _BAD_JSON,
    _CHAT_OVERFLOW,
    _NO_KEY,
    _ROUTES,
    DEFAULT_CHAT_WINDOW,
    EPOCH,
    OVERFLOW_RESPONSES,
    Api,
    Reply,
    SimError,
    StreamFault,
    _default_error,
    auth_error,
    context_overflow,
    error_reply,
    insufficient_quota,
    rate_limited,
    server_error,
)
from ._openai_turns import Turn, _turn_tokens, reasoning, text, tool_calls
from ._openai_validation import (
    _validate_chat,
    _validate_responses,
)
from ._server import Frame, SimServer, _Handler, canonical_json

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
