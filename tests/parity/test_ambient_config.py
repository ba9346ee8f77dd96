"""Our agent as a ``CompiledSubAgent`` of deepagents' agent: deepagents' `task` tool calls
``invoke``/``ainvoke`` inside its `tools` task without handing the task's config, and the
agent takes it from LangChain's context as LangGraph's ``Pregel`` does (``ensure_config``),
so with ``subgraphs=True`` the parent streams the child's ``messages``, ``updates`` and
``custom`` parts under its task's namespace, as for a deepagents child. Parts compared
after ids and namespaces are numbered by first appearance (``test_stream.Placeholders``)."""

from __future__ import annotations

import asyncio
import copy
from types import ModuleType
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import StreamingScriptedChatModel, ai_tool_calls
from langchain_core.runnables import RunnableLambda

from .stream_support import Placeholders, plain
from .test_compiled_subagent_stream import report

INPUT = {"messages": [{"role": "user", "content": "go"}]}
MODES = ["messages", "updates", "custom"]


def parent_of(child_module: ModuleType) -> Any:
    """deepagents' agent whose `task` call runs a ``child_module`` agent (which calls
    `report`, then answers) as a ``CompiledSubAgent``."""
    child = child_module.create_deep_agent(
        model=StreamingScriptedChatModel([ai_tool_calls(("report", {"x": 3}, "call_C")), "child done"]),
        tools=[report],
        name="helper",
    )
    main = StreamingScriptedChatModel(
        [ai_tool_calls(("task", {"description": "help", "subagent_type": "helper"}, "call_H")), "Final"]
    )
    subagents = [{"name": "helper", "description": "Helps.", "runnable": child}]
    return deepagents.create_deep_agent(model=main, subagents=subagents)


def _stream(child_module: ModuleType, api: str, **kwargs: Any) -> list[Any]:
    agent = parent_of(child_module)
    if api == "sync":
        parts = list(agent.stream(copy.deepcopy(INPUT), **kwargs))
    else:

        async def go() -> list[Any]:
            return [p async for p in agent.astream(copy.deepcopy(INPUT), **kwargs)]

        parts = asyncio.run(go())
    return Placeholders()(plain(parts))


@pytest.mark.parametrize("api", ["sync", "async"])
@pytest.mark.parametrize("modes", [MODES, ["custom"], ["updates", "values"]], ids=["three", "custom", "values"])
def test_child_parts_under_the_task(api: str, modes: list[str]) -> None:
    ref, ours = (_stream(m, api, stream_mode=list(modes), subgraphs=True) for m in (deepagents, deepagents_rs))
    assert ours == ref
    child_modes = {part[1] for part in ref if part[0]}
    assert child_modes == set(modes)


@pytest.mark.parametrize("api", ["sync", "async"])
def test_without_subgraphs_only_the_parent(api: str) -> None:
    ref, ours = (_stream(m, api, stream_mode=list(MODES)) for m in (deepagents, deepagents_rs))
    assert ours == ref
    assert all(mode != "custom" for mode, _ in ref)


@pytest.mark.parametrize("api", ["sync", "async"])
def test_final_state(api: str) -> None:
    results = []
    for m in (deepagents, deepagents_rs):
        agent = parent_of(m)
        if api == "sync":
            out = agent.invoke(copy.deepcopy(INPUT))
        else:
            out = asyncio.run(agent.ainvoke(copy.deepcopy(INPUT)))
        results.append(Placeholders()(plain(out)))
    ref, ours = results
    assert ours == ref
    assert ref["messages"][-2]["content"] == "child done"


def test_outside_a_task_nothing_is_taken() -> None:
    """Outside a LangGraph task (here a plain LangChain runnable's context) the agent's run
    is its own: its stream has only its own parts, at the root."""
    agent = deepagents_rs.create_deep_agent(
        model=StreamingScriptedChatModel([ai_tool_calls(("report", {"x": 3}, "call_C")), "done"]), tools=[report]
    )

    def run(_: Any) -> list[Any]:
        return list(agent.stream(copy.deepcopy(INPUT), stream_mode=["updates", "custom"], subgraphs=True))

    parts = RunnableLambda(run).invoke(None, {"metadata": {"caller": "x"}, "tags": ["outer"]})
    assert ((), "custom", {"progress": 3}) in parts
    assert all(ns == () for ns, _, _ in parts)


def test_event_stream() -> None:
    """``astream_events`` v2 of the parent: the child's graph, node and model runs nested in
    the `task` tool's run, each once (the graph following our run reports nothing itself)."""
    from .test_event_stream import _event

    def events(child_module: ModuleType) -> list[Any]:
        async def go() -> list[Any]:
            agent = parent_of(child_module)
            return [
                (_event(e), e["metadata"].get("lc_agent_name"), _nodes(e["metadata"].get("langgraph_checkpoint_ns")))
                async for e in agent.astream_events(copy.deepcopy(INPUT), version="v2")
            ]

        return asyncio.run(go())

    ref, ours = events(deepagents), events(deepagents_rs)
    assert ours == ref
    assert any(agent == "helper" and len(ns) == 2 for _, agent, ns in ref)


def _nodes(ns: str | None) -> list[str]:
    """A task namespace's nodes, without the task ids (LangGraph's, or the core's)."""
    return [part.rpartition(":")[0] for part in (ns or "").split("|") if part]


@pytest.mark.parametrize("api", ["sync", "async"])
def test_a_node_streaming_the_agent_keeps_its_config(api: str) -> None:
    """A LangGraph node that streams the agent reads its own config between chunks, as with a
    deepagents agent (the agent empties LangChain's context only while its graph steps)."""
    from langgraph.config import get_config
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        seen: list

    def run(child_module: ModuleType) -> list[Any]:
        child = child_module.create_deep_agent(model=StreamingScriptedChatModel(["one", "two"]), name="child")

        def node(state: State) -> dict:
            seen = []
            for _ in child.stream(copy.deepcopy(INPUT), stream_mode="updates"):
                seen.append(get_config()["metadata"].get("langgraph_node"))
            return {"seen": seen}

        async def anode(state: State) -> dict:
            seen = []
            async for _ in child.astream(copy.deepcopy(INPUT), stream_mode="updates"):
                seen.append(get_config()["metadata"].get("langgraph_node"))
            return {"seen": seen}

        builder = StateGraph(State)
        builder.add_node("outer", node if api == "sync" else anode)
        builder.add_edge(START, "outer")
        builder.add_edge("outer", END)
        graph = builder.compile()
        if api == "sync":
            return graph.invoke({"seen": []})["seen"]
        return asyncio.run(graph.ainvoke({"seen": []}))["seen"]

    ref, ours = run(deepagents), run(deepagents_rs)
    assert ours == ref
    assert ref and all(s == "outer" for s in ref)
