"""``RubricMiddleware``: the agent's would-be final answer is graded against a rubric the
caller puts in state, and sent back for revision until the grader is satisfied.

It is a LangChain ``AgentMiddleware`` run by the core's hook chain like any user middleware
(``_middleware.MiddlewareAdapter``), with deepagents' two nodes:

* ``RubricMiddleware.before_agent`` starts a grading run when the rubric is new, or when the
  last run with it ended (fresh id, iteration count and frozen criteria);
* ``RubricMiddleware.after_agent`` runs when the agent would stop. A grader agent (a plain
  agent on the core, answering ``GraderResponse``) reads the rubric and the transcript; a
  ``needs_revision`` verdict appends the revision request as a user message and jumps back
  to the model (a declared ``can_jump_to=["model"]``), until ``max_iterations`` passes.

The verdicts go to ``_rubric_evaluations`` (private state), to ``on_evaluation`` and to the
custom stream (``rubric_evaluation_start`` / ``rubric_evaluation_end``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware, TracePolicy, hook_config, omit_payload
from langchain_core._api import beta
from langchain_core.messages import HumanMessage
from langgraph.errors import GraphBubbleUp

from . import _rubric_payload
from . import _rubric_texts as texts
from . import _rubric_types as _types
from ._rubric_payload import grader_payload, revision_message
from ._rubric_strategy import model_label, strategy_of_error, strategy_of_model
from ._rubric_types import GraderResponse, RubricState

# The rubric's types, importable from here as from deepagents' module.
CriterionEval = _types.CriterionEval
CriterionFail = _types.CriterionFail
CriterionPass = _types.CriterionPass
GraderVerdict = _types.GraderVerdict
RubricEvaluation = _types.RubricEvaluation
RubricResult = _types.RubricResult

GRADER_SYSTEM_PROMPT = texts.GRADER_SYSTEM_PROMPT
RUBRIC_GRADER_MESSAGE_SOURCE = texts.RUBRIC_GRADER_MESSAGE_SOURCE

# The grader payload's helpers, under deepagents' private names (code testing what the grader
# reads imports them from here).
_build_grader_transcript = _rubric_payload.transcript
_sanitize_for_payload = _rubric_payload._escape_closers

logger = logging.getLogger(__name__)

#: A run that ended with one of these starts afresh when the same rubric comes again.
_ENDED = frozenset({"satisfied", "max_iterations_reached", "failed", "grader_error"})


# deepagents marks it beta: constructing one warns (LangChainBetaWarning), as there.
@beta(obj_type="middleware")
class RubricMiddleware(AgentMiddleware):
    """Grades the agent's final answer against ``state["rubric"]`` with a grader agent on
    ``model`` (``system_prompt`` or ``GRADER_SYSTEM_PROMPT``; ``tools`` to gather evidence;
    ``grader_middleware``, ``grader_context_schema``, ``grader_state_schema`` for its
    agent), and asks for revisions up to ``max_iterations`` grading passes per run.
    ``prepare_messages_for_grader`` may rewrite the transcript the grader reads;
    ``build_grader_state`` adds keys to the grader's input; ``on_evaluation`` is told each
    evaluation (its exceptions are logged, not raised).

    Without a rubric in state both hooks leave the state alone. A run that ends unsatisfied
    (``failed``, ``max_iterations_reached``, ``grader_error``) keeps the agent's last answer;
    ``_rubric_status`` says how it ended.
    """

    state_schema = RubricState
    # As deepagents declares it: the hooks' spans leave the conversation out of their inputs.
    trace_policy = TracePolicy(process_inputs=omit_payload)

    def __init__(
        self,
        *,
        model: Any,
        system_prompt: str | None = None,
        tools: Sequence[Any] | None = None,
        grader_middleware: Sequence[Any] | None = None,
        grader_context_schema: type[Any] | None = None,
        grader_state_schema: type[Any] | None = None,
        prepare_messages_for_grader: Callable[[list[Any]], list[Any]] | None = None,
        build_grader_state: Callable[[Any, int], Mapping[str, Any]] | None = None,
        max_iterations: int = 3,
        on_evaluation: Callable[[Any], None] | None = None,
    ) -> None:
        if not model:
            raise ValueError(texts.MODEL_REQUIRED)
        if isinstance(max_iterations, bool) or not isinstance(max_iterations, int):
            raise TypeError(texts.MAX_ITERATIONS_NOT_INT.format(kind=type(max_iterations).__name__))
        if max_iterations < 1:
            raise ValueError(texts.MAX_ITERATIONS_NOT_POSITIVE.format(value=max_iterations))
        if build_grader_state is not None and grader_state_schema is None:
            raise ValueError(texts.STATE_SCHEMA_REQUIRED)
        callbacks = {
            "prepare_messages_for_grader": prepare_messages_for_grader,
            "build_grader_state": build_grader_state,
        }
        for name, callback in callbacks.items():
            if callback is not None and not callable(callback):
                raise TypeError(texts.NOT_CALLABLE.format(name=name))
        self.max_iterations = max_iterations
        self._model = model
        self._label = model_label(model)
        self._system_prompt = system_prompt or GRADER_SYSTEM_PROMPT
        self._tools = list(tools or ())
        self._grader_middleware = list(grader_middleware or ())
        self._grader_context_schema = grader_context_schema
        self._grader_state_schema = grader_state_schema
        self._prepare_messages = prepare_messages_for_grader
        self._build_grader_state = build_grader_state
        self._on_evaluation = on_evaluation
        # The grader is built on first use, as deepagents builds it: resolving a model string
        # may look for credentials.
        self._grader: Any = None

    # -- before_agent: a new grading run -------------------------------------------------

    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Start a grading run when the rubric is new or its last run ended."""
        return self._start_run(state)

    async def abefore_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """``before_agent`` under ``ainvoke``."""
        return self._start_run(state)

    @staticmethod
    def _start_run(state: Any) -> dict[str, Any] | None:
        rubric = state.get("rubric")
        if not rubric:
            return None
        if state.get("_active_rubric") == rubric and state.get("_rubric_status") not in _ENDED:
            return None  # the same run goes on
        # A fresh run: its own id, no iterations yet, no status, no criteria frozen.
        fresh = {"_active_rubric": rubric, "_current_grading_run_id": str(uuid.uuid4())}
        return {**fresh, "_rubric_iterations": 0, "_rubric_status": None, "_rubric_criteria": []}

    # -- after_agent: grade, and maybe ask for a revision ----------------------------------

    @hook_config(can_jump_to=["model"])
    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Grade the answer; on ``needs_revision`` ask for another attempt."""
        started = self._begin(state, runtime)
        if started is None:
            return None
        run_id, iteration = started
        try:
            graded = self._grade(state, iteration, getattr(runtime, "context", None))
        except GraphBubbleUp:
            raise  # an interrupt inside the grader is control flow, not a grading failure
        except Exception as exc:  # noqa: BLE001 - any failure of the grader is a `grader_error`
            self._raise_if_planned(exc)
            return self._grader_failed(state, runtime, run_id, iteration, exc)
        return self._record(graded, state, runtime, run_id, iteration)

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """``after_agent`` under ``ainvoke``."""
        started = self._begin(state, runtime)
        if started is None:
            return None
        run_id, iteration = started
        try:
            graded = await self._agrade(state, iteration, getattr(runtime, "context", None))
        except GraphBubbleUp:
            raise
        except Exception as exc:  # noqa: BLE001
            self._raise_if_planned(exc)
            return self._grader_failed(state, runtime, run_id, iteration, exc)
        return self._record(graded, state, runtime, run_id, iteration)

    def _raise_if_planned(self, exc: Exception) -> None:
        """A grader deepagents_rs cannot run yet (something it plans) is the caller's to know,
        not a verdict on the agent's work."""
        if isinstance(exc, NotImplementedError) and self._grader is None:
            raise exc

    def _begin(self, state: Any, runtime: Any) -> tuple[str, int] | None:
        if not state.get("rubric"):
            return None
        iteration = state.get("_rubric_iterations", 0) or 0
        run_id = state.get("_current_grading_run_id") or str(uuid.uuid4())
        _emit(runtime, {"type": "rubric_evaluation_start", "grading_run_id": run_id, "iteration": iteration})
        return run_id, iteration

    def _grade(self, state: Any, iteration: int, context: Any) -> GraderResponse:
        """A verdict; asked once more when the first did not account for the whole rubric.
        If that second pass raises, the first verdict stands (``_record`` gates it)."""
        first = self._ask(state, iteration, None, context)
        correction = _unusable(state, first)
        if correction is None:
            return first
        _log_retry(state, iteration, correction)
        try:
            return self._ask(state, iteration, correction, context)
        except GraphBubbleUp:
            raise
        except Exception:  # noqa: BLE001 - the first verdict is kept
            _log_retry_failed(state, iteration, first)
            return first

    async def _agrade(self, state: Any, iteration: int, context: Any) -> GraderResponse:
        """``_grade`` under ``ainvoke``."""
        first = await self._aask(state, iteration, None, context)
        correction = _unusable(state, first)
        if correction is None:
            return first
        _log_retry(state, iteration, correction)
        try:
            return await self._aask(state, iteration, correction, context)
        except GraphBubbleUp:
            raise
        except Exception:  # noqa: BLE001 - the first verdict is kept
            _log_retry_failed(state, iteration, first)
            return first

    # -- the grader ------------------------------------------------------------------------

    def _grader_agent(self) -> Any:
        if self._grader is None:
            from .._plain_agent import create_plain_agent

            # LangChain's `create_agent` as deepagents calls it, on the core: the grader answers
            # a `GraderResponse` and its replies carry the grader's name.
            schemas = {"state_schema": self._grader_state_schema, "context_schema": self._grader_context_schema}
            self._grader = create_plain_agent(
                self._model,
                response_format=GraderResponse,
                name=RUBRIC_GRADER_MESSAGE_SOURCE,
                system_prompt=self._system_prompt,
                middleware=self._grader_middleware,
                tools=self._tools,
                **schemas,
            )
        return self._grader

    def _grader_input(self, state: Any, iteration: int, correction: str | None) -> dict[str, Any]:
        if self._prepare_messages is not None:
            state = RubricState(**state)
            state["messages"] = self._prepare_messages(list(state.get("messages", [])))
        payload = grader_payload(
            state.get("rubric", ""),
            state.get("_rubric_criteria") or [],
            state.get("messages", []),
            iteration,
            correction,
        )
        extra = dict(self._build_grader_state(state, iteration)) if self._build_grader_state else {}
        if "messages" in extra:
            raise ValueError(texts.MESSAGES_NOT_ALLOWED)
        return {**extra, "messages": [HumanMessage(content=payload)]}

    def _config(self, strategy: str | None = None) -> dict[str, Any]:
        return {"metadata": self._diagnostics(strategy)}

    def _diagnostics(self, strategy: str | None) -> dict[str, str]:
        """The grader's model and structured-output strategy, for traces and error texts."""
        if strategy is None and (self._grader is not None or not isinstance(self._model, str)):
            # A model string the grader was never built from has no known strategy.
            strategy = strategy_of_model(self._model, tools=self._tools)
        return {
            "rubric_grader_configured_model": self._label,
            "rubric_grader_effective_strategy": strategy or "unknown",
        }

    def _ask(self, state: Any, iteration: int, correction: str | None, context: Any) -> GraderResponse:
        grader = self._grader_agent()
        result = grader.invoke(self._grader_input(state, iteration, correction), self._config(), context=context)
        return _verdict(result)

    async def _aask(self, state: Any, iteration: int, correction: str | None, context: Any) -> GraderResponse:
        grader = self._grader_agent()
        result = await grader.ainvoke(self._grader_input(state, iteration, correction), self._config(), context=context)
        return _verdict(result)

    # -- recording a verdict -----------------------------------------------------------------

    def _record(self, graded: GraderResponse, state: Any, runtime: Any, run_id: str, iteration: int) -> dict[str, Any]:
        evaluation: dict[str, Any] = {
            "grading_run_id": run_id,
            "iteration": iteration,
            "result": graded.result,
            "explanation": graded.explanation,
            "criteria": [dict(c) for c in graded.criteria],
            "unverified": False,
        }
        correction = _unusable(state, graded)
        if correction is not None and graded.result == "satisfied":
            # Nothing backs a `satisfied` that did not account for the whole rubric: the agent
            # is asked to re-verify instead (still bounded by max_iterations).
            logger.warning(texts.LOG_DOWNGRADED, run_id, correction)
            evaluation.update(
                result="needs_revision",
                unverified=True,
                explanation=texts.UNVERIFIED_EXPLANATION.format(explanation=graded.explanation),
            )
        elif correction is not None:
            logger.warning(texts.LOG_UNDER_REPORTED, graded.result, run_id, correction)
        if evaluation["result"] == "needs_revision" and iteration + 1 >= self.max_iterations:
            # No revision will follow: the status says so, rather than `needs_revision`.
            # A grader that never accounted for the rubric is worth a warning; an agent that
            # did not get there, an info.
            if evaluation["unverified"]:
                logger.warning(texts.LOG_EXHAUSTED_UNVERIFIED, self.max_iterations, run_id)
            else:
                logger.info(texts.LOG_EXHAUSTED, self.max_iterations, run_id)
            evaluation["result"] = "max_iterations_reached"
        self._publish(runtime, evaluation)
        update: dict[str, Any] = {
            "_rubric_evaluations": [*state.get("_rubric_evaluations", []), evaluation],
            "_rubric_iterations": iteration + 1,
            "_rubric_status": evaluation["result"],
        }
        if not state.get("_rubric_criteria") and evaluation["criteria"] and evaluation["result"] != "failed":
            # The criteria of the run's first usable pass are the list later passes grade.
            update["_rubric_criteria"] = [c["name"] for c in evaluation["criteria"]]
            logger.info(texts.LOG_FROZE, len(update["_rubric_criteria"]), run_id, update["_rubric_criteria"])
        if evaluation["result"] == "needs_revision":
            source = RUBRIC_GRADER_MESSAGE_SOURCE
            request = HumanMessage(content=revision_message(evaluation), name=source, additional_kwargs={"lc_source": source})  # fmt: skip
            update.update(messages=[request], jump_to="model")
        return update

    def _grader_failed(self, state: Any, runtime: Any, run_id: str, iteration: int, exc: Exception) -> dict[str, Any]:
        diagnostics = self._diagnostics(strategy_of_error(exc))
        model, strategy = diagnostics.values()
        logger.exception(texts.LOG_GRADER_FAILED, model, strategy)
        code = getattr(exc, "status_code", None)
        has_code = isinstance(code, int) and not isinstance(code, bool)
        evaluation = {
            "grading_run_id": run_id,
            "iteration": iteration,
            "result": "grader_error",
            "explanation": texts.GRADER_ERROR_EXPLANATION.format(
                kind=type(exc).__name__,
                status=texts.GRADER_ERROR_STATUS.format(code=code) if has_code else "",
                model=diagnostics["rubric_grader_configured_model"],
                strategy=diagnostics["rubric_grader_effective_strategy"],
                error=exc,
            ),
            "criteria": [],
            "unverified": False,
        }
        self._publish(runtime, evaluation)
        return {
            "_rubric_evaluations": [*state.get("_rubric_evaluations", []), evaluation],
            "_rubric_iterations": iteration + 1,
            "_rubric_status": "grader_error",
        }

    def _publish(self, runtime: Any, evaluation: dict[str, Any]) -> None:
        """The evaluation to the custom stream and to ``on_evaluation``."""
        fields = ("grading_run_id", "iteration", "result", "explanation", "criteria", "unverified")
        _emit(runtime, {"type": "rubric_evaluation_end", **{k: evaluation[k] for k in fields}})
        if self._on_evaluation is None:
            return
        try:
            self._on_evaluation(evaluation)
        except GraphBubbleUp:
            raise  # a callback may interrupt the run (a human reviewing the verdict)
        except Exception:
            logger.exception(texts.LOG_CALLBACK_RAISED)


