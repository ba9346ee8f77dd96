"""Parity: tool error paths, recursion limits, input validation and create-time errors.

Normalizations are those of ``harness`` (see its docstring).
"""

from __future__ import annotations

import warnings

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool, ToolException
from langgraph.errors import GraphRecursionError
from pydantic import BaseModel

from .harness import MODES, ScriptedChatModel, ai_tool_calls, assert_parity, assert_same_error, run_both

USER = {"messages": [{"role": "user", "content": "go"}]}


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def explode(reason: str) -> str:
    """Always fails."""
    raise ValueError(f"boom: {reason}")


def _flaky(x: int) -> str:
    raise ToolException(f"flaky failed on {x}")


def flaky_tool(handle_tool_error) -> StructuredTool:
    return StructuredTool.from_function(
        _flaky, name="flaky", description="A flaky tool.", handle_tool_error=handle_tool_error
    )


class StrictArgs(BaseModel):
    count: int


def _strict(count: int) -> str:
    return f"count={count}"


def strict_tool(handle_validation_error) -> StructuredTool:
    return StructuredTool.from_function(
        _strict,
        name="strict",
        description="Needs an int.",
        args_schema=StrictArgs,
        handle_validation_error=handle_validation_error,
    )


def _tool_messages(result):
    return [m for m in result["messages"] if isinstance(m, ToolMessage)]


