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
custom stream (``rubric_evaluation_start`` / ``rubric_evaluation_end``). The private methods
carry deepagents' names and signatures: subclasses and tests override or call them there
(``_invoke_grader`` one grader call, ``_grade`` the call and its coverage retry,
``_build_grader_payload`` what the grader reads, ``_grader_trace_metadata`` the diagnostics).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any

from langchain.agents.middleware.types import (
    AgentMiddleware,
    ContextT,
    ResponseT,
    TracePolicy,
    hook_config,
    omit_payload,
)
from langchain_core.messages import HumanMessage
from langchain_core.runnables import ensure_config
from langgraph.errors import GraphBubbleUp
from langsmith.run_helpers import get_current_run_tree

from deepagents_rs._langchain_private import beta

from .._plain_agent import create_plain_agent
from . import _rubric_payload, _rubric_strategy
from . import _rubric_texts as texts
from . import _rubric_types as _types
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

#: The grader agent's factory, under the name deepagents calls (code replacing the grader
#: patches it here): LangChain's ``create_agent`` on the core.
create_agent = create_plain_agent

# The payload's helpers and bounds, under deepagents' private names (code testing what the
# grader reads imports them from here).
_build_grader_transcript = _rubric_payload.transcript
_sanitize_for_payload = _rubric_payload._escape_closers
_role_label = _rubric_payload._role
_coerce_text = _rubric_payload._text
_PAYLOAD_CLOSER_RE = _rubric_payload._CLOSER
_MAX_TRANSCRIPT_MESSAGES = _rubric_payload.TRANSCRIPT_WINDOW
_MAX_TRANSCRIPT_CHARS_PER_MESSAGE = _rubric_payload.MESSAGE_CHARS
_RUBRIC_KEY = "rubric"
_CRITERION_NAME_DESCRIPTION = texts.CRITERION_NAME_DESCRIPTION
_CRITERION_GAP_DESCRIPTION = texts.CRITERION_GAP_DESCRIPTION
_StructuredOutputStrategy = _rubric_strategy.Strategy

# The diagnostics' helpers, likewise.
_model_identifier = _rubric_strategy.model_identifier
_configured_model_label = _rubric_strategy.model_label
_calls_grader_response = _rubric_strategy.calls_grader_response
_strategy_from_result = _rubric_strategy.strategy_of_result
_strategy_from_exception = _rubric_strategy.strategy_of_error

logger = logging.getLogger(__name__)

#: A run that ended with one of these starts afresh when the same rubric comes again.
_TERMINAL_RESULTS = frozenset({"satisfied", "max_iterations_reached", "failed", "grader_error"})


def _fallback_structured_output_model_patterns() -> Sequence[str] | None:
    """LangChain's private table of models known to answer natively, or None when it is gone
    or not a list of strings (it only feeds diagnostics: grading never depends on it)."""
    try:
        factory = import_module("langchain.agents.factory")
    except ImportError:
        logger.debug(texts.LOG_NO_FACTORY, exc_info=True)
        return None
    patterns = getattr(factory, "FALLBACK_MODELS_WITH_STRUCTURED_OUTPUT", None)
    if patterns is None:
        logger.debug(texts.LOG_NO_PATTERNS)
        return None
    if isinstance(patterns, str) or not isinstance(patterns, Sequence):
        logger.debug(texts.LOG_PATTERNS_TYPE, type(patterns).__name__)
        return None
    if any(not isinstance(p, str) for p in patterns):
        logger.debug(texts.LOG_PATTERNS_NOT_STR)
        return None
    return patterns


def _strategy_from_model(model: object, *, has_tools: bool) -> str | None:
    """The strategy LangChain would pick for the grader's model (None: not known)."""
    patterns = _fallback_structured_output_model_patterns
    return _rubric_strategy.strategy_of_model(model, has_tools=has_tools, patterns=patterns)


