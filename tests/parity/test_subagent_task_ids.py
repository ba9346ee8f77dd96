"""One id for a subagent's `task` call, side by side with deepagents: LangGraph runs the call
in a `tools` task and the subagent inside it, so every place names that task with one id: the
`task` call's own config (a `wrap_tool_call` of the caller's) and tool run (callbacks), the
stream's namespaces under ``subgraphs=True``, ``get_config()`` and the callbacks of the code
inside the subagent, the subagent's checkpoints (with a saver) and the notes of an error
leaving it. A general-purpose subagent, a custom one and a compiled LangGraph graph; sync and
async; with and without a saver. Ids differ between the implementations: each run is checked
for the equality of what its places saw, and both implementations for the same places."""

from __future__ import annotations

import asyncio
import re
from types import ModuleType
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
from langgraph.graph import START, MessagesState, StateGraph

_NOTE = re.compile(r"During task with name '(\w+)' and id '([0-9a-f-]{36})'")

#: Each place's `tools:<id>` segments of the `task` call's task, in the run being made.
SEEN: dict[str, list[str]] = {}


def _saw(place: str, namespace: str | None) -> None:
    if namespace:
        SEEN.setdefault(place, []).append(namespace.split("|")[0])


@tool
def inside(x: str) -> str:
    """Run inside the subagent; "fail" fails."""
    _saw("config inside", get_config()["configurable"]["checkpoint_ns"])
    if x == "fail":
        raise RuntimeError("inner failed")
    return "ok"


class TaskWrap(AgentMiddleware):
    """The caller's: the config of the `task` call's task, as its wrapper sees it."""

    def wrap_tool_call(self, request, handler):
        if request.tool_call["name"] == "task":
            _saw("task call config", get_config()["configurable"]["checkpoint_ns"])
        return handler(request)

    async def awrap_tool_call(self, request, handler):
        if request.tool_call["name"] == "task":
            _saw("task call config", get_config()["configurable"]["checkpoint_ns"])
        return await handler(request)


class Runs(BaseCallbackHandler):
    """The `task` tool run's namespace, and those of the runs of the subagent's nodes."""

    def on_tool_start(self, serialized, input_str, *, metadata=None, **kwargs) -> None:
        if (serialized or {}).get("name") == "task":
            _saw("task tool run", (metadata or {}).get("langgraph_checkpoint_ns"))

    def on_chain_start(self, serialized, inputs, *, metadata=None, name=None, **kwargs) -> None:
        namespace = (metadata or {}).get("langgraph_checkpoint_ns") or ""
        if "|" in namespace and name == (metadata or {}).get("langgraph_node"):
            _saw("node runs inside", namespace)


def _graph(fail: bool) -> Any:
    """A LangGraph graph as a `CompiledSubAgent`: its node notes the config it runs in."""

    def node(state: Any) -> Any:
        _saw("config inside", get_config()["configurable"]["checkpoint_ns"])
        if fail:
            raise RuntimeError("inner failed")
        return {"messages": [AIMessage("inner done")]}

    graph = StateGraph(MessagesState)
    graph.add_node("inner", node)
    graph.add_edge(START, "inner")
    return graph.compile()


def _agent(module: ModuleType, kind: str, saver: bool, fail: bool) -> Any:
    inner_calls = [ai_tool_calls(("inside", {"x": "fail" if fail else "1"})), AIMessage("inner done")]
    target = {"general": "general-purpose", "custom": "worker", "compiled": "graph"}[kind]
    script = [ai_tool_calls(("task", {"description": "do", "subagent_type": target}, "c1"))]
    script += inner_calls if kind != "compiled" else []
    subagents: list[dict] = [
        {"name": "worker", "description": "Works.", "system_prompt": "Work.", "tools": [inside]},
        {"name": "graph", "description": "A graph.", "runnable": _graph(fail)},
    ]
    return module.create_deep_agent(
        model=ScriptedChatModel([*script, AIMessage("done")]),
        tools=[inside],
        middleware=[TaskWrap()],
        subagents=subagents,
        checkpointer=InMemorySaver() if saver else None,
    )


def _run(module: ModuleType, kind: str, saver: bool, asynchronous: bool, fail: bool) -> dict[str, set[str]]:
    """The `tools:<id>` segments each place saw in one streamed run."""
    SEEN.clear()
    agent = _agent(module, kind, saver, fail)
    config = {"configurable": {"thread_id": "t"}, "callbacks": [Runs()]}
    payload = {"messages": [{"role": "user", "content": "go"}]}
    kwargs: dict[str, Any] = {"stream_mode": ["updates"], "subgraphs": True}

    async def arun() -> list:
        return [c async for c in agent.astream(payload, config, **kwargs)]

    chunks: list = []
    try:
        chunks = asyncio.run(arun()) if asynchronous else list(agent.stream(payload, config, **kwargs))
    except RuntimeError as exc:
        assert fail, exc
        notes = [_NOTE.fullmatch(n) for n in getattr(exc, "__notes__", ())]
        assert notes and all(notes), getattr(exc, "__notes__", None)
        # The outermost task the error leaves: the `task` call's.
        SEEN["error note"] = [f"{notes[-1].group(1)}:{notes[-1].group(2)}"]
    for ns, _mode, _chunk in chunks:
        if ns:
            _saw("stream namespace", ns[0])
    if saver:
        for checkpoint in agent.checkpointer.list(None):
            _saw("checkpoint namespace", checkpoint.config["configurable"]["checkpoint_ns"])
    return {place: set(ids) for place, ids in SEEN.items()}


@pytest.mark.parametrize("fail", [False, True], ids=["answers", "fails"])
@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
@pytest.mark.parametrize("kind", ["general", "custom", "compiled"])
def test_every_place_names_the_task_calls_task_alike(kind: str, asynchronous: bool, saver: bool, fail: bool) -> None:
    places = []
    for module in (deepagents, deepagents_rs):
        seen = _run(module, kind, saver, asynchronous, fail)
        ids = set().union(*seen.values())
        assert len(ids) == 1 and next(iter(ids)).startswith("tools:"), (module.__name__, seen)
        places.append(sorted(seen))
    assert places[0] == places[1]
    assert {"task call config", "task tool run", "config inside", "node runs inside"} <= set(places[0])
