"""``RubricMiddleware`` against deepagents: the same agent and grader scripts run through both
implementations, comparing what the agent's model and the grader's model are sent, the run's
result, the evaluations (``on_evaluation``, the custom stream, the private state) and the
errors for bad arguments.

The grader's payload carries a fresh random nonce in its delimiters, and each grading run a
fresh uuid: both are replaced by placeholders before comparing (``_stable``)."""

from __future__ import annotations

import asyncio
import copy
import logging
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NotRequired

import deepagents
import deepagents.middleware
import deepagents_rs
import deepagents_rs.middleware
import pytest
from fake_models import ScriptedChatModel
from langchain.agents.middleware.types import AgentMiddleware, AgentState
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from .harness import MODES, ai_tool_calls, call_view, id_shapes, norm

# Both implementations warn that the middleware is in beta (checked once, below).
pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = {"deepagents": deepagents, "deepagents_rs": deepagents_rs}
RUBRIC = "Mention cats. Be polite."
USER = {"messages": [("user", "say hi")], "rubric": RUBRIC}

_NONCE = re.compile(r"-[0-9a-f]{16}(?=[>`])")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def verdict(result: str, explanation: str, *criteria: tuple, call_id: str = "g") -> AIMessage:
    """The grader's answer: a ``GraderResponse`` call; each criterion is ``(name, passed)`` or
    ``(name, False, gap)``."""
    entries = [{"name": c[0], "passed": c[1], **({"gap": c[2]} if len(c) > 2 else {})} for c in criteria]
    return ai_tool_calls(
        ("GraderResponse", {"result": result, "explanation": explanation, "criteria": entries}, call_id)
    )


CATS_FAIL = verdict("needs_revision", "Too short.", ("Mentions cats", False, "No cats."), ("Polite", True))
CATS_PASS = verdict("satisfied", "Good.", ("Mentions cats", True), ("Polite", True))


def _stable(value: Any, ids: dict[str, str] | None = None) -> Any:
    """``value`` with nonces and uuids replaced by placeholders (uuids by order of appearance)."""
    ids = {} if ids is None else ids
    if isinstance(value, str):
        value = _NONCE.sub("-NONCE", value)
        return _UUID.sub(lambda m: ids.setdefault(m.group(0), f"uuid-{len(ids)}"), value)
    if isinstance(value, dict):
        return {k: _stable(v, ids) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_stable(v, ids) for v in value)
    return value


class Run:
    """One implementation's run: result or error, both models' calls, what was reported."""

    def __init__(self, impl: str) -> None:
        self.impl = impl
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.evaluations: list[dict] = []
        self.chunks: list[Any] = []
        self.agent: Any = None
        self.model: ScriptedChatModel | None = None
        self.grader: ScriptedChatModel | None = None

    def grader_calls(self) -> list[dict]:
        return [_stable(call_view(c)) for c in self.grader.calls]

    def model_calls(self) -> list[dict]:
        return [call_view(c) for c in self.model.calls]


def run(impl: str, script: list, grader_script: list, *, mode: str = "invoke", inp: Any = USER, **mw: Any) -> Run:
    module = IMPLS[impl]
    out = Run(impl)
    out.model, out.grader = ScriptedChatModel(list(script)), ScriptedChatModel(list(grader_script))
    middleware = module.middleware.RubricMiddleware(model=out.grader, on_evaluation=out.evaluations.append, **mw)
    out.agent = module.create_deep_agent(model=out.model, middleware=[middleware])
    inp = copy.deepcopy(inp)
    try:
        if mode == "invoke":
            out.result = out.agent.invoke(inp)
        elif mode == "ainvoke":
            out.result = asyncio.run(out.agent.ainvoke(inp))
        elif mode == "stream":
            out.chunks = list(out.agent.stream(inp, stream_mode=["updates", "custom"]))
        else:

            async def collect() -> list:
                return [c async for c in out.agent.astream(inp, stream_mode=["updates", "custom"])]

            out.chunks = asyncio.run(collect())
    except Exception as exc:  # noqa: BLE001 - compared below
        out.error = exc
    return out


