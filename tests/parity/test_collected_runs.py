"""The run tree LangChain's ``collect_runs()`` sees of a run, side by side with deepagents:
which runs it collects as roots (its handler joins only the runs LangChain configures in its
context: the graph's own, each model call's and tool call's, built-in tools included), and
each run's name, type, tags, metadata and children. With and without a saver, sync and
async, in a subagent too. Ids and times are left out; a namespace is compared by its shape
(its nodes) and a checkpoint or task id by whether it has one."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langchain_core.tracers.context import collect_runs
from langgraph.checkpoint.memory import InMemorySaver

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@tool
def plain(x: str) -> str:
    """A user tool."""
    return f"plain {x}"


def _metadata(metadata: dict) -> dict:
    out = {}
    for key, value in sorted(metadata.items()):
        if key in ("lc_versions", "revision_id", "ls_run_depth"):
            continue
        out[key] = _UUID.sub("<id>", value) if isinstance(value, str) else value
    return out


def _shown(run: Any) -> tuple:
    children = sorted((_shown(c) for c in run.child_runs), key=repr)
    return (
        run.name,
        run.run_type,
        sorted(run.tags or []),
        _metadata((run.extra or {}).get("metadata") or {}),
        children,
    )


def _run(module, saver: bool, asynchronous: bool, subagent: bool) -> list:
    calls = [
        ai_tool_calls(("plain", {"x": "1"}), ("write_file", {"file_path": "/a.md", "content": "x"})),
        AIMessage("inner done"),
    ]
    script = (
        [ai_tool_calls(("task", {"description": "d", "subagent_type": "general-purpose"})), *calls, AIMessage("done")]
        if subagent
        else calls
    )
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=script), tools=[plain], checkpointer=InMemorySaver() if saver else None
    )
    config = {"configurable": {"thread_id": "t"}}
    payload = {"messages": [("user", "go")]}
    with collect_runs() as collector:
        if asynchronous:
            asyncio.run(agent.ainvoke(payload, config))
        else:
            agent.invoke(payload, config)
    return sorted((_shown(r) for r in collector.traced_runs), key=repr)


@pytest.mark.parametrize("subagent", [False, True], ids=["agent", "subagent"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
def test_collected_run_tree(saver, asynchronous, subagent):
    theirs = _run(deepagents, saver, asynchronous, subagent)
    assert any(r[0] == "write_file" for r in theirs)
    ours = _run(deepagents_rs, saver, asynchronous, subagent)
    assert ours == theirs
