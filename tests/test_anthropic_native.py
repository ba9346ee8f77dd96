"""The native Rust Anthropic client, against the simulated Messages API.

The reference runs the same script through deepagents + langchain-anthropic on the same
server, so the wire requests can be compared field by field.
"""

from __future__ import annotations

import deepagents_rs
import pytest
from deepagents_rs import create_deep_agent
from sim.anthropic import Reply, SimAnthropic, text, tool_use

MODEL = "anthropic:claude-sonnet-4-5"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _script(sim: SimAnthropic) -> None:
    sim.script(tool_use(("add", {"a": 2, "b": 3}, "toolu_1"), text="Adding."), text("It is 5."))


def _run_reference(sim: SimAnthropic, **kwargs) -> list[dict]:
    deepagents = pytest.importorskip("deepagents")
    start = len(sim.requests)
    _script(sim)
    agent = deepagents.create_deep_agent(model=MODEL, tools=[add], **kwargs)
    agent.invoke({"messages": [{"role": "user", "content": "what is 2+3?"}]})
    return [r.body for r in sim.requests[start:]]


def _run_ours(sim: SimAnthropic, **kwargs) -> tuple[dict, list[dict]]:
    start = len(sim.requests)
    _script(sim)
    agent = create_deep_agent(model=MODEL, tools=[add], **kwargs)
    result = agent.invoke({"messages": [{"role": "user", "content": "what is 2+3?"}]})
    return result, [r.body for r in sim.requests[start:]]


@pytest.mark.parametrize("system_prompt", [None, "You are a careful calculator."])
def test_wire_requests_match_deepagents(sim: SimAnthropic, system_prompt: str | None) -> None:
    reference = _run_reference(sim, system_prompt=system_prompt)
    _, ours = _run_ours(sim, system_prompt=system_prompt)
    assert len(ours) == len(reference) == 2
    for mine, theirs in zip(ours, reference, strict=True):
        assert mine == theirs


def test_headers_and_result_shape(sim: SimAnthropic) -> None:
    result, _ = _run_ours(sim)
    headers = sim.requests[0].headers
    assert headers["x-api-key"] == "sk-test-not-a-real-key"
    assert headers["anthropic-version"] == "2023-06-01"
    assert sim.requests[0].path == "/v1/messages"
    human, ai_call, tool_msg, ai_final = result["messages"]
    assert human.content == "what is 2+3?"
    assert ai_call.tool_calls == [{"name": "add", "args": {"a": 2, "b": 3}, "id": "toolu_1", "type": "tool_call"}]
    assert ai_call.content[0] == {"type": "text", "text": "Adding."}
    assert ai_call.response_metadata["stop_reason"] == "tool_use"
    assert ai_call.response_metadata["model_provider"] == "anthropic"
    assert tool_msg.content == "5" and tool_msg.tool_call_id == "toolu_1" and tool_msg.status == "success"
    assert ai_final.content == "It is 5."
    usage = ai_final.usage_metadata
    reported = sim.requests[1].response["usage"]
    total_in = reported["input_tokens"] + reported["cache_read_input_tokens"] + reported["cache_creation_input_tokens"]
    assert usage["input_tokens"] == total_in
    assert usage["output_tokens"] == reported["output_tokens"]
    assert usage["input_token_details"]["cache_read"] == reported["cache_read_input_tokens"]


def test_second_call_reads_the_cache_the_first_wrote(sim: SimAnthropic) -> None:
    _run_ours(sim, system_prompt="You are a careful calculator. " * 20)
    first, second = (r.response["usage"] for r in sim.requests)
    assert first["cache_creation_input_tokens"] > 0
    # Everything the first request wrote is a prefix of the second one.
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]


def test_usage_matches_langchain_anthropic(sim: SimAnthropic) -> None:
    deepagents = pytest.importorskip("deepagents")
    _script(sim)
    ref = deepagents.create_deep_agent(model=MODEL, tools=[add]).invoke({"messages": [("user", "what is 2+3?")]})
    sim.reset()
    result, _ = _run_ours(sim)
    ref_usage = [m.usage_metadata.keys() for m in ref["messages"] if m.type == "ai"]
    our_usage = [m.usage_metadata.keys() for m in result["messages"] if m.type == "ai"]
    assert our_usage == ref_usage


def test_api_error_is_typed_and_keeps_the_key_secret(sim: SimAnthropic) -> None:
    sim.script(
        Reply(status=400, body={"type": "error", "error": {"type": "invalid_request_error", "message": "bad thing"}})
    )
    agent = create_deep_agent(model=MODEL)
    with pytest.raises(deepagents_rs.ModelProviderError) as info:
        agent.invoke({"messages": [("user", "hi")]})
    err = info.value
    assert (err.status_code, err.error_type, err.provider_message) == (400, "invalid_request_error", "bad thing")
    assert "sk-test" not in str(err) and "sk-test" not in repr(err)


def test_retries_overloaded_then_succeeds(sim: SimAnthropic) -> None:
    sim.script(Reply(status=529, headers={"retry-after": "0"}), text("finally"))
    result = create_deep_agent(model=MODEL).invoke({"messages": [("user", "hi")]})
    assert result["messages"][-1].content == "finally"
    assert [r.headers.get("x-stainless-retry-count") for r in sim.requests] == ["0", "1"]


def test_missing_api_key_is_a_clear_error_without_langchain(monkeypatch: pytest.MonkeyPatch) -> None:
    # With LangChain installed its client decides (tests/parity/test_missing_api_key.py).
    from deepagents_rs import _native_models

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setattr(_native_models, "_has_langchain", lambda: False)
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
        create_deep_agent(model=MODEL)


