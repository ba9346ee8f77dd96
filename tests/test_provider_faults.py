"""The fault matrix of the native providers, on the simulated APIs: every fault the issue
names, on Anthropic Messages, OpenAI Responses and OpenAI Chat Completions, streaming and
not, with the run's state intact afterwards.

A fault either is retried as the official SDKs retry it (429 with its ``retry-after``,
529/503, 500, a connection lost before any output) and the run succeeds, or it raises the
classified exception at once (400, 401, quota, context overflow), or after the retries are
spent, with ``partial_state`` holding every completed step and no half message.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("langchain_core")

import deepagents_rs
import langchain_core.exceptions as lc_exceptions
from deepagents_rs import create_deep_agent, errors
from deepagents_rs.profiles.provider import provider_profiles as registry
from langchain_core.tools import tool
from sim import anthropic as sa
from sim import openai as so


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


INPUT = {"messages": [{"role": "user", "content": "what is 2+3?"}]}


@dataclass
class Api:
    """One provider API on its simulator, with its way to script replies and faults."""

    name: str
    sim: Any
    model: str

    @property
    def anthropic(self) -> bool:
        return self.name == "anthropic"

    def text(self, t: str) -> Any:
        return sa.text(t) if self.anthropic else so.text(t)

    def tool_call(self) -> Any:
        if self.anthropic:
            return sa.tool_use(("add", {"a": 2, "b": 3}, "toolu_1"))
        return so.tool_calls(("add", {"a": 2, "b": 3}, "call_1"))

    def status(self, status: int, **headers: str) -> Any:
        hdrs = {k.replace("_", "-"): v for k, v in headers.items()}
        if self.anthropic:
            return sa.Reply(status=status, headers=hdrs)
        return so.error_reply(status, headers=hdrs)

    def overloaded(self) -> Any:
        return self.status(529) if self.anthropic else so.server_error(503)

    def overflow(self) -> Any:
        if self.anthropic:
            return sa.Reply(
                status=400,
                body={
                    "type": "error",
                    "error": {
                        "type": "invalid_request_error",
                        "message": "prompt is too long: 210000 tokens > 200000 maximum",
                    },
                },
            )
        return so.context_overflow()

    def fault(self, body: Any, kind: str, after_events: int | None = None) -> Any:
        if self.anthropic:
            return sa.Reply(body=body, stream_fault=sa.StreamFault(kind=kind, after_events=after_events))
        return so.Reply(body=body, stream_fault=so.StreamFault(kind=kind, after_events=after_events))

    def slow(self, body: Any, seconds: float) -> Any:
        return sa.Reply(body=body, delay=seconds) if self.anthropic else so.Reply(body=body, delay=seconds)

    def retry_counts(self) -> list[str | None]:
        return [r.headers.get("x-stainless-retry-count") for r in self.sim.requests]


@pytest.fixture(params=["anthropic", "openai-responses", "openai-chat"])
def api(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    registry._ensure_provider_profiles_loaded()  # the built-ins first, so they are restored too
    saved = dict(registry._PROVIDER_PROFILES)
    if request.param == "anthropic":
        sim = sa.SimAnthropic()
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", sim.base_url)
        model = "anthropic:claude-sonnet-4-6"
    else:
        sim = so.SimOpenAI()
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", sim.base_url)
        model = "openai:gpt-5.4"
        if request.param == "openai-chat":
            deepagents_rs.register_provider_profile(
                "openai", deepagents_rs.ProviderProfile(init_kwargs={"use_responses_api": False})
            )
    with sim:
        yield Api(request.param, sim, model)
    registry._PROVIDER_PROFILES.clear()
    registry._PROVIDER_PROFILES.update(saved)


def settings(api: Api, **kwargs: Any) -> None:
    """Per-model settings, as deepagents takes them for a model string: a provider profile."""
    provider = api.model.split(":")[0]
    deepagents_rs.register_provider_profile(provider, deepagents_rs.ProviderProfile(init_kwargs=kwargs))


def run(api: Api, mode: str) -> dict[str, Any]:
    agent = create_deep_agent(model=api.model, tools=[add])
    if mode == "invoke":
        return agent.invoke(INPUT)
    values = [c for m, c in agent.stream(INPUT, stream_mode=["messages", "values"]) if m == "values"]
    return values[-1]


def types(state: dict[str, Any]) -> list[str]:
    return [m.type for m in state["messages"]]


MODES = ["invoke", "stream"]


# --------------------------------------------------------------------------- retried, then fine


@pytest.mark.parametrize("mode", MODES)
def test_429_with_retry_after_is_retried(api: Api, mode: str) -> None:
    api.sim.script(api.status(429, retry_after_ms="20"), api.text("done"))
    result = run(api, mode)
    assert result["messages"][-1].text == "done"
    assert api.retry_counts() == ["0", "1"]


@pytest.mark.parametrize("mode", MODES)
def test_overloaded_and_500_are_retried_until_success(api: Api, mode: str) -> None:
    api.sim.script(api.overloaded(), api.status(500, retry_after_ms="1"), api.text("done"))
    assert run(api, mode)["messages"][-1].text == "done"
    assert api.retry_counts() == ["0", "1", "2"]


def test_500_past_max_retries_raises_server_error_with_state(api: Api) -> None:
    api.sim.script(api.tool_call(), *[api.status(500, retry_after_ms="1")] * 3)
    with pytest.raises(errors.ServerError) as info:
        run(api, "invoke")
    err = info.value
    assert err.status_code == 500 and err.is_retryable
    assert isinstance(err, lc_exceptions.ModelAPIError)
    # 1 + the default 2 retries, after the first (successful) call.
    assert len(api.sim.requests) == 4
    assert types(err.partial_state) == ["human", "ai", "tool"]


def test_max_retries_per_model(api: Api) -> None:
    settings(api, max_retries=0)
    api.sim.script(api.status(500))
    with pytest.raises(errors.ServerError):
        run(api, "invoke")
    assert len(api.sim.requests) == 1


def test_reset_before_any_output_is_retried_whole(api: Api) -> None:
    # The connection drops after the opening event: nothing was shown, so the SDK-style
    # retry sends the request again and the run completes.
    api.sim.script(api.fault(api.text("lost"), "reset", after_events=1), api.text("done"))
    agent = create_deep_agent(model=api.model, tools=[add])
    chunks = [c for c, meta in agent.stream(INPUT, stream_mode="messages") if meta["langgraph_node"] == "model"]
    assert api.retry_counts() == ["0", "1"]
    # The failed attempt's opening was held back: the caller's chunks add up to one reply.
    merged = chunks[0]
    for c in chunks[1:]:
        merged = merged + c
    assert merged.text == "done"
    model = merged.response_metadata.get("model_name") or merged.response_metadata.get("model")
    assert model is None or model.count(api.model.split(":")[1]) == 1


# --------------------------------------------------------------------------- broken streams


@pytest.mark.parametrize("kind", ["reset", "truncate", "malformed"])
def test_stream_broken_midway_fails_clearly_and_keeps_no_half_message(api: Api, kind: str) -> None:
    api.sim.script(api.tool_call(), api.fault(api.text("a long final answer"), kind))
    agent = create_deep_agent(model=api.model, tools=[add])
    with pytest.raises(errors.ModelConnectionError) as info:
        list(agent.stream(INPUT, stream_mode="messages"))
    err = info.value
    assert isinstance(err, lc_exceptions.ModelConnectionError)
    assert err.kind == ("decode" if kind == "malformed" else "connection")
    # Not retried: part of the reply had been shown.
    assert len(api.sim.requests) == 2
    assert types(err.partial_state) == ["human", "ai", "tool"]


def test_in_stream_error_is_the_providers_error(api: Api) -> None:
    api.sim.script(api.fault(api.text("a long final answer"), "error"))
    agent = create_deep_agent(model=api.model, tools=[add])
    with pytest.raises(errors.ModelProviderError) as info:
        list(agent.stream(INPUT, stream_mode="messages"))
    err = info.value
    expected = errors.OverloadedError if api.anthropic else errors.ServerError
    assert type(err) is expected
    assert types(err.partial_state) == ["human"]
    assert len(api.sim.requests) == 1


# --------------------------------------------------------------------------- slow


@pytest.mark.parametrize("mode", MODES)
def test_slow_response_times_out_per_model_and_is_retried(api: Api, mode: str) -> None:
    settings(api, timeout=0.3, max_retries=1)
    api.sim.script(api.slow(api.text("late"), 1.0), api.text("done"))
    assert run(api, mode)["messages"][-1].text == "done"
    assert api.retry_counts() == ["0", "1"]


def test_slow_response_past_retries_is_a_timeout_error(api: Api) -> None:
    settings(api, timeout=0.3, max_retries=0)
    api.sim.script(api.slow(api.text("late"), 1.0))
    with pytest.raises(errors.ModelTimeoutError) as info:
        run(api, "invoke")
    assert isinstance(info.value, lc_exceptions.ModelTimeoutError)
    assert types(info.value.partial_state) == ["human"]


# --------------------------------------------------------------------------- raised at once


@pytest.mark.parametrize("mode", MODES)
def test_context_overflow_is_one_error_for_every_provider(api: Api, mode: str) -> None:
    # The provider's overflow is recognised as one and not retried by the client:
    # summarization's recovery would clip the tool result the request ended with, but a
    # small result clipped is no smaller, so the run ends at once with deepagents' error.
    api.sim.script(api.tool_call(), api.overflow())
    with pytest.raises(lc_exceptions.ContextOverflowError) as info:
        run(api, mode)
    err = info.value
    assert not isinstance(err, lc_exceptions.ModelInvalidRequestError)
    assert str(err).startswith("Model input still does not fit after recovery")
    assert len(api.sim.requests) == 2
    assert types(err.partial_state) == ["human", "ai", "tool"]


@pytest.mark.parametrize("mode", MODES)
def test_401_is_raised_at_once_and_keeps_the_key_secret(api: Api, mode: str) -> None:
    api.sim.script(api.status(401))
    with pytest.raises(errors.AuthenticationError) as info:
        run(api, mode)
    err = info.value
    assert isinstance(err, lc_exceptions.ModelAuthenticationError)
    assert len(api.sim.requests) == 1
    assert "sk-test" not in str(err) and "sk-test" not in repr(err)
    assert err.provider == api.model.split(":")[0]


def test_quota_exhausted_is_not_retried(api: Api) -> None:
    if api.anthropic:
        api.sim.script(
            sa.Reply(status=402, body={"type": "error", "error": {"type": "billing_error", "message": "no credit"}})
        )
    else:
        api.sim.script(so.insufficient_quota())
    with pytest.raises(errors.QuotaExceededError) as info:
        run(api, "invoke")
    assert not info.value.is_retryable
    assert len(api.sim.requests) == 1


def test_400_is_a_bad_request_with_the_request_id(api: Api) -> None:
    if api.anthropic:
        api.sim.script(
            sa.Reply(
                status=400,
                body={"type": "error", "error": {"type": "invalid_request_error", "message": "bad thing"}},
                headers={"request-id": "req_123"},
            )
        )
    else:
        api.sim.script(so.error_reply(400, message="bad thing", headers={"x-request-id": "req_123"}))
    with pytest.raises(errors.BadRequestError) as info:
        run(api, "invoke")
    err = info.value
    assert type(err) is errors.BadRequestError
    assert (err.provider_message, err.request_id) == ("bad thing", "req_123")
    assert len(api.sim.requests) == 1


# --------------------------------------------------------------------------- usage and caches


@pytest.mark.parametrize("mode", MODES)
def test_usage_is_normalized_and_cache_reads_show(api: Api, mode: str) -> None:
    api.sim.script(api.tool_call(), api.text("done"))
    result = run(api, mode)
    ai = [m for m in result["messages"] if m.type == "ai"]
    for m in ai:
        u = m.usage_metadata
        assert u["total_tokens"] == u["input_tokens"] + u["output_tokens"]
    # The second call repeats the first one's prompt: its prefix is read from the cache.
    assert ai[1].usage_metadata["input_token_details"]["cache_read"] > 0


def test_key_never_in_reprs_or_config(api: Api) -> None:
    agent = create_deep_agent(model=api.model, tools=[add])
    assert "sk-test" not in repr(agent)