def run_both(script: list, grader_script: list, **kwargs: Any) -> tuple[Run, Run]:
    ref, rs = (run(impl, script, grader_script, **kwargs) for impl in IMPLS)
    assert rs.model_calls() == ref.model_calls(), "the agent's model calls differ"
    assert rs.grader_calls() == ref.grader_calls(), "the grader's model calls differ"
    assert _stable(rs.evaluations) == _stable(ref.evaluations), "the evaluations differ"
    if ref.error is not None or rs.error is not None:
        assert type(rs.error) is type(ref.error) and str(rs.error) == str(ref.error), (ref.error, rs.error)
        return ref, rs
    if ref.result is not None:
        assert sorted(rs.result) == sorted(ref.result), "result keys differ"
        assert norm(rs.result["messages"]) == norm(ref.result["messages"])
        assert id_shapes(rs.result["messages"]) == id_shapes(ref.result["messages"])
        assert rs.result.get("rubric") == ref.result.get("rubric")
    return ref, rs


def revision_texts(result: dict) -> list[str]:
    return [m.content for m in result["messages"] if m.additional_kwargs.get("lc_source") == "rubric_grader"]


# -- verdicts --------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_satisfied_verdict_ends_the_run(mode: str) -> None:
    _ref, rs = run_both(["hello, polite cats"], [CATS_PASS], mode=mode)
    assert [m.content for m in rs.result["messages"]] == ["say hi", "hello, polite cats"]
    assert [e["result"] for e in rs.evaluations] == ["satisfied"]
    assert len(rs.grader.calls) == 1 and rs.grader.calls[0].tool_names == ["GraderResponse"]
    assert rs.grader.calls[0].kwargs == {"tool_choice": "any"}
    payload = rs.grader.calls[0].messages[1].content
    assert (
        payload.startswith("This is grader iteration 0. ")
        and "[user] say hi\n\n[assistant] hello, polite cats" in payload
    )
    assert rs.grader.calls[0].messages[0].content == deepagents_rs.middleware.GRADER_SYSTEM_PROMPT


@pytest.mark.parametrize("mode", MODES)
def test_a_revision_then_a_pass(mode: str) -> None:
    ref, rs = run_both(["hello", "hello, polite cats"], [CATS_FAIL, CATS_PASS], mode=mode)
    assert [m.content for m in rs.result["messages"]][-1] == "hello, polite cats"
    (request,) = revision_texts(rs.result)
    assert request == revision_texts(ref.result)[0]
    assert "- Mentions cats: No cats." in request and "do not regress these:\n- Polite" in request
    revision = rs.result["messages"][2]
    assert isinstance(revision, HumanMessage) and revision.name == "rubric_grader"
    assert [e["result"] for e in rs.evaluations] == ["needs_revision", "satisfied"]
    assert [e["iteration"] for e in rs.evaluations] == [0, 1]
    assert len({e["grading_run_id"] for e in rs.evaluations}) == 1
    # The second pass grades the criteria the first one named.
    second = rs.grader.calls[1].messages[1].content
    assert "\n1. Mentions cats\n2. Polite\n" in second and "Return exactly 2 entries" in second


@pytest.mark.parametrize("mode", MODES)
def test_max_iterations_ends_with_the_last_answer(mode: str) -> None:
    failing = [
        CATS_FAIL,
        verdict("needs_revision", "Still no.", ("Mentions cats", False, "Say cats."), ("Polite", True)),
    ]
    _ref, rs = run_both(["hello", "hello again"], failing, mode=mode, max_iterations=2)
    assert [m.content for m in rs.result["messages"]][-1] == "hello again"
    assert [e["result"] for e in rs.evaluations] == ["needs_revision", "max_iterations_reached"]
    assert len(revision_texts(rs.result)) == 1


def test_max_iterations_one_grades_once() -> None:
    _ref, rs = run_both(["hello"], [CATS_FAIL], max_iterations=1)
    assert [e["result"] for e in rs.evaluations] == ["max_iterations_reached"]
    assert revision_texts(rs.result) == []


def test_a_failed_rubric_ends_the_run() -> None:
    _ref, rs = run_both(["hello"], [verdict("failed", "The rubric contradicts itself.")])
    assert [e["result"] for e in rs.evaluations] == ["failed"]


