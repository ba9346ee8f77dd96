"""The direct thread writer calls a task's plain runnables' functions itself
(`_direct_writer._direct_call`): each call must give what the runnable's own
``invoke`` gives, and anything not plain must still go through ``invoke``."""

from __future__ import annotations

from typing import Any

import pytest
from deepagents_rs import _direct_writer
from langchain_core.runnables import RunnableConfig
from langgraph._internal._runnable import RunnableCallable
from langgraph.pregel._write import ChannelWrite, ChannelWriteEntry

CONFIG: dict = {"configurable": {"k": 1}, "metadata": {}, "tags": [], "callbacks": None}


def _with_config(value: Any, config: RunnableConfig) -> Any:
    return (value, config["configurable"]["k"])


def _alone(value: Any) -> Any:
    return [value, value]


def _to_runnable(value: Any, config: RunnableConfig) -> Any:
    # A runnable returned by a recursing step is invoked with the step's own input.
    return RunnableCallable(lambda v: ("inner", v), trace=False, recurse=False)


def _with_runtime(value: Any, runtime: Any = None) -> Any:
    return (value, runtime)


PLAIN = [
    RunnableCallable(_with_config, trace=False, recurse=False),
    RunnableCallable(_alone, trace=False, recurse=False),
    RunnableCallable(_to_runnable, trace=False, recurse=True),
    RunnableCallable(_to_runnable, trace=False, recurse=False),
]


@pytest.mark.parametrize("step", PLAIN, ids=["config", "no config", "recurse", "no recurse"])
def test_a_plain_step_is_called_directly_as_invoke_calls_it(step: Any) -> None:
    call = _direct_writer._direct_call(step)
    assert call is not None
    got = call("in", CONFIG)
    want = step.invoke("in", CONFIG)
    if isinstance(want, RunnableCallable):
        assert isinstance(got, RunnableCallable)
    else:
        assert got == want


@pytest.mark.parametrize(
    "step",
    [
        RunnableCallable(_with_config, trace=True, recurse=False),
        RunnableCallable(_with_runtime, trace=False, recurse=False),
        RunnableCallable(_with_config, trace=False, recurse=False, extra="bound"),
        RunnableCallable(None, _with_config, trace=False, recurse=False),
    ],
    ids=["traced", "asks for the runtime", "bound kwargs", "async only"],
)
def test_a_step_that_is_not_plain_goes_through_invoke(step: Any) -> None:
    assert _direct_writer._direct_call(step) is None


def test_a_subclass_overriding_invoke_goes_through_it() -> None:
    class Own(RunnableCallable):
        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return "own"

    step = Own(_alone, trace=False, recurse=False)
    assert _direct_writer._direct_call(step) is None


def test_a_channel_write_writes_as_its_invoke_writes() -> None:
    # LangGraph's ChannelWrite (the thread graph's state writer) is a plain step: its writes
    # go to the task's send, as its invoke sends them.
    sent_direct: list = []
    sent_invoke: list = []
    write = ChannelWrite([ChannelWriteEntry("messages")])
    call = _direct_writer._direct_call(write)
    assert call is not None

    def config(sent: list) -> dict:
        return {**CONFIG, "configurable": {"__pregel_send": sent.extend}}

    assert call(["m"], config(sent_direct)) == write.invoke(["m"], config(sent_invoke))
    assert sent_direct == sent_invoke == [("messages", ["m"])]


def _thread_edge_step(route_after: Any = None) -> Any:
    """The edge step of node ``a`` of a StateGraph whose edge is the thread graph's
    (`_threads._edge`), as LangGraph compiles it."""
    from typing import TypedDict

    from deepagents_rs import _threads
    from langgraph.graph import StateGraph

    class State(TypedDict):
        x: int

    builder = StateGraph(State)
    builder.add_node("a", lambda s: s)
    builder.add_node("b", lambda s: s)
    builder.add_edge("__start__", "a")
    builder.add_conditional_edges("a", _threads._edge("a", route_after or (lambda name, state: "b")))
    graph = builder.compile()
    (edge,) = [w for w in graph.nodes["a"].writers if _direct_writer._edge_call(w) is not None]
    return edge


