"""A functional-API ``@task`` called inside a tool is a task LangGraph's loop pushes, and
streams as one, side by side with deepagents: its ``tasks`` start, its ``updates`` part
(``{name: result}``) and its ``tasks`` result (or error), each also as a ``debug`` part,
inside its tool's ``tools`` task, under the namespace of the graph the tool runs in (a
subagent's with ``subgraphs=True`` only); ``stream`` and ``astream``, with and without a
saver. The task's id is the one its own config carries (``__pregel_task_id``)."""

from __future__ import annotations

import asyncio
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.func import task

#: The task ids the calls' configs carried, in call order.
TASK_IDS: list[str] = []


@task
def double(x: int) -> int:
    TASK_IDS.append(get_config()["configurable"]["__pregel_task_id"])
    if x < 0:
        raise ValueError(f"negative {x}")
    return 2 * x


@tool
def use_double(x: int) -> str:
    """Double x through a task."""
    try:
        return f"doubled {double(x).result()}"
    except ValueError as exc:
        return f"failed: {exc}"


def _agent(module: Any, x: int, subagent: bool, saver: bool) -> Any:
    kwargs: dict[str, Any] = {"checkpointer": InMemorySaver()} if saver else {}
    if not subagent:
        model = ScriptedChatModel([ai_tool_calls(("use_double", {"x": x}, "c1")), "done"])
        return module.create_deep_agent(model=model, tools=[use_double], **kwargs)
    sub = {
        "name": "worker",
        "description": "Works.",
        "system_prompt": "Work.",
        "model": ScriptedChatModel([ai_tool_calls(("use_double", {"x": x}, "c2")), "sub done"]),
        "tools": [use_double],
    }
    model = ScriptedChatModel([ai_tool_calls(("task", {"description": "do", "subagent_type": "worker"}, "c1")), "done"])
    return module.create_deep_agent(model=model, subagents=[sub], **kwargs)


def _shape(chunk: tuple, ids: dict[str, str]) -> tuple:
    """A chunk without ids and times: its namespace's node names, its mode, and what it
    says of a task (a pushed task's input, result and error whole; its id by first place)."""
    ns, mode, data = chunk
    where = tuple(segment.split(":")[0] for segment in ns)
    if mode == "debug":
        if data["type"] == "checkpoint":
            return (where, mode, "checkpoint", data["step"])
        return (where, mode, data["type"], data["step"], _shape((ns, "tasks", data["payload"]), ids)[2:])
    if mode == "tasks":
        task_id = ids.setdefault(data["id"], f"<task{len(ids)}>") if data["name"] == "double" else "<id>"
        if "result" not in data:
            shown = data["input"] if data["name"] == "double" else None
            return (where, mode, data["name"], task_id, "start", shown, data.get("metadata"))
        error = data["error"]
        error = None if error is None else (type(error).__name__, str(error))
        result = data["result"] if data["name"] == "double" else None
        return (where, mode, data["name"], task_id, "result", error, result, data["interrupts"])
    if mode == "updates":
        return (where, mode, {k: (v if k == "double" else "...") for k, v in data.items()})
    return (where, mode)


def _stream(module: Any, x: int, subagent: bool, saver: bool, modes: list[str], asynchronous: bool) -> list:
    agent = _agent(module, x, subagent, saver)
    payload = {"messages": [{"role": "user", "content": "go"}]}
    config = {"configurable": {"thread_id": "t"}}
    kwargs = {"stream_mode": modes, "subgraphs": True}
    TASK_IDS.clear()
    if asynchronous:

        async def go() -> list:
            return [c async for c in agent.astream(payload, config, **kwargs)]

        chunks = asyncio.run(go())
    else:
        chunks = list(agent.stream(payload, config, **kwargs))
    ids: dict[str, str] = {}
    shapes = [_shape(c, ids) for c in chunks]
    if {"tasks", "debug"} & set(modes):
        # The pushed task's parts name the task its own config carried.
        assert list(ids) == TASK_IDS[:1], (module.__name__, ids, TASK_IDS)
    return shapes


def _pushed(shapes: list) -> list:
    return [s for s in shapes if "double" in repr(s)]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize(
    "modes", [["updates"], ["tasks", "updates"], ["debug", "updates"]], ids=["updates", "tasks", "debug"]
)
def test_a_pushed_tasks_parts(modes: list[str], saver: bool, asynchronous: bool) -> None:
    ours = _stream(deepagents_rs, 3, False, saver, modes, asynchronous)
    theirs = _stream(deepagents, 3, False, saver, modes, asynchronous)
    assert ours == theirs
    # Not vacuous: the task's own parts are there.
    assert ((), "updates", {"double": 6}) in ours


@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
def test_a_failing_pushed_task_streams_its_error(saver: bool) -> None:
    ours = _stream(deepagents_rs, -1, False, saver, ["tasks", "updates"], False)
    assert ours == _stream(deepagents, -1, False, saver, ["tasks", "updates"], False)
    assert any(s[2:4] == ("double", "<task0>") and s[5] == ("ValueError", "negative -1") for s in ours)
    # A failed task writes no update.
    assert not any(s[1] == "updates" and "double" in s[2] for s in ours)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
def test_a_subagents_pushed_task_streams_under_its_namespace(asynchronous: bool) -> None:
    modes = ["tasks", "updates"]
    ours = _pushed(_stream(deepagents_rs, 3, True, False, modes, asynchronous))
    assert ours == _pushed(_stream(deepagents, 3, True, False, modes, asynchronous))
    assert (("tools",), "updates", {"double": 6}) in ours