@pytest.mark.parametrize("mode", MODES)
def test_a_grader_that_raises_is_a_grader_error(mode: str) -> None:
    # The grader's script is empty: its model raises, which ends grading, not the run.
    _ref, rs = run_both(["hello"], [], mode=mode)
    (evaluation,) = rs.evaluations
    assert evaluation["result"] == "grader_error"
    assert evaluation["explanation"].startswith(
        "Grader raised ScriptExhaustedError (configured_model='ScriptedChatModel', effective_strategy=ToolStrategy): "
    )
    assert rs.result["messages"][-1].content == "hello"


def test_an_unaccounted_verdict_is_regraded_then_downgraded() -> None:
    """A verdict with no criteria is asked again with a correction; a second one like it
    cannot end the run as ``satisfied`` (``unverified``), and the agent is asked to re-verify."""
    empty = verdict("satisfied", "Fine.")
    _ref, rs = run_both(["hello", "hello, cats"], [empty, empty, CATS_PASS])
    assert "regrading after an unusable response. A previous attempt returned no per-criterion verdicts at all. " in (
        rs.grader.calls[1].messages[1].content
    )
    first = rs.evaluations[0]
    assert first["result"] == "needs_revision" and first["unverified"] is True
    assert revision_texts(rs.result)[0].startswith("A grader reviewed your work but could not verify")


def test_an_under_reported_pass_is_regraded() -> None:
    short = verdict("needs_revision", "Cats missing.", ("Mentions cats", False, "No cats."))
    _ref, rs = run_both(["hello", "hello, cats"], [CATS_FAIL, short, CATS_PASS, CATS_PASS])
    assert (
        "A previous attempt returned only 1 of the 2 criteria in the rubric." in rs.grader.calls[2].messages[1].content
    )


def test_an_inconsistent_verdict_is_sent_back_to_the_grader() -> None:
    contradictory = verdict("satisfied", "All good.", ("Mentions cats", False, "No cats."))
    _ref, rs = run_both(["hello"], [contradictory, CATS_PASS])
    retry = rs.grader.calls[1].messages[-1]
    assert retry.type == "tool" and "result='satisfied' but at least one criterion has passed=False" in retry.content


def test_an_unverified_pass_does_not_list_what_passed() -> None:
    """Once two criteria are frozen, a ``satisfied`` naming one (twice) is downgraded: the
    revision request asks to re-verify and does not present the pass list as settled."""
    short_pass = verdict("satisfied", "Looks fine.", ("Polite", True))
    _ref, rs = run_both(["hello", "hello, cats", "hello, polite cats"], [CATS_FAIL, short_pass, short_pass, CATS_PASS])
    second = rs.evaluations[1]
    assert second["result"] == "needs_revision" and second["unverified"] is True
    request = revision_texts(rs.result)[1]
    assert "already satisfied" not in request and request.endswith("Do not change anything that is already correct.")


def test_a_long_transcript_is_bounded_and_keeps_the_request() -> None:
    """The grader reads the last 30 messages, each cut at 4,000 characters, with the user's
    request first; tool calls and tool results are labelled."""
    history: list = [("user", "the original request")]
    for i in range(20):
        history += [("assistant", f"note {i}"), ("user", "x" * 5000 if i == 19 else f"more {i}")]
    inp = {"messages": history, "rubric": RUBRIC}
    script = [ai_tool_calls(("ls", {"path": "/"}, "c1")), "hello"]
    _ref, rs = run_both(script, [CATS_PASS], inp=inp)
    payload = rs.grader.calls[0].messages[1].content
    assert "[user] the original request\n\n[user] more 6" in payload
    assert "x" * 4000 + "...(truncated)" in payload and "x" * 4001 not in payload
    assert "<tool_call name='ls' args={'path': '/'}/>" in payload and "[tool:ls] " in payload


class FailingGrader(ScriptedChatModel):
    """A grader model whose provider answers with an HTTP error."""

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        raise ProviderError("overloaded")

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        raise ProviderError("overloaded")


class ProviderError(Exception):
    status_code = 529


