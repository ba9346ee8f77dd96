"""``RubricMiddleware`` against deepagents: bad arguments, the grader response's validation, the
beta warning, log records and the declared state."""

from __future__ import annotations

import asyncio
import copy
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from fake_models import ScriptedChatModel

from .harness import MODES, call_view, norm
from .rubric_support import CATS_FAIL, CATS_PASS, IMPLS, USER, GraderInput, _stable, verdict

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

# -- bad arguments ---------------------------------------------------------------------------

BAD = {
    "no_model": {"model": ""},
    "max_iterations_str": {"max_iterations": "3"},
    "max_iterations_bool": {"max_iterations": True},
    "max_iterations_float": {"max_iterations": 2.0},
    "max_iterations_zero": {"max_iterations": 0},
    "max_iterations_negative": {"max_iterations": -2},
    "state_without_schema": {"build_grader_state": lambda state, iteration: {}},
    "prepare_not_callable": {"prepare_messages_for_grader": "first"},
    "build_not_callable": {"build_grader_state": 3, "grader_state_schema": GraderInput},
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_arguments_raise_as_in_deepagents(case: str) -> None:
    errors = []
    for module in IMPLS.values():
        kwargs = {"model": ScriptedChatModel([]), **BAD[case]}
        with pytest.raises(Exception) as info:
            module.middleware.RubricMiddleware(**kwargs)
        errors.append((type(info.value), str(info.value)))
    assert errors[1] == errors[0]


def test_the_model_is_keyword_only() -> None:
    for module in IMPLS.values():
        with pytest.raises(TypeError):
            module.middleware.RubricMiddleware(ScriptedChatModel([]))


def test_grader_response_validates_as_in_deepagents() -> None:
    cases = [
        {"result": "satisfied", "explanation": "x", "criteria": [{"name": "a", "passed": False, "gap": "g"}]},
        {"result": "needs_revision", "explanation": "x", "criteria": [{"name": "a", "passed": True}]},
        {"result": "needs_revision", "explanation": "x", "criteria": [{"name": "a", "passed": False}]},
        {"result": "done", "explanation": "x", "criteria": []},
    ]
    schemas = [m.middleware.GraderResponse.model_json_schema() for m in IMPLS.values()]
    assert schemas[1] == schemas[0]
    for data in cases:
        errors = []
        for module in IMPLS.values():
            with pytest.raises(ValueError) as info:
                module.middleware.GraderResponse.model_validate(data)
            errors.append([(e["type"], e["loc"], e["msg"]) for e in info.value.errors()])
        assert errors[1] == errors[0]


def test_both_warn_that_the_middleware_is_in_beta() -> None:
    # LangChain warns once per process: each implementation gets a fresh one.
    script = (
        "import warnings, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})\n"
        "from fake_models import ScriptedChatModel\n"
        "import {module}.middleware as m\n"
        "with warnings.catch_warnings(record=True) as record:\n"
        "    warnings.simplefilter('always')\n"
        "    m.RubricMiddleware(model=ScriptedChatModel([]))\n"
        "print([(type(w.message).__name__, str(w.message)) for w in record])\n"
    )
    outputs = [
        subprocess.run(
            [sys.executable, "-c", script.format(module=name)], capture_output=True, text=True, check=True
        ).stdout
        for name in IMPLS
    ]
    assert outputs[1] == outputs[0]
    assert "LangChainBetaWarning" in outputs[0]


@pytest.mark.parametrize("mode", MODES)
def test_a_grader_with_native_structured_output(mode: str) -> None:
    """A grader model with provider-native structured output answers in its text (LangChain's
    AutoStrategy picks ProviderStrategy for it): the same requests, verdict and evaluations."""
    import json

    answer = {"result": "satisfied", "explanation": "Good.", "criteria": [{"name": "Mentions cats", "passed": True}]}
    runs = []
    for module in IMPLS.values():
        grader = ScriptedChatModel([json.dumps(answer)], profile={"structured_output": True})
        model = ScriptedChatModel(["hello, cats"])
        evaluations: list = []
        mw = module.middleware.RubricMiddleware(model=grader, on_evaluation=evaluations.append)
        agent = module.create_deep_agent(model=model, middleware=[mw])
        inp = copy.deepcopy(USER)
        result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
        calls = [_stable(call_view(c)) for c in grader.calls]
        runs.append((calls, _stable(evaluations), _stable(norm(result["messages"]))))
    assert runs[1] == runs[0]
    calls, evaluations, _ = runs[1]
    assert calls[0]["kwargs"]["response_format"]["json_schema"]["name"] == "GraderResponse"
    assert [e["result"] for e in evaluations] == ["satisfied"]


LOGGED = {
    "revision_then_pass": (["hello", "hello, cats"], [CATS_FAIL, CATS_PASS], {}),
    "exhausted": (["hello"], [CATS_FAIL], {"max_iterations": 1}),
    "unverified_and_exhausted": (
        ["hello"],
        [verdict("satisfied", "Fine."), verdict("satisfied", "Fine.")],
        {"max_iterations": 1},
    ),
    "retry_raises": (["hello"], [verdict("satisfied", "Fine.")], {"max_iterations": 1}),
    "under_reported_revision": (
        ["hello", "hello, cats", "hello, polite cats"],
        [CATS_FAIL, verdict("needs_revision", "Cats.", ("Mentions cats", False, "No cats.")), CATS_FAIL, CATS_PASS],
        {},
    ),
    "grader_fails": (["hello"], [], {}),
    "callback_raises": (["hello"], [CATS_PASS], {"on_evaluation": lambda evaluation: 1 / 0}),
}


@pytest.mark.parametrize("case", list(LOGGED))
def test_the_same_log_records(case: str, caplog: pytest.LogCaptureFixture) -> None:
    script, grader_script, kwargs = LOGGED[case]
    records = []
    for impl, module in IMPLS.items():
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger=f"{impl}.middleware.rubric"):
            mw = module.middleware.RubricMiddleware(model=ScriptedChatModel(list(grader_script)), **kwargs)
            agent = module.create_deep_agent(model=ScriptedChatModel(list(script)), middleware=[mw])
            agent.invoke(copy.deepcopy(USER))
        mine = [r for r in caplog.records if r.name == f"{impl}.middleware.rubric"]
        records.append(_stable([(r.levelname, r.getMessage(), r.exc_info is not None) for r in mine]))
    assert records[1] == records[0]
    assert records[0], "the scenario logs something"


def test_the_middleware_declares_what_deepagents_declares() -> None:
    """Name, hooks and their declared jumps, trace policy, and the state keys with their
    schema markings (which the graph's input and output schemas are made from)."""
    import typing

    from langchain.agents.factory import _get_can_jump_to

    views = []
    for module in IMPLS.values():
        mw = module.middleware.RubricMiddleware(model=ScriptedChatModel([]))
        hints = typing.get_type_hints(type(mw).state_schema, include_extras=True)
        markings = {k: [type(m).__name__ for m in getattr(v, "__metadata__", ())] for k, v in hints.items()}
        jumps = {h: _get_can_jump_to(mw, h) for h in ("before_agent", "after_agent", "before_model", "after_model")}
        views.append((mw.name, jumps, mw.trace_policy, markings, mw.max_iterations))
    assert views[1] == views[0]
