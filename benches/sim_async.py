"""A simulated Anthropic Messages API for load: an asyncio HTTP/1.1 server in its own process.

``tests/sim/anthropic.py`` checks every request and simulates the prompt cache, which is what
the tests need and too slow to answer thousands of concurrent requests from the same
interpreter as the client. This server does the least a conversation needs: it reads a
request, waits ``--latency`` seconds (the model "thinking", without holding the loop), and
answers with a tool call to ``echo`` until the conversation holds ``--steps - 1`` tool
results, then with a final text. So one thread of ``steps`` model calls ends on its own, with
no state kept per thread: the request itself says where its conversation stands.

It is lean (the bench's client shares its machine's cores): an ``asyncio.BufferedProtocol``
reading into one buffer per connection, replies joined from two pre-rendered ones, one timer
per request, and tool results counted with ``bytearray.count``.

It counts requests and answers by kind, and prints them as one JSON line when it receives
SIGTERM or SIGINT, so the bench can check every thread ran every step. With the counts goes
``cpu_seconds`` (the server process' CPU time) and ``handler_seconds``: the time spent between having read a request and having written its
answer (from its headers on), the latency not included, so a bench running one conversation at a time can subtract
the server's own work from the time it measured.

Run: ``python benches/sim_async.py --port 0 --latency 0.02 --steps 20`` prints
``PORT <n>`` on its first line once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import signal
import sys
import time

# A tool result block as each client writes it: the Rust client compact, the Python SDK with
# json.dumps' default separators. Counted with bytes.count (no regex: a 2,000-message body is
# scanned once per pattern in C at memchr speed).
_TOOL_RESULT = (b'"type":"tool_result"', b'"type": "tool_result"')

_USAGE = {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}

# The two answers, rendered once with json.dumps (so byte for byte what rendering each would
# give) around markers for what varies: the request's number and the step. A reply is then
# joined from these pieces.
_N, _STEP = "@@N@@", "@@S@@"


def _template(final: bool) -> list[bytes]:
    if final:
        content = [{"type": "text", "text": "done"}]
        stop = "end_turn"
    else:
        content = [{"type": "tool_use", "id": "toolu_" + _N, "name": "echo", "input": {"text": "step " + _STEP}}]
        stop = "tool_use"
    body = {
        "id": "msg_" + _N,
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _USAGE,
    }
    text = json.dumps(body)
    # Split at the markers, keeping which one each gap is: [piece, marker, piece, ...].
    parts: list[bytes] = []
    for piece in text.split("@@"):
        parts.append(piece.encode())
    return parts


_TOOL_USE, _FINAL = _template(False), _template(True)
# A connection's first read buffer (doubled while a request needs more).
_BUFFER = 64 * 1024
_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nrequest-id: req_sim\r\ncontent-length: "


def _reply(n: int, done: int, steps: int) -> bytes:
    """The answer to the request numbered ``n`` of a conversation holding ``done`` results."""
    values = {b"N": b"%024d" % n, b"S": b"%d" % done}
    parts = _TOOL_USE if done + 1 < steps else _FINAL
    # Odd places hold the markers' names.
    return b"".join(values[p] if i % 2 else p for i, p in enumerate(parts))


class Server:
    def __init__(self, latency: float, steps: int) -> None:
        self.latency = latency
        self.steps = steps
        self.requests = 0
        self.finals = 0
        self.errors = 0
        self.handler_seconds = 0.0


class Connection(asyncio.BufferedProtocol):
    """One client connection: requests are read from what arrives, one at a time (a client
    sends its next request on a connection only after the answer to the last), each answered
    by one timer (``loop.call_later``) that writes the whole response at once.

    Read into a buffer of the connection's own (``BufferedProtocol``): a plain ``Protocol``
    is handed a new ``bytes`` per read, which asyncio allocates at 256 KiB and shrinks, an
    mmap, mremap and munmap per request."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.buffer = bytearray(_BUFFER)
        # The bytes of ``buffer`` read and not yet handled.
        self.filled = 0
        self.transport: asyncio.Transport | None = None
        self.pending: asyncio.TimerHandle | None = None
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None
        self.transport = None

    def get_buffer(self, sizehint: int) -> memoryview:
        if len(self.buffer) - self.filled < _BUFFER // 4:
            # A new buffer, not a resized one: the transport may still hold a view of the old.
            grown = bytearray(2 * len(self.buffer))
            grown[: self.filled] = self.buffer[: self.filled]
            self.buffer = grown
        return memoryview(self.buffer)[self.filled :]

    def buffer_updated(self, nbytes: int) -> None:
        self.filled += nbytes
        if self.pending is None:
            self._next()

    def _next(self) -> None:
        """Handles the request the buffer holds whole, if any."""
        buffer, filled = self.buffer, self.filled
        end = buffer.find(b"\r\n\r\n", 0, filled)
        if end < 0:
            return
        # The body's reading is the server's work too (the client has sent it by now).
        start = time.perf_counter()
        head = bytes(buffer[:end]).lower()
        at = head.find(b"\r\ncontent-length:")
        length = int(head[at + 17 :].split(b"\r\n", 1)[0]) if at >= 0 else 0
        stop = end + 4 + length
        if filled < stop:
            return
        server = self.server
        request_line = head.split(b"\r\n", 1)[0]
        ok = request_line.startswith(b"post ") and b"/v1/messages" in request_line
        if not ok:
            server.errors += 1
            response = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n"
        else:
            server.requests += 1
            done = buffer.count(_TOOL_RESULT[0], end, stop) + buffer.count(_TOOL_RESULT[1], end, stop)
            if done + 1 >= server.steps:
                server.finals += 1
            payload = _reply(server.requests, done, server.steps)
            response = b"".join((_HEAD, b"%d" % len(payload), b"\r\n\r\n", payload))
        # What follows the request moves to the front (a same-length assignment: no resize).
        rest = filled - stop
        if rest:
            buffer[:rest] = buffer[stop:filled]
        self.filled = rest
        if ok and server.latency > 0:
            server.handler_seconds += time.perf_counter() - start
            self.pending = self.loop.call_later(server.latency, self._answer, response)
        else:
            self._send(response, start)

    def _answer(self, response: bytes) -> None:
        self.pending = None
        self._send(response, time.perf_counter())

    def _send(self, response: bytes, start: float) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(response)
        self.server.handler_seconds += time.perf_counter() - start
        # A request that arrived meanwhile is answered next.
        if self.filled and self.pending is None:
            self._next()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    server = Server(args.latency, args.steps)
    loop = asyncio.get_running_loop()
    srv = await loop.create_server(lambda: Connection(server), "127.0.0.1", args.port, backlog=4096)
    print(f"PORT {srv.sockets[0].getsockname()[1]}", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with srv:
        await stop.wait()
    counts = {"requests": server.requests, "finals": server.finals, "errors": server.errors}
    # The server's own CPU (start-up and the warm-up included): with two cores, a server near
    # one core's worth of the run's wall time is what caps the client's steps per second.
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime
    times = {"cpu_seconds": cpu, "user_seconds": usage.ru_utime, "system_seconds": usage.ru_stime}
    print(json.dumps({**counts, "handler_seconds": server.handler_seconds, **times}), flush=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