@pytest.mark.parametrize("mode", MODES)
def test_a_provider_error_names_its_status(mode: str) -> None:
    explanations = []
    for module in IMPLS.values():
        evaluations: list = []
        mw = module.middleware.RubricMiddleware(model=FailingGrader([]), on_evaluation=evaluations.append)
        agent = module.create_deep_agent(model=ScriptedChatModel(["hello"]), middleware=[mw])
        inp = copy.deepcopy(USER)
        result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
        assert result["messages"][-1].content == "hello"
        explanations.append([e["explanation"] for e in evaluations])
    assert (
        explanations[1]
        == explanations[0]
        == [
            "Grader raised ProviderError (HTTP 529) (configured_model='FailingGrader', effective_strategy=ToolStrategy): overloaded"
        ]
    )


def test_a_subagent_is_not_graded_and_its_answer_is_in_the_transcript() -> None:
    """The rubric is the caller's: the general-purpose subagent runs ungraded, and the grader
    reads its answer as the ``task`` tool's result."""
    task = ai_tool_calls(("task", {"description": "find cats", "subagent_type": "general-purpose"}, "t1"))
    _ref, rs = run_both([task, "three cats", "hello, three cats"], [CATS_PASS])
    assert len(rs.grader.calls) == 1 and len(rs.evaluations) == 1
    assert "[tool:task] three cats\n\n[assistant] hello, three cats" in rs.grader.calls[0].messages[1].content


# -- state and output ------------------------------------------------------------------------


def test_without_a_rubric_nothing_is_graded() -> None:
    _ref, rs = run_both(["hello"], [], inp={"messages": [("user", "say hi")]})
    assert rs.evaluations == [] and rs.grader.calls == []
    assert "rubric" not in rs.result


def test_the_result_keeps_the_rubric_not_the_bookkeeping() -> None:
    ref, rs = run_both(["hello"], [CATS_PASS])
    assert sorted(rs.result) == sorted(ref.result) == ["files", "messages", "rubric"]
    assert rs.result["rubric"] == RUBRIC


def test_a_thread_keeps_the_bookkeeping_and_starts_a_new_run_after_an_ended_one() -> None:
    """On a checkpointed thread the private keys are kept; invoking again with the same rubric
    after a ``satisfied`` run starts a new grading run (new id, iteration 0)."""
    states = {}
    for impl, module in IMPLS.items():
        evaluations: list[dict] = []
        grader = ScriptedChatModel([CATS_PASS, CATS_FAIL, CATS_PASS])
        mw = module.middleware.RubricMiddleware(model=grader, on_evaluation=evaluations.append)
        agent = module.create_deep_agent(
            model=ScriptedChatModel(["hello", "again", "again, cats"]), middleware=[mw], checkpointer=InMemorySaver()
        )
        thread = {"configurable": {"thread_id": "t"}}
        agent.invoke(copy.deepcopy(USER), thread)
        agent.invoke({"messages": [("user", "once more")], "rubric": RUBRIC}, thread)
        values = agent.get_state(thread).values
        keys = sorted(k for k in values if "rubric" in k)
        runs = [e["grading_run_id"] for e in values["_rubric_evaluations"]]
        states[impl] = (keys, values["_rubric_status"], values["_rubric_iterations"], _stable(runs), evaluations)
        assert runs[0] != runs[1] == runs[2]
        assert [e["iteration"] for e in evaluations] == [0, 0, 1]
    assert states["deepagents_rs"][:4] == states["deepagents"][:4]
    assert _stable(states["deepagents_rs"][4]) == _stable(states["deepagents"][4])


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_the_stream_reports_the_evaluations(mode: str) -> None:
    ref, rs = run_both(["hello", "hello, cats"], [CATS_FAIL, CATS_PASS], mode=mode)

    def view(chunks: list) -> list:
        out = []
        for kind, data in chunks:
            if kind == "custom":
                out.append(("custom", data))
            else:
                for node, update in data.items():
                    keys = sorted(update) if isinstance(update, dict) else update
                    out.append(("updates", node, keys))
        return _stable(out)

    assert view(rs.chunks) == view(ref.chunks)
    custom = [d["type"] for m, d in rs.chunks if m == "custom"]
    assert custom == ["rubric_evaluation_start", "rubric_evaluation_end"] * 2


