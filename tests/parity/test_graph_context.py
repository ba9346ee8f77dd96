"""Inside a run, code that reaches the run through LangGraph's context works as under
LangGraph: a `StateBackend()` a tool makes itself reads and writes the agent's files (its own
writes visible to it at once), and `get_store()`, `get_stream_writer()` and `get_runtime()`
answer in tools."""

from __future__ import annotations

import asyncio
from typing import Annotated

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.config import get_store, get_stream_writer
from langgraph.runtime import get_runtime
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command


def _tools(module):
    @tool
    def keep(text: str) -> str:
        """Keep a note in the agent's files."""
        backend = module.backends.StateBackend()
        before = backend.read("/notes/seed.md")
        backend.write("/notes/kept.md", text)
        backend.edit("/notes/kept.md", text, text.upper())
        after = backend.read("/notes/kept.md")
        listing = sorted(e["path"] for e in backend.ls("/notes").entries)
        seed = before.file_data["content"] if before.file_data else before.error
        return f"{seed} | {after.file_data['content']} | {listing}"

    @tool
    def stamp(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Write a file through the backend and another through the Command."""
        module.backends.StateBackend().write("/stamped.md", "by backend")
        update = {"files": {"/commanded.md": {"content": "by command", "encoding": "utf-8"}}}
        return Command(update={**update, "messages": [ToolMessage("stamped", tool_call_id=tool_call_id)]})

    @tool
    def probe() -> str:
        """Look at the run's context."""
        get_stream_writer()({"probe": "custom"})
        runtime = get_runtime()
        return f"{type(get_store()).__name__} {type(runtime.store).__name__}"

    return [keep, stamp, probe]


def _run(module, asynchronous):
    script = [
        ai_tool_calls(("keep", {"text": "remember"})),
        ai_tool_calls(("stamp", {})),
        ai_tool_calls(("probe", {})),
        ai_tool_calls(("read_file", {"file_path": "/notes/kept.md"})),
        AIMessage("done"),
    ]
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=script), tools=_tools(module), store=InMemoryStore()
    )
    seed = {"/notes/seed.md": {"content": "seeded", "encoding": "utf-8"}}
    payload = {"messages": [("user", "go")], "files": seed}
    if asynchronous:

        async def collect():
            return [c async for c in agent.astream(payload, stream_mode=["updates", "custom", "values"])]

        chunks = asyncio.run(collect())
    else:
        chunks = list(agent.stream(payload, stream_mode=["updates", "custom", "values"]))
    final = [c for mode, c in chunks if mode == "values"][-1]
    return {
        "tools": [m.content for m in final["messages"] if m.type == "tool"],
        "files": {p: f["content"] for p, f in final["files"].items()},
        "custom": [c for mode, c in chunks if mode == "custom"],
    }


@pytest.mark.parametrize("asynchronous", [False, True])
def test_context_inside_tools(asynchronous):
    ours, theirs = _run(deepagents_rs, asynchronous), _run(deepagents, asynchronous)
    assert ours == theirs
    assert ours["tools"][0] == "seeded | REMEMBER | ['/notes/kept.md', '/notes/seed.md']"
    assert ours["files"]["/stamped.md"] == "by backend" and ours["files"]["/commanded.md"] == "by command"
    assert ours["custom"] == [{"probe": "custom"}]


def _tool_task_metadata(module, saver):
    import re

    from langchain_core.tools import tool as make_tool
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.config import get_config

    seen = []

    @make_tool
    def probe(x: str) -> str:
        """Look at the task's config."""
        seen.append(dict(get_config()["metadata"]))
        return "ok"

    model = ScriptedChatModel(
        responses=[ai_tool_calls(("probe", {"x": "1"}), ("probe", {"x": "2"})), AIMessage("done")]
    )
    agent = module.create_deep_agent(model=model, tools=[probe], checkpointer=InMemorySaver() if saver else None)
    agent.invoke(
        {"messages": [("user", "go")]},
        {"configurable": {"thread_id": "t", "user": "u"}, "metadata": {"origin": "test"}},
    )
    task = re.compile(r"^tools:[0-9a-f-]+$")
    return sorted(
        (
            {k: ("tools:<task>" if isinstance(v, str) and task.match(v) else v) for k, v in meta.items()}
            for meta in seen
        ),
        key=lambda m: m["langgraph_path"],
    )


@pytest.mark.parametrize("saver", [False, True], ids=["plain", "checkpointed"])
def test_tool_task_metadata(saver):
    """`get_config()["metadata"]` in a tool is its task's, as LangGraph gives it: the graph's
    and the caller's metadata, the thread, the step, node, trigger, path and namespace."""
    ours = _tool_task_metadata(deepagents_rs, saver)
    assert ours == _tool_task_metadata(deepagents, saver)
    assert [m["langgraph_path"] for m in ours] == [("__pregel_push", 0, False), ("__pregel_push", 1, False)]


def _subagent_tool_metadata(module):
    import re

    from langchain_core.tools import tool as make_tool
    from langgraph.config import get_config

    seen = []

    @make_tool
    def probe(x: str) -> str:
        """Look at the task's config."""
        seen.append(dict(get_config()["metadata"]))
        return "ok"

    model = ScriptedChatModel(
        responses=[
            ai_tool_calls(("probe", {"x": "0"})),
            ai_tool_calls(("task", {"description": "d", "subagent_type": "helper"})),
            ai_tool_calls(("probe", {"x": "1"})),
            AIMessage("sub done"),
            AIMessage("done"),
        ]
    )
    agent = module.create_deep_agent(
        model=model,
        tools=[probe],
        name="boss",
        subagents=[{"name": "helper", "description": "h", "system_prompt": "p"}],
    )
    agent.invoke({"messages": [("user", "go")]})
    task = re.compile(r"tools:[0-9a-f-]+")
    return [{k: task.sub("tools:<task>", v) if isinstance(v, str) else v for k, v in meta.items()} for meta in seen]


def test_subagent_tool_metadata():
    """A subagent's tools see the subagent's metadata and a namespace under the parent's task."""
    ours = _subagent_tool_metadata(deepagents_rs)
    assert ours == _subagent_tool_metadata(deepagents)
    assert [m["lc_agent_name"] for m in ours] == ["boss", "helper"]
    assert ours[1]["langgraph_checkpoint_ns"] == "tools:<task>|tools:<task>"
