"""A ``StopIteration`` raised inside a run (a fake model's exhausted iterator, a tool's own),
side by side with deepagents: LangGraph runs ``invoke`` and ``stream`` in a generator, so
the caller gets Python's ``RuntimeError("generator raised StopIteration")`` caused by it;
under ``ainvoke``/``astream`` asyncio's own ``RuntimeError`` caused by it. Never a silent end
of the stream, nor the exception itself (which ends a caller's ``for`` loop quietly)."""

from __future__ import annotations

import asyncio
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from .harness import ScriptedChatModel, ai_tool_calls

USER = {"messages": [{"role": "user", "content": "go"}]}
IMPLS = (deepagents, deepagents_rs)


class ExhaustedModel(ScriptedChatModel):
    """A model whose responses come from an iterator that has run dry (as in tests that
    script fewer replies than the run asks for)."""

    def _next(self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]) -> ChatResult:
        if len(self.calls) >= len(self.responses):
            raise StopIteration
        return super()._next(messages, stop, kwargs)


@tool
def stops(x: str) -> str:
    """Stop."""
    raise StopIteration


def _run(module: Any, how: str, saver: bool, model: Any, tools: list) -> BaseException | None:
    agent = module.create_deep_agent(model=model, tools=tools, checkpointer=InMemorySaver() if saver else None)
    config = {"configurable": {"thread_id": "t"}}

    async def consume() -> Any:
        if how == "ainvoke":
            return await agent.ainvoke(USER, config)
        return [chunk async for chunk in agent.astream(USER, config)]

    try:
        if how == "invoke":
            agent.invoke(USER, config)
        elif how == "stream":
            list(agent.stream(USER, config))
        else:
            asyncio.run(consume())
    except Exception as e:  # noqa: BLE001 - compared below
        return e
    return None


def _shape(error: BaseException | None) -> tuple:
    assert error is not None, "the run ended without an error"
    return type(error), str(error), type(error.__cause__), type(error.__context__)


@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize("how", ["invoke", "stream", "ainvoke", "astream"])
def test_model_raising_stop_iteration(how: str, saver: bool) -> None:
    shapes = [_shape(_run(m, how, saver, ExhaustedModel([]), [])) for m in IMPLS]
    assert shapes[1] == shapes[0]
    assert shapes[0][0] is RuntimeError
    assert shapes[0][2] is StopIteration


@pytest.mark.parametrize("how", ["invoke", "stream", "ainvoke"])
def test_tool_raising_stop_iteration(how: str) -> None:
    shapes = [
        _shape(_run(m, how, False, ScriptedChatModel([ai_tool_calls(("stops", {"x": "1"}, "c1"))]), [stops]))
        for m in IMPLS
    ]
    assert shapes[1] == shapes[0]
    assert shapes[0][2] is StopIteration


def test_partial_state_kept_on_the_converted_error() -> None:
    """deepagents_rs's failed run carries the state it reached; the conversion keeps it."""
    error = _run(deepagents_rs, "invoke", False, ExhaustedModel([]), [])
    assert isinstance(error, RuntimeError)
    assert [m.content for m in error.partial_state["messages"]] == ["go"]