def test_the_graph_shows_the_rubrics_nodes() -> None:
    from .test_graph_face import edges, nodes

    graphs = []
    for module in IMPLS.values():
        mw = module.middleware.RubricMiddleware(model=ScriptedChatModel([]))
        graphs.append(module.create_deep_agent(model=ScriptedChatModel([]), middleware=[mw]))
    theirs, ours = graphs
    assert nodes(ours.get_graph()) == nodes(theirs.get_graph())
    assert edges(ours.get_graph()) == edges(theirs.get_graph())
    assert ("RubricMiddleware.after_agent", "model", True) in edges(ours.get_graph())
    assert ours.get_input_jsonschema() == theirs.get_input_jsonschema()
    assert ours.get_output_jsonschema() == theirs.get_output_jsonschema()


# -- the grader's configuration --------------------------------------------------------------


@tool
def run_tests(path: str) -> str:
    """Run the tests under a path."""
    return f"tests under {path}: 3 passed"


def test_the_grader_uses_its_tools_and_prompt() -> None:
    grader_script = [ai_tool_calls(("run_tests", {"path": "src"}, "t1")), CATS_PASS]
    _ref, rs = run_both(["hello"], grader_script, tools=[run_tests], system_prompt="Grade strictly.")
    assert rs.grader.calls[0].tool_names == ["run_tests", "GraderResponse"]
    assert rs.grader.calls[0].messages[0].content == "Grade strictly."
    assert rs.grader.calls[1].messages[-1].content == "tests under src: 3 passed"


class BeBrief(AgentMiddleware):
    """Grader middleware: replaces the grader's system prompt for each model call."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(system_message=SystemMessage("Be brief.")))

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return await handler(request.override(system_message=SystemMessage("Be brief.")))


@pytest.mark.parametrize("mode", MODES)
def test_grader_middleware_wraps_the_graders_model_calls(mode: str) -> None:
    _ref, rs = run_both(["hello"], [CATS_PASS], mode=mode, grader_middleware=[BeBrief()])
    assert rs.grader.calls[0].messages[0].content == "Be brief."


@dataclass
class Project:
    name: str


@tool
def project_name(runtime: ToolRuntime[Project]) -> str:
    """The project's name, from the run's context."""
    return f"project {runtime.context.name}"


def test_the_grader_gets_the_runs_context() -> None:
    results = []
    for module in IMPLS.values():
        grader = ScriptedChatModel([ai_tool_calls(("project_name", {}, "p1")), CATS_PASS])
        mw = module.middleware.RubricMiddleware(model=grader, tools=[project_name], grader_context_schema=Project)
        agent = module.create_deep_agent(model=ScriptedChatModel(["hello"]), middleware=[mw], context_schema=Project)
        agent.invoke(copy.deepcopy(USER), context=Project(name="tabby"))
        results.append(_stable([call_view(c) for c in grader.calls]))
    assert results[1] == results[0]
    assert results[0][1]["messages"][-1]["content"] == "project tabby"


class GraderInput(AgentState):
    focus: NotRequired[str]


def test_prepared_messages_and_grader_state() -> None:
    seen: list = []

    def build(state: Any, iteration: int) -> dict:
        seen.append(iteration)
        return {"focus": "cats"}

    _ref, rs = run_both(
        ["hello"],
        [CATS_PASS],
        prepare_messages_for_grader=lambda messages: messages[-1:],
        build_grader_state=build,
        grader_state_schema=GraderInput,
    )
    payload = rs.grader.calls[0].messages[1].content
    assert "[assistant] hello" in payload and "[user] say hi" not in payload
    assert seen == [0, 0]


def test_a_grader_state_with_messages_is_a_grader_error() -> None:
    _ref, rs = run_both(
        ["hello"],
        [],
        build_grader_state=lambda state, iteration: {"messages": []},
        grader_state_schema=GraderInput,
    )
    (evaluation,) = rs.evaluations
    assert evaluation["result"] == "grader_error"
    assert "RubricMiddleware: `build_grader_state` cannot set `messages`." in evaluation["explanation"]


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
