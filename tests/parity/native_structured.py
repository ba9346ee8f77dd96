"""Structured-output runs on the native clients (``provider:model`` strings), against
langchain-openai / langchain-anthropic on the simulated APIs: both implementations run the
same replies on one simulator, and each run's request bodies and result are kept."""

from __future__ import annotations

import copy
import json
import os
import re
from typing import Any

import deepagents
import deepagents_rs
import pytest

__all__ = ["NATIVE_MODELS", "USER", "lookup", "native_runs", "native_sim", "point_at", "reply_view", "sim_bodies"]

NATIVE_MODELS = {
    "anthropic": "anthropic:claude-sonnet-4-6",
    "openai-responses": "openai:gpt-5",
    "openai-chat": "openai:gpt-5",
}

USER = {"messages": [{"role": "user", "content": "summarize"}]}


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def _use_chat_completions(request: pytest.FixtureRequest) -> None:
    """Both implementations' way to ask for Chat Completions on `openai:` strings, until the
    test ends."""
    from deepagents.profiles.provider import provider_profiles as theirs
    from deepagents_rs.profiles.provider import provider_profiles as ours

    saved = []
    for module, registry in ((deepagents, theirs), (deepagents_rs, ours)):
        registry._ensure_provider_profiles_loaded()
        saved.append((registry, dict(registry._PROVIDER_PROFILES)))
        module.register_provider_profile("openai", module.ProviderProfile(init_kwargs={"use_responses_api": False}))

    def restore() -> None:
        for registry, profiles in saved:
            registry._PROVIDER_PROFILES.clear()
            registry._PROVIDER_PROFILES.update(profiles)

    request.addfinalizer(restore)


def native_sim(kind: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> tuple[Any, Any, Any]:
    """The simulator for ``kind``, and its helpers making a text reply and a tool-call reply."""
    if kind == "anthropic":
        from sim.anthropic import SimAnthropic, text, tool_use

        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        return SimAnthropic(), text, tool_use
    from sim.openai import SimOpenAI, text, tool_calls

    if kind == "openai-chat":
        _use_chat_completions(request)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return SimOpenAI(), text, tool_calls


def native_runs(kind: str, sim: Any, replies: list, mode: str, **kwargs: Any) -> list[tuple[list[str], Any]]:
    """Each implementation's request bodies and result (or exception) for one agent over
    ``NATIVE_MODELS[kind]`` with the ``lookup`` tool."""
    point_at(kind, sim)
    runs = []
    for impl in (deepagents, deepagents_rs):
        start = len(sim.requests)
        sim.script(*replies)
        agent = impl.create_deep_agent(model=NATIVE_MODELS[kind], tools=[lookup], **kwargs)
        try:
            if mode == "stream":
                chunks = list(agent.stream(copy.deepcopy(USER), stream_mode="values"))
                outcome: Any = chunks[-1]
            else:
                outcome = agent.invoke(copy.deepcopy(USER))
        except Exception as exc:  # noqa: BLE001 - compared by the caller
            outcome = exc
        runs.append((sim_bodies(sim, start), outcome))
    return runs


def point_at(kind: str, sim: Any) -> None:
    """The clients of ``kind`` (both implementations') call ``sim``."""
    env = "ANTHROPIC_BASE_URL" if kind == "anthropic" else "OPENAI_BASE_URL"
    os.environ[env] = sim.base_url


def sim_bodies(sim: Any, start: int) -> list[str]:
    """The request bodies ``sim`` got from its ``start``-th on, as JSON, ids renumbered."""
    bodies = []
    for r in sim.requests[start:]:
        body = dict(r.body)
        # A deliberate difference (see test_openai_wire): our conversation-family key.
        body.pop("prompt_cache_key", None)
        bodies.append(json.dumps(body, ensure_ascii=False, separators=(",", ":")))
    return _renumber_sim_ids(bodies)


_SIM_ID = re.compile(r"\b(?:resp|msg|rs|fc|call)_sim_\d+\b")


def _renumber_sim_ids(bodies: list[str]) -> list[str]:
    """The simulator numbers its items across the runs it serves: each id is renumbered in
    the order the run first sends it, which keeps how the ids pair up."""
    seen: dict[str, str] = {}

    def renumber(m: re.Match) -> str:
        return seen.setdefault(m.group(0), f"{m.group(0).rsplit('_', 1)[0]}_{len(seen)}")

    return [_SIM_ID.sub(renumber, body) for body in bodies]


def reply_view(message: Any) -> tuple | None:
    """A message without the simulator's ids (each run gets its own)."""
    if message is None:
        return None
    content = message.content
    if isinstance(content, list):
        content = [{k: v for k, v in b.items() if k != "id"} if isinstance(b, dict) else b for b in content]
    return (message.type, content, message.additional_kwargs)
