"""Design point 3 of issue 19: state holds any Python value. A key the core does not read
travels by reference and comes back as the caller's object, unchanged, however deep or
however far from JSON; with a saver, as the saver gives it back. Side by side with deepagents
on the same input."""

from __future__ import annotations

import datetime
import decimal
from typing import Any, NotRequired

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

IMPLS = (deepagents, deepagents_rs)


class _Opaque:
    """An object no serializer knows, holding what JSON cannot (a Decimal, a set)."""

    def __init__(self) -> None:
        self.held = [1, {"d": decimal.Decimal("1.5"), "s": {1, 2}}]


class _State(AgentState):
    opaque: NotRequired[Any]
    deep: NotRequired[Any]
    moment: NotRequired[Any]


class _Keys(AgentMiddleware):
    state_schema = _State


@tool
def noop(x: int) -> str:
    """Return ok."""
    return "ok"


def _nested(depth: int) -> list:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def _run(impl: Any, values: dict, saver: Any) -> dict:
    model = ScriptedChatModel([ai_tool_calls(("noop", {"x": 1})), "done"])
    agent = impl.create_deep_agent(model=model, tools=[noop], middleware=[_Keys()], checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}} if saver is not None else None
    return agent.invoke({"messages": [{"role": "user", "content": "hi"}], **values}, config)


def test_keys_the_core_does_not_read_come_back_as_the_callers_objects() -> None:
    # Past the core's depth limit (128) and past JSON: by reference, not converted.
    for impl in IMPLS:
        values = {"opaque": _Opaque(), "deep": _nested(300), "moment": datetime.datetime(2020, 1, 1)}
        out = _run(impl, values, None)
        assert [out[k] is v for k, v in values.items()] == [True, True, True], impl.__name__


@pytest.mark.parametrize("key", ["deep", "moment"])
def test_with_a_saver_the_values_are_the_savers(key: str) -> None:
    """With a saver the values are what LangGraph's channels hold: the same for both (the
    saver's serializer refuses an unknown class and a nesting past its limit the same way)."""
    out = []
    for impl in IMPLS:
        value = _nested(100) if key == "deep" else datetime.datetime(2020, 1, 1)
        result = _run(impl, {key: value}, InMemorySaver())
        out.append((result[key] is value, result[key] == value))
    assert out[0] == out[1]
    assert out[1][1]
