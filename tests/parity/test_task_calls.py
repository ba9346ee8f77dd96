"""A functional-API ``@task`` called inside a tool (LangGraph's ``__pregel_call``), side by
side with deepagents, beyond its policies (``test_task_call_policies``): the call is a task
of its own (its chain run under the tool's, its config inside), an async task called from a
sync run raises LangGraph's ``RuntimeError`` while an async run's sync tool gets a future of
the run's loop, the graph's ``cache=`` serves a call with a ``cache_policy`` (the agent's own
calls, not a subagent's), and a checkpointed run that resumes after an interrupt takes the
call's result (or error) saved with the interrupted step instead of running it again."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.func import task
from langgraph.types import CachePolicy, Command, interrupt

RUNS: list[Any] = []
SEEN: list[Any] = []

#: Task and checkpoint ids, and interrupt ids (hashes of a task's namespace).
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b")


def _ids(value: Any) -> str:
    """``value``'s text with each id named by its first place: the same shape of ids on
    both sides compares equal."""
    names: dict[str, str] = {}
    return _UUID.sub(lambda m: names.setdefault(m.group(0), f"<id{len(names)}>"), str(value))


def _agent(module, responses: list, **kwargs: Any) -> Any:
    return module.create_deep_agent(model=ScriptedChatModel(responses=responses), tools=TOOLS, **kwargs)


def _invoke(agent: Any, payload: Any, config: dict, asynchronous: bool) -> Any:
    return asyncio.run(agent.ainvoke(payload, config)) if asynchronous else agent.invoke(payload, config)


# -- sync and async callers ----------------------------------------------------------


@task
async def adouble(x: int) -> int:
    RUNS.append(x)
    return 2 * x


@task
def double(x: int) -> int:
    config = get_config()
    SEEN.append((config["configurable"], config["metadata"], config.get("tags")))
    RUNS.append(x)
    return 2 * x


@tool
def sync_calls_async(x: int) -> str:
    """Call an async task from a sync tool."""
    try:
        future = adouble(x)
        return f"ok {type(future).__module__}.{type(future).__name__} {future.result()}"
    except Exception as exc:  # noqa: BLE001 - compared by type and text
        return f"{type(exc).__name__}: {exc}"


@tool
def sync_calls_sync(x: int) -> str:
    """Call a sync task from a sync tool."""
    return f"ok {double(x).result()}"


@tool
async def async_calls_sync(x: int) -> str:
    """Call a sync task from an async tool."""
    future = double(x)
    return f"ok {type(future).__module__}.{type(future).__name__} {await future}"


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("name", ["sync_calls_async", "sync_calls_sync", "async_calls_sync"])
def test_a_task_call_from_sync_and_async_code(name, asynchronous):
    if name == "async_calls_sync" and not asynchronous:
        pytest.skip("an async tool does not run under invoke")

    def run(module) -> tuple:
        RUNS.clear()
        agent = _agent(module, [ai_tool_calls((name, {"x": 3})), AIMessage("done")])
        result = _invoke(agent, {"messages": [("user", "go")]}, {}, asynchronous)
        return result["messages"][2].content, RUNS[:]

    theirs = run(deepagents)
    if name == "sync_calls_async":
        assert theirs[0].startswith("ok concurrent" if asynchronous else "RuntimeError")
    assert run(deepagents_rs) == theirs


# -- the call's own run and config ---------------------------------------------------


class _Runs(BaseCallbackHandler):
    """The chain runs of task calls: their start and end, with their parent's name."""

    def __init__(self) -> None:
        self.names: dict[Any, str] = {}
        self.events: list[tuple] = []

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, tags=None, metadata=None, **kw):
        self.names[run_id] = kw.get("name")
        if kw.get("name") == "double":
            self.events.append(("start", self.names.get(parent_run_id), inputs, tags, metadata, serialized))

    def on_tool_start(self, serialized, input_str, *, run_id, parent_run_id=None, **kw):
        self.names[run_id] = f"tool {serialized.get('name')}"

    def on_chain_end(self, outputs, *, run_id, parent_run_id=None, tags=None, **kw):
        if self.names.get(run_id) == "double":
            self.events.append(("end", self.names.get(parent_run_id), outputs, tags))


def _inside(configurable: dict) -> dict:
    """What the task sees in its configurable: the keys; its namespace (the calling task's
    plus its own, named by its task id), its checkpoint map and execution info."""
    ns = configurable["checkpoint_ns"]
    info = configurable["__pregel_runtime"].execution_info
    return {
        "keys": sorted(configurable),
        "ns": ns,
        "own ns": ns.endswith(f"|double:{configurable['__pregel_task_id']}"),
        "map": configurable["checkpoint_map"],
        "checkpoint": configurable["checkpoint_id"],
        "info": (info.checkpoint_ns == ns, info.task_id == configurable["__pregel_task_id"], info.checkpoint_id),
    }


