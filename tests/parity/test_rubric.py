"""``RubricMiddleware`` against deepagents: the grading loop. The same agent and grader scripts
run through both implementations, comparing what the agent's model and the grader's model are sent,
the run's result and the evaluations (``on_evaluation``, the custom stream, the private state).

The grader's payload carries a fresh random nonce in its delimiters, and each grading run a
fresh uuid: both are replaced by placeholders before comparing (``_stable``)."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import deepagents_rs
import deepagents_rs.middleware
import pytest
from fake_models import ScriptedChatModel
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from .harness import MODES, ai_tool_calls
from .rubric_support import CATS_FAIL, CATS_PASS, IMPLS, RUBRIC, USER, _stable, run_both, verdict

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


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
