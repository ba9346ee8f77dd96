"""A simulated Anthropic Messages API for load: an asyncio HTTP/1.1 server in its own process.

``tests/sim/anthropic.py`` checks every request and simulates the prompt cache, which is what
the tests need and too slow to answer thousands of concurrent requests from the same
interpreter as the client. This server does the least a conversation needs: it reads a
request, waits ``--latency`` seconds (the model "thinking", without holding the loop), and
answers with a tool call to ``echo`` until the conversation holds ``--steps - 1`` tool
results, then with a final text. So one thread of ``steps`` model calls ends on its own, with
no state kept per thread: the request itself says where its conversation stands.

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
import re
import resource
import signal
import sys
import time

# The Rust client writes compact JSON, the Python SDK json.dumps' default separators.
_TOOL_RESULT = re.compile(rb'"type":\s*"tool_result"')

_USAGE = {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def _reply(n: int, done: int, steps: int) -> bytes:
    """The answer to the request numbered ``n`` of a conversation holding ``done`` results."""
    if done + 1 < steps:
        content = [{"type": "tool_use", "id": f"toolu_{n:024d}", "name": "echo", "input": {"text": f"step {done}"}}]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": "done"}]
        stop = "end_turn"
    body = {
        "id": f"msg_{n:024d}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _USAGE,
    }
    return json.dumps(body).encode()


class Server:
    def __init__(self, latency: float, steps: int) -> None:
        self.latency = latency
        self.steps = steps
        self.requests = 0
        self.finals = 0
        self.errors = 0
        self.handler_seconds = 0.0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                # The body's reading is the server's work too (the client has sent it by now).
                start = time.perf_counter()
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                body = await reader.readexactly(length)
                if not head.startswith(b"POST ") or b"/v1/messages" not in head.split(b"\r\n", 1)[0]:
                    self.errors += 1
                    writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                    await writer.drain()
                    continue
                self.requests += 1
                n = self.requests
                done = len(_TOOL_RESULT.findall(body))
                if done + 1 >= self.steps:
                    self.finals += 1
                payload = _reply(n, done, self.steps)
                self.handler_seconds += time.perf_counter() - start
                await asyncio.sleep(self.latency)
                start = time.perf_counter()
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                    b"request-id: req_sim\r\ncontent-length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload
                )
                await writer.drain()
                self.handler_seconds += time.perf_counter() - start
        except (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError):
            pass
        finally:
            writer.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    server = Server(args.latency, args.steps)
    srv = await asyncio.start_server(server.handle, "127.0.0.1", args.port, backlog=4096)
    print(f"PORT {srv.sockets[0].getsockname()[1]}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with srv:
        await stop.wait()
    counts = {"requests": server.requests, "finals": server.finals, "errors": server.errors}
    # The server's own CPU (start-up and the warm-up included): with two cores, a server near
    # one core's worth of the run's wall time is what caps the client's steps per second.
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime
    print(json.dumps({**counts, "handler_seconds": server.handler_seconds, "cpu_seconds": cpu}), flush=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
