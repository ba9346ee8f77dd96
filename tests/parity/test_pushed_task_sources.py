"""The stream parts of a functional-API ``@task`` called inside a tool when its result does
not come from running it, and of a ``@task`` called inside another, side by side with
deepagents (``tasks``, ``updates`` and ``debug``, ``stream`` and ``astream``):

- answered from the agent's ``cache=`` (a ``CachePolicy``) on a second run: its start, then
  a cached ``updates`` part (``__metadata__``), no ``tasks`` result;
- answered from a resumed run's saved writes (the tool interrupted after the call): its
  start only;
- a task called by a task: both tasks' parts, the inner's inside the outer's, in the graph
  the tool runs in.

Task ids differ across the implementations: each is named by where it first appears, and a
task that ran is checked to stream under the id its own config carried."""

from __future__ import annotations

import asyncio
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.tools import tool
from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.func import task
from langgraph.types import CachePolicy, Command, interrupt

#: The task ids the tasks' configs carried, as they ran.
RAN: list[str] = []
_NAMES = ("double", "inner", "outer")


def _ran() -> None:
    RAN.append(get_config()["configurable"]["__pregel_task_id"])


@task(cache_policy=CachePolicy())
def double(x: int) -> int:
    _ran()
    return 2 * x


@task
def inner(x: int) -> int:
    _ran()
    return x + 1


@task
def outer(x: int) -> int:
    _ran()
    return inner(x).result() * 10


@tool
def use_double(x: int) -> str:
    """Double x through a cached task."""
    return f"doubled {double(x).result()}"


@tool
def use_outer(x: int) -> str:
    """A task calling a task."""
    return f"outer {outer(x).result()}"


@tool
def double_then_ask(x: int) -> str:
    """Double x, then ask."""
    value = inner(x).result()
    return f"{value} {interrupt('ok?')}"


def _shape(chunk: tuple, ids: dict[str, str]) -> tuple | None:
    """A part of a ``@task`` without ids and times (``None`` for any other part): its
    namespace's node names, its mode, the task by first appearance, and what it says."""
    ns, mode, data = chunk
    where = tuple(segment.split(":")[0] for segment in ns)
    if mode == "debug":
        if data["type"] == "checkpoint" or data["payload"]["name"] not in _NAMES:
            return None
        shown = _shape((ns, "tasks", data["payload"]), ids)
        return (where, mode, data["type"], data["step"], shown[2:] if shown else None)
    if mode == "tasks":
        if data["name"] not in _NAMES:
            return None
        named = ids.setdefault(data["id"], f"<task{len(ids)}>")
        if "result" not in data:
            return (where, mode, data["name"], named, "start", data["input"])
        return (where, mode, data["name"], named, "result", data["error"], data["result"])
    if mode == "updates" and set(data) & set(_NAMES):
        return (where, mode, data)
    return None


def _stream(agent: Any, payload: Any, config: dict, api: str) -> list:
    modes = ["tasks", "updates", "debug"]
    if api == "stream":
        return list(agent.stream(payload, config, stream_mode=modes, subgraphs=True))

    async def collect() -> list:
        return [c async for c in agent.astream(payload, config, stream_mode=modes, subgraphs=True)]

    return asyncio.run(collect())


def _runs(module: Any, case: str, api: str) -> tuple[list[list], dict[str, str]]:
    """Each run's ``@task`` parts, and the ids of the tasks that ran by their names."""
    RAN.clear()
    tool_, extra = {"cached": (use_double, {}), "replayed": (double_then_ask, {}), "nested": (use_outer, {})}[case]
    if case == "replayed":
        extra = {"checkpointer": InMemorySaver()}
    cache = InMemoryCache()
    go = {"messages": [{"role": "user", "content": "go"}]}
    runs, ids = [], {}
    inputs = [go, go] if case == "cached" else [go, Command(resume="yes")] if case == "replayed" else [go]
    agent = None
    for payload in inputs:
        if agent is None or case == "cached":
            # The cached case: a second agent with the same cache answers the call.
            script = [ai_tool_calls((tool_.name, {"x": 3}, "c1")), "done"]
            kwargs = {"cache": cache} if case == "cached" else extra
            agent = module.create_deep_agent(model=ScriptedChatModel(script), tools=[tool_], **kwargs)
        chunks = _stream(agent, payload, {"configurable": {"thread_id": "t"}}, api)
        runs.append([s for c in chunks if (s := _shape(c, ids)) is not None])
    return runs, {ids[i]: i for i in RAN if i in ids}


@pytest.mark.parametrize("api", ["stream", "astream"])
@pytest.mark.parametrize("case", ["cached", "replayed", "nested"])
def test_a_tasks_parts_from_cache_replay_and_nesting(case: str, api: str) -> None:
    ours, ran_ours = _runs(deepagents_rs, case, api)
    theirs, ran_theirs = _runs(deepagents, case, api)
    assert ours == theirs
    # Each task that ran streams under the id its config carried (none: a cached or
    # replayed call does not run).
    assert sorted(ran_ours) == sorted(ran_theirs)
    assert len(ran_ours) == {"cached": 1, "replayed": 1, "nested": 2}[case]
    # The call that was not run streams its start.
    if case != "nested":
        assert [p[4] for p in theirs[1] if p[1] == "tasks"] == ["start"]
