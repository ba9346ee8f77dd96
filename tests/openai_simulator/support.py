"""What the tests of the simulated OpenAI server share: the model, prompts and tools of their
requests, request builders and raw HTTP."""

from __future__ import annotations

import http.client
import json
from typing import Any

from sim.openai import (
    SimOpenAI,
    reasoning,
    text,
    tool_calls,
)

MODEL = "gpt-5.4"
SYSTEM = "You are a careful assistant. Think before you act. " * 120  # ~1,500 tokens: cacheable alone
RESP_TOOLS = [
    {
        "type": "function",
        "name": "ls",
        "description": "List a directory.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        "strict": False,
    }
]
CHAT_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "ls",
            "description": "List a directory.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        },
    }
]
TEXT = "Hello there, this is a streamed reply. Ünïcödé too."
TURNS = {
    "text": text(TEXT),
    "tools": text("Let me look.") + tool_calls(("ls", {"path": "/"}), ("ls", {"path": "/tmp/ü"})),
    "reasoning": reasoning("The user greets me.", "Answer kindly.", encrypted="enc-abc") + text("Hi! How can I help?"),
    "tools-only": tool_calls(("ls", {"path": "/"})),
}


def rparams(user: str = "hi", **extra: Any) -> dict[str, Any]:
    """Responses params: long instructions (cacheable), one tool, one user message."""
    body: dict[str, Any] = {
        "model": MODEL,
        "instructions": SYSTEM,
        "tools": RESP_TOOLS,
        "input": [{"role": "user", "content": user}],
    }
    body.update(extra)
    return body


def cparams(user: str = "hi", **extra: Any) -> dict[str, Any]:
    """Chat params: the same prompt as ``rparams`` in the Chat shape."""
    body: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
        "tools": CHAT_TOOLS,
    }
    body.update(extra)
    return body


def raw_post(sim: SimOpenAI, path: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=10)
    try:
        hdrs = {"authorization": "Bearer sk-test", "content-type": "application/json"} if headers is None else headers
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        conn.request("POST", path, body=data, headers=hdrs)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def cached(usage: Any) -> int:
    """cached_tokens from either API's usage (SDK object)."""
    details = getattr(usage, "input_tokens_details", None) or usage.prompt_tokens_details
    return details.cached_tokens


USER = {"role": "user", "content": "hi"}
