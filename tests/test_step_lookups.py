"""The checkpoint a tool call of a checkpointed run runs from is its step's, however far the
thread graph lags behind the core (`_task_config.step_place`).

The core runs ahead of the graph that writes the thread, and a tool call asks the graph for
its step's checkpoint. On a loaded machine the graph can lag by seconds; the call must wait
for it, not run with an id of its own (then calls of one step see two checkpoint ids). Here
the graph starts the `tools` step only once a call has asked for it.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _direct_writer
from deepagents_rs._graph_task_configs import TaskConfigs
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from parity.test_run_task_ids import CALLS, Calls

#: How long the graph's step waits for a call to ask for it before the test counts as stuck.
STUCK = 20.0


def graph_behind_the_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The graph starts a `tools` step only once a call of it has asked for its checkpoint."""
    asked: set[int] = set()
    changed = threading.Condition()
    lookup, started = TaskConfigs.step_checkpoints, TaskConfigs.step_started

    def asking(self: TaskConfigs, step: int, timeout: float) -> dict | None:
        with changed:
            asked.add(step)
            changed.notify_all()
        return lookup(self, step, timeout)

    def starting(self: TaskConfigs, config: dict) -> None:
        metadata = config.get("metadata") or {}
        if metadata.get("langgraph_node") == "tools":
            with changed:
                assert changed.wait_for(lambda: metadata["langgraph_step"] in asked, STUCK)
        started(self, config)

    monkeypatch.setattr(TaskConfigs, "step_checkpoints", asking)
    monkeypatch.setattr(TaskConfigs, "step_started", starting)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("on", [True, False], ids=["writer", "runner"])
def test_every_call_of_a_step_runs_from_the_checkpoint_its_step_ran_from(
    monkeypatch: pytest.MonkeyPatch, on: bool, asynchronous: bool
) -> None:
    monkeypatch.setattr(_direct_writer, "ENABLED", on)
    graph_behind_the_calls(monkeypatch)
    seen: list[tuple[str, str, str]] = []
    lock = threading.Lock()

    def record(who: str) -> None:
        configurable = get_config()["configurable"]
        with lock:
            seen.append((who, configurable["__pregel_task_id"], configurable["checkpoint_map"][""]))

    @tool
    def probe(n: int) -> str:
        """Record the call's checkpoint."""
        record("tool")
        return "ok"

    class Watch(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            record("middleware")
            return handler(request)

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            record("middleware")
            return await handler(request)

    saver = InMemorySaver()
    agent = deepagents_rs.create_deep_agent(model=Calls(), tools=[probe], middleware=[Watch()], checkpointer=saver)
    thread = {"configurable": {"thread_id": "lagging"}}
    request = {"messages": [("user", "go")]}
    out = asyncio.run(agent.ainvoke(request, thread)) if asynchronous else agent.invoke(request, thread)
    assert isinstance(out["messages"][-1], AIMessage) and out["messages"][-1].content == "done"
    # The checkpoint the `tools` step ran from: the one whose next tasks are the calls.
    (tools_step,) = [s for s in agent.get_state_history(thread) if s.next and set(s.next) == {"tools"}]
    ran_from = tools_step.config["configurable"]["checkpoint_id"]
    task_ids = {t.id for t in tools_step.tasks}
    assert len(seen) == 2 * CALLS
    assert {checkpoint for _who, _task, checkpoint in seen} == {ran_from}
    assert {task for _who, task, _checkpoint in seen} == task_ids


def test_a_started_steps_checkpoints_are_read_without_waiting_for_the_condition() -> None:
    """A step the graph has started already is answered at once, even while another thread
    holds the condition (the graph's tasks take it at each start): the core's Python thread
    does not queue behind them for a map that is there."""
    tasks = TaskConfigs()
    tasks.step_started({"metadata": {"langgraph_step": 3}, "configurable": {"checkpoint_map": {"": "c3"}}})
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with tasks._ready_lock:
            held.set()
            release.wait(STUCK)

    read: list[Any] = []
    holder = threading.Thread(target=hold)
    reader = threading.Thread(target=lambda: read.append(tasks.step_checkpoints(3, STUCK)))
    holder.start()
    try:
        assert held.wait(STUCK)
        reader.start()
        reader.join(2.0)
        assert read == [{"": "c3"}]
    finally:
        release.set()
        holder.join()
        if reader.is_alive():
            reader.join()
    # A step not started yet still waits (here: until the timeout, the graph never starts it).
    assert tasks.step_checkpoints(4, 0.01) is None
