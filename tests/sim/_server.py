"""Plumbing shared by the simulated provider servers (standard library only).

``SimServer`` owns what does not depend on the provider: the HTTP server on
127.0.0.1 (ephemeral port) in a daemon thread, the FIFO of scripted replies, the
request log, the virtual clock, the pacing gates, and the writers for a JSON
answer and for a stream of server-sent events (chunked or connection-close
framing, a TCP reset, pauses between events). A provider module subclasses it
and implements ``_handle`` (parse, validate, pick a reply, render it).
"""

from __future__ import annotations

import copy
import json
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, Self, TypeVar

__all__ = ["Frame", "SimServer", "StreamLog", "canonical_json", "pieces"]


def canonical_json(obj: Any) -> str:
    """Compact JSON used for token counts and prefix hashes.

    Keys keep their received order on purpose: a client that reorders JSON keys
    between turns loses its cache on the real APIs and must lose it in the
    simulators too. The length, and so a token count, does not depend on key order.
    """
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def pieces(s: str, size: int) -> list[str]:
    """``s`` cut into consecutive pieces of ``size`` characters (none for an empty string)."""
    return [s[i : i + size] for i in range(0, len(s), size)]


_R = TypeVar("_R")

# One event of a stream: (name for the log, data for the log, the bytes sent).
Frame = tuple[str, Any, bytes]


@dataclass
class StreamLog:
    """What the server sent for a streamed reply, updated while it sends."""

    # (event name, data) in the order sent; an event is appended just before it is written.
    events: list[tuple[str, Any]] = field(default_factory=list)
    complete: bool = False  # the stream's last event (the terminal one) was sent
    fault: str | None = None  # the stream fault's kind, once it was applied
    gated: bool = False  # this stream waited on a gate_after_first_delta() event
    gate_timed_out: bool = False  # ... and the test never set it in time

    def names(self) -> list[str]:
        """The event names, in order."""
        return [name for name, _ in self.events]


@dataclass
class _Gate:
    event: threading.Event
    timeout: float
    on_timeout: str


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Tests open and close many short connections; do not linger on TIME_WAIT.
    allow_reuse_address = True
    sim: SimServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that drops a keep-alive connection (or a stream it stopped reading)
        # is normal; anything else is still printed.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 keep-alive, like the real APIs; every answer carries Content-Length
    # or is chunked.
    protocol_version = "HTTP/1.1"
    # The headers and the body go out in two writes; with Nagle on, the body waits
    # for the client's delayed ACK (~40 ms per request on Linux loopback).
    disable_nagle_algorithm = True
    server: _Server

    def _any(self) -> None:
        self.server.sim._handle(self)

    def handle_one_request(self) -> None:
        # The CPU this connection's thread spends on a request (its wait for the next one
        # costs none): benchmarks running a client in the same process subtract it.
        before = time.thread_time()
        try:
            super().handle_one_request()
        finally:
            self.server.sim._add_cpu(time.thread_time() - before)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _any

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean; everything is in sim.requests


class _StreamOut:
    """The body of a 200 event-stream answer: framing, flushing, clean end or reset."""

    def __init__(self, h: _Handler, framing: str, headers: dict[str, str]) -> None:
        self.h = h
        self.chunked = framing == "chunked"
        h.send_response(200)
        for k, v in headers.items():
            h.send_header(k, v)
        if self.chunked:
            h.send_header("transfer-encoding", "chunked")
        else:
            h.send_header("connection", "close")
            h.close_connection = True
        h.end_headers()

    def write(self, data: bytes) -> None:
        """Send ``data`` at once (one HTTP chunk when chunked)."""
        if self.chunked:
            data = f"{len(data):x}\r\n".encode() + data + b"\r\n"
        self.h.wfile.write(data)
        self.h.wfile.flush()

    def end(self) -> None:
        """End the body cleanly (the last chunk; with close framing the server closes after)."""
        if self.chunked:
            self.h.wfile.write(b"0\r\n\r\n")
            self.h.wfile.flush()

    def reset(self) -> None:
        """Abort the connection: SO_LINGER {on, 0} makes close() send a TCP RST instead of a FIN."""
        self.h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.h.close_connection = True
        self.h.connection.close()


