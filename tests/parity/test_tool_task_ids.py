"""A tool call's task id is LangGraph's, side by side with deepagents: derived from the
checkpoint its step runs from, the node's namespace, the step and the call's place among the
step's sends (``langgraph.pregel._algo``), so it is the id the saver's history, the ``tasks``
and ``debug`` stream modes and the callbacks' metadata show for that task, the same every
time for the same checkpoint. With and without a saver, sync and async, in a subagent too."""

from __future__ import annotations

import asyncio
import binascii
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.pregel._algo import _xxhash_str

SEEN: list[dict] = []


@tool
def note(x: str) -> str:
    """Note the task the call runs in."""
    config = get_config()
    SEEN.append({"x": x, "configurable": dict(config["configurable"]), "metadata": dict(config["metadata"])})
    return "ok"


class ToolStarts(BaseCallbackHandler):
    """The checkpoint namespace each tool run's metadata carries."""

    def __init__(self) -> None:
        self.namespaces: list[str] = []

    def on_tool_start(self, serialized, input_str, *, metadata=None, **kwargs) -> None:
        if (serialized or {}).get("name") == "note":
            self.namespaces.append((metadata or {}).get("langgraph_checkpoint_ns"))


def _derived(seen: dict) -> str:
    """LangGraph's id for the `tools` task the call ran in, from the call's own config."""
    configurable, metadata = seen["configurable"], seen["metadata"]
    parent = configurable["checkpoint_ns"].rpartition("|")[0]
    checkpoint = configurable["checkpoint_map"][parent]
    return _xxhash_str(
        binascii.unhexlify(checkpoint.replace("-", "")),
        f"{parent}|tools" if parent else "tools",
        str(metadata["langgraph_step"]),
        "tools",
        "__pregel_push",
        str(metadata["langgraph_path"][1]),
    )


def _run(module, saver: bool, asynchronous: bool, subagent: bool) -> dict[str, Any]:
    SEEN.clear()
    calls = [ai_tool_calls(("note", {"x": "1"}), ("note", {"x": "2"})), AIMessage("inner done")]
    script = (
        [ai_tool_calls(("task", {"description": "d", "subagent_type": "general-purpose"})), *calls, AIMessage("done")]
        if subagent
        else calls
    )
    checkpointer = InMemorySaver() if saver else None
    agent = module.create_deep_agent(model=ScriptedChatModel(responses=script), tools=[note], checkpointer=checkpointer)
    starts = ToolStarts()
    config = {"configurable": {"thread_id": "t"}, "callbacks": [starts]}
    payload = {"messages": [("user", "go")]}
    modes = ["tasks", "debug"]

    async def arun() -> list:
        return [c async for c in agent.astream(payload, config, stream_mode=modes, subgraphs=True)]

    chunks = (
        asyncio.run(arun()) if asynchronous else list(agent.stream(payload, config, stream_mode=modes, subgraphs=True))
    )
    streamed: dict[str, set] = {"tasks": set(), "debug": set()}
    for ns, mode, chunk in chunks:
        payload_ = chunk.get("payload", {}) if mode == "debug" else chunk
        if payload_.get("name") == "tools" and "input" in payload_:
            streamed[mode].add("|".join([*ns, f"tools:{payload_['id']}"]))
    ids = [s["configurable"]["__pregel_task_id"] for s in SEEN]
    namespaces = [s["configurable"]["checkpoint_ns"] for s in SEEN]
    history: set[str] = set()
    if saver and not subagent:
        for snapshot in agent.get_state_history({"configurable": {"thread_id": "t"}}):
            history.update(f"tools:{t.id}" for t in snapshot.tasks if t.name == "tools")
    return {
        "calls": len(SEEN),
        "derived": [i == _derived(s) for i, s in zip(ids, SEEN, strict=True)],
        "own namespace": [ns.endswith(f"tools:{i}") for ns, i in zip(namespaces, ids, strict=True)],
        "metadata": [s["metadata"]["langgraph_checkpoint_ns"] == ns for s, ns in zip(SEEN, namespaces, strict=True)],
        "depth": sorted(ns.count("|") for ns in namespaces),
        "distinct": len(set(ids)),
        "streamed tasks": set(namespaces) == streamed["tasks"],
        "streamed debug": set(namespaces) == streamed["debug"],
        "callbacks": sorted(starts.namespaces) == sorted(namespaces),
        "history": set(namespaces) <= history if history else None,
    }


@pytest.mark.parametrize("subagent", [False, True], ids=["agent", "subagent"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
def test_tool_task_ids_are_langgraphs(saver, asynchronous, subagent):
    theirs = _run(deepagents, saver, asynchronous, subagent)
    assert theirs["calls"] == 2 and all(theirs["derived"])
    assert _run(deepagents_rs, saver, asynchronous, subagent) == theirs


NODES: list[dict] = []


class Hooks(AgentMiddleware):
    """Notes the task each hook and the model call's wrapper run in."""

    def _note(self, hook: str) -> None:
        config = get_config()
        NODES.append({"hook": hook, "configurable": dict(config["configurable"]), "metadata": dict(config["metadata"])})

    def before_model(self, state, runtime):
        self._note("before_model")

    def after_model(self, state, runtime):
        self._note("after_model")

    def wrap_model_call(self, request, handler):
        self._note("wrap_model_call")
        return handler(request)

    async def awrap_model_call(self, request, handler):
        self._note("wrap_model_call")
        return await handler(request)


def _pull_derived(seen: dict) -> str:
    """LangGraph's id for the task of a node its edge runs, from the node's own config."""
    configurable, metadata = seen["configurable"], seen["metadata"]
    parent = configurable["checkpoint_ns"].rpartition("|")[0]
    node = metadata["langgraph_node"]
    return _xxhash_str(
        binascii.unhexlify(configurable["checkpoint_map"][parent].replace("-", "")),
        f"{parent}|{node}" if parent else node,
        str(metadata["langgraph_step"]),
        node,
        "__pregel_pull",
        *metadata["langgraph_triggers"],
    )


def _run_nodes(module, saver: bool, asynchronous: bool) -> dict[str, Any]:
    NODES.clear()
    script = [ai_tool_calls(("note", {"x": "1"})), AIMessage("done")]
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=script),
        tools=[note],
        middleware=[Hooks()],
        checkpointer=InMemorySaver() if saver else None,
    )
    config = {"configurable": {"thread_id": "t"}}
    payload = {"messages": [("user", "go")]}
    modes = ["tasks", "updates"]

    async def arun() -> list:
        return [c async for c in agent.astream(payload, config, stream_mode=modes)]

    chunks = asyncio.run(arun()) if asynchronous else list(agent.stream(payload, config, stream_mode=modes))
    streamed = {f"{chunk['name']}:{chunk['id']}" for mode, chunk in chunks if mode == "tasks" and "input" in chunk}
    namespaces = [s["configurable"]["checkpoint_ns"] for s in NODES]
    return {
        "hooks": [s["hook"] for s in NODES],
        "derived": [s["configurable"]["__pregel_task_id"] == _pull_derived(s) for s in NODES],
        "streamed": [ns in streamed for ns in namespaces],
    }


@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
def test_node_task_ids_are_langgraphs(saver, asynchronous):
    """A hook's task and the model's (its call's wrapper's): LangGraph's ids of the node
    tasks its edges run."""
    theirs = _run_nodes(deepagents, saver, asynchronous)
    assert theirs["hooks"] and all(theirs["derived"])
    assert _run_nodes(deepagents_rs, saver, asynchronous) == theirs
