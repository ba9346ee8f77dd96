"""LangChain's and LangGraph's methods around a run behave on the agent as on deepagents'
graph, side by side: ``with_listeners`` (the run's start and end, its output),
``batch_as_completed`` (each input's answer under its index), ``get_subgraphs`` and
``aget_graph`` (the same nodes and edges as ``get_graph``)."""

from __future__ import annotations

import asyncio
from typing import Any

import deepagents
import deepagents_rs
from fake_models import ScriptedChatModel
from langchain_core.messages import AIMessage


def _agent(module: Any, *answers: str) -> Any:
    return module.create_deep_agent(model=ScriptedChatModel(responses=[AIMessage(a) for a in answers]))


def _texts(state: dict) -> list[str]:
    return [m.content for m in state["messages"]]


def test_with_listeners_sees_the_run() -> None:
    seen: dict[str, list] = {}
    for module in (deepagents, deepagents_rs):
        events: list = []
        agent = _agent(module, "hi").with_listeners(
            on_start=lambda run, events=events: events.append(("start", run.name, run.run_type)),
            on_end=lambda run, events=events: events.append(("end", run.name, _texts(run.outputs), run.error)),
        )
        agent.invoke({"messages": [("user", "x")]})
        seen[module.__name__] = events
    assert seen["deepagents_rs"] == seen["deepagents"]
    assert seen["deepagents"][-1][2] == ["x", "hi"]


def test_batch_as_completed_answers_each_input() -> None:
    answers = {}
    for module in (deepagents, deepagents_rs):
        agent = _agent(module, "one", "two")
        inputs = [{"messages": [("user", "x")]}, {"messages": [("user", "y")]}]
        # One at a time: the scripted answers go to the inputs in order.
        done = agent.batch_as_completed(inputs, {"max_concurrency": 1})
        answers[module.__name__] = sorted((i, _texts(out)) for i, out in done)
    assert answers["deepagents_rs"] == answers["deepagents"] == [(0, ["x", "one"]), (1, ["y", "two"])]


def test_subgraphs_and_the_async_graph() -> None:
    shapes = []
    for module in (deepagents, deepagents_rs):
        agent = _agent(module)
        drawn, adrawn = agent.get_graph(), asyncio.run(agent.aget_graph())
        edges = sorted((e.source, e.target, e.conditional) for e in drawn.edges)
        assert sorted((e.source, e.target, e.conditional) for e in adrawn.edges) == edges
        assert list(adrawn.nodes) == list(drawn.nodes)
        shapes.append((list(agent.get_subgraphs()), list(drawn.nodes), edges))
    assert shapes[0] == shapes[1]
