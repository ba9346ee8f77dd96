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

This module holds the server; its parts are ``_anthropic_turns`` (scripting),
``_anthropic_records`` (limits, replies, faults, what is recorded), ``_anthropic_stream``
(SSE events), ``_anthropic_prompt`` (the block list) and ``_anthropic_validation`` (request
checks, breakpoints); every public name is importable from here.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from typing import Any, Literal
from urllib.parse import urlsplit

from ._anthropic_prompt import prompt_blocks
from ._anthropic_records import (
    _ERROR_TYPES,
    TTL_SECONDS,
    Block,
    Breakpoint,
    CacheReport,
    Recorded,
    Reply,
    SimError,
    StreamFault,
    StreamLog,
    _Entry,
    _Outcome,
)
from ._anthropic_stream import sse_bytes, stream_events
from ._anthropic_turns import _cache_view, block_tokens, message, text, tool_use
from ._anthropic_validation import _breakpoints, _validate
from ._server import Frame, SimServer, _Handler, canonical_json

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
