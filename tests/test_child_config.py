"""`_subagent_parts.child_config` on a config without a task: the graph streams into its
caller's stream as LangGraph streams a graph given that stream and no task (under the root
namespace), with no task made up for it."""

from __future__ import annotations

from typing import Any, TypedDict

from deepagents_rs._subagent_parts import STREAMED, Streamed, child_config
from langgraph._internal._constants import CONFIG_KEY_RUNTIME, CONFIG_KEY_STREAM
from langgraph.graph import START, StateGraph
from langgraph.pregel.protocol import StreamProtocol
from langgraph.runtime import DEFAULT_RUNTIME


class _State(TypedDict):
    x: int


def _graph() -> Any:
    graph = StateGraph(_State)
    graph.add_node("step", lambda s: {"x": s["x"] + 1})
    graph.add_edge(START, "step")
    return graph.compile()


class _Parts:
    """What the core hands `child_config`: a writer of LangGraph's chunks, under the `task`
    call's run (the root here)."""

    namespace: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.chunks: list[tuple] = []

    def __call__(self, chunk: tuple) -> None:
        self.chunks.append(chunk)


def test_a_config_without_a_task_streams_as_langgraph_streams_it() -> None:
    modes = {"values", "updates"}
    theirs: list[tuple] = []
    stream = StreamProtocol(theirs.append, modes)
    _graph().invoke({"x": 1}, {"configurable": {CONFIG_KEY_STREAM: stream, CONFIG_KEY_RUNTIME: DEFAULT_RUNTIME}})
    assert [ns for ns, _, _ in theirs] == [(), (), ()]

    parts = _Parts()
    token = STREAMED.set(Streamed(tuple(sorted(modes)), False))
    try:
        config = child_config({"configurable": {"thread_id": "t"}}, parts)
    finally:
        STREAMED.reset(token)
    assert "checkpoint_ns" not in config["configurable"]
    assert "__pregel_task_id" not in config["configurable"]
    _graph().invoke({"x": 1}, config)
    assert parts.chunks == theirs