def test_unreachable_server_is_a_connection_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-x")
    # A port nobody listens on: the sim picks free ports, so bind one and close it.
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    agent = create_deep_agent(model=MODEL)
    with pytest.raises(deepagents_rs.ModelConnectionError):
        agent.invoke({"messages": [("user", "hi")]})


async def test_ainvoke_native(sim: SimAnthropic) -> None:
    _script(sim)
    agent = create_deep_agent(model=MODEL, tools=[add])
    result = await agent.ainvoke({"messages": [("user", "what is 2+3?")]})
    assert [m.type for m in result["messages"]] == ["human", "ai", "tool", "ai"]


def _wire_both(sim: SimAnthropic, messages: list, **kwargs) -> tuple[dict, dict]:
    """The first request each implementation sends for `messages`, after one scripted reply."""
    deepagents = pytest.importorskip("deepagents")
    bodies = []
    for create in (deepagents.create_deep_agent, create_deep_agent):
        start = len(sim.requests)
        sim.script(text("ok"))
        create(model=MODEL, **kwargs).invoke({"messages": messages})
        bodies.append(sim.requests[start].body)
    return bodies[0], bodies[1]


def test_system_messages_in_the_input_join_the_system_prompt(sim: SimAnthropic) -> None:
    from langchain_core.messages import HumanMessage, SystemMessage

    messages = [SystemMessage("EXTRA RULE"), HumanMessage("hi")]
    reference, ours = _wire_both(sim, messages, system_prompt="You are careful.")
    assert ours["system"] == reference["system"]
    assert ours["messages"] == reference["messages"]


def test_a_system_message_mid_conversation_is_refused(sim: SimAnthropic) -> None:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    agent = create_deep_agent(model=MODEL)
    with pytest.raises(ValueError, match="non-consecutive system messages"):
        agent.invoke({"messages": [HumanMessage("hi"), AIMessage("yes"), SystemMessage("late"), HumanMessage("go")]})


def test_image_blocks_become_anthropic_images(sim: SimAnthropic) -> None:
    from langchain_core.messages import HumanMessage

    content = [
        {"type": "text", "text": "what is in these?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "image", "base64": "R0lGODlh", "mime_type": "image/gif"},
        {"type": "image", "url": "https://example.com/cat.jpg"},
    ]
    reference, ours = _wire_both(sim, [HumanMessage(content=content)])
    assert ours["messages"] == reference["messages"]
    assert ours["messages"][0]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    }


def test_provider_side_tools_are_sent_as_defined(sim: SimAnthropic) -> None:
    web_search = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    reference, ours = _wire_both(sim, [("user", "search")], tools=[web_search])
    assert ours["tools"] == reference["tools"]
    # A tool given as a dict is not tagged for caching (deepagents tags tool objects only).
    assert ours["tools"][-1] == web_search


def test_native_replies_carry_langchain_ids(sim: SimAnthropic) -> None:
    sim.script(text("hello"))
    result = create_deep_agent(model=MODEL).invoke({"messages": [("user", "hi")]})
    reply = result["messages"][-1]
    assert reply.id.startswith("lc_run--")
    assert reply.response_metadata["id"] == sim.requests[-1].response["id"]


@pytest.mark.parametrize("system_prompt", [None, "You are a careful calculator."])
def test_chat_anthropic_objects_get_deepagents_caching(sim: SimAnthropic, system_prompt: str | None) -> None:
    """A ChatAnthropic object is called back through Python; its requests carry the same
    cache breakpoints as deepagents gives them (and as the native client sends)."""
    deepagents = pytest.importorskip("deepagents")
    from langchain_anthropic import ChatAnthropic

    bodies = []
    for create in (deepagents.create_deep_agent, create_deep_agent):
        start = len(sim.requests)
        _script(sim)
        model = ChatAnthropic(model="claude-sonnet-4-5", base_url=sim.base_url, api_key="sk-test")
        create(model=model, tools=[add], system_prompt=system_prompt).invoke({"messages": [("user", "2+3?")]})
        bodies.append([r.body for r in sim.requests[start:]])
    reference, ours = bodies
    assert ours == reference
    assert ours[0]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert ours[0]["tools"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}


def test_chat_anthropic_object_without_user_tools_tags_the_task_tool(sim: SimAnthropic) -> None:
    deepagents = pytest.importorskip("deepagents")
    from langchain_anthropic import ChatAnthropic

    tools = []
    for create in (deepagents.create_deep_agent, create_deep_agent):
        start = len(sim.requests)
        sim.script(text("ok"))
        model = ChatAnthropic(model="claude-sonnet-4-5", base_url=sim.base_url, api_key="sk-test")
        create(model=model).invoke({"messages": [("user", "hi")]})
        tools.append(sim.requests[start].body["tools"][-1])
    assert tools[0] == tools[1]
    assert tools[1]["name"] == "task" and "cache_control" in tools[1]


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "anthropic:claude-sonnet-4-6"])
def test_profile_suffix_follows_the_model_string_as_written(sim: SimAnthropic, model: str) -> None:
    deepagents = pytest.importorskip("deepagents")
    systems = []
    for create in (deepagents.create_deep_agent, create_deep_agent):
        start = len(sim.requests)
        sim.script(text("ok"))
        create(model=model, system_prompt="Parent.").invoke({"messages": [("user", "hi")]})
        systems.append(sim.requests[start].body["system"])
    assert systems[0] == systems[1]
