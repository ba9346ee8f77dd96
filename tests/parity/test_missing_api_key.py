"""Parity: a model string whose provider has no API key in the environment, as deepagents
0.7.32 handles it through LangChain's clients: ``openai:`` refuses to build with the OpenAI
SDK's error; ``anthropic:`` builds, and the call fails with LangChain's connection error (the
SDK cannot send an empty key); ``model=None`` warns and resolves to Anthropic the same way.
With a key, the same strings run on the core's native clients."""

from __future__ import annotations

import warnings
from typing import Any

import deepagents
import deepagents_rs
import pytest

IMPLS = (deepagents, deepagents_rs)


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_ADMIN_KEY"):
        monkeypatch.delenv(var, raising=False)
    # Nowhere to connect to: the call fails before any request either way.
    monkeypatch.setenv("ANTHROPIC_API_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")


def outcome(build: Any) -> tuple[str, str]:
    try:
        build()
    except Exception as exc:  # noqa: BLE001 - the type and text are what is compared
        return (f"{type(exc).__module__}.{type(exc).__qualname__}", str(exc))
    return ("ok", "")


def test_openai_without_a_key_refuses_to_build_as_deepagents() -> None:
    ref, ours = (outcome(lambda impl=impl: impl.create_deep_agent(model="openai:gpt-4o")) for impl in IMPLS)
    assert ours == ref
    assert ref[0] == "openai.OpenAIError"


def invoked(impl: Any, model: Any) -> tuple[str, str]:
    def run() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            agent = impl.create_deep_agent(model=model)
        agent.invoke({"messages": [("user", "hi")]}, {"configurable": {"max_retries": 0}})

    return outcome(run)


@pytest.mark.parametrize("model", ["anthropic:claude-sonnet-4-6", None])
def test_anthropic_without_a_key_builds_and_fails_when_called_as_deepagents(model: Any) -> None:
    ref, ours = (invoked(impl, model) for impl in IMPLS)
    assert ours == ref
    assert ref[0].endswith("AnthropicConnectionError")


def test_a_key_given_as_an_argument_still_runs_natively(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepagents_rs._native_models import native_settings

    assert native_settings("anthropic", {"api_key": "sk-given"}, "claude-sonnet-4-6") == {"api_key": "sk-given"}
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    assert native_settings("anthropic", {}, "claude-sonnet-4-6") == {}
    assert native_settings("anthropic", {}, "claude-sonnet-4-6") is not None