@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_a_task_call_is_a_run_of_its_own(asynchronous, saver):
    def run(module) -> str:
        SEEN.clear()
        runs = _Runs()
        agent = _agent(
            module,
            [ai_tool_calls(("sync_calls_sync", {"x": 3})), AIMessage("done")],
            checkpointer=InMemorySaver() if saver else None,
        )
        config = {"configurable": {"thread_id": "t"}, "callbacks": [runs], "tags": ["mine"]}
        _invoke(agent, {"messages": [("user", "go")]}, config, asynchronous)
        inside = [(_inside(c), m, tags) for c, m, tags in SEEN]
        return _ids((runs.events, inside))

    theirs = run(deepagents)
    assert "'start', 'tool sync_calls_sync'" in theirs
    assert run(deepagents_rs) == theirs


# -- the graph's cache ---------------------------------------------------------------


@task(cache_policy=CachePolicy())
def cached(x: int) -> int:
    RUNS.append(x)
    return 2 * x


@task(cache_policy=CachePolicy(key_func=lambda x: str(x % 2)))
async def acached(x: int) -> int:
    RUNS.append(x)
    return 2 * x


@tool
def calls_cached(x: int) -> str:
    """Call a cached task."""
    return f"ok {cached(x).result()}"


@tool
async def acalls_cached(x: int) -> str:
    """Call a cached async task (cached by the argument's parity)."""
    return f"ok {await acached(x)}"


def _cache_responses(name: str, subagent: bool) -> list:
    steps = [ai_tool_calls((name, {"x": 3})), ai_tool_calls((name, {"x": 3}), (name, {"x": 4}))]
    if not subagent:
        return [*steps, AIMessage("done")]
    call = ai_tool_calls(("task", {"description": "call it", "subagent_type": "general-purpose"}))
    return [call, *steps, AIMessage("sub done"), AIMessage("done")]


@pytest.mark.parametrize("subagent", [False, True], ids=["agent", "subagent"])
@pytest.mark.parametrize("cache", [False, True], ids=["no-cache", "cache"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_a_task_call_with_a_cache_policy_uses_the_graphs_cache(asynchronous, cache, subagent):
    name = "acalls_cached" if asynchronous else "calls_cached"

    def run(module) -> tuple:
        RUNS.clear()
        shared = InMemoryCache() if cache else None
        outputs = []
        # Two runs of two agents sharing one cache: the second finds the first's calls.
        for _ in range(2):
            agent = _agent(module, _cache_responses(name, subagent), cache=shared)
            result = _invoke(agent, {"messages": [("user", "go")]}, {}, asynchronous)
            outputs.append([m.content for m in result["messages"]])
        # Calls of one step run in parallel, in either order.
        return sorted(RUNS), outputs

    theirs = run(deepagents)
    assert len(theirs[0]) == (6 if subagent or not cache else 2)
    assert run(deepagents_rs) == theirs


# -- resuming ------------------------------------------------------------------------


@task
def counted(x: int) -> int:
    RUNS.append(x)
    if x < 0:
        raise ValueError(f"negative {x}")
    return 2 * x


@task
async def acounted(x: int) -> int:
    return counted.func(x)


def _asks(result: Any) -> str:
    """The call's result (or its error) and the user's answer."""
    try:
        value: Any = result()
    except ValueError as exc:
        value = f"ValueError {exc}"
    return f"{value} {interrupt('sure?')}"


@tool
def calls_then_asks(x: int) -> str:
    """Call a task, then ask the user."""
    return _asks(lambda: counted(x).result())


@tool
def sync_calls_async_then_asks(x: int) -> str:
    """Call an async task from a sync tool, then ask the user."""
    return _asks(lambda: acounted(x).result())


@tool
async def acalls_then_asks(x: int) -> str:
    """Call an async task, then ask the user."""
    try:
        value: Any = await acounted(x)
    except ValueError as exc:
        value = f"ValueError {exc}"
    return f"{value} {interrupt('sure?')}"


def _pending(saver: InMemorySaver, config: dict) -> str:
    writes = saver.get_tuple(config).pending_writes
    return _ids(sorted((channel, repr(value)) for _, channel, value in writes))


@pytest.mark.parametrize("x", [3, -3], ids=["result", "error"])
@pytest.mark.parametrize(
    ("name", "asynchronous"),
    [
        ("calls_then_asks", False),
        ("calls_then_asks", True),
        ("sync_calls_async_then_asks", True),
        ("acalls_then_asks", True),
    ],
)
def test_a_resumed_run_takes_a_task_calls_saved_result(name, asynchronous, x):

    def run(module) -> tuple:
        RUNS.clear()
        saver = InMemorySaver()
        agent = _agent(module, [ai_tool_calls((name, {"x": x})), AIMessage("done")], checkpointer=saver)
        config = {"configurable": {"thread_id": "t"}}
        first = _invoke(agent, {"messages": [("user", "go")]}, config, asynchronous)
        pending = _pending(saver, config)
        result = _invoke(agent, Command(resume="yes"), config, asynchronous)
        return _ids(first["__interrupt__"]), pending, [m.content for m in result["messages"]], RUNS[:]

    theirs = run(deepagents)
    # A call that failed runs again on resume (LangGraph reapplies finished tasks only).
    assert theirs[3] == ([x] if x > 0 else [x, x])
    assert run(deepagents_rs) == theirs


TOOLS = [
    sync_calls_async,
    sync_calls_sync,
    async_calls_sync,
    calls_cached,
    acalls_cached,
    calls_then_asks,
    sync_calls_async_then_asks,
    acalls_then_asks,
]
