"""The rubric's public types, as deepagents exports them: the grader's verdicts, its
structured answer (``GraderResponse``, whose JSON schema the grader model is offered), one
evaluation as the state keeps it, and the state keys the middleware declares."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from langchain.agents.middleware.types import AgentState, PrivateStateAttr
from pydantic import BaseModel, Discriminator, Field, model_validator
from typing_extensions import TypedDict

from . import _rubric_texts as texts

GraderVerdict = Literal["satisfied", "needs_revision", "failed"]
"""What the grader may answer: only ``needs_revision`` keeps the agent working."""

RubricResult = GraderVerdict | Literal["max_iterations_reached", "grader_error"]
"""An evaluation's status: a verdict, or one the middleware sets itself (the iteration cap
reached on ``needs_revision``; the grader raising)."""


class CriterionPass(TypedDict):
    name: Annotated[str, Field(description=texts.CRITERION_NAME_DESCRIPTION)]
    passed: Literal[True]


class CriterionFail(TypedDict):
    name: Annotated[str, Field(description=texts.CRITERION_NAME_DESCRIPTION)]
    passed: Literal[False]
    gap: Annotated[str, Field(description=texts.CRITERION_GAP_DESCRIPTION)]


# The docstrings are the schemas' descriptions the grader reads: held with the other texts.
CriterionPass.__doc__ = texts.CRITERION_PASS_DOC
CriterionFail.__doc__ = texts.CRITERION_FAIL_DOC

CriterionEval = Annotated[CriterionPass | CriterionFail, Discriminator("passed")]
"""One criterion's verdict; a failing one must say what is missing (``gap``)."""


class RubricEvaluation(TypedDict):
    """One grading pass, as ``_rubric_evaluations`` keeps it (every field always set)."""

    grading_run_id: str
    iteration: int
    result: RubricResult
    explanation: str
    criteria: list[CriterionEval]
    unverified: bool


class RubricState(AgentState):
    """The middleware's state: ``rubric`` is the caller's; the rest is private bookkeeping
    (left out of the graph's input and output, never passed to subagents)."""

    rubric: NotRequired[str]
    _rubric_status: NotRequired[Annotated[RubricResult | None, PrivateStateAttr]]
    _rubric_iterations: NotRequired[Annotated[int, PrivateStateAttr]]
    _rubric_evaluations: NotRequired[Annotated[list[RubricEvaluation], PrivateStateAttr]]
    _current_grading_run_id: NotRequired[Annotated[str, PrivateStateAttr]]
    _active_rubric: NotRequired[Annotated[str, PrivateStateAttr]]
    _rubric_criteria: NotRequired[Annotated[list[str], PrivateStateAttr]]


class GraderResponse(BaseModel):
    __doc__ = texts.GRADER_RESPONSE_DOC

    result: GraderVerdict = Field(description=texts.RESULT_DESCRIPTION)
    explanation: str = Field(description=texts.EXPLANATION_DESCRIPTION)
    criteria: list[CriterionEval] = Field(description=texts.CRITERIA_DESCRIPTION)

    @model_validator(mode="after")
    def _consistent(self) -> GraderResponse:
        # A verdict its own criteria contradict is refused (the grader is asked again).
        failing = [c for c in self.criteria if c["passed"] is False]
        if self.result == "satisfied" and failing:
            raise ValueError(texts.SATISFIED_WITH_FAILURE)
        if self.result == "needs_revision" and self.criteria and not failing:
            raise ValueError(texts.REVISION_WITHOUT_FAILURE)
        return self
