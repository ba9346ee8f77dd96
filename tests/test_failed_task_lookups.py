"""A task of the thread graph that fails ends what the core waits for of the graph at once.

The core runs ahead of the graph that writes the thread and asks it for the checkpoint each
step runs from (`TaskConfigs`). When a task of the graph fails, LangGraph starts no other step
and ends the run only once the step's running tasks are done; those may be waiting for the core
meanwhile (a call still running). A lookup of a later step must end when the task fails, not
when the run ends: here the step's other call waits for such a lookup, as the core's next step
would, so ending it only with the run would hold the run until the lookup's bound.
"""

from __future__ import annotations

import threading
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _direct_writer
from deepagents_rs._thread_feed import RUN_TASKS, Feed
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config

#: How long the lookup waits at most (seconds): past it, the test counts the run as stuck.
STUCK = 30.0


class GraphTaskFailed(RuntimeError):
    """The failure of the thread graph's task of the `boom` call."""


@pytest.mark.parametrize("on", [True, False], ids=["writer", "runner"])
def test_a_failed_graph_task_ends_the_cores_lookups_at_once(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(_direct_writer, "ENABLED", on)
    running, failed, done = threading.Event(), threading.Event(), threading.Event()
    take_in = Feed.take_in

    def failing(self: Feed, ns: tuple, node: str, arg: Any, config: dict) -> Any:
        name = arg[0].get("name") if node == "tools" and isinstance(arg, list) and arg else None
        if name == "boom":
            # The `boom` call's task fails of its own (not the core's run), as a task whose
            # subagent's follower raised would, while the `later` call's task is running.
            assert running.wait(STUCK)
            failed.set()
            raise GraphTaskFailed("the graph's task failed")
        if name == "later":
            running.set()
        return take_in(self, ns, node, arg, config)

    monkeypatch.setattr(Feed, "take_in", failing)
    seen: dict[str, Any] = {}

    @tool
    def boom() -> str:
        """Answer at once."""
        return "boom"

    @tool
    def later() -> str:
        """Look up the next step's checkpoint once the other call's task has failed."""
        tasks = RUN_TASKS.get()
        step = get_config()["metadata"]["langgraph_step"]
        assert failed.wait(STUCK)
        seen["next step"] = tasks.step_checkpoints(step + 1, STUCK)
        # Whether the lookup ended because the graph will start no step (not by its bound).
        seen["over"] = tasks._over
        done.set()
        return "later"

    model = ScriptedChatModel([ai_tool_calls(("boom", {}, "call_boom"), ("later", {}, "call_later")), "done"])
    agent = deepagents_rs.create_deep_agent(model=model, tools=[boom, later], checkpointer=InMemorySaver())
    with pytest.raises(GraphTaskFailed):
        agent.invoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "failing"}})
    assert done.wait(STUCK)
    assert seen == {"next step": None, "over": True}
