"""A ``wrap_model_call`` middleware's own structured output for one call
(``handler(request.override(response_format=...))``), side by side with deepagents: a
provider-native format on an agent without one, a bare schema (``AutoStrategy``) deciding by
the model, a union narrowed to one of the agent's schema tools, no format for the call, and
LangChain's refusal of a schema tool the agent did not declare."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel
from langchain.agents.middleware import AgentMiddleware
from langchain.agents.structured_output import ProviderStrategy, ToolStrategy
from pydantic import BaseModel

from .harness import MODES, Both, Outcome, ai_tool_calls, assert_parity, assert_same_error

USER = {"messages": [{"role": "user", "content": "go"}]}
NATIVE = {"structured_output": True}


class Verdict(BaseModel):
    """A verdict."""

    ok: bool


class Note(BaseModel):
    """A note."""

    text: str


class OwnFormat(AgentMiddleware):
    """Calls the model with its own response format (on every call, or the first only)."""

    def __init__(self, response_format: Any, first_only: bool = False) -> None:
        super().__init__()
        self.format = response_format
        self.first_only = first_only
        self.calls = 0

    def _request(self, request: Any) -> Any:
        self.calls += 1
        if self.first_only and self.calls > 1:
            return request
        return request.override(response_format=self.format)

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(self._request(request))

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return await handler(self._request(request))


def _run(impl: Any, script: list, profile: dict | None, mode: str, own: Any, **kwargs: Any) -> Outcome:
    model = ScriptedChatModel(list(script), profile=profile)
    outcome = Outcome(impl=impl.__name__, model=model)
    agent = impl.create_deep_agent(model=model, middleware=[OwnFormat(*own)], **kwargs)
    try:
        inp = copy.deepcopy(USER)
        outcome.result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
    except Exception as exc:  # noqa: BLE001 - compared below
        outcome.error = exc
    return outcome


def run_both(script: list, own: Any, *, profile: dict | None = None, mode: str = "invoke", **kwargs: Any) -> Both:
    return Both(
        ref=_run(deepagents, script, profile, mode, own, **kwargs),
        rs=_run(deepagents_rs, script, profile, mode, own, **kwargs),
    )


def _same_result(both: Both) -> dict:
    ref = assert_parity(both)
    rs = both.rs.unwrap()
    assert rs.get("structured_response") == ref.get("structured_response")
    return ref


@pytest.mark.parametrize("mode", MODES)
def test_provider_format_of_a_middleware_on_an_agent_without_one(mode: str) -> None:
    both = run_both(['{"ok": true}'], (ProviderStrategy(Verdict),), mode=mode)
    ref = _same_result(both)
    assert ref["structured_response"] == Verdict(ok=True)
    assert both.rs.calls[0].kwargs["response_format"]["json_schema"]["name"] == "Verdict"


@pytest.mark.parametrize("profile", [NATIVE, None], ids=["native", "tools"])
def test_a_bare_schema_decides_by_the_model(profile: dict | None) -> None:
    # Natively where the model supports it; else a tool strategy, which LangChain refuses
    # for a schema the agent did not declare.
    both = run_both(['{"ok": false}'], (Verdict,), profile=profile)
    if profile is None:
        assert_same_error(both)
        assert isinstance(both.rs.error, ValueError)
    else:
        assert _same_result(both)["structured_response"] == Verdict(ok=False)


@pytest.mark.parametrize("mode", MODES)
def test_a_union_narrowed_to_one_schema_tool(mode: str) -> None:
    script = [ai_tool_calls(("Note", {"text": "n"}, "s1"))]
    both = run_both(script, (ToolStrategy(Note),), mode=mode, response_format=ToolStrategy(Verdict | Note))
    ref = _same_result(both)
    assert ref["structured_response"] == Note(text="n")
    assert [t for t in both.rs.calls[0].tool_names if t in ("Note", "Verdict")] == ["Note"]


def test_no_format_for_one_call() -> None:
    script = ["plain answer", ai_tool_calls(("Verdict", {"ok": True}, "s1"))]
    both = run_both(script, (None, True), response_format=ToolStrategy(Verdict))
    ref = _same_result(both)
    # No schema tool and no forced call; the run ends on the plain answer, its response
    # cleared as LangChain clears it.
    assert "Verdict" not in both.rs.calls[0].tool_names
    assert both.rs.calls[0].kwargs.get("tool_choice") != "any"
    assert "structured_response" in ref
    assert ref["structured_response"] is None


def test_a_schema_tool_the_agent_did_not_declare_is_refused() -> None:
    both = run_both([ai_tool_calls(("Note", {"text": "n"}, "s1"))], (ToolStrategy(Note),), response_format=Verdict)
    assert_same_error(both)
    assert "wasn't declared in the original response format" in str(both.rs.error)