# (call, expected status, a fragment of deepagents' tool message)
BAD_CALLS = {
    "unknown-tool": (("nonexistent", {"a": 1}), "error", "nonexistent is not a valid tool, try one of ["),
    "missing-arg": (("add", {"a": 1}), "error", "b: Field required"),
    "wrong-type": (("add", {"a": "one", "b": 2}), "error", "a: Input should be a valid integer"),
    "coercible": (("add", {"a": "3", "b": 4}), "success", "7"),
    "extra-arg": (("add", {"a": 1, "b": 2, "c": 3}), "success", "3"),
    "null-arg": (("add", {"a": None, "b": 2}), "error", "a: Input should be a valid integer"),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call,status,fragment", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_bad_tool_calls_become_tool_messages(call, status, fragment, mode):
    both = run_both([ai_tool_calls(call), "recovered"], [add], USER, mode=mode)
    ref = assert_parity(both)
    (msg,) = _tool_messages(ref)
    assert (msg.status, fragment in msg.content) == (status, True)
    assert ref["messages"][-1].content == "recovered"


@pytest.mark.parametrize("mode", MODES)
def test_tool_raising_value_error_propagates(mode):
    both = run_both([ai_tool_calls(("explode", {"reason": "r1"})), "never"], [explode], USER, mode=mode)
    assert_parity(both)
    err = assert_same_error(both)
    assert isinstance(err, ValueError) and str(err) == "boom: r1"
    assert len(both.rs.calls) == 1


HANDLERS = {
    "true": (True, "flaky failed on 5"),
    "string": ("The tool failed, try something else.", "The tool failed, try something else."),
    "callable": (lambda e: f"handled: {e}", "handled: flaky failed on 5"),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("handler,content", HANDLERS.values(), ids=HANDLERS.keys())
def test_tool_exception_handled(handler, content, mode):
    both = run_both([ai_tool_calls(("flaky", {"x": 5})), "ok"], [flaky_tool(handler)], USER, mode=mode)
    ref = assert_parity(both)
    (msg,) = _tool_messages(ref)
    assert (msg.status, msg.content) == ("error", content)


@pytest.mark.parametrize("mode", MODES)
def test_tool_exception_unhandled_propagates(mode):
    both = run_both([ai_tool_calls(("flaky", {"x": 5})), "ok"], [flaky_tool(False)], USER, mode=mode)
    assert_parity(both)
    err = assert_same_error(both)
    assert isinstance(err, ToolException) and str(err) == "flaky failed on 5"


VALIDATION_HANDLERS = {
    "true": (True, "Tool input validation error"),
    "false": (False, "count: Input should be a valid integer"),
    "string": ("bad args", "bad args"),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("handler,fragment", VALIDATION_HANDLERS.values(), ids=VALIDATION_HANDLERS.keys())
def test_handle_validation_error(handler, fragment, mode):
    both = run_both([ai_tool_calls(("strict", {"count": "many"})), "ok"], [strict_tool(handler)], USER, mode=mode)
    ref = assert_parity(both)
    (msg,) = _tool_messages(ref)
    assert msg.status == "error" and fragment in msg.content


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("limit", range(1, 7))
def test_recursion_limit(limit, mode):
    script = [ai_tool_calls(("add", {"a": i, "b": 1})) for i in range(10)]
    both = run_both(script, [add], USER, mode=mode, config={"recursion_limit": limit})
    assert_parity(both)
    err = assert_same_error(both)
    assert isinstance(err, GraphRecursionError)
    assert isinstance(both.rs.error, deepagents_rs.GraphRecursionError)
    assert f"Recursion limit of {limit} reached" in str(err)
    assert len(both.rs.calls) == len(both.ref.calls) == limit // 2


def _rounds_script(rounds: int) -> list:
    return [ai_tool_calls(("add", {"a": i, "b": 1})) for i in range(rounds)] + ["done"]


# A run with k tool rounds executes 2k+3 graph steps (entry node, k+1 model steps, k tool
# steps, exit node), and LangGraph counts one more before it finds nothing left to run: it
# needs recursion_limit >= 2k+4 to finish and raises at 2k+3. Both limits are checked.


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rounds", [0, 1, 2])
def test_recursion_limit_enough_to_finish(rounds, mode):
    both = run_both(_rounds_script(rounds), [add], USER, mode=mode, config={"recursion_limit": 2 * rounds + 4})
    ref = assert_parity(both)
    assert ref["messages"][-1].content == "done"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rounds", [0, 1, 2])
def test_recursion_limit_one_short_of_finishing(rounds, mode):
    both = run_both(_rounds_script(rounds), [add], USER, mode=mode, config={"recursion_limit": 2 * rounds + 3})
    assert_parity(both)
    assert isinstance(assert_same_error(both), GraphRecursionError)
    assert len(both.rs.calls) == rounds + 1


BAD_INPUTS = {
    "str": "hi",
    "list": [{"role": "user", "content": "hi"}],
    "none": None,
    "bogus-role": {"messages": [{"role": "bogus", "content": "x"}]},
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("inp", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_invalid_input(inp, mode):
    both = run_both(["never"], None, inp, mode=mode)
    assert_parity(both)
    err = assert_same_error(both)
    if isinstance(inp, dict):
        assert isinstance(err, ValueError)
    assert both.rs.calls == []


EDGE_INPUTS = {
    "empty-dict": {},
    "empty-messages": {"messages": []},
    "files": {
        "messages": [{"role": "user", "content": "hi"}],
        "files": {"/notes.txt": {"content": "hello\nworld", "encoding": "utf-8"}},
    },
    "extra-keys": {"messages": [{"role": "user", "content": "hi"}], "unknown_key": 42, "todos": ["x"]},
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("inp", EDGE_INPUTS.values(), ids=EDGE_INPUTS.keys())
def test_edge_inputs(inp, mode):
    both = run_both(["answer"], None, inp, mode=mode)
    ref = assert_parity(both)
    assert sorted(both.rs.unwrap()) == sorted(ref) == ["files", "messages"]
    assert both.rs.unwrap()["files"] == inp.get("files", {})


def test_function_without_docstring_is_refused():
    def nodoc(x: int) -> int:
        return x

    errors = []
    for module in (deepagents, deepagents_rs):
        with pytest.raises(ValueError) as info:
            module.create_deep_agent(model=ScriptedChatModel([]), tools=[nodoc])
        errors.append(str(info.value))
    assert errors[1] == errors[0]
    assert "docstring" in errors[0]


def test_model_none_warns_the_same(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-used")
    seen = []
    for module in (deepagents, deepagents_rs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module.create_deep_agent(model=None)
        relevant = [w for w in caught if "model=None" in str(w.message)]
        assert len(relevant) == 1, [str(w.message) for w in caught]
        seen.append((relevant[0].category, str(relevant[0].message), relevant[0].filename))
    assert seen[1] == seen[0]
    assert seen[0][2] == __file__  # stacklevel points at the caller
