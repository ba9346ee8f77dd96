"""Parity: LangGraph's run control (``invoke(..., control=RunControl())``).

A drain requested during a run (by a tool, a middleware hook, or before the run starts)
stops it at the next node boundary with LangGraph's ``GraphDrained``; the thread keeps the
checkpoint of that boundary and ``invoke(None, config)`` goes on from it. Each scenario runs
through deepagents and deepagents_rs and compares the error, the model's calls, the thread's
history and the resumed result.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphDrained
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.runtime import RunControl

from .harness import ScriptedChatModel, ai_tool_calls, norm

IMPLS = ("deepagents", "deepagents_rs")
MODES = ("invoke", "ainvoke", "stream", "astream")
CONFIG = {"configurable": {"thread_id": "t"}}
USER = {"messages": [{"role": "user", "content": "go"}]}


def _drain_tool(control: RunControl) -> Any:
    @tool
    def shutdown(reason: str) -> str:
        """Ask the run to stop at the next step."""
        control.request_drain(reason)
        return "asked"

    return shutdown


class _DrainAfterModel(AgentMiddleware):
    """Asks for a drain once the model has answered: the run stops before the tools."""

    def __init__(self, control: RunControl) -> None:
        super().__init__()
        self.control = control

    def after_model(self, state: Any, runtime: Any) -> None:
        self.control.request_drain("after the model")


def _call(agent: Any, inp: Any, mode: str, **kwargs: Any) -> Any:
    """One run in ``mode``: the final state for the invokes, the list of chunks for streams."""
    if mode == "invoke":
        return agent.invoke(inp, CONFIG, **kwargs)
    if mode == "ainvoke":
        return asyncio.run(agent.ainvoke(inp, CONFIG, **kwargs))
    if mode == "stream":
        return list(agent.stream(inp, CONFIG, stream_mode="updates", **kwargs))

    async def collect() -> list:
        return [c async for c in agent.astream(inp, CONFIG, stream_mode="updates", **kwargs)]

    return asyncio.run(collect())


def _history(agent: Any) -> list[tuple]:
    return [
        (s.metadata.get("source"), s.metadata.get("step"), s.next, len(s.values.get("messages", [])))
        for s in agent.get_state_history(CONFIG)
    ]


def _run(impl: str, mode: str, build: Any, *, before: bool = False) -> dict[str, Any]:
    """A run drained as ``build`` arranges, then resumed with ``invoke(None, config)``."""
    module = importlib.import_module(impl)
    control = RunControl()
    model, kwargs = build(control)
    agent = module.create_deep_agent(model=model, checkpointer=InMemorySaver(), **kwargs)
    if before:
        control.request_drain("before")
    out: dict[str, Any] = {}
    with pytest.raises(GraphDrained) as caught:
        _call(agent, USER, mode, control=control)
    out["error"] = (type(caught.value), str(caught.value), caught.value.reason)
    out["calls_at_drain"] = len(model.calls)
    out["history_at_drain"] = _history(agent)
    out["next"] = agent.get_state(CONFIG).next
    resumed = agent.invoke(None, CONFIG)
    out["resumed"] = norm(resumed["messages"]) if resumed else resumed
    out["calls"] = len(model.calls)
    return out


def _tool_drains(control: RunControl) -> tuple:
    model = ScriptedChatModel([ai_tool_calls(("shutdown", {"reason": "maintenance"})), "done"])
    return model, {"tools": [_drain_tool(control)]}


def _hook_drains(control: RunControl) -> tuple:
    model = ScriptedChatModel([ai_tool_calls(("ls", {"path": "/"})), "done"])
    return model, {"middleware": [_DrainAfterModel(control)]}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("build", [_tool_drains, _hook_drains], ids=["tool", "after_model"])
def test_a_drain_stops_at_the_next_boundary_and_the_thread_goes_on(mode: str, build: Any) -> None:
    ref, rs = (_run(impl, mode, build) for impl in IMPLS)
    assert rs == ref
    # The run stopped before the node after the one that asked, and went on from there.
    assert ref["calls_at_drain"] == 1 and ref["calls"] == 2
    assert ref["next"] == (("model",) if build is _tool_drains else ("tools",))


@pytest.mark.parametrize("mode", MODES)
def test_a_drain_asked_before_the_run_stops_it_at_once(mode: str) -> None:
    ref, rs = (_run(impl, mode, _tool_drains, before=True) for impl in IMPLS)
    assert rs == ref
    assert ref["calls_at_drain"] == 0 and ref["error"][2] == "before"


def test_without_a_checkpointer_a_drain_still_raises() -> None:
    results = []
    for impl in IMPLS:
        control = RunControl()
        model, kwargs = _tool_drains(control)
        agent = importlib.import_module(impl).create_deep_agent(model=model, **kwargs)
        with pytest.raises(GraphDrained) as caught:
            agent.invoke(USER, control=control)
        results.append((str(caught.value), len(model.calls)))
    assert results[0] == results[1] == ("Graph drained: maintenance", 1)


def test_a_control_never_drained_changes_nothing() -> None:
    results = []
    for impl in IMPLS:
        model = ScriptedChatModel([ai_tool_calls(("ls", {"path": "/"})), "done"])
        agent = importlib.import_module(impl).create_deep_agent(model=model, checkpointer=InMemorySaver())
        out = agent.invoke(USER, CONFIG, control=RunControl())
        results.append((norm(out["messages"]), _history(agent)))
    assert results[0] == results[1]


def test_a_parent_graphs_drain_reaches_the_agent_inside_it() -> None:
    # The agent as a node of a parent graph: the parent's control is the agent's too, and
    # the drain stops both.
    results = []
    for impl in IMPLS:
        control = RunControl()
        model, kwargs = _tool_drains(control)
        agent = importlib.import_module(impl).create_deep_agent(model=model, **kwargs)
        parent = StateGraph(MessagesState)
        parent.add_node("agent", agent)
        parent.add_edge(START, "agent")
        graph = parent.compile(checkpointer=InMemorySaver())
        with pytest.raises(GraphDrained) as caught:
            graph.invoke(USER, CONFIG, control=control)
        state = graph.get_state(CONFIG, subgraphs=True)
        sub = state.tasks[0].state if state.tasks else None
        results.append(
            (
                str(caught.value),
                len(model.calls),
                state.next,
                sub.next if sub is not None else None,
                len(sub.values["messages"]) if sub is not None else None,
            )
        )
    assert results[1] == results[0]


def _subagent_drains(impl: str) -> dict[str, Any]:
    control = RunControl()
    model = ScriptedChatModel([ai_tool_calls(("task", {"description": "stop it", "subagent_type": "worker"})), "done"])
    sub_model = ScriptedChatModel([ai_tool_calls(("shutdown", {"reason": "maintenance"})), "sub done"])
    worker = {"name": "worker", "description": "w", "system_prompt": "w", "model": sub_model}
    worker["tools"] = [_drain_tool(control)]
    agent = importlib.import_module(impl).create_deep_agent(
        model=model, checkpointer=InMemorySaver(), subagents=[worker]
    )
    with pytest.raises(GraphDrained):
        agent.invoke(USER, CONFIG, control=control)
    at_drain = (agent.get_state(CONFIG).next, len(sub_model.calls))
    resumed = agent.invoke(None, CONFIG)
    return {
        "at_drain": at_drain,
        "resumed": norm(resumed["messages"]),
        "calls": (len(model.calls), len(sub_model.calls)),
    }


def test_a_drain_inside_a_subagent_lets_it_finish_then_stops() -> None:
    # deepagents stops the subagent's own graph midway (its tools step) and resumes it
    # there; here the subagent runs to its end and the run stops before its next step. Both
    # resume to the same conversation with each model called as often.
    ref, rs = (_subagent_drains(impl) for impl in IMPLS)
    assert ref["at_drain"] == (("tools",), 1)
    assert rs["at_drain"] == (("model",), 2)
    assert rs["resumed"] == ref["resumed"] and rs["calls"] == ref["calls"] == (2, 2)
