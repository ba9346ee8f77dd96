"""``RubricMiddleware`` against deepagents: the grader's configuration (its tools, prompt,
middleware, the run's context, its prepared state)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest
from fake_models import ScriptedChatModel
from langchain.agents.middleware.types import AgentMiddleware
from langchain.tools import ToolRuntime
from langchain_core.messages import SystemMessage
from langchain_core.tools import tool

from .harness import MODES, ai_tool_calls, call_view
from .rubric_support import CATS_PASS, IMPLS, USER, GraderInput, _stable, run_both

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

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
