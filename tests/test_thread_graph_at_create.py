"""An agent given a saver has its thread graph compiled when it is created, as deepagents
compiles its graph in ``create_deep_agent``, not inside its first checkpointed run; an agent
without one builds nothing more at creation (see `_thread_runs.ThreadRuns._compile_with_saver`)."""

from __future__ import annotations

from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _threads
from fake_models import ScriptedChatModel, ai_tool_calls
from langgraph.checkpoint.memory import InMemorySaver
from thread_support import THREAD, my_tool


def _agent(checkpointer: Any) -> Any:
    model = ScriptedChatModel([ai_tool_calls(("my_tool", {"x": 2})), "done"])
    return deepagents_rs.create_deep_agent(model=model, tools=[my_tool], checkpointer=checkpointer)


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    built = [0]
    real = _threads.ThreadGraph.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        built[0] += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(_threads.ThreadGraph, "__init__", counting)
    return built


def test_an_agent_with_a_saver_compiles_its_thread_graph_when_created(monkeypatch: pytest.MonkeyPatch) -> None:
    built = _count_builds(monkeypatch)
    agent = _agent(InMemorySaver())
    assert built == [1]
    out = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, THREAD)
    # The run used the graph made at creation: none built for it.
    assert built == [1]
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai"]
    assert len(agent.get_state(THREAD).values["messages"]) == 4


def test_an_agent_without_a_saver_builds_no_thread_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    built = _count_builds(monkeypatch)
    agent = _agent(None)
    agent.invoke({"messages": [{"role": "user", "content": "go"}]})
    assert built == [0]
