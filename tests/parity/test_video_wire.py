"""A video read on the native Anthropic and OpenAI clients: every request compared, as
serialized JSON, with what langchain-anthropic / langchain-openai send under deepagents
0.7.32 (the frames go as a user message of text and image parts after the tool result)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

pytest.importorskip("langchain_anthropic")
pytest.importorskip("langchain_openai")
pytest.importorskip("av", reason="the [video] extra (av) is not installed")
pytest.importorskip("PIL.Image", reason="the [video] extra (pillow) is not installed")

import deepagents
import deepagents_rs
from sim import anthropic as sim_anthropic
from sim import openai as sim_openai

from .test_video_read import MKV, MP4

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

FILES = {
    "/clip.mp4": {"content": base64.b64encode(MP4).decode(), "encoding": "base64"},
    "/clip.mkv": {"content": base64.b64encode(MKV).decode(), "encoding": "base64"},
}
INPUT = {"messages": [{"role": "user", "content": "What happens in the clips?"}], "files": FILES}
READS = (("read_file", {"file_path": "/clip.mp4", "limit": 5}), ("read_file", {"file_path": "/clip.mkv", "offset": 4}))


def _bodies(sim: Any, model: str, create: Any) -> list[str]:
    create(model=model).invoke(INPUT)
    # deepagents_rs adds a `prompt_cache_key` on purpose (test_openai_wire.py); none else differs.
    bodies = [{k: v for k, v in r.body.items() if k != "prompt_cache_key"} for r in sim.requests]
    return [json.dumps(b, ensure_ascii=False, separators=(",", ":")) for b in bodies]


_PROVIDERS = {
    "anthropic": (sim_anthropic.SimAnthropic, sim_anthropic.tool_use, sim_anthropic.text, "claude-sonnet-4-6"),
    "openai": (sim_openai.SimOpenAI, sim_openai.tool_calls, sim_openai.text, "gpt-5"),
}


@pytest.mark.parametrize("provider", list(_PROVIDERS))
def test_native_requests_match_langchain(monkeypatch: pytest.MonkeyPatch, provider: str) -> None:
    server, calls_turn, text_turn, model = _PROVIDERS[provider]
    calls = tuple((name, args, f"call_{i}") for i, (name, args) in enumerate(READS))
    monkeypatch.setenv(f"{provider.upper()}_API_KEY", "sk-test")
    bodies = []
    for create in (deepagents.create_deep_agent, deepagents_rs.create_deep_agent):
        # A server each, so the ids it gives out are the same for both.
        with server() as sim:
            monkeypatch.setenv(f"{provider.upper()}_BASE_URL", sim.base_url)
            sim.script(calls_turn(*calls), text_turn("A colour fade."))
            bodies.append(_bodies(sim, f"{provider}:{model}", create))
    theirs, ours = bodies
    assert len(theirs) == 2 and "image/jpeg" in theirs[1]
    for i, (a, b) in enumerate(zip(theirs, ours, strict=True)):
        assert b == a, f"request {i} differs"