def _feed_config(sent: list, goto: Any = None, *, known: bool = True) -> dict:
    from deepagents_rs import _threads
    from deepagents_rs._thread_feed import Feed

    feed = Feed(lambda *a: None, lambda item: None)
    configurable = {
        "__pregel_send": sent.extend,
        "__pregel_task_id": "t1",
        # The state the branch reads before its route (the task's channels, in a run).
        "__pregel_read": lambda select, fresh=False: {"x": 1},
        _threads._FEED: feed,
    }
    config = {**CONFIG, "configurable": configurable}
    if known:
        feed._keep_route(config, goto)
    return config


def _sends() -> list:
    from langgraph.types import Send

    return [Send("b", [{"id": "1"}]), Send("b", [{"id": "2"}])]


@pytest.mark.parametrize(
    "goto",
    [lambda: "b", lambda: "__end__", _sends, lambda: ["b", *_sends()], lambda: ["__end__"]],
    ids=["node", "end", "sends", "node and sends", "end in a list"],
)
def test_the_thread_edge_writes_as_its_branch_writes(goto: Any) -> None:
    # The route the feed kept for the task, as LangGraph's branch writes it.
    edge = _thread_edge_step()
    call = _direct_writer._direct_call(edge)
    assert call is not None
    route = goto()
    sent_direct: list = []
    sent_invoke: list = []
    assert call("in", _feed_config(sent_direct, route)) == "in"
    assert edge.invoke("in", _feed_config(sent_invoke, route)) == "in"
    assert sent_direct == sent_invoke


def test_the_thread_edge_without_a_kept_route_routes_by_the_state() -> None:
    seen: list = []

    def route_after(name: str, state: Any) -> str:
        seen.append((name, state))
        return "b"

    edge = _thread_edge_step(route_after)
    call = _direct_writer._direct_call(edge)
    assert call is not None
    sent: list = []
    call({"x": 1}, _feed_config(sent, known=False))
    assert sent == [("branch:to:b", None)] and seen == [("a", {"x": 1})]


@pytest.mark.parametrize("goto", [lambda: None, lambda: "__start__"], ids=["none", "start"])
def test_the_thread_edge_refuses_what_its_branch_refuses(goto: Any) -> None:
    edge = _thread_edge_step()
    call = _direct_writer._direct_call(edge)
    with pytest.raises(ValueError, match="Branch did not return a valid destination"):
        edge.invoke("in", _feed_config([], goto()))
    with pytest.raises(ValueError, match="Branch did not return a valid destination"):
        call("in", _feed_config([], goto()))


def test_the_state_writer_writes_as_its_invoke_writes() -> None:
    # StateGraph's writer of a node's state keys (mapper entries of the passed value): the
    # thread graph's nodes return a Command of their update.
    from typing import TypedDict

    from langgraph.graph import StateGraph
    from langgraph.types import Command

    class State(TypedDict):
        x: int
        y: list

    builder = StateGraph(State)
    builder.add_node("a", lambda s: s)
    builder.add_edge("__start__", "a")
    graph = builder.compile()
    (writer,) = [w for w in graph.nodes["a"].writers if _direct_writer._channel_write_call(w) is not None]
    call = _direct_writer._direct_call(writer)
    assert call is not None
    for value in (Command(update={"x": 2, "y": [1], "z": 3}), Command(update=[("y", [2]), ("x", 1)]), {"x": 5}):
        sent_direct: list = []
        sent_invoke: list = []
        assert call(value, _feed_config(sent_direct, known=False)) == writer.invoke(
            value, _feed_config(sent_invoke, known=False)
        )
        assert sent_direct == sent_invoke and sent_direct
