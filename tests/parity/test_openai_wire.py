"""deepagents_rs's native OpenAI client against what deepagents 0.7.32 sends and builds
through langchain-openai, byte for byte.

The fixtures in ``tests/fixtures/openai_lc`` were captured from the reference stack
(``capture.py`` there regenerates them): the requests it sent and the responses it was
served. Here the same responses are served again, in the same order, to the same agent
built with deepagents_rs; the requests must be the same bytes and the messages the same.

Deliberate differences, checked rather than ignored:
- ``prompt_cache_key``: we send one per conversation family (deepagents sends none), so a
  fork lands on its parent's cache. It is removed before the bytes are compared and checked
  on its own.
- Chat Completions streams: we always ask for usage (``stream_options``); langchain-openai
  asks only without a custom base URL, so the ``_base_url`` fixture differs there.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")

import deepagents_rs
from deepagents_rs import create_deep_agent
from langchain_core.messages import BaseMessage, HumanMessage, messages_from_dict
from langchain_core.tools import tool

pytestmark = pytest.mark.filterwarnings("ignore:The feature `forked subagents` is in beta")

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_lc"


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"It's always sunny in {city}."


@tool
def get_chart(city: str) -> list:
    """Get a weather chart image for a city."""
    return [
        {"type": "text", "text": f"Chart for {city}:"},
        {
            "type": "image",
            "base64": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
            "mime_type": "image/png",
        },
    ]


class Replay:
    """Serves a fixture's responses in order and records the request bytes."""

    def __init__(self, served: list[dict[str, Any]]) -> None:
        self.served = list(served)
        self.requests: list[bytes] = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                replay.requests.append(self.rfile.read(length))
                reply = replay.served.pop(0)
                self.send_response(reply["status"])
                for k, v in reply.get("headers", {}).items():
                    self.send_header(k, v)
                if "sse" in reply:
                    payload = "".join(sse(e) for e in reply["sse"]).encode()
                    self.send_header("content-type", "text/event-stream")
                else:
                    payload = json.dumps(reply["body"]).encode()
                    self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_port}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def sse(entry: dict[str, Any]) -> str:
    data = entry["data"]
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {entry['event']}\n" if entry.get("event") else ""
    return f"{head}data: {text}\n\n"


def load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|<uuid:\d+>")


def masked(value: Any) -> Any:
    """LangChain's and LangGraph's generated ids replaced by one placeholder."""
    return json.loads(_UUID.sub("<uuid>", json.dumps(value)))


def dump(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    return masked([m.model_dump() for m in messages])


def without_cache_key(raw: bytes) -> tuple[str, str | None]:
    body = json.loads(raw)
    key = body.pop("prompt_cache_key", None)
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False), key


