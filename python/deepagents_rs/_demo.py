"""``python -m deepagents_rs demo``: run a small agent end to end.

Without ``ANTHROPIC_API_KEY`` it talks to a built-in simulated Messages API on 127.0.0.1
(scripted replies, no network); with the key set, to Anthropic itself.
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .graph import create_deep_agent

DEMO_MODEL = "anthropic:claude-sonnet-4-5"


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"It is sunny and 21 degrees C in {city}."


def _reply(n: int, content: list[dict], stop_reason: str) -> dict:
    return {
        "id": f"msg_demo_{n}",
        "type": "message",
        "role": "assistant",
        "model": DEMO_MODEL.split(":", 1)[1],
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 50 + 30 * n, "output_tokens": 20},
    }


class _DemoServer(ThreadingHTTPServer):
    """A two-turn scripted Messages API: ask for the weather tool, then answer with its result."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.turn = 0


class _Handler(BaseHTTPRequestHandler):
    server: _DemoServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        self.server.turn += 1
        if self.server.turn == 1:
            reply = _reply(
                1,
                [
                    {"type": "text", "text": "Let me check the weather."},
                    {"type": "tool_use", "id": "toolu_demo_1", "name": "get_weather", "input": {"city": "Paris"}},
                ],
                "tool_use",
            )
        else:
            result = body["messages"][-1]["content"][0]["content"]
            reply = _reply(2, [{"type": "text", "text": f"Here is the weather: {result}"}], "end_turn")
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def run_demo() -> int:
    server = None
    if not os.environ.get("ANTHROPIC_API_KEY"):
        server = _DemoServer()
        threading.Thread(target=server.serve_forever, daemon=True).start()
        os.environ["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{server.server_address[1]}"
        os.environ["ANTHROPIC_API_KEY"] = "sk-demo-simulated"
        print(f"Using the built-in simulated Anthropic API at {os.environ['ANTHROPIC_BASE_URL']}")
    else:
        print("Using the Anthropic API (ANTHROPIC_API_KEY is set)")
    try:
        agent = create_deep_agent(model=DEMO_MODEL, tools=[get_weather], system_prompt="You are a helpful assistant.")
        result = agent.invoke({"messages": [{"role": "user", "content": "What is the weather in Paris?"}]})
    finally:
        if server is not None:
            server.shutdown()
    for message in result["messages"]:
        text = message.content if isinstance(message.content, str) else json.dumps(message.content)
        calls = (
            f"  tool_calls={[(c['name'], c['args']) for c in message.tool_calls]}"
            if getattr(message, "tool_calls", None)
            else ""
        )
        print(f"[{message.type}] {text}{calls}")
    usage = [m.usage_metadata for m in result["messages"] if getattr(m, "usage_metadata", None)]
    print(
        f"model calls: {len(usage)}, input tokens: {sum(u['input_tokens'] for u in usage)}, "
        f"output tokens: {sum(u['output_tokens'] for u in usage)}"
    )
    return 0
