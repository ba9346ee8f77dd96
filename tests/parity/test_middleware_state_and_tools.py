"""User middleware through both implementations: middleware state schemas, middleware tools,
middleware names (duplicates rejected, a built-in's name replaces it)."""

from __future__ import annotations

from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import HumanMessage

from .harness import FS_TOOLS, MODES, ScriptedChatModel, ai_tool_calls
from .middleware_support import (
    USER,
    AllHooks,
    Counter,
    Named,
    WrapsModel,
    check,
    lookup,
    msgs,
    mw_tool,
    ref_nodes,
    run_pair,
    tool_names,
    tool_then_answer,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


@pytest.mark.parametrize(
    "inp",
    [
        USER,
        {**USER, "counter": 5, "private_counter": 50, "hidden_note": "from input"},
    ],
    ids=["plain-input", "input-with-custom-keys"],
)
@pytest.mark.parametrize("mode", MODES)
def test_middleware_state_schema(mode: str, inp: dict) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [Counter(c.log)]}, inp, mode=mode)
    result, _ = check(both)
    # Public keys are in the result; PrivateStateAttr and OmitFromOutput keys are not.
    assert result["counter"] == inp.get("counter", 0) + 102
    assert "private_counter" not in result and "hidden_note" not in result and "jump_to" not in result


class ToolProvider(WrapsModel):
    def __init__(self, log: list[Any]) -> None:
        super().__init__(log)
        self.tools = [mw_tool]

    def model_logic(self, request):
        self.log.append(("wrap_model_call", tool_names(request.tools)))
        return (yield request)


@pytest.mark.parametrize("mode", MODES)
def test_middleware_tools_are_offered_and_callable(mode: str) -> None:
    script = [ai_tool_calls(("mw_tool", {"text": "hi"}, "c1")), "done"]
    both = run_pair(script, lambda c: {"tools": [lookup], "middleware": [ToolProvider(c.log)]}, mode=mode)
    result, log = check(both)
    # Middleware tools come before the user's tools (after the built-ins and task).
    assert log[0] == ("wrap_model_call", [*FS_TOOLS, "task", "mw_tool", "lookup"])
    assert result["messages"][2].content == "middleware tool got hi"


def test_duplicate_middleware_names_are_rejected() -> None:
    for module in (deepagents, deepagents_rs):
        with pytest.raises(AssertionError) as err:
            module.create_deep_agent(model=ScriptedChatModel([]), middleware=[AllHooks([]), AllHooks([])])
        assert str(err.value) == "Please remove duplicate middleware instances."


def test_duplicate_middleware_names_in_a_subagent_are_rejected() -> None:
    spec = {"name": "helper", "description": "Helps.", "system_prompt": "You help."}
    for module in (deepagents, deepagents_rs):
        with pytest.raises(AssertionError) as err:
            module.create_deep_agent(
                model=ScriptedChatModel([]), subagents=[{**spec, "middleware": [AllHooks([], "X"), AllHooks([], "X")]}]
            )
        assert str(err.value) == "Please remove duplicate middleware instances."


class FakePatch(Named):
    """Named like a built-in: it takes the built-in's place in the stack."""

    def before_model(self, state, runtime):
        self.log.append(("before_model", msgs(state["messages"])))


@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_middleware_named_like_a_builtin_replaces_it(mode: str) -> None:
    # A dangling tool call in the input: PatchToolCallsMiddleware would answer it; its replacement does not.
    inp = {
        "messages": [
            HumanMessage("first"),
            ai_tool_calls(("lookup", {"key": "x"}, "dangling")),
            HumanMessage("second"),
        ]
    }
    both = run_pair(
        ["done"],
        lambda c: {"tools": [lookup], "middleware": [FakePatch(c.log, "PatchToolCallsMiddleware")]},
        inp,
        mode=mode,
    )
    check(both)
    if mode == "stream":
        assert ref_nodes(both) == [
            "PatchToolCallsMiddleware.before_model",
            "model",
            "_ParentNotifierMiddleware.after_agent",
        ]
