"""The stack's own Bedrock and Fireworks caching middleware are called only for their models.

deepagents appends ``BedrockPromptCachingMiddleware`` and ``FireworksPromptCachingMiddleware``
(``unsupported_model_behavior="ignore"``) to every stack where ``langchain-aws`` /
``langchain-fireworks`` are installed. For any other model their ``wrap_model_call`` only
calls the handler, so the core calls the model without making the request (the whole
history) into Python objects for them; a model of their classes goes through them as before.
What they do for their models is compared with deepagents in
``tests/parity/test_provider_prompt_caching.py``.
"""

from __future__ import annotations

import asyncio
import warnings
from collections import Counter
from typing import Any

import pytest

pytest.importorskip("deepagents")
pytest.importorskip("langchain_aws", reason="langchain-aws (Bedrock prompt caching) is not installed")
pytest.importorskip("langchain_fireworks", reason="langchain-fireworks (Fireworks prompt caching) is not installed")

import deepagents
import deepagents_rs
from deepagents_rs import _excluded_middleware
from deepagents_rs._middleware import MiddlewareAdapter
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_aws.middleware import prompt_caching as bedrock_caching
from langchain_aws.middleware.prompt_caching import BedrockPromptCachingMiddleware
from langchain_fireworks import ChatFireworks
from langchain_fireworks.middleware import prompt_caching as fireworks_caching

CACHING = ("BedrockPromptCachingMiddleware", "FireworksPromptCachingMiddleware")
USER = {"messages": [{"role": "user", "content": "Look k up."}]}


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


class ScriptedFireworks(ScriptedChatModel, ChatFireworks):
    """A scripted model that is a ``ChatFireworks``: Fireworks' middleware acts on it."""


def _script() -> list[Any]:
    return [ai_tool_calls(("lookup", {"key": "k"}, "call_1")), "done"]


@pytest.fixture
def wrapper_calls(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """How often each Python middleware's model wrapper was called, by middleware name."""
    calls: Counter = Counter()
    sync, asynchronous = MiddlewareAdapter.wrap_model_call, MiddlewareAdapter.awrap_model_call

    def counted(self: MiddlewareAdapter, *args: Any, **kwargs: Any) -> Any:
        calls[self.name] += 1
        return sync(self, *args, **kwargs)

    async def acounted(self: MiddlewareAdapter, *args: Any, **kwargs: Any) -> Any:
        calls[self.name] += 1
        return await asynchronous(self, *args, **kwargs)

    monkeypatch.setattr(MiddlewareAdapter, "wrap_model_call", counted)
    monkeypatch.setattr(MiddlewareAdapter, "awrap_model_call", acounted)
    return calls


def _run(agent: Any, mode: str) -> dict:
    return agent.invoke(USER) if mode == "invoke" else asyncio.run(agent.ainvoke(USER))


def _answer(out: dict) -> list[tuple[str, Any]]:
    return [(m.type, m.content) for m in out["messages"]]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_langchain_model_of_another_class_is_called_without_them(wrapper_calls: Counter, mode: str) -> None:
    results = {}
    for impl in (deepagents, deepagents_rs):
        agent = impl.create_deep_agent(model=ScriptedChatModel(_script()), tools=[lookup])
        results[impl.__name__] = _answer(_run(agent, mode))
    assert results["deepagents_rs"] == results["deepagents"]
    assert results["deepagents_rs"][-1] == ("ai", "done")
    assert not any(wrapper_calls[name] for name in CACHING), wrapper_calls


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_model_of_their_class_goes_through_them(wrapper_calls: Counter, mode: str) -> None:
    model = ScriptedFireworks(_script(), api_key="test", model="accounts/fireworks/models/test")
    agent = deepagents_rs.create_deep_agent(model=model, tools=[lookup])
    assert _answer(_run(agent, mode))[-1] == ("ai", "done")
    # Two model calls, each through Fireworks' middleware; Bedrock's still skips this model.
    assert wrapper_calls["FireworksPromptCachingMiddleware"] == 2
    assert wrapper_calls["BedrockPromptCachingMiddleware"] == 0


def test_the_stacks_own_instances_name_the_classes_their_module_checks() -> None:
    # What a stack makes (held here: a stack whose model they cannot act on leaves them out of
    # its chain, so a built agent need not keep them alive). The names are written down in
    # deepagents_rs (so that the packages load only when used): they must be the classes
    # the installed middleware modules check.
    made = _excluded_middleware._caching_slots()[1:]
    names = {m.name: _excluded_middleware.acts_only_on(m) for m in made}
    name = _excluded_middleware.class_name
    assert names == {
        "BedrockPromptCachingMiddleware": [
            name(bedrock_caching.ChatBedrock),
            name(bedrock_caching.ChatBedrockConverse),
        ],
        "FireworksPromptCachingMiddleware": [name(fireworks_caching.ChatFireworks)],
    }
    # Each excluded by LangChain's class, once that is loaded (as it is here).
    assert [m.excluded_as for m in made] == [
        bedrock_caching.BedrockPromptCachingMiddleware,
        fireworks_caching.FireworksPromptCachingMiddleware,
    ]


def test_other_instances_are_always_called(monkeypatch: pytest.MonkeyPatch) -> None:
    # A caller's own instance, even one that ignores other models.
    assert (
        _excluded_middleware.acts_only_on(BedrockPromptCachingMiddleware(unsupported_model_behavior="ignore")) is None
    )
    made = _excluded_middleware._caching_slots()[1:]
    bedrock = next(m for m in made if m.name == "BedrockPromptCachingMiddleware")
    assert _excluded_middleware.acts_only_on(bedrock) is not None
    # One with a method of its own, or whose real class's method was replaced.
    bedrock._should_apply_caching = lambda request: True
    assert _excluded_middleware.acts_only_on(bedrock) is None
    del bedrock._should_apply_caching
    assert _excluded_middleware.acts_only_on(bedrock) is not None
    monkeypatch.setattr(
        BedrockPromptCachingMiddleware, "wrap_model_call", lambda self, request, handler: handler(request)
    )
    assert _excluded_middleware.acts_only_on(bedrock) is None


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_callers_warning_instance_warns_on_every_call_as_in_deepagents(mode: str) -> None:
    """A caller's own ``BedrockPromptCachingMiddleware()`` (it warns for other models) takes the
    slot and is called for every model call, as in deepagents."""
    counts = {}
    for impl in (deepagents, deepagents_rs):
        agent = impl.create_deep_agent(
            model=ScriptedChatModel(_script()), tools=[lookup], middleware=[BedrockPromptCachingMiddleware()]
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _run(agent, mode)
        counts[impl.__name__] = sum("BedrockPromptCachingMiddleware only supports" in str(w.message) for w in caught)
    assert counts["deepagents_rs"] == counts["deepagents"] == 2