@pytest.fixture
def openai_env(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    # The fixtures were captured without deepagents' `[video]` extra: `read_file` is offered
    # as it is then (test_video_wire.py compares the video variant live).
    from deepagents_rs.middleware import filesystem

    monkeypatch.setattr(filesystem, "video_dependencies_available", lambda: False)
    servers: list[Replay] = []

    def serve(fixture: dict[str, Any]) -> Replay:
        replay = Replay(fixture["responses_served"])
        monkeypatch.setenv("OPENAI_BASE_URL", replay.base_url)
        servers.append(replay)
        return replay

    yield serve
    for s in servers:
        s.close()


@pytest.fixture
def chat_completions_profile():
    """deepagents' way to ask for Chat Completions on `openai:` strings: a provider profile."""
    from deepagents_rs.profiles.provider import provider_profiles as registry

    registry._ensure_provider_profiles_loaded()  # the built-ins first, so they are restored too
    saved = dict(registry._PROVIDER_PROFILES)
    deepagents_rs.register_provider_profile(
        "openai", deepagents_rs.ProviderProfile(init_kwargs={"use_responses_api": False})
    )
    yield
    registry._PROVIDER_PROFILES.clear()
    registry._PROVIDER_PROFILES.update(saved)


def _turn_inputs(fixture: dict[str, Any]) -> list[HumanMessage]:
    return [m for m in messages_from_dict_list(fixture["result_messages"]) if isinstance(m, HumanMessage)]


def messages_from_dict_list(dumps: list[dict[str, Any]]) -> list[BaseMessage]:
    return messages_from_dict([{"type": d["type"], "data": d} for d in dumps])


def _run(fixture: dict[str, Any], tools: list, *, stream: bool = False, subagents: list | None = None) -> list:
    agent = create_deep_agent(
        model="openai:gpt-5.4", tools=tools, system_prompt="You are helpful.", subagents=subagents or []
    )
    messages: list = []
    for human in _turn_inputs(fixture):
        state = {"messages": [*messages, HumanMessage(content=human.content)]}
        if stream:
            values = [c for mode, c in agent.stream(state, stream_mode=["messages", "values"]) if mode == "values"]
            messages = values[-1]["messages"]
        else:
            messages = agent.invoke(state)["messages"]
    return messages


INVOKED = [
    "a_text",
    "b_parallel_tools",
    "b2_text_and_tool",
    "e_usage_cached",
    "e_usage_priority",
    "m_multimodal",
    "n_tool_multimodal",
]


def _check(fixture: dict[str, Any], replay: Replay, result: list, *, stream_usage_added: bool = False) -> None:
    theirs = [r["body_raw"].encode() for r in fixture["requests"]]
    assert len(replay.requests) == len(theirs)
    keys = set()
    for ours, ref in zip(replay.requests, theirs, strict=True):
        body, key = without_cache_key(ours)
        if stream_usage_added:
            parsed = json.loads(body)
            assert parsed.pop("stream_options") == {"include_usage": True}
            body = json.dumps(parsed, separators=(",", ":"), ensure_ascii=False)
        ref_body, ref_key = without_cache_key(ref)
        assert ref_key is None
        assert key is not None and key.startswith("deepagents-")
        keys.add(key)
        assert body == ref_body
    # One conversation, one key.
    assert len(keys) == 1
    ours = dump(result)
    ref = masked(fixture["result_messages"])
    for m in ours:
        if m["type"] == "tool" and m["name"] == "task":
            # Documented addition (README): a task result carries the subagent's usage.
            meta = m["response_metadata"]
            assert meta.pop("subagent") == "researcher"
            assert meta.pop("usage_metadata")["input_tokens"] > 0
    assert ours == ref


@pytest.mark.parametrize("scenario", INVOKED + ["d_reasoning", "p_phase", "i_fork"])
def test_responses_requests_and_messages_match_langchain_openai(openai_env, scenario: str) -> None:
    fixture = load(f"responses_{scenario}")
    replay = openai_env(fixture)
    tools = [get_weather, get_chart] if scenario == "n_tool_multimodal" else [get_weather]
    subagents = (
        [{"name": "researcher", "description": "r", "system_prompt": "", "mode": "fork"}]
        if scenario == "i_fork"
        else None
    )
    result = _run(fixture, tools, subagents=subagents)
    _check(fixture, replay, result)


@pytest.mark.parametrize("scenario", INVOKED + ["i_fork"])
def test_chat_completions_requests_and_messages_match_langchain_openai(
    openai_env, chat_completions_profile, scenario: str
) -> None:
    fixture = load(f"chat_{scenario}")
    replay = openai_env(fixture)
    tools = [get_weather, get_chart] if scenario == "n_tool_multimodal" else [get_weather]
    subagents = (
        [{"name": "researcher", "description": "r", "system_prompt": "", "mode": "fork"}]
        if scenario == "i_fork"
        else None
    )
    result = _run(fixture, tools, subagents=subagents)
    _check(fixture, replay, result)


@pytest.mark.parametrize("scenario", ["c_stream", "d_reasoning_stream", "p_phase_stream"])
def test_responses_streams_match_langchain_openai(openai_env, scenario: str) -> None:
    fixture = load(f"responses_{scenario}")
    replay = openai_env(fixture)
    result = _run(fixture, [get_weather], stream=True)
    _check(fixture, replay, result)


def test_chat_completions_stream_matches_langchain_openai(openai_env, chat_completions_profile) -> None:
    # The fixture without a custom base URL, where langchain-openai asks for usage too.
    fixture = load("chat_c_stream")
    replay = openai_env(fixture)
    result = _run(fixture, [get_weather], stream=True)
    _check(fixture, replay, result)


def _streamed_chunks(fixture: dict[str, Any]) -> list[dict[str, Any]]:
    agent = create_deep_agent(model="openai:gpt-5.4", tools=[get_weather], system_prompt="You are helpful.")
    chunks: list[dict[str, Any]] = []
    messages: list = []
    for human in _turn_inputs(fixture):
        state = {"messages": [*messages, HumanMessage(content=human.content)]}
        for mode, data in agent.stream(state, stream_mode=["messages", "values"]):
            if mode == "values":
                messages = data["messages"]
            elif data[1]["langgraph_node"] == "model":
                chunks.append(data[0].model_dump())
    return masked(chunks)


@pytest.mark.parametrize(
    ("name", "chat"),
    [
        ("responses_c_stream", False),
        ("responses_d_reasoning_stream", False),
        ("responses_p_phase_stream", False),
        ("chat_c_stream", True),
    ],
)
def test_streamed_chunks_match_langchain_openai(
    openai_env, request: pytest.FixtureRequest, name: str, chat: bool
) -> None:
    """What a `messages` stream shows, chunk by chunk."""
    if chat:
        request.getfixturevalue("chat_completions_profile")
    fixture = load(name)
    openai_env(fixture)
    ours = _streamed_chunks(fixture)
    theirs = masked([c["chunk"] for c in fixture["stream_chunks"] if c["metadata"]["langgraph_node"] == "model"])
    assert ours == theirs
