"""The agent is a LangGraph compiled graph to the code around it: the same type checks, the
same nodes, edges, channels and JSON schemas as deepagents' graph, for several stacks."""

from __future__ import annotations

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel
from langchain.agents.middleware import AgentMiddleware, hook_config
from langchain.agents.structured_output import ProviderStrategy, ToolStrategy
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.pregel import Pregel
from pydantic import BaseModel


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return query


@tool(return_direct=True)
def finish(answer: str) -> str:
    """Give the final answer."""
    return answer


class Gate(AgentMiddleware):
    @hook_config(can_jump_to=["end", "tools"])
    def before_model(self, state, runtime):
        return None

    def after_model(self, state, runtime):
        return None


class Audit(AgentMiddleware):
    def before_agent(self, state, runtime):
        return None

    @hook_config(can_jump_to=["model"])
    def after_model(self, state, runtime):
        return None

    def after_agent(self, state, runtime):
        return None


class Answer(BaseModel):
    text: str


class Refusal(BaseModel):
    reason: str


STACKS = {
    "plain": {},
    "tools": {"tools": [lookup]},
    "return_direct": {"tools": [lookup, finish]},
    "middleware": {"tools": [lookup], "middleware": [Gate(), Audit()]},
    "hitl": {"interrupt_on": {"edit_file": True, "lookup": True}, "tools": [lookup]},
    "structured": {"response_format": Answer},
    # No schema tools are set up for an explicit ProviderStrategy: the tools step never ends.
    "provider-structured": {"response_format": ProviderStrategy(Answer), "tools": [lookup]},
    "union-structured": {"response_format": ToolStrategy(Answer | Refusal), "tools": [lookup]},
    "subagent": {"subagents": [{"name": "helper", "description": "helps", "system_prompt": "help"}]},
    "named": {"name": "researcher"},
}


def build(module, stack):
    # One fresh middleware instance per build: LangChain refuses an instance twice.
    kwargs = dict(STACKS[stack])
    if "middleware" in kwargs:
        kwargs["middleware"] = [type(m)() for m in kwargs["middleware"]]
    return module.create_deep_agent(model=ScriptedChatModel(responses=[]), **kwargs)


def edges(graph):
    return sorted((e.source, e.target, e.conditional) for e in graph.edges)


def nodes(graph):
    return {n.id: (n.name, n.metadata) for n in graph.nodes.values()}


@pytest.mark.parametrize("stack", list(STACKS))
def test_same_graph_as_deepagents(stack):
    ours, theirs = build(deepagents_rs, stack), build(deepagents, stack)
    assert isinstance(ours, CompiledStateGraph) and isinstance(ours, Pregel) and isinstance(ours, Runnable)
    assert ours.get_name() == theirs.get_name()
    assert ours.name == theirs.name
    assert ours.config == theirs.config
    for attr in ("input_channels", "output_channels", "stream_channels_list", "stream_mode"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert list(ours.channels) == list(theirs.channels) or sorted(ours.channels) == sorted(theirs.channels)
    drawn, expected = ours.get_graph(), theirs.get_graph()
    assert nodes(drawn) == nodes(expected)
    assert edges(drawn) == edges(expected)
    assert ours.get_input_jsonschema() == theirs.get_input_jsonschema()
    assert ours.get_output_jsonschema() == theirs.get_output_jsonschema()
    assert ours.get_context_jsonschema() == theirs.get_context_jsonschema()
    assert ours.config_specs == theirs.config_specs
    assert ours.stream_transformers == theirs.stream_transformers


def test_drawings_match():
    ours, theirs = build(deepagents_rs, "middleware"), build(deepagents, "middleware")
    # Mermaid lists edges in the order LangGraph stores them (a set): compare the lines.
    assert sorted(ours.get_graph().draw_mermaid().splitlines()) == sorted(
        theirs.get_graph().draw_mermaid().splitlines()
    )


def test_copy_gives_the_server_saver_and_name():
    """LangGraph's server hands each run its saver and store through ``copy(update=...)``."""
    thread = {"configurable": {"thread_id": "t"}}
    histories = []
    for module in (deepagents_rs, deepagents):
        agent = module.create_deep_agent(model=ScriptedChatModel(responses=[AIMessage("hi")]))
        saver = InMemorySaver()
        served = agent.copy(update={"checkpointer": saver, "store": None, "name": "agent"})
        assert type(served) is type(agent)
        assert served.checkpointer is saver and served.name == "agent"
        assert agent.checkpointer is None and agent.name == "LangGraph"
        assert served.config == agent.config
        served.invoke({"messages": [("user", "hello")]}, thread)
        assert [m.content for m in served.get_state(thread).values["messages"]] == ["hello", "hi"]
        histories.append([(s.metadata["step"], s.next) for s in served.get_state_history(thread)])
    assert histories[0] == histories[1]


def test_cache_as_deepagents_compiles_it():
    """``cache=`` is LangGraph's node cache on the graph; no node of deepagents' graph has a
    cache policy, so runs neither read nor fill it, in either implementation."""
    from langgraph.cache.memory import InMemoryCache

    results = []
    for module in (deepagents_rs, deepagents):
        cache = InMemoryCache()
        agent = module.create_deep_agent(model=ScriptedChatModel(responses=[AIMessage("hi")]), cache=cache)
        assert agent.cache is cache
        result = agent.invoke({"messages": [("user", "hello")]})
        results.append(([m.content for m in result["messages"]], dict(cache._cache)))
    assert results[0] == results[1] == (["hello", "hi"], {})


def _ascii(module, stack):
    """The graph's ASCII drawing, or the error drawing it raised (its text up to the object
    address LangChain puts in it)."""
    try:
        return build(module, stack).get_graph().draw_ascii()
    except Exception as e:  # noqa: BLE001 - the drawing's own failure is what is compared
        return f"{type(e).__name__}: {str(e).split(' view:')[0]}"


def _boxes(drawing):
    """The node labels a drawing boxes, with how often each appears."""
    return sorted(part.strip() for line in drawing.splitlines() for part in line.split("|")[1:-1:2])


@pytest.mark.parametrize("stack", list(STACKS))
def test_ascii_drawings_match(stack):
    pytest.importorskip("grandalf")
    theirs = {_ascii(deepagents, stack) for _ in range(3)}
    ours = {_ascii(deepagents_rs, stack) for _ in range(3)}
    if ours & theirs:
        return
    # grandalf's layout differs between draws of the same graph (deepagents' own draws differ
    # from each other, and three draws that agree in one process may differ from another
    # process's): then the same boxes, wherever they are placed. A drawing's error has no
    # boxes: errors must have matched exactly above.
    assert {tuple(_boxes(d)) for d in theirs} == {tuple(_boxes(d)) for d in ours} != {()}
