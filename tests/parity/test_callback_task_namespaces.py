"""The task namespaces LangChain callbacks see, side by side with deepagents: each node's
chain run (a hook's, ``model``, each call's ``tools``) and each tool run the core runs
itself (``write_file``, ``ls``, ``task``) carry the namespace of their task as LangGraph
derives its id: the one the code inside the node gets in its config (a hook, a model call's
and a tool call's wrapper, a tool), and the one the ``tasks`` stream shows for the agent's
own nodes; in a subagent too. With and without a saver, sync and async."""

from __future__ import annotations

import asyncio

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

INSIDE: list[tuple[str, str]] = []


@tool
def inside(x: str) -> str:
    """Note the task namespace the call runs in."""
    INSIDE.append(("tools", get_config()["configurable"]["checkpoint_ns"]))
    return "ok"


class Hook(AgentMiddleware):
    """Notes the namespace of the tasks it runs in: a hook's, the model's, each call's."""

    def _note(self, node: str) -> None:
        INSIDE.append((node, get_config()["configurable"]["checkpoint_ns"]))

    def before_model(self, state, runtime):
        self._note("Hook.before_model")

    def wrap_model_call(self, request, handler):
        self._note("model")
        return handler(request)

    async def awrap_model_call(self, request, handler):
        self._note("model")
        return await handler(request)

    def wrap_tool_call(self, request, handler):
        self._note("tools")
        return handler(request)

    async def awrap_tool_call(self, request, handler):
        self._note("tools")
        return await handler(request)


class WorkerHook(Hook):
    """The subagent's own (a middleware of the parent's class would be the parent's)."""

    def before_model(self, state, runtime):
        self._note("WorkerHook.before_model")


class Runs(BaseCallbackHandler):
    """Each node run's and tool run's name and metadata namespaces."""

    def __init__(self) -> None:
        self.runs: list[tuple] = []

    def on_chain_start(self, serialized, inputs, *, metadata=None, name=None, **kwargs) -> None:
        metadata = metadata or {}
        if name == metadata.get("langgraph_node"):
            self.runs.append(("chain", name, metadata.get("langgraph_checkpoint_ns"), metadata.get("checkpoint_ns")))

    def on_tool_start(self, serialized, input_str, *, metadata=None, **kwargs) -> None:
        metadata = metadata or {}
        name = (serialized or {}).get("name")
        self.runs.append(("tool", name, metadata.get("langgraph_checkpoint_ns"), metadata.get("checkpoint_ns")))


def _script(subagent: bool) -> list:
    calls = [
        ai_tool_calls(("write_file", {"file_path": "/a.md", "content": "x"}), ("ls", {"path": "/"})),
        ai_tool_calls(("inside", {"x": "1"})),
        AIMessage("inner done"),
    ]
    if not subagent:
        return calls
    return [
        ai_tool_calls(("task", {"description": "d", "subagent_type": "general-purpose"})),
        *calls,
        AIMessage("done"),
    ]


def _run(module, saver: bool, asynchronous: bool, subagent: bool) -> list[tuple]:
    INSIDE.clear()
    worker = {
        "name": "worker",
        "description": "w",
        "system_prompt": "s",
        "tools": [inside],
        "middleware": [WorkerHook()],
    }
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=_script(subagent)),
        tools=[inside],
        middleware=[Hook()],
        subagents=[worker],
        checkpointer=InMemorySaver() if saver else None,
    )
    runs = Runs()
    config = {"configurable": {"thread_id": "t"}, "callbacks": [runs]}
    payload = {"messages": [("user", "go")]}

    async def arun() -> list:
        return [c async for c in agent.astream(payload, config, stream_mode=["tasks"], subgraphs=True)]

    chunks = (
        asyncio.run(arun())
        if asynchronous
        else list(agent.stream(payload, config, stream_mode=["tasks"], subgraphs=True))
    )
    # The agent's own tasks as streamed (a subagent's are left out: not streamed by ours,
    # a difference of the `tasks` stream's own), and every task code inside ran in.
    streamed = {"|".join([*ns, f"{c['name']}:{c['id']}"]) for ns, _, c in chunks if "input" in c and not ns}
    inside_ns = {ns for _, ns in INSIDE}
    out: list[tuple] = []
    for kind, name, namespace, outer in runs.runs:
        depth = namespace.count("|") if namespace else None
        # In a subagent only the `inside` call runs code of the test (deepagents runs none
        # of the worker's middleware, which is not this test's matter): its tool run and
        # its `tools` node run are checked, the others only for their depth.
        known = namespace in streamed or namespace in inside_ns
        checked = depth == 0 or name == "inside" or (name == "tools" and known)
        out.append((kind, name, known if checked else None, depth, outer == (namespace or "").split("|")[0]))
    # Tasks of one step run side by side: in a fixed order.
    return sorted(out, key=repr)


@pytest.mark.parametrize("subagent", [False, True], ids=["agent", "subagent"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
def test_callback_runs_carry_their_tasks_namespace(saver, asynchronous, subagent):
    theirs = _run(deepagents, saver, asynchronous, subagent)
    assert theirs and all(entry[2] is not False for entry in theirs), "deepagents' runs are not all among its tasks"
    assert _run(deepagents_rs, saver, asynchronous, subagent) == theirs
