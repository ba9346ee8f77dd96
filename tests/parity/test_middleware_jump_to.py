"""User middleware through both implementations: ``jump_to`` from each hook, declared or not, and
the node sequences it gives."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents.middleware import hook_config
from langchain_core.messages import AIMessage, HumanMessage

from .harness import ai_tool_calls
from .middleware_support import USER, AllHooks, Named, Setup, _run_one, check, lookup, msgs, run_pair, tool_then_answer

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

# --------------------------------------------------------------------------------------------
# jump_to
# --------------------------------------------------------------------------------------------


class EndBeforeModel(Named):
    @hook_config(can_jump_to=["end"])
    def before_model(self, state, runtime):
        self.log.append(("before_model", msgs(state["messages"])))
        return {"jump_to": "end", "messages": [AIMessage("stopped before the model")]}


class UndeclaredEndBeforeModel(Named):
    def before_model(self, state, runtime):
        self.log.append(("before_model", msgs(state["messages"])))
        return {"jump_to": "end"}


class EndAfterModel(Named):
    def after_model(self, state, runtime):
        self.log.append((self.name, "after_model", msgs(state["messages"])))
        return {"jump_to": "end"}


class DeclaredEndAfterModel(EndAfterModel):
    @hook_config(can_jump_to=["end"])
    def after_model(self, state, runtime):
        return super().after_model(state, runtime)


class LoopOnce(Named):
    @hook_config(can_jump_to=["model"])
    def after_model(self, state, runtime):
        ais = [m for m in state["messages"] if m.type == "ai"]
        self.log.append(("after_model", msgs(state["messages"])))
        if len(ais) == 1:
            return {"jump_to": "model", "messages": [HumanMessage("try once more")]}
        return None


class ToTools(Named):
    @hook_config(can_jump_to=["tools"])
    def after_model(self, state, runtime):
        self.log.append(("after_model", msgs(state["messages"])))
        if len(state["messages"]) < 3:
            return {"jump_to": "tools"}
        return None


class JumpFromBeforeAgent(Named):
    def __init__(self, log: list[Any], target: str) -> None:
        super().__init__(log)
        self.target = target

    @hook_config(can_jump_to=["end", "model", "tools"])
    def before_agent(self, state, runtime):
        self.log.append(("before_agent", self.target))
        return {"jump_to": self.target}


class ToolsBeforeModel(Named):
    @hook_config(can_jump_to=["tools"])
    def before_model(self, state, runtime):
        return {"jump_to": "tools"}


def _jump_scenarios() -> dict[str, tuple[list[Any], Setup]]:
    two_calls = [ai_tool_calls(("lookup", {"key": "a"}, "c1"), ("lookup", {"key": "b"}, "c2")), "done"]
    return {
        "end_from_before_model": (["unused"], lambda c: {"middleware": [EndBeforeModel(c.log)]}),
        "undeclared_end_from_before_model_is_ignored": (
            tool_then_answer(),
            lambda c: {"tools": [lookup], "middleware": [UndeclaredEndBeforeModel(c.log)]},
        ),
        "end_from_after_model_skips_pending_tools": (
            tool_then_answer(),
            lambda c: {"tools": [lookup], "middleware": [DeclaredEndAfterModel(c.log)]},
        ),
        # The first middleware's after_model is the loop's exit node: its edge reads jump_to
        # whether or not it declared can_jump_to.
        "undeclared_end_from_the_outermost_after_model": (
            tool_then_answer(),
            lambda c: {"tools": [lookup], "middleware": [EndAfterModel(c.log)]},
        ),
        "undeclared_end_from_an_inner_after_model_is_ignored": (
            tool_then_answer(),
            lambda c: {"tools": [lookup], "middleware": [AllHooks(c.log, "Outer"), EndAfterModel(c.log, "Inner")]},
        ),
        "declared_end_from_an_inner_after_model": (
            tool_then_answer(),
            lambda c: {
                "tools": [lookup],
                "middleware": [AllHooks(c.log, "Outer"), DeclaredEndAfterModel(c.log, "Inner")],
            },
        ),
        "model_from_after_model": (
            ["first", "second"],
            lambda c: {"middleware": [AllHooks(c.log, "Outer"), LoopOnce(c.log)]},
        ),
        "tools_from_after_model": (two_calls, lambda c: {"tools": [lookup], "middleware": [ToTools(c.log)]}),
        "tools_from_after_model_without_tool_calls": (
            ["no tools wanted", "done"],
            lambda c: {"tools": [lookup], "middleware": [ToTools(c.log)]},
        ),
        "end_from_before_agent": (
            ["unused"],
            lambda c: {"middleware": [JumpFromBeforeAgent(c.log, "end"), AllHooks(c.log, "Later")]},
        ),
        "model_from_before_agent": (
            ["done"],
            lambda c: {"middleware": [JumpFromBeforeAgent(c.log, "model"), AllHooks(c.log, "Later")]},
        ),
        "unknown_destination_is_ignored": (
            ["done"],
            lambda c: {"middleware": [JumpFromBeforeAgent(c.log, "nowhere"), AllHooks(c.log, "Later")]},
        ),
        "tools_before_any_ai_message": (["unused"], lambda c: {"middleware": [ToolsBeforeModel(c.log)]}),
    }


JUMPS = _jump_scenarios()


@pytest.mark.parametrize("scenario", list(JUMPS))
@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream"])
def test_jump_to(mode: str, scenario: str) -> None:
    script, setup = JUMPS[scenario]
    both = run_pair(script, setup, mode=mode)
    result, _ = check(both, error=scenario == "tools_before_any_ai_message")
    if mode != "invoke":
        return
    calls = len(both.ref.calls)
    if scenario == "end_from_before_model":
        assert calls == 0 and result["messages"][-1].content == "stopped before the model"
        assert "jump_to" not in result
    elif scenario in ("end_from_after_model_skips_pending_tools", "undeclared_end_from_the_outermost_after_model"):
        assert calls == 1 and [m.type for m in result["messages"]] == ["human", "ai"]
    elif scenario in (
        "undeclared_end_from_before_model_is_ignored",
        "undeclared_end_from_an_inner_after_model_is_ignored",
    ):
        assert calls == 2
    elif scenario == "model_from_after_model":
        assert [m.content for m in result["messages"]] == ["please help", "first", "try once more", "second"]
    elif scenario == "end_from_before_agent":
        assert calls == 0
    elif scenario == "tools_before_any_ai_message":
        assert isinstance(both.ref.error, ValueError) and str(both.ref.error) == "No AIMessage found in input"


def test_jump_to_node_sequences() -> None:
    """The reference's routing, spelled out (the parity is in ``test_jump_to``)."""
    start, end = "PatchToolCallsMiddleware.before_agent", "_ParentNotifierMiddleware.after_agent"
    expected = {
        "end_from_before_model": [start, "EndBeforeModel.before_model", end],
        "end_from_after_model_skips_pending_tools": [start, "model", "DeclaredEndAfterModel.after_model", end],
        # Routing to "tools" runs the tool node once on the whole state (no per-call Send).
        "tools_from_after_model": [start, "model", "ToTools.after_model", "tools", "model", "ToTools.after_model", end],
        "tools_from_after_model_without_tool_calls": [
            *[start, "model", "ToTools.after_model", "tools", "model", "ToTools.after_model", end]
        ],
        # "end" from before_agent goes to the exit node (the last after_agent in the list).
        "end_from_before_agent": [start, "JumpFromBeforeAgent.before_agent", "Later.after_agent", end],
        # "model" from before_agent goes to the loop entry (the first before_model), skipping later before_agents.
        "model_from_before_agent": [
            *[start, "JumpFromBeforeAgent.before_agent", "Later.before_model", "model", "Later.after_model"],
            *["Later.after_agent", end],
        ],
    }
    for scenario, nodes in expected.items():
        script, setup = JUMPS[scenario]
        run = _run_one("deepagents", script, USER, setup, "stream", None)
        assert run.outcome.error is None, run.outcome.error
        assert [n for n, _ in run.nodes] == nodes, scenario