# deepagents marks it beta: constructing one warns (LangChainBetaWarning), as there.
@beta(obj_type="middleware")
class RubricMiddleware(AgentMiddleware[RubricState, ContextT, ResponseT]):
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
        self._on_evaluation = on_evaluation
        # The grader agent's parts.
        self._model, self._model_label = model, _configured_model_label(model)
        self._system_prompt = system_prompt or GRADER_SYSTEM_PROMPT
        self._tools, self._grader_middleware = list(tools or ()), grader_middleware or ()
        self._grader_state_schema, self._grader_context_schema = grader_state_schema, grader_context_schema
        # What the grader reads.
        self._prepare_messages_for_grader, self._build_grader_state = prepare_messages_for_grader, build_grader_state
        # The grader is built on first use, as deepagents builds it: resolving a model string
        # may look for credentials. `_resolved_model` is what the diagnostics read once built.
        self._grader: Any = None
        self._resolved_model: Any = None

    # -- before_agent: a new grading run -------------------------------------------------

    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Start a grading run when the rubric is new or its last run ended."""
        return self._reset_for_new_rubric(state)

    async def abefore_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """``before_agent`` under ``ainvoke``."""
        return self._reset_for_new_rubric(state)

    def _reset_for_new_rubric(self, state: Any) -> dict[str, Any] | None:
        rubric = state.get(_RUBRIC_KEY)
        if not rubric:
            return None
        if state.get("_active_rubric") == rubric and state.get("_rubric_status") not in _TERMINAL_RESULTS:
            return None  # the same run goes on
        # A fresh run: its own id, no iterations yet, no status, no criteria frozen.
        fresh = {"_active_rubric": rubric, "_current_grading_run_id": str(uuid.uuid4())}
        return {**fresh, "_rubric_iterations": 0, "_rubric_status": None, "_rubric_criteria": []}

    # -- after_agent: grade, and maybe ask for a revision ----------------------------------

    @hook_config(can_jump_to=["model"])
    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Grade the answer; on ``needs_revision`` ask for another attempt."""
        started = self._prepare_evaluation(state, runtime)
        if started is None:
            return None
        run_id, iteration = started
        try:
            graded = self._grade(state, iteration, context=getattr(runtime, "context", None))
        except GraphBubbleUp:
            raise  # an interrupt inside the grader is control flow, not a grading failure
        except Exception as exc:  # noqa: BLE001 - any failure of the grader is a `grader_error`
            return self._handle_grader_exception(runtime, state, run_id, iteration, exc)
        return self._finalize_evaluation(graded, state, runtime, run_id, iteration)

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """``after_agent`` under ``ainvoke``."""
        started = self._prepare_evaluation(state, runtime)
        if started is None:
            return None
        run_id, iteration = started
        try:
            graded = await self._agrade(state, iteration, context=getattr(runtime, "context", None))
        except GraphBubbleUp:
            raise
        except Exception as exc:  # noqa: BLE001
            return self._handle_grader_exception(runtime, state, run_id, iteration, exc)
        return self._finalize_evaluation(graded, state, runtime, run_id, iteration)

    def _prepare_evaluation(self, state: Any, runtime: Any) -> tuple[str, int] | None:
        """The pass's run id and iteration, announced on the stream; None without a rubric."""
        if not state.get(_RUBRIC_KEY):
            return None
        iteration = state.get("_rubric_iterations", 0) or 0
        run_id = state.get("_current_grading_run_id") or str(uuid.uuid4())
        self._emit(runtime, "rubric_evaluation_start", run_id, iteration)
        return run_id, iteration

    # -- grading: one call, and its coverage retry -----------------------------------------

    def _grade(self, state: Any, iteration: int, *, context: object | None = None) -> GraderResponse:
        """A verdict; asked once more when the first did not account for the whole rubric.
        If that second pass raises, the first verdict stands (the verdict gate downgrades it)."""
        first = self._invoke_grader(state, iteration, context=context)
        correction = self._usability_correction(state, first)
        if correction is None:
            return first
        self._log_coverage_retry(state, iteration, correction)
        try:
            return self._invoke_grader(state, iteration, correction, context=context)
        except GraphBubbleUp:
            raise
        except Exception:  # noqa: BLE001 - the first verdict is kept
            self._log_coverage_retry_failure(state, iteration, first)
            return first

    async def _agrade(self, state: Any, iteration: int, *, context: object | None = None) -> GraderResponse:
        """``_grade`` under ``ainvoke``."""
        first = await self._ainvoke_grader(state, iteration, context=context)
        correction = self._usability_correction(state, first)
        if correction is None:
            return first
        self._log_coverage_retry(state, iteration, correction)
        try:
            return await self._ainvoke_grader(state, iteration, correction, context=context)
        except GraphBubbleUp:
            raise
        except Exception:  # noqa: BLE001 - the first verdict is kept
            self._log_coverage_retry_failure(state, iteration, first)
            return first

    @staticmethod
    def _usability_correction(state: Any, graded: GraderResponse) -> str | None:
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

    @staticmethod
    def _log_coverage_retry(state: Any, iteration: int, correction: str) -> None:
        logger.warning(texts.LOG_RETRYING, state.get("_current_grading_run_id"), iteration, correction)

    @staticmethod
    def _log_coverage_retry_failure(state: Any, iteration: int, graded: GraderResponse) -> None:
        run_id = state.get("_current_grading_run_id")
        logger.exception(texts.LOG_RETRY_RAISED, run_id, iteration, graded.result, len(graded.criteria))

    def _invoke_grader(
        self, state: Any, iteration: int, correction: str | None = None, *, context: object | None = None
    ) -> GraderResponse:
        """One grader call, with the diagnostics in its config and on the current trace."""
        grader, grader_input, config = self._call_parts(state, iteration, correction)
        return self._graded(grader.invoke(grader_input, config=config, context=context))

    async def _ainvoke_grader(
        self, state: Any, iteration: int, correction: str | None = None, *, context: object | None = None
    ) -> GraderResponse:
        """``_invoke_grader`` under ``ainvoke``."""
        grader, grader_input, config = self._call_parts(state, iteration, correction)
        return self._graded(await grader.ainvoke(grader_input, config=config, context=context))

    def _call_parts(self, state: Any, iteration: int, correction: str | None) -> tuple[Any, dict, dict]:
        """The grader, its input and its config for one call; the predicted diagnostics go to
        the trace first."""
        grader = self._ensure_grader()
        metadata = self._grader_trace_metadata()
        self._record_grader_trace_metadata(metadata)
        return grader, self._grader_input(state, iteration, correction), self._grader_invocation_config(metadata)

    def _graded(self, result: dict[str, Any]) -> GraderResponse:
        """The verdict in a grader's result, once the trace knows the strategy it came through."""
        observed = _strategy_from_result(result)
        self._record_grader_trace_metadata(self._grader_trace_metadata(effective_strategy=observed))
        return self._extract_graded(result)

    @staticmethod
    def _extract_graded(result: dict[str, Any]) -> GraderResponse:
        graded = result.get("structured_response")
        if graded is None:
            raise RuntimeError(texts.NO_STRUCTURED_RESPONSE)
        if isinstance(graded, GraderResponse):
            return graded
        if isinstance(graded, dict):
            return GraderResponse.model_validate(graded)
        raise TypeError(texts.UNEXPECTED_STRUCTURED_RESPONSE.format(kind=type(graded).__name__))

    # -- the grader ------------------------------------------------------------------------

    def _ensure_grader(self) -> Any:
        """The grader agent, built on first use. An OpenAI or Anthropic model string goes to
        the core as it is (its own resolution, natively where it can); any other string is
        resolved as deepagents resolves it."""
        if self._grader is not None:
            return self._grader
        native = _rubric_strategy.native_model(self._model) if isinstance(self._model, str) else None
        if native is None:
            from .. import _models

            model = self._resolved_model = _models.resolve_model(self._model)
        else:
            model = self._model
        schemas = {"state_schema": self._grader_state_schema, "context_schema": self._grader_context_schema}
        self._grader = create_agent(
            model=model,
            name=RUBRIC_GRADER_MESSAGE_SOURCE,
            response_format=GraderResponse,
            system_prompt=self._system_prompt,
            tools=self._tools,
            middleware=self._grader_middleware,
            **schemas,
        )
        if native is not None:
            # Resolved inside `create_agent` (a string it could not resolve, such as OpenAI's
            # without a key, raised there): known only now.
            self._resolved_model = native
        return self._grader

    def _grader_input(self, state: Any, iteration: int, correction: str | None = None) -> dict[str, Any]:
        """The grader agent's input: the payload as its one user message, and what
        ``build_grader_state`` adds (never ``messages``)."""
        if self._prepare_messages_for_grader is not None:
            state = RubricState(**state)
            state["messages"] = self._prepare_messages_for_grader(list(state.get("messages", [])))
        payload = self._build_grader_payload(state, iteration, correction)
        extra = dict(self._build_grader_state(state, iteration)) if self._build_grader_state else {}
        if "messages" in extra:
            raise ValueError(texts.MESSAGES_NOT_ALLOWED)
        return {**extra, "messages": [HumanMessage(content=payload)]}

    def _build_grader_payload(self, state: Any, iteration: int, correction: str | None = None) -> str:
        """The grader's user message: the rubric, the run's frozen criteria and the transcript,
        each between delimiters carrying a fresh nonce."""
        return _rubric_payload.grader_payload(
            state.get(_RUBRIC_KEY, ""),
            state.get("_rubric_criteria") or [],
            state.get("messages", []),
            iteration,
            correction,
        )

    # -- diagnostics ---------------------------------------------------------------------

    def _grader_trace_metadata(self, *, effective_strategy: str | None = None) -> dict[str, str]:
        """The grader's model and structured-output strategy: the strategy observed (in a
        result or an error), else the one predicted from the model, else ``unknown``."""
        model = self._resolved_model or self._model
        strategy = effective_strategy or _strategy_from_model(model, has_tools=bool(self._tools))
        return {
            "rubric_grader_configured_model": self._model_label,
            "rubric_grader_effective_strategy": strategy or "unknown",
        }

    @staticmethod
    def _grader_invocation_config(metadata: dict[str, str]) -> dict[str, Any]:
        """The grader's config: the run's metadata (tenant, thread, experiment), then the
        diagnostics over it."""
        inherited = ensure_config().get("metadata") or {}
        return {"metadata": {**inherited, **metadata}}

    @staticmethod
    def _record_grader_trace_metadata(metadata: dict[str, str]) -> None:
        """The diagnostics on the current LangSmith run, when tracing is on; best effort."""
        try:
            run = get_current_run_tree()
            if run is not None:
                run.add_metadata(metadata)
        except Exception:  # a trace annotation never stops grading
            logger.debug(texts.LOG_TRACE_FAILED, exc_info=True)

    # -- recording a verdict -----------------------------------------------------------------

    def _finalize_evaluation(
        self, graded: GraderResponse, state: Any, runtime: Any, grading_run_id: str, iteration: int
    ) -> dict[str, Any]:
        """The verdict gated (an unbacked ``satisfied`` downgraded, the last allowed
        ``needs_revision`` reported as the cap), published, and made a state update."""
        evaluation = self._build_evaluation(graded, grading_run_id, iteration)
        correction = self._usability_correction(state, graded)
        if correction is not None and graded.result == "satisfied":
            # Nothing backs a `satisfied` that did not account for the whole rubric: the agent
            # is asked to re-verify instead (still bounded by max_iterations).
            logger.warning(texts.LOG_DOWNGRADED, grading_run_id, correction)
            evaluation.update(
                result="needs_revision",
                unverified=True,
                explanation=texts.UNVERIFIED_EXPLANATION.format(explanation=graded.explanation),
            )
        elif correction is not None:
            logger.warning(texts.LOG_UNDER_REPORTED, graded.result, grading_run_id, correction)
        if evaluation["result"] == "needs_revision" and iteration + 1 >= self.max_iterations:
            # No revision will follow: the status says so, rather than `needs_revision`.
            # A grader that never accounted for the rubric is worth a warning; an agent that
            # did not get there, an info.
            if evaluation["unverified"]:
                logger.warning(texts.LOG_EXHAUSTED_UNVERIFIED, self.max_iterations, grading_run_id)
            else:
                logger.info(texts.LOG_EXHAUSTED, self.max_iterations, grading_run_id)
            evaluation["result"] = "max_iterations_reached"
        self._publish(runtime, evaluation)
        return self._compose_update(state, evaluation)

    def _build_evaluation(self, graded: GraderResponse, grading_run_id: str, iteration: int) -> dict[str, Any]:
        return {
            "grading_run_id": grading_run_id,
            "iteration": iteration,
            "result": graded.result,
            "explanation": graded.explanation,
            "criteria": [dict(c) for c in graded.criteria],
            "unverified": False,
        }

    def _compose_update(self, state: Any, evaluation: dict[str, Any]) -> dict[str, Any]:
        update: dict[str, Any] = {
            "_rubric_evaluations": [*state.get("_rubric_evaluations", []), evaluation],
            "_rubric_iterations": evaluation["iteration"] + 1,
            "_rubric_status": evaluation["result"],
        }
        if not state.get("_rubric_criteria") and evaluation["criteria"] and evaluation["result"] != "failed":
            # The criteria of the run's first usable pass are the list later passes grade.
            frozen = [c["name"] for c in evaluation["criteria"]]
            logger.info(texts.LOG_FROZE, len(frozen), evaluation["grading_run_id"], frozen)
            update["_rubric_criteria"] = frozen
        if evaluation["result"] == "needs_revision":
            source = RUBRIC_GRADER_MESSAGE_SOURCE
            request = HumanMessage(content=self._revision_prompt(evaluation), name=source, additional_kwargs={"lc_source": source})  # fmt: skip
            update.update(messages=[request], jump_to="model")
        return update

    @staticmethod
    def _revision_prompt(evaluation: Any) -> str:
        return _rubric_payload.revision_message(evaluation)

    def _handle_grader_exception(
        self, runtime: Any, state: Any, grading_run_id: str, iteration: int, exc: Exception
    ) -> dict[str, Any]:
        """A grader that raised: a ``grader_error`` evaluation naming the error, its HTTP
        status, the model and the strategy it failed in."""
        metadata = self._grader_trace_metadata(effective_strategy=_strategy_from_exception(exc))
        self._record_grader_trace_metadata(metadata)
        model, strategy = metadata["rubric_grader_configured_model"], metadata["rubric_grader_effective_strategy"]
        logger.exception(texts.LOG_GRADER_FAILED, model, strategy)
        code = getattr(exc, "status_code", None)
        has_code = isinstance(code, int) and not isinstance(code, bool)
        evaluation = {
            "grading_run_id": grading_run_id,
            "iteration": iteration,
            "result": "grader_error",
            "explanation": texts.GRADER_ERROR_EXPLANATION.format(
                kind=type(exc).__name__,
                status=texts.GRADER_ERROR_STATUS.format(code=code) if has_code else "",
                model=model,
                strategy=strategy,
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
        self._emit(runtime, "rubric_evaluation_end", evaluation["grading_run_id"], evaluation["iteration"], evaluation)
        if self._on_evaluation is None:
            return
        try:
            self._on_evaluation(evaluation)
        except GraphBubbleUp:
            raise  # a callback may interrupt the run (a human reviewing the verdict)
        except Exception:
            logger.exception(texts.LOG_CALLBACK_RAISED)

    def _emit(self, runtime: Any, event_type: str, grading_run_id: str, iteration: int, evaluation: Any = None) -> None:
        """One event on the custom stream; a failing consumer does not stop grading."""
        writer = getattr(runtime, "stream_writer", None)
        if writer is None:
            return
        payload: dict[str, Any] = {"type": event_type, "grading_run_id": grading_run_id, "iteration": iteration}
        if evaluation is not None:
            payload.update(
                result=evaluation.get("result"),
                explanation=evaluation.get("explanation"),
                criteria=evaluation.get("criteria", []),
                unverified=evaluation.get("unverified", False),
            )
        try:
            writer(payload)
        except Exception:  # noqa: BLE001
            logger.debug(texts.LOG_WRITER_RAISED)