class SimServer:
    """Base of the simulated servers: lifecycle, script FIFO, request log, clock and gates.

    Args:
        stream_framing: ``"chunked"`` (one HTTP chunk per event, keep-alive) or
            ``"close"`` (no length; the body ends when the connection closes).
        stream_event_delay: real seconds between two events, for idle-timeout tests.

    ``base_url`` is the URL the provider's SDK takes; ``origin`` is
    ``http://127.0.0.1:PORT`` in every case.
    """

    _thread_name = "sim"
    requests: list[Any]
    base_url: str
    #: Serves from a thread of the process that made it: its CPU is in that process's CPU time
    #: (a bench subtracts it; `benches/sim_process.SimProcess`'s is not).
    shares_process = True

    def __init__(
        self,
        *,
        stream_framing: Literal["chunked", "close"] = "chunked",
        stream_event_delay: float = 0.0,
    ) -> None:
        if stream_framing not in ("chunked", "close"):
            raise ValueError(f"stream_framing must be 'chunked' or 'close', got {stream_framing!r}")
        self.stream_framing = stream_framing
        self.stream_event_delay = stream_event_delay
        self._gates: list[_Gate] = []  # made, not taken yet
        self._all_gates: list[threading.Event] = []  # every gate made, released at close()
        self.requests = []
        self._script: list[Any] = []
        self._clock = 0.0
        self._seq = 0
        self._cpu = 0.0
        self._lock = threading.RLock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.sim = self
        self.port: int = self._server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.base_url = self.origin
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            daemon=True,
            name=self._thread_name,
        )
        self._thread.start()
        self._closed = False

    # ---------------------------------------------------------------- public API

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the server and wait for its thread."""
        if self._closed:
            return
        self._closed = True
        for event in self._all_gates:
            event.set()  # a stream still held on a gate finishes (into a closed socket)
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _check_reply(self, reply: Any) -> None:
        """Raise TypeError for something that cannot be scripted."""
        raise NotImplementedError

    def script(self, *replies: Any) -> None:
        """Append replies to the FIFO; each request that passes validation takes one."""
        for r in replies:
            self._check_reply(r)
        with self._lock:
            self._script.extend(copy.deepcopy(list(replies)))

    def gate_after_first_delta(
        self,
        *,
        timeout: float = 10.0,
        on_timeout: Literal["error", "finish"] = "error",
    ) -> threading.Event:
        """Hold the next streamed reply after its first text delta until the returned event is set.

        The server sends the stream up to and including its first text delta (the
        first delta of any kind when the reply has no text), then waits. A test sets
        the event when its client has surfaced that first piece, which proves the
        client reads the stream as it arrives. If the event is not set within
        ``timeout`` real seconds, the stream either fails with an in-stream error
        whose message starts with ``sim: gate timed out`` (``on_timeout="error"``,
        the default) or goes on (``"finish"``); ``Recorded.stream.gate_timed_out``
        is set either way. Gates are taken by streamed replies in the order they
        were made.
        """
        if on_timeout not in ("error", "finish"):
            raise ValueError(f"on_timeout must be 'error' or 'finish', got {on_timeout!r}")
        gate = _Gate(threading.Event(), timeout, on_timeout)
        with self._lock:
            self._gates.append(gate)
            self._all_gates.append(gate.event)
        return gate.event

    @property
    def pending_gates(self) -> int:
        """Gates made by ``gate_after_first_delta`` that no streamed reply has taken yet."""
        with self._lock:
            return len(self._gates)

    @property
    def pending(self) -> int:
        """Scripted replies not consumed yet."""
        with self._lock:
            return len(self._script)

    def advance(self, seconds: float) -> None:
        """Move the virtual clock that drives cache TTLs."""
        with self._lock:
            self._clock += seconds

    @property
    def now(self) -> float:
        """The virtual clock, in seconds since the server started."""
        return self._clock

    def reset(self) -> None:
        """Drop the script, the gates and the request log; reset the clock and the request counter.

        Subclasses extend it to drop their caches and id counters.
        """
        with self._lock:
            self._script.clear()
            for gate in self._gates:
                gate.event.set()  # nobody waits on these; release them anyway
            self._gates.clear()
            self.requests.clear()
            self._clock = 0.0
            self._seq = 0

    @property
    def cpu_seconds(self) -> float:
        """The CPU time the server's connection threads have spent on requests since it
        started (never reset): reading, answering and writing, in this process."""
        with self._lock:
            return self._cpu

    def _add_cpu(self, seconds: float) -> None:
        with self._lock:
            self._cpu += seconds

    @property
    def handler_seconds(self) -> float:
        """Total ``Recorded.handler_seconds`` of the requests recorded since the last reset.

        Benchmarks subtract it from a run's wall time to get the client's own time.
        """
        with self._lock:
            return sum(r.handler_seconds for r in self.requests)

    # ---------------------------------------------------------------- for subclasses

    def _handle(self, h: _Handler) -> None:
        raise NotImplementedError

    def _read(self, h: _Handler) -> tuple[bytes, dict[str, str], Any]:
        """Read a request: (raw body, lower-case headers, parsed JSON or None)."""
        length = int(h.headers.get("content-length") or 0)
        raw = h.rfile.read(length) if length > 0 else b""
        headers = {k.lower(): v for k, v in h.headers.items()}
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        return raw, headers, body

    def _log(self, make: Callable[[int], _R]) -> _R:
        """Append ``make(seq)`` to the request log; seq numbers follow the log order."""
        with self._lock:
            rec = make(self._seq)
            self._seq += 1
            self.requests.append(rec)
        return rec

    def _pop_reply(self) -> Any | None:
        """The next scripted reply, or None when the script is empty."""
        with self._lock:
            return self._script.pop(0) if self._script else None

    def _send_json(
        self,
        h: _Handler,
        status: int,
        body: Any,
        headers: dict[str, str],
        rec: Any,
        started: float,
    ) -> None:
        """Send a complete answer: a dict or list as JSON, a str or bytes raw (as HTML)."""
        if isinstance(body, (dict, list)):
            data = json.dumps(body).encode()
            ctype = "application/json"
            rec.response = body
        else:
            data = body.encode() if isinstance(body, str) else bytes(body)
            ctype = "text/html; charset=utf-8"
            rec.response = data.decode("utf-8", "replace")
        all_headers = {"content-type": ctype, **{k.lower(): v for k, v in headers.items()}}
        # Stamped before the first byte goes out, so a client that has its answer
        # always sees the final value; the two socket writes below are not counted.
        rec.handler_seconds = time.perf_counter() - started
        try:
            h.send_response(status)
            for k, v in all_headers.items():
                h.send_header(k, v)
            h.send_header("content-length", str(len(data)))
            h.end_headers()
            if h.command != "HEAD":
                h.wfile.write(data)
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout tests); the request is still recorded

    def _send_frames(
        self,
        h: _Handler,
        rec: Any,
        started: float,
        headers: dict[str, str],
        frames: list[Frame],
        *,
        cut: int,
        gate_at: int | None,
        fault: str | None,
        fault_frames: list[Frame],
        timeout_frame: Any,
    ) -> None:
        """Send a 200 event stream, each frame written (and so flushed) on its own.

        ``frames`` is the whole stream; the frames before ``cut`` are sent. Then
        ``fault`` applies: ``"reset"`` resets the connection, any other kind sends
        ``fault_frames`` and ends the body cleanly. A gate taken now holds the
        stream after frame ``gate_at``; on timeout with ``on_timeout="error"`` the
        frame ``timeout_frame(message)`` is sent and the body ends. ``rec.stream``
        must be the ``StreamLog`` to fill.
        """
        log: StreamLog = rec.stream
        gate: _Gate | None = None
        if gate_at is not None and gate_at < cut:
            with self._lock:
                if self._gates:
                    gate = self._gates.pop(0)
                    log.gated = True
        all_headers = {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache",
            **{k.lower(): v for k, v in headers.items()},
        }
        rec.handler_seconds = time.perf_counter() - started
        last = len(frames) - 1

        def send(frame: Frame, terminal: bool = False) -> None:
            name, data, wire = frame
            # Logged before it is written, so a client that has an event finds it in the log.
            log.events.append((name, data))
            log.complete = terminal
            out.write(wire)

        try:
            out = _StreamOut(h, self.stream_framing, all_headers)
            for i, frame in enumerate(frames):
                if i == cut:
                    break
                if i > 0 and self.stream_event_delay > 0:
                    time.sleep(self.stream_event_delay)
                send(frame, terminal=i == last)
                if gate is not None and i == gate_at and not gate.event.wait(gate.timeout):
                    log.gate_timed_out = True
                    if gate.on_timeout == "error":
                        message = (
                            f"sim: gate timed out: the client did not surface the first delta within {gate.timeout}s"
                        )
                        # Recorded before it is written, as every event is: the client may
                        # raise and the test read the log before this thread runs again.
                        log.fault = "gate_timeout"
                        send(timeout_frame(message))
                        fault = None
                        break
            if fault is not None:
                log.fault = fault
                if fault == "reset":
                    out.reset()
                    return
                for frame in fault_frames:
                    send(frame)
            out.end()
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True  # the client went away mid-stream; the request is still recorded
