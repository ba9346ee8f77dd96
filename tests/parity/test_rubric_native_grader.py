"""``RubricMiddleware`` with a model string for the grader, run on the native clients against
langchain-openai / langchain-anthropic on the simulated APIs: the grader's requests, its
verdict, and what a failing grader's ``grader_error`` names (the error, its HTTP status, the
model and the strategy the resolved model answers through)."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel

from .native_structured import NATIVE_MODELS, native_sim, point_at, sim_bodies

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

USER = {"messages": [("user", "say hi")], "rubric": "Mention cats."}
PASS = {"result": "satisfied", "explanation": "Good.", "criteria": [{"name": "Mentions cats", "passed": True}]}
_NONCE = re.compile(r"-[0-9a-f]{16}(?=[>`])")
#: A model whose LangChain profile has no native structured output: the grader answers
#: through the GraderResponse tool.
TOOL_MODELS = {"anthropic": "anthropic:claude-2", "openai-responses": "openai:gpt-3.5-turbo"}


def graded_runs(kind: str, sim: Any, replies: list, grader_model: str) -> list[tuple[list[str], list]]:
    """Each implementation's grader request bodies and evaluations."""
    point_at(kind, sim)
    runs = []
    for impl in (deepagents, deepagents_rs):
        start = len(sim.requests)
        sim.script(*replies)
        evaluations: list = []
        mw = impl.middleware.RubricMiddleware(model=grader_model, on_evaluation=evaluations.append)
        agent = impl.create_deep_agent(model=ScriptedChatModel(["hello, cats"]), middleware=[mw])
        agent.invoke(copy.deepcopy(USER))
        bodies = [_NONCE.sub("-NONCE", body) for body in sim_bodies(sim, start)]
        runs.append((bodies, [(e["result"], e["explanation"], e["criteria"]) for e in evaluations]))
    return runs


@pytest.mark.parametrize("answer", ["verdict", "not_json"])
@pytest.mark.parametrize("kind", list(NATIVE_MODELS))
def test_a_native_grader_answers_in_its_text(
    kind: str, answer: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """A verdict, or text that does not parse: a grader_error in ProviderStrategy."""
    sim, text, _ = native_sim(kind, monkeypatch, request)
    with sim:
        reply = text(json.dumps(PASS) if answer == "verdict" else "not json")
        theirs, ours = graded_runs(kind, sim, [reply], NATIVE_MODELS[kind])
    assert ours == theirs
    assert "json_schema" in ours[0][0]
    ((result, explanation, _),) = ours[1]
    if answer == "verdict":
        assert result == "satisfied"
    else:
        assert result == "grader_error"
        assert f"configured_model={NATIVE_MODELS[kind]!r}, effective_strategy=ProviderStrategy" in explanation


@pytest.mark.parametrize("kind", list(TOOL_MODELS))
def test_a_native_grader_without_native_output_answers_through_the_tool(
    kind: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    sim, _, tool_call = native_sim(kind, monkeypatch, request)
    with sim:
        theirs, ours = graded_runs(kind, sim, [tool_call(("GraderResponse", PASS, "call_1"))], TOOL_MODELS[kind])
    assert ours == theirs
    assert "json_schema" not in ours[0][0]
    assert [v[0] for v in ours[1]] == ["satisfied"]


_DIAGNOSTICS = re.compile(r"^Grader raised \w+( \(HTTP \d+\))? (\(configured_model=.*?, effective_strategy=\w+\)): ")


@pytest.mark.parametrize("kind", ["anthropic", "openai-responses"])
@pytest.mark.parametrize("which", ["native", "tool"])
def test_a_failing_native_grader_names_its_status_model_and_strategy(
    kind: str, which: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The error's class and text are the client's (the native clients' errors are their own
    kind, not the SDKs'); the HTTP status, the model and the strategy are the rubric's."""
    sim, _, _ = native_sim(kind, monkeypatch, request)
    if kind == "anthropic":
        from sim.anthropic import Reply

        failure = Reply(status=400)
    else:
        from sim.openai import error_reply

        failure = error_reply(400)
    model = NATIVE_MODELS[kind] if which == "native" else TOOL_MODELS[kind]
    with sim:
        theirs, ours = graded_runs(kind, sim, [failure], model)
    assert ours[0] == theirs[0], "the grader's requests differ"
    diagnostics = []
    for _, views in (theirs, ours):
        ((result, explanation, criteria),) = views
        match = _DIAGNOSTICS.match(explanation)
        assert match is not None, explanation
        diagnostics.append((result, criteria, match.group(1), match.group(2)))
    assert diagnostics[1] == diagnostics[0]
    strategy = "ProviderStrategy" if which == "native" else "ToolStrategy"
    assert diagnostics[0] == (
        "grader_error",
        [],
        " (HTTP 400)",
        f"(configured_model={model!r}, effective_strategy={strategy})",
    )


def test_an_openai_grader_without_its_key() -> None:
    """OpenAI's client refuses to build without a key: the model never resolved, so its
    strategy is unknown (a native client would only fail when called)."""
    spec = "openai:gpt-4.1"
    views = []
    for impl in (deepagents, deepagents_rs):
        evaluations: list = []
        mw = impl.middleware.RubricMiddleware(model=spec, on_evaluation=evaluations.append)
        agent = impl.create_deep_agent(model=ScriptedChatModel(["hello, cats"]), middleware=[mw])
        with pytest.MonkeyPatch.context() as patch:
            patch.delenv("OPENAI_API_KEY", raising=False)
            agent.invoke(copy.deepcopy(USER))
        ((evaluation,),) = [evaluations]
        views.append((evaluation["result"], _DIAGNOSTICS.match(evaluation["explanation"]).groups()))
    assert views[1] == views[0]
    assert views[0] == ("grader_error", (None, f"(configured_model={spec!r}, effective_strategy=unknown)"))