def _verdict(result: dict[str, Any]) -> GraderResponse:
    graded = result.get("structured_response")
    if graded is None:
        raise RuntimeError(texts.NO_STRUCTURED_RESPONSE)
    if isinstance(graded, GraderResponse):
        return graded
    if isinstance(graded, dict):
        return GraderResponse.model_validate(graded)
    raise TypeError(texts.UNEXPECTED_STRUCTURED_RESPONSE.format(kind=type(graded).__name__))


def _unusable(state: Any, graded: GraderResponse) -> str | None:
    """Why a verdict cannot end the run, if it cannot: it verified no criterion, or fewer
    than the run's frozen list. A ``failed`` verdict (the rubric cannot be graded) owes no
    criteria."""
    if graded.result == "failed":
        return None
    expected, actual = len(state.get("_rubric_criteria") or []), len(graded.criteria)
    if expected and actual < expected:
        return texts.UNDER_REPORTED.format(actual=actual, expected=expected)
    if not expected and actual == 0:
        return texts.NO_VERDICTS
    return None


def _log_retry(state: Any, iteration: int, correction: str) -> None:
    logger.warning(texts.LOG_RETRYING, state.get("_current_grading_run_id"), iteration, correction)


def _log_retry_failed(state: Any, iteration: int, first: GraderResponse) -> None:
    run_id = state.get("_current_grading_run_id")
    logger.exception(texts.LOG_RETRY_RAISED, run_id, iteration, first.result, len(first.criteria))


def _emit(runtime: Any, payload: dict[str, Any]) -> None:
    writer = getattr(runtime, "stream_writer", None)
    if writer is None:
        return
    try:
        writer(payload)
    except Exception:  # noqa: BLE001 - a failing stream consumer does not stop grading
        logger.debug(texts.LOG_WRITER_RAISED)
