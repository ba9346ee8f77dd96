"""The agent as a LangGraph compiled graph to the code around it.

deepagents returns a ``CompiledStateGraph``, and LangGraph's server, ``astream_events``, a
parent graph and LangChain's composition take nothing else. So with LangGraph installed the
agent *is* one: its Pregel attributes (nodes, channels, schemas, edges) are those of the
thread graph (``_threads``), which has deepagents' channels and the core's node names, while
its run and state methods stay the core's (``DeepAgent`` overrides them). Without LangGraph
the agent is a plain object, as before.
"""

from __future__ import annotations

from typing import Any

try:
    # LangChain's agent layer too: the face resolves its schemas and edges as it does.
    import langchain.agents  # noqa: F401
    from langgraph.graph.state import CompiledStateGraph as GraphBase
except ImportError:  # the package runs without LangChain and LangGraph
    GraphBase = object  # type: ignore[assignment,misc]

#: Whether the agent is a LangGraph graph in this interpreter.
IS_GRAPH = GraphBase is not object

#: Attributes the agent keeps as its own rather than the thread graph's: its name, default
#: config, saver and store are what the user (or LangGraph's server, through ``copy``) gave.
_AGENT_OWN = frozenset({"name", "config", "checkpointer", "store", "cache", "debug", "__orig_class__"})


def take_graph_attributes(agent: Any, compiled: Any) -> None:
    """Gives ``agent`` the Pregel attributes of ``compiled`` (the thread graph), so
    LangGraph's readers (``get_graph``, the JSON schemas, ``stream_channels_list``, the
    server's ``output_channels``) see deepagents' graph."""
    for key, value in compiled.__dict__.items():
        if key not in _AGENT_OWN:
            agent.__dict__[key] = value


def split_copy_update(update: dict | None) -> tuple[dict, dict]:
    """``Pregel.copy``'s update split into what rebuilds the agent (saver, store, name,
    config) and the remaining Pregel attributes, set on the copy as they are."""
    rebuild, rest = {}, {}
    for key, value in (update or {}).items():
        (rebuild if key in _AGENT_OWN else rest)[key] = value
    return rebuild, rest


def face_graph(
    node_names: list[str],
    schemas: Any,
    edges: list,
    tool_names: list[str],
    name: str,
    transformers: Any = (),
    context_schema: type | None = None,
    registered: list[str] | None = None,
) -> Any:
    """A compiled graph with deepagents' nodes, channels and edges, never run: what the
    agent shows LangGraph's readers. ``edges`` come from ``_graph_edges.agent_edges``."""
    from langgraph.graph import StateGraph

    from ._threads import _node, _state_schemas, registration_order

    state, input_schema, output_schema = _state_schemas(schemas)
    builder = StateGraph(state, context_schema, input_schema=input_schema, output_schema=output_schema)
    for node in registration_order(node_names, registered or ()):
        runnable = _node(node)
        if node == "tools":
            # LangGraph's drawing lists a tool node's tools (it reads `tools_by_name`); code
            # written for deepagents reads which tools its `ToolNode` runs, by name, from
            # `_tools_by_name`. The core runs them, so the names are what there is to read.
            runnable.tools_by_name = runnable._tools_by_name = dict.fromkeys(tool_names)
        builder.add_node(node, runnable)
    for source, targets, conditional in edges:
        if conditional:
            builder.add_conditional_edges(source, _never_routed, list(targets))
        else:
            builder.add_edge(source, targets[0])
    # `stream_events(version="v3")`'s projections: LangGraph's and LangChain's own
    # transformers, as `create_agent` compiles them, then the middleware's.
    from langgraph.prebuilt import ToolCallTransformer

    from deepagents_rs._langchain_private import SubagentTransformer, _dedupe_transformers

    factories = _dedupe_transformers([ToolCallTransformer, SubagentTransformer, *transformers])
    return builder.compile(name=name, transformers=factories)


def _never_routed(state: Any) -> Any:
    raise RuntimeError("deepagents_rs: the agent's drawn graph is not run; the core routes runs")
