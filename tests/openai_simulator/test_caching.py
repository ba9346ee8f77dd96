"""The simulated OpenAI server's prompt-cache accounting (tests/sim/openai.py), read through the
official ``openai`` SDK: 128-token steps, minimum, prefixes, routing keys, TTL, context overflow."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from sim.openai import (
    Reply,
    SimOpenAI,
    StreamFault,
    server_error,
    text,
)

from .support import MODEL, RESP_TOOLS, TEXT, USER, cached, cparams, rparams

# --------------------------------------------------------------------------- caching


def test_identical_request_reads_in_128_token_steps(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(text("a"), text("b"))
    first = client.responses.create(**rparams())
    second = client.responses.create(**rparams())
    total = sim.tokens(sim.requests[0].body)
    assert total > 1024 + 128
    assert cached(first.usage) == 0
    assert cached(second.usage) == sim.cacheable(total) > 1024
    assert (cached(second.usage) - 1024) % 128 == 0 and total - cached(second.usage) < 128
    assert second.usage.input_tokens == total  # input_tokens includes the cached ones
    report = sim.requests[1].cache
    assert report.hit_creator_seq == 0 and report.stored[0] == 1024 and report.stored[-1] == report.cached_tokens


def test_prompts_below_the_minimum_are_not_cached(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(text("a"), text("b"))
    short = {"model": MODEL, "input": "hi"}
    client.responses.create(**short)
    assert cached(client.responses.create(**short).usage) == 0
    assert sim.requests[1].cache.stored == []


def test_extended_conversation_reads_the_shared_prefix(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(text("a"), text("b"))
    client.responses.create(**rparams())
    longer = rparams(input=[USER, {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "more"}])
    usage = client.responses.create(**longer).usage
    shared = sim.shared_tokens(sim.requests[0].body, sim.requests[1].body)
    assert cached(usage) == sim.cacheable(shared) > 0


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_fork_with_the_parents_key_hits_and_other_keys_miss(sim: SimOpenAI, client: openai.OpenAI, api: str) -> None:
    def call(user: str, key: str | None) -> Any:
        extra = {"prompt_cache_key": key} if key else {}
        if api == "responses":
            return client.responses.create(**rparams(user), **extra).usage
        return client.chat.completions.create(**cparams(user), **extra).usage

    sim.script(*[text("ok")] * 5)
    call("Research the topic.", "root-1")  # the parent
    fork = call("Sub-task: list the files.", "root-1")  # a fork sharing the key and the prefix
    shared = sim.shared_tokens(sim.requests[0].body, sim.requests[1].body)
    assert shared < sim.tokens(sim.requests[1].body)
    assert cached(fork) == sim.cacheable(shared) > 0
    assert sim.requests[1].cache.hit_creator_seq == 0 and sim.requests[1].cache.prompt_cache_key == "root-1"
    assert cached(call("Sub-task: list the files.", "other-key")) == 0
    assert cached(call("Sub-task: list the files.", None)) == 0
    # The key's own entries are still there.
    assert cached(call("Research the topic.", "root-1")) == sim.cacheable(sim.tokens(sim.requests[0].body))


def test_routing_by_key_can_be_turned_off() -> None:
    with SimOpenAI(route_by_key=False) as sim, openai.OpenAI(base_url=sim.base_url, api_key="k") as c:
        sim.script(text("a"), text("b"))
        c.responses.create(**rparams(), prompt_cache_key="a")
        assert cached(c.responses.create(**rparams(), prompt_cache_key="b").usage) > 0


def test_cache_is_per_model_and_per_api_key(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(*[text("ok")] * 3)
    client.responses.create(**rparams())
    assert cached(client.responses.create(**rparams(model="gpt-4.1")).usage) == 0
    with openai.OpenAI(base_url=sim.base_url, api_key="sk-other-org", max_retries=0) as other:
        assert cached(other.responses.create(**rparams()).usage) == 0


def test_reordered_tool_keys_miss(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(text("a"), text("b"))
    client.responses.create(**rparams())
    reordered = [dict(reversed(list(RESP_TOOLS[0].items())))]
    # The tools come first in the prompt, so nothing is shared.
    assert cached(client.responses.create(**rparams(tools=reordered)).usage) == 0


def test_ttl_refresh_expiry_and_24h_retention(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(*[text("ok")] * 6)
    client.responses.create(**rparams())
    sim.advance(599)
    assert cached(client.responses.create(**rparams()).usage) > 0  # and refreshed
    sim.advance(599)
    assert cached(client.responses.create(**rparams()).usage) > 0
    sim.advance(601)
    assert cached(client.responses.create(**rparams()).usage) == 0
    long_lived = rparams(prompt_cache_retention="24h", prompt_cache_key="k24")
    client.responses.create(**long_lived)
    sim.advance(3600 * 23)
    assert cached(client.responses.create(**long_lived).usage) > 0


def test_streamed_and_failed_requests_and_the_cache(sim: SimOpenAI, client: openai.OpenAI) -> None:
    sim.script(server_error(), Reply(body=text(TEXT), stream_fault=StreamFault(kind="reset")), text("b"))
    with pytest.raises(openai.InternalServerError):
        client.responses.create(**rparams())
    assert sim.requests[0].cache is None  # an error reply touches no cache
    with pytest.raises(openai.APIConnectionError), client.responses.stream(**rparams()) as s:
        s.get_final_response()
    # The faulted stream committed its writes when it started.
    assert cached(client.responses.create(**rparams()).usage) > 0 and sim.requests[2].cache.hit_creator_seq == 1


def test_context_window_overflow() -> None:
    with SimOpenAI(context_window=1000) as sim, openai.OpenAI(base_url=sim.base_url, api_key="k") as c:
        sim.script(text("unused"))
        with pytest.raises(openai.BadRequestError) as info:
            c.responses.create(**rparams())
        assert (info.value.code, info.value.param) == ("context_length_exceeded", "input")
        assert info.value.message.endswith(
            "Your input exceeds the context window of this model. Please adjust your input and try again."
        )
        with pytest.raises(openai.BadRequestError) as info:
            c.chat.completions.create(**cparams())
        total = sim.tokens(sim.requests[1].body)
        assert info.value.body["message"] == (
            f"This model's maximum context length is 1000 tokens. However, your messages resulted in {total} "
            "tokens. Please reduce the length of the messages."
        )
        assert info.value.param == "messages" and sim.pending == 1
        assert c.responses.create(model=MODEL, input="short").output_text == "unused"
