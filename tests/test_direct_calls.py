"""The direct thread writer calls a task's plain runnables' functions itself
(`_direct_writer._direct_call` / `_invoke`): each call must give what the runnable's own
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
    got = _direct_writer._invoke(step, call, "in", CONFIG)
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
    assert _direct_writer._invoke(step, None, "in", CONFIG) == "own"


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

    assert _direct_writer._invoke(write, call, ["m"], config(sent_direct)) == write.invoke(["m"], config(sent_invoke))
    assert sent_direct == sent_invoke == [("messages", ["m"])]
