"""The native OpenAI client on the simulated OpenAI API: conversation-family cache keys (a fork
lands on its parent's cache, an isolated subagent does not), usage summed with subagents,
settings from provider profiles, and model strings the native client does not take going
through LangChain's ``init_chat_model`` as in deepagents."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("langchain_core")

import deepagents_rs
from deepagents_rs import create_deep_agent
from deepagents_rs.profiles.provider import provider_profiles as registry
from deepagents_rs.usage import run_usage
from langchain_core.tools import tool
from sim.openai import SimOpenAI, text, tool_calls

pytestmark = pytest.mark.filterwarnings("ignore:The feature `forked subagents` is in beta")

MODEL = "openai:gpt-5.4"


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


@pytest.fixture
def profiles() -> Iterator[None]:
    registry._ensure_provider_profiles_loaded()  # the built-ins first, so they are restored too
    saved = dict(registry._PROVIDER_PROFILES)
    yield
    registry._PROVIDER_PROFILES.clear()
    registry._PROVIDER_PROFILES.update(saved)


@pytest.fixture
def sim(monkeypatch: pytest.MonkeyPatch, profiles: None) -> Iterator[SimOpenAI]:
    # The cache boundaries below are counted on the prompt as it is without deepagents'
    # `[video]` extra (its longer `read_file` description moves them).
    from deepagents_rs.middleware import filesystem

    monkeypatch.setattr(filesystem, "video_dependencies_available", lambda: False)
    with SimOpenAI(min_cache_tokens=256) as s:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", s.base_url)
        yield s


def _delegate(sim: SimOpenAI, subagent: dict[str, Any]) -> dict[str, Any]:
    sim.script(
        tool_calls(("lookup", {"key": "a"})),
        tool_calls(("task", {"description": "finish it", "subagent_type": subagent["name"]})),
        text("sub done"),
        text("all done"),
    )
    agent = create_deep_agent(model=MODEL, tools=[lookup], system_prompt="You are helpful.", subagents=[subagent])
    return agent.invoke({"messages": [{"role": "user", "content": "go"}]})


def test_a_fork_sends_its_parents_cache_key_and_reads_its_cache(sim: SimOpenAI) -> None:
    result = _delegate(sim, {"name": "fixer", "description": "Fixes things.", "mode": "fork"})
    assert result["messages"][-1].text == "all done"
    parent_before, fork = sim.requests[1], sim.requests[2]
    keys = {r.body["prompt_cache_key"] for r in sim.requests}
    assert len(keys) == 1
    # The fork's prompt repeats the parent's: every cache boundary of the parent's last
    # request before the fork is read back.
    shared = sim.cacheable(sim.shared_tokens(parent_before.body, fork.body))
    assert shared > 0
    assert fork.cache.cached_tokens == shared
    assert fork.cache.hit_creator_seq == parent_before.seq
    assert fork.response["usage"]["input_tokens_details"]["cached_tokens"] == shared


def test_an_isolated_subagent_has_its_own_key(sim: SimOpenAI) -> None:
    _delegate(sim, {"name": "worker", "description": "Works.", "system_prompt": "You work."})
    parent_key = sim.requests[0].body["prompt_cache_key"]
    child_key = sim.requests[2].body["prompt_cache_key"]
    assert parent_key != child_key
    assert sim.requests[3].body["prompt_cache_key"] == parent_key


def test_the_same_conversation_keeps_its_key_across_invocations(sim: SimOpenAI) -> None:
    sim.script(text("one"), text("two"))
    agent = create_deep_agent(model=MODEL)
    first = agent.invoke({"messages": [{"role": "user", "content": "hello"}]})
    agent.invoke({"messages": [*first["messages"], {"role": "user", "content": "again"}]})
    assert sim.requests[0].body["prompt_cache_key"] == sim.requests[1].body["prompt_cache_key"]


def test_a_key_in_the_models_settings_wins(sim: SimOpenAI) -> None:
    deepagents_rs.register_provider_profile(
        "openai", deepagents_rs.ProviderProfile(init_kwargs={"prompt_cache_key": "mine"})
    )
    sim.script(text("ok"))
    create_deep_agent(model=MODEL).invoke({"messages": [{"role": "user", "content": "hi"}]})
    assert sim.requests[0].body["prompt_cache_key"] == "mine"


def test_run_usage_sums_the_subagents_calls(sim: SimOpenAI) -> None:
    result = _delegate(sim, {"name": "fixer", "description": "Fixes things.", "mode": "fork"})
    usage = run_usage(result)
    served = [r.response["usage"] for r in sim.requests]
    assert usage["input_tokens"] == sum(u["input_tokens"] for u in served)
    assert usage["output_tokens"] == sum(u["output_tokens"] for u in served)
    assert usage["input_token_details"]["cache_read"] == sum(u["input_tokens_details"]["cached_tokens"] for u in served)


def test_settings_from_a_profile_configure_the_native_client(sim: SimOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    deepagents_rs.register_provider_profile(
        "openai",
        deepagents_rs.ProviderProfile(
            init_kwargs={
                "api_key": "sk-profile",
                "base_url": sim.base_url,
                "max_tokens": 77,
                "temperature": 0.5,
                "reasoning": {"effort": "low"},
            }
        ),
    )
    sim.script(text("ok"))
    create_deep_agent(model="openai:gpt-4.1").invoke({"messages": [{"role": "user", "content": "hi"}]})
    req = sim.requests[0]
    assert req.headers["authorization"] == "Bearer sk-profile"
    assert (req.body["max_output_tokens"], req.body["temperature"], req.body["reasoning"]) == (
        77,
        0.5,
        {"effort": "low"},
    )


def test_a_gpt5_reasoning_model_drops_temperature_as_langchain_does(sim: SimOpenAI) -> None:
    deepagents_rs.register_provider_profile("openai", deepagents_rs.ProviderProfile(init_kwargs={"temperature": 0.5}))
    sim.script(text("ok"))
    create_deep_agent(model=MODEL).invoke({"messages": [{"role": "user", "content": "hi"}]})
    assert "temperature" not in sim.requests[0].body


def test_a_missing_key_is_a_clear_error_without_langchain(monkeypatch: pytest.MonkeyPatch, profiles: None) -> None:
    # With LangChain installed its client decides (tests/parity/test_missing_api_key.py).
    from deepagents_rs import _native_models

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(_native_models, "_has_langchain", lambda: False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        create_deep_agent(model=MODEL)


def test_a_setting_the_native_client_does_not_take_goes_through_langchain(sim: SimOpenAI) -> None:
    # `stream_usage` is a ChatOpenAI field the native client has no use for: deepagents'
    # own call, init_chat_model, builds the model and it is called back.
    pytest.importorskip("langchain_openai")
    deepagents_rs.register_provider_profile(
        "openai", deepagents_rs.ProviderProfile(init_kwargs={"use_responses_api": True, "stream_usage": True})
    )
    sim.script(text("via langchain"))
    agent = create_deep_agent(model=MODEL)
    result = agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
    assert result["messages"][-1].text == "via langchain"
    # langchain-openai's own client made the request (its SDK's headers), with no cache key.
    req = sim.requests[0]
    assert req.headers.get("x-stainless-lang") == "python"
    assert "prompt_cache_key" not in req.body


def test_other_providers_go_through_init_chat_model(monkeypatch: pytest.MonkeyPatch, profiles: None) -> None:
    # A provider without its integration package: langchain's own ImportError, as in deepagents.
    import importlib.util

    if importlib.util.find_spec("langchain_ollama") is not None:
        pytest.skip("langchain-ollama is installed")
    with pytest.raises(ImportError, match="langchain-ollama"):
        create_deep_agent(model="ollama:llama3")


def test_an_unknown_provider_is_langchains_error(profiles: None) -> None:
    with pytest.raises(ValueError, match="Unable to infer model provider"):
        create_deep_agent(model="mystery-model")


@pytest.mark.parametrize("responses", [True, False])
async def test_ainvoke_and_astream(sim: SimOpenAI, responses: bool) -> None:
    deepagents_rs.register_provider_profile(
        "openai", deepagents_rs.ProviderProfile(init_kwargs={"use_responses_api": responses})
    )
    sim.script(tool_calls(("lookup", {"key": "a"})), text("done"), tool_calls(("lookup", {"key": "b"})), text("again"))
    agent = create_deep_agent(model=MODEL, tools=[lookup])
    result = await agent.ainvoke({"messages": [{"role": "user", "content": "go"}]})
    assert [m.type for m in result["messages"]] == ["human", "ai", "tool", "ai"]
    tokens = [
        chunk.text
        async for chunk, meta in agent.astream(
            {"messages": [{"role": "user", "content": "go"}]}, stream_mode="messages"
        )
        if meta["langgraph_node"] == "model"
    ]
    assert "".join(tokens) == "again"
    assert sim.requests[-1].path.endswith("/responses" if responses else "/chat/completions")


def test_a_bare_model_name_speaks_chat_completions_as_chatopenai_does(sim: SimOpenAI) -> None:
    # No provider profile matches "gpt-4o": ChatOpenAI picks Chat Completions, and so do we;
    # a Responses-only model picks the Responses API.
    sim.script(text("one"), text("two"))
    create_deep_agent(model="gpt-4o").invoke({"messages": [{"role": "user", "content": "hi"}]})
    create_deep_agent(model="gpt-5.4-pro").invoke({"messages": [{"role": "user", "content": "hi"}]})
    assert [r.path for r in sim.requests] == ["/v1/chat/completions", "/v1/responses"]


def test_chat_completions_payload_rules(sim: SimOpenAI) -> None:
    deepagents_rs.register_provider_profile(
        "openai", deepagents_rs.ProviderProfile(init_kwargs={"use_responses_api": False, "max_tokens": 50})
    )
    sim.script(text("one"))
    create_deep_agent(model="openai:o3", system_prompt="Be brief.").invoke(
        {"messages": [{"role": "user", "content": "hi"}]}
    )
    body = sim.requests[0].body
    # max_tokens is deprecated for max_completion_tokens; o-series models get a developer prompt.
    assert body["max_completion_tokens"] == 50 and "max_tokens" not in body
    assert body["messages"][0]["role"] == "developer"


def test_tracing_metadata_is_not_a_request_parameter(sim: SimOpenAI) -> None:
    # `metadata` on ChatOpenAI is LangChain's tracing metadata, never sent: through LangChain.
    pytest.importorskip("langchain_openai")
    deepagents_rs.register_provider_profile(
        "openai", deepagents_rs.ProviderProfile(init_kwargs={"metadata": {"team": "a"}})
    )
    sim.script(text("ok"))
    create_deep_agent(model=MODEL).invoke({"messages": [{"role": "user", "content": "hi"}]})
    assert "metadata" not in sim.requests[0].body
    assert sim.requests[0].headers.get("x-stainless-lang") == "python"


def test_openai_api_base_is_read_first(sim: SimOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    # ChatOpenAI reads OPENAI_API_BASE before the SDK's OPENAI_BASE_URL.
    monkeypatch.setenv("OPENAI_API_BASE", sim.base_url)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    sim.script(text("ok"))
    create_deep_agent(model=MODEL).invoke({"messages": [{"role": "user", "content": "hi"}]})
    assert len(sim.requests) == 1


def test_tool_arguments_with_raw_control_characters_are_valid_calls(sim: SimOpenAI) -> None:
    # json.loads(strict=False), as langchain-openai parses them.
    sim.script(tool_calls(("lookup", '{"key": "a\tb"}')), text("done"))
    result = create_deep_agent(model=MODEL, tools=[lookup]).invoke({"messages": [{"role": "user", "content": "go"}]})
    ai = result["messages"][1]
    assert ai.tool_calls[0]["args"] == {"key": "a\tb"} and not ai.invalid_tool_calls
