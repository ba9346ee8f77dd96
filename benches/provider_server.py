"""providers.py's server: a standard-library ``ThreadingHTTPServer`` on 127.0.0.1 answering every
POST with a pre-rendered answer (a JSON body, or a whole SSE stream in one write) for its path and
``"stream"`` flag, timing its own handler so the bench can subtract it.

The stream renderers are the simulators' (``tests/sim``): the caller puts ``tests/`` on ``sys.path``."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

ANTHROPIC_MODEL = "claude-sonnet-4-6"
OPENAI_MODEL = "gpt-5.4"


# --------------------------------------------------------------------------- answers


def _http(body: bytes, content_type: str) -> bytes:
    head = (
        f"HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {len(body)}\r\n"
        "request-id: req_bench\r\nx-request-id: req_bench\r\n\r\n"
    )
    return head.encode() + body


def _json(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _sse(name: str | None, data: Any) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return (f"event: {name}\n" if name else "").encode() + f"data: {payload}\n\n".encode()


def render_answers(text: str, delta: int, response_tools: list[Any]) -> dict[tuple[str, bool], bytes]:
    """The whole HTTP answer (status line, headers, body) per (path, stream). The streams are
    the simulators' renderings (``tests/sim``) of the same message, ``delta`` characters of text
    per delta event."""
    from sim.anthropic import sse_bytes, stream_events
    from sim.openai import chat_chunks, response_events

    answers: dict[tuple[str, bool], bytes] = {}
    created = 1_767_225_600
    message = {
        "id": "msg_bench_01",
        "type": "message",
        "role": "assistant",
        "model": ANTHROPIC_MODEL,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 1210,
            "cache_creation_input_tokens": 420,
            "cache_read_input_tokens": 13950,
            "cache_creation": {"ephemeral_5m_input_tokens": 420, "ephemeral_1h_input_tokens": 0},
            "output_tokens": len(text) // 4,
            "service_tier": "standard",
        },
    }
    answers[("/v1/messages", False)] = _http(_json(message), "application/json")
    events = b"".join(sse_bytes(n, d) for n, d in stream_events(message, text_chunk=delta))
    answers[("/v1/messages", True)] = _http(events, "text/event-stream; charset=utf-8")

    usage = {
        "input_tokens": 15580,
        "input_tokens_details": {"cached_tokens": 13950},
        "output_tokens": len(text) // 4,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15580 + len(text) // 4,
    }
    response = {
        "id": "resp_bench_01",
        "object": "response",
        "created_at": created,
        "status": "completed",
        "background": False,
        "completed_at": created,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "model": OPENAI_MODEL,
        "output": [
            {
                "id": "msg_bench_01",
                "type": "message",
                "status": "completed",
                "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": text}],
                "role": "assistant",
            }
        ],
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "prompt_cache_key": None,
        "prompt_cache_retention": None,
        "reasoning": {"effort": "none", "summary": None},
        "safety_identifier": None,
        "service_tier": "default",
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        # The real API echoes the request's tools; the server cannot echo per request (the answer
        # is pre-rendered), so it echoes the tools of a captured deepagents request.
        "tools": response_tools,
        "top_logprobs": 0,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage,
        "user": None,
        "metadata": {},
    }
    answers[("/v1/responses", False)] = _http(_json(response), "application/json")
    events = b"".join(_sse(n, d) for n, d in response_events(response, text_chunk=delta))
    answers[("/v1/responses", True)] = _http(events, "text/event-stream; charset=utf-8")

    completion = {
        "id": "chatcmpl-bench-01",
        "object": "chat.completion",
        "created": created,
        "model": OPENAI_MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None, "annotations": []},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": 15580,
            "completion_tokens": len(text) // 4,
            "total_tokens": 15580 + len(text) // 4,
            "prompt_tokens_details": {"cached_tokens": 13950, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
        },
        "service_tier": "default",
        "system_fingerprint": "fp_bench",
    }
    answers[("/v1/chat/completions", False)] = _http(_json(completion), "application/json")
    chunks = chat_chunks(completion, include_usage=True, text_chunk=delta)
    events = b"".join(_sse(None, c) for c in chunks) + _sse(None, "[DONE]")
    answers[("/v1/chat/completions", True)] = _http(events, "text/event-stream; charset=utf-8")
    return answers


# --------------------------------------------------------------------------- the server


@dataclass
class Request:
    path: str
    stream: bool
    body: bytes
    user_agent: str


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the real APIs
    disable_nagle_algorithm = True
    server: Server

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        t0 = time.perf_counter()
        srv = self.server
        path = self.path.split("?", 1)[0]
        stream = b'"stream":true' in body or b'"stream": true' in body
        answer = srv.answers.get((path, stream))
        if answer is None:
            answer = srv.not_found
            self.close_connection = True
        srv.last = Request(self.path, stream, body, self.headers.get("user-agent", ""))
        srv.count += 1
        # Only the work done while the client waits counts as handler time. After the write,
        # this thread needs the GIL again, and a Python client holds it while it parses the
        # answer, so time measured past the write would overlap the client's own work.
        srv.handler_s += time.perf_counter() - t0
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Server(ThreadingHTTPServer):
    """Answers every POST with the pre-rendered answer for its path and stream flag; counts
    the requests and the time spent in the handler, and keeps the last request."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, answers: dict[tuple[str, bool], bytes]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answers = answers
        body = _json({"type": "error", "error": {"type": "not_found_error", "message": "unknown path"}})
        self.not_found = (
            f"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n"
        ).encode() + body
        self.count = 0
        self.handler_s = 0.0
        self.last: Request | None = None
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.server_address[1]

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
