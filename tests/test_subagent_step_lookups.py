"""A subagent's tool call runs from the checkpoint its step ran from in the graph following
that subagent (`_task_config.step_place`), however late that graph starts.

The graph following a subagent runs inside its `task` call's task of the agent's graph, and
LangGraph's sync runner runs a step's tasks on a pool of threads: with more `task` calls in a
step than threads, the last subagents' graphs start only once others have finished, while the
core runs every subagent at once. Here the graphs following the first subagents are held in
their `tools` step until every subagent has asked for its first step, so the last ones'
graphs, waiting for a thread, start only after their subagents asked: the subagents' model
and tool calls must wait for them, not run with ids of their own. The first tasks give their
threads back once their own calls are answered (each `tools` task takes its call's own route,
not the step's, which comes only once every call is answered), and a subagent's tool call
waits for its graph before it takes a worker of the run's executor.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs._graph_task_configs import TaskConfigs
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config

#: How long a held graph waits for the calls before the test counts as stuck.
STUCK = 60.0
#: More subagents than LangGraph's sync runner has threads for a step's tasks (its
#: `ThreadPoolExecutor`'s default size, as Python sizes it).
SUBAGENTS = min(32, (os.cpu_count() or 1) + 4) + 1


def graphs_held_until_every_subagent_asked(monkeypatch: pytest.MonkeyPatch, subagents: int) -> list[tuple]:
    """Every followed subagent's `tools` step starts only once ``subagents`` subagents have
    asked for a step (each asks first at its model step); the asks, as ``(core namespace,
    step)``."""
    asked: list[tuple] = []
    changed = threading.Condition()
    lookup, started = TaskConfigs.subgraph_step, TaskConfigs.subgraph_step_started

    def asking(self: TaskConfigs, core_ns: tuple, step: int, timeout: float) -> Any:
        with changed:
            asked.append((tuple(core_ns), step))
            changed.notify_all()
        return lookup(self, core_ns, step, timeout)

    def starting(self: TaskConfigs, core_ns: tuple, config: dict) -> None:
        if (config.get("metadata") or {}).get("langgraph_node") == "tools":
            with changed:
                assert changed.wait_for(lambda: len({ns for ns, _step in asked}) >= subagents, STUCK)
        started(self, core_ns, config)

    monkeypatch.setattr(TaskConfigs, "subgraph_step", asking)
    monkeypatch.setattr(TaskConfigs, "subgraph_step_started", starting)
    return asked


def test_a_subagents_calls_wait_for_its_graph_however_late_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = graphs_held_until_every_subagent_asked(monkeypatch, SUBAGENTS)
    seen: dict[str, tuple[str, str, str]] = {}
    lock = threading.Lock()

    @tool
    def probe(name: str) -> str:
        """Record the call's task and checkpoint."""
        configurable = get_config()["configurable"]
        ns = configurable["checkpoint_ns"]
        parent = ns.rpartition("|")[0]
        with lock:
            seen[name] = (parent, configurable["checkpoint_map"][parent], configurable["__pregel_task_id"])
        return f"{name} probed"

    names = [f"helper{i}" for i in range(SUBAGENTS)]
    subagents = [
        {
            "name": name,
            "description": f"Helper {name}.",
            "system_prompt": "Help.",
            "tools": [probe],
            "model": ScriptedChatModel(
                [ai_tool_calls(("probe", {"name": name}, f"call_probe_{name}")), f"{name} done"]
            ),
        }
        for name in names
    ]
    parent = ScriptedChatModel(
        [
            ai_tool_calls(*(("task", {"description": f"job {n}", "subagent_type": n}, f"call_{n}") for n in names)),
            "done",
        ]
    )
    saver = InMemorySaver()
    agent = deepagents_rs.create_deep_agent(model=parent, subagents=subagents, checkpointer=saver)
    thread = {"configurable": {"thread_id": "late subagents"}}
    out = agent.invoke({"messages": [("user", "go")]}, thread)
    assert out["messages"][-1].content == "done"
    assert sorted(m.content for m in out["messages"] if m.type == "tool") == sorted(f"{n} done" for n in names)
    assert len({ns for ns, _step in asked}) == SUBAGENTS
    assert sorted(seen) == sorted(names)
    for name, (ns, checkpoint_id, task_id) in seen.items():
        # The checkpoint the call ran from is one the subagent's graph wrote under its `task`
        # call's task's namespace, and the call's task is one that ran from it.
        assert ns.startswith("tools:"), (name, ns)
        saved = saver.get_tuple(
            {"configurable": {"thread_id": "late subagents", "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}
        )
        assert saved is not None, (name, ns, checkpoint_id)
        assert task_id in {w[0] for w in saved.pending_writes}, name
