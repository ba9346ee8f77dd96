"""What the tests of the simulated Anthropic server share: the model and headers of their requests,
raw HTTP posts, request and tool builders, a cacheable request and its usage."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

# The simulators live in tests/, one folder up; make them importable however pytest roots the run.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.anthropic import SimAnthropic, text

MODEL = "claude-sonnet-4-5"
HEADERS = {
    "x-api-key": "sk-test",
    "anthropic-version": "2023-06-01",
    "content-type": "application/json",
}
EPHEMERAL = {"type": "ephemeral"}


def post(
    sim: SimAnthropic,
    body: Any,
    *,
    headers: dict[str, str] | None = None,
    path: str = "/v1/messages",
    method: str = "POST",
) -> tuple[int, Any, dict[str, str]]:
    """Send one request with urllib; return (status, parsed body, lower-case headers)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        sim.base_url + path,
        data=data,
        method=method,
        headers=HEADERS if headers is None else headers,
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            status, raw, hdrs = resp.status, resp.read(), resp.headers
    except urllib.error.HTTPError as e:
        status, raw, hdrs = e.code, e.read(), e.headers
    lower = {k.lower(): v for k, v in hdrs.items()}
    parsed = json.loads(raw) if lower.get("content-type", "").startswith("application/json") else raw.decode()
    return status, parsed, lower


def req(messages: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 256,
        "messages": messages if messages is not None else [{"role": "user", "content": "hi"}],
    }
    body.update(extra)
    return body


def tool_def(name: str, description: str = "A tool.", **extra: Any) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    }
    return {"name": name, "description": description, "input_schema": schema, **extra}


def cached_request(system_text: str = "You are a careful assistant. " * 160, **extra: Any) -> dict[str, Any]:
    """The deepagents shape: last tool and system block marked, plus the top-level marker."""
    return req(
        tools=[tool_def("ls"), tool_def("read_file", cache_control=EPHEMERAL)],
        system=[{"type": "text", "text": system_text, "cache_control": EPHEMERAL}],
        cache_control=EPHEMERAL,
        **extra,
    )


def usage_of(sim: SimAnthropic, body: dict[str, Any]) -> dict[str, Any]:
    sim.script(text("ok"))
    status, resp, _ = post(sim, body)
    assert status == 200, resp
    return resp["usage"]
