"""User middleware through both implementations in subagents: an isolated subagent's own
middleware, the main agent's middleware not running in it, state flowing in and back, a fork
inheriting the parent's."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from .harness import FS_TOOLS, MODES, ai_tool_calls
from .middleware_support import (
    AllHooks,
    CounterState,
    Ctx,
    Named,
    WrapsModel,
    _subagent_setup,
    check,
    lookup,
    msgs,
    run_pair,
    task,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


@pytest.mark.parametrize("mode", MODES)
def test_middleware_in_an_isolated_subagent(mode: str) -> None:
    script = [
        ai_tool_calls(task("look up x", "helper")),
        ai_tool_calls(("lookup", {"key": "x"}, "c1")),
        "child found it",
        "parent done",
    ]
    both = run_pair(script, _subagent_setup, mode=mode)
    result, log = check(both)
    assert log[0][0] == "before_agent"
    request = next(e for e in log if e[0] == "wrap_model_call")[1]
    assert request["system_prompt"] == "You help." and request["tools"] == [*FS_TOOLS, "lookup"]
    assert result["messages"][2].content == "child found it"


class ChildShortCircuit(WrapsModel):
    def model_logic(self, request):
        self.log.append(("child wrap_model_call", msgs(request.messages)))
        return AIMessage("answer made up by the child's middleware")


@pytest.mark.parametrize("mode", MODES)
def test_subagent_middleware_short_circuits_the_child(mode: str) -> None:
    def setup(c: Ctx) -> dict[str, Any]:
        spec = {"name": "helper", "description": "Helps.", "system_prompt": "You help."}
        return {"subagents": [{**spec, "middleware": [ChildShortCircuit(c.log)]}]}

    both = run_pair([ai_tool_calls(task("do it", "helper")), "parent done"], setup, mode=mode)
    result, _ = check(both)
    assert result["messages"][2].content == "answer made up by the child's middleware"


@pytest.mark.parametrize("mode", MODES)
def test_main_middleware_does_not_run_in_subagents(mode: str) -> None:
    def setup(c: Ctx) -> dict[str, Any]:
        spec = {"name": "helper", "description": "Helps.", "system_prompt": "You help."}
        return {"tools": [lookup], "middleware": [AllHooks(c.log, "Main")], "subagents": [spec]}

    script = [
        ai_tool_calls(task("one", "helper")),
        "helper answer",
        ai_tool_calls(task("two", "general-purpose", "t2")),
        "general answer",
        "parent done",
    ]
    both = run_pair(script, setup, mode=mode)
    _, log = check(both)
    assert [e[1] for e in log].count("before_model") == 3


class ParentCounter(Named):
    state_schema = CounterState

    def before_agent(self, state, runtime):
        self.log.append(("parent before_agent", state.get("counter")))
        return {"counter": 1}

    def after_agent(self, state, runtime):
        self.log.append(("parent after_agent", state.get("counter")))


class ChildCounter(Named):
    state_schema = CounterState

    def before_agent(self, state, runtime):
        self.log.append(("child before_agent", sorted(state), state.get("counter")))
        return {"counter": state.get("counter", 0) + 10}


@pytest.mark.parametrize("mode", MODES)
def test_middleware_state_flows_into_an_isolated_subagent_and_back(mode: str) -> None:
    def setup(c: Ctx) -> dict[str, Any]:
        spec = {"name": "helper", "description": "Helps.", "system_prompt": "You help."}
        return {"middleware": [ParentCounter(c.log)], "subagents": [{**spec, "middleware": [ChildCounter(c.log)]}]}

    both = run_pair([ai_tool_calls(task("count", "helper")), "child done", "parent done"], setup, mode=mode)
    result, log = check(both)
    assert log[1] == ("child before_agent", ["counter", "files", "messages"], 1)
    assert result["counter"] == 11


class Tagged(Named):
    def __init__(self, log: list[Any], name: str, tag: str) -> None:
        super().__init__(log, name)
        self.tag = tag

    def before_model(self, state, runtime):
        self.log.append((self.tag, self.name, msgs(state["messages"])))


@pytest.mark.parametrize("mode", MODES)
def test_fork_subagent_inherits_the_parent_middleware(mode: str) -> None:
    # The fork's custom middleware is the parent's list merged by name with the spec's: a spec
    # entry replaces the parent's in its place, the parent's instances are shared.
    def setup(c: Ctx) -> dict[str, Any]:
        spec = {
            "name": "forky",
            "description": "Continues the conversation.",
            "mode": "fork",
            "middleware": [Tagged(c.log, "Replaced", "spec"), Tagged(c.log, "Own", "spec")],
        }
        parent = [Tagged(c.log, "Shared", "parent"), Tagged(c.log, "Replaced", "parent")]
        return {"middleware": parent, "subagents": [spec]}

    both = run_pair([ai_tool_calls(task("continue", "forky")), "child done", "parent done"], setup, mode=mode)
    _, log = check(both)
    assert [(tag, name) for tag, name, _ in log] == [
        ("parent", "Shared"),
        ("parent", "Replaced"),
        ("parent", "Shared"),
        ("spec", "Replaced"),
        ("spec", "Own"),
        ("parent", "Shared"),
        ("parent", "Replaced"),
    ]
