"""A functional-API ``@task`` called inside a tool (LangGraph's ``__pregel_call``), side by
side with deepagents: its retry policy (attempts, which errors, giving up), an async task's
run timeout and idle timeout (LangGraph's ``NodeTimeoutError``; progress by heartbeat or
stream output, as ``refresh_on`` says), and the note LangGraph adds to the error of
a task, naming it and the id it derives for it (from the calling task's checkpoint, step,
path and the call's place among the task's calls). Sync and async, with and without a saver."""

from __future__ import annotations

import asyncio
import binascii
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config, get_stream_writer
from langgraph.func import task
from langgraph.pregel._algo import _xxhash_str, task_path_str
from langgraph.runtime import get_runtime
from langgraph.types import RetryPolicy, TimeoutPolicy

ATTEMPTS: list[int] = []
CALLERS: list[dict] = []
_POLICY = RetryPolicy(initial_interval=0.0, jitter=False, max_attempts=3, retry_on=ValueError)


def _attempt(fails: int) -> int:
    ATTEMPTS.append(fails)
    if len(ATTEMPTS) <= fails:
        raise (ValueError if fails < 10 else KeyError)(f"attempt {len(ATTEMPTS)}")
    return len(ATTEMPTS)


@task(retry_policy=_POLICY)
def flaky(fails: int) -> int:
    return _attempt(fails)


@task(retry_policy=_POLICY)
async def aflaky(fails: int) -> int:
    return _attempt(fails)


@task(timeout=0.5)
async def slow(seconds: float) -> float:
    await asyncio.sleep(seconds)
    return seconds


def _expected_id(config: dict, name: str) -> str:
    """LangGraph's id of the first task the calling task pushes (under the caller's
    namespace, from its graph's checkpoint), from the caller's config."""
    configurable, metadata = config["configurable"], config["metadata"]
    caller = configurable["checkpoint_ns"]
    return _xxhash_str(
        binascii.unhexlify(configurable["checkpoint_map"][caller.rpartition("|")[0]].replace("-", "")),
        f"{caller}|{name}",
        str(metadata["langgraph_step"]),
        name,
        "__pregel_push",
        task_path_str(metadata["langgraph_path"]),
        "0",
    )


def _outcome(exc: Exception, name: str) -> str:
    notes = getattr(exc, "__notes__", [])
    expected = f"During task with name '{name}' and id '{_expected_id(CALLERS[-1], name)}'"
    return f"{type(exc).__name__}: {exc} (notes {len(notes)}, named {notes == [expected]})"


@tool
def calls(fails: int) -> str:
    """Call a flaky task."""
    CALLERS.append(get_config())
    try:
        return f"ok {flaky(fails).result()}"
    except Exception as exc:  # noqa: BLE001 - compared by type, text and notes
        return _outcome(exc, "flaky")


@tool
async def acalls(fails: int, wait: float = -1.0) -> str:
    """Call a flaky task, or a slow one when ``wait`` is given."""
    CALLERS.append(get_config())
    try:
        return f"ok {await (slow(wait) if wait >= 0 else aflaky(fails))}"
    except Exception as exc:  # noqa: BLE001 - compared by type, text and notes
        text = _outcome(exc, "slow" if wait >= 0 else "aflaky")
        # The elapsed time in LangGraph's message varies.
        return text.split(" (elapsed")[0] + text[text.index(" (notes") :] if "elapsed" in text else text


CASES = [
    ("retried", {"fails": 2}),
    ("given up", {"fails": 5}),
    ("not retried", {"fails": 10}),
    ("in time", {"fails": 0, "wait": 0.0}),
    ("timed out", {"fails": 0, "wait": 5.0}),
]


def _run(module, case: dict, asynchronous: bool, saver: bool) -> tuple[Any, ...]:
    ATTEMPTS.clear()
    CALLERS.clear()
    name = "acalls" if asynchronous else "calls"
    args = case if asynchronous else {"fails": case["fails"]}
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=[ai_tool_calls((name, args)), AIMessage("done")]),
        tools=[calls, acalls],
        checkpointer=InMemorySaver() if saver else None,
    )
    config = {"configurable": {"thread_id": "t"}}
    payload = {"messages": [("user", "go")]}
    result = asyncio.run(agent.ainvoke(payload, config)) if asynchronous else agent.invoke(payload, config)
    return len(ATTEMPTS), result["messages"][2].content


# A sync task cannot have a timeout (LangGraph refuses it at the call): async only.
RUNS = [
    pytest.param(case, asynchronous, id=f"{name}-{'ainvoke' if asynchronous else 'invoke'}")
    for name, case in CASES
    for asynchronous in (False, True)
    if asynchronous or "wait" not in case
]


@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
@pytest.mark.parametrize(("case", "asynchronous"), RUNS)
def test_a_task_call_follows_its_policies(case, asynchronous, saver):
    theirs = _run(deepagents, case, asynchronous, saver)
    assert _run(deepagents_rs, case, asynchronous, saver) == theirs


# Idle timeouts: a task quiet past its idle window, one that heartbeats, one that writes to
# the stream (progress under `refresh_on="auto"` only). Each runs 1.5 s in steps of 0.1 s,
# past its 1 s window unless its progress counts; the margins hold under a loaded machine.
_IDLE = 1.0


async def _steps(progress: Any) -> int:
    for i in range(15):
        await asyncio.sleep(0.1)
        progress(i)
    return 15


@task(timeout=TimeoutPolicy(idle_timeout=_IDLE))
async def quiet() -> int:
    return await _steps(lambda i: None)


@task(timeout=TimeoutPolicy(idle_timeout=_IDLE, refresh_on="heartbeat"))
async def beating() -> int:
    return await _steps(lambda i: get_runtime().heartbeat())


@task(timeout=TimeoutPolicy(idle_timeout=_IDLE))
async def writing() -> int:
    return await _steps(lambda i: get_stream_writer()(i))


@task(timeout=TimeoutPolicy(idle_timeout=_IDLE, refresh_on="heartbeat"))
async def writing_strictly() -> int:
    return await _steps(lambda i: get_stream_writer()(i))


IDLE_TASKS = {"quiet": quiet, "beating": beating, "writing": writing, "writing_strictly": writing_strictly}


@tool
async def idles(name: str) -> str:
    """Call a task with an idle timeout."""
    CALLERS.append(get_config())
    try:
        return f"ok {await IDLE_TASKS[name]()}"
    except Exception as exc:  # noqa: BLE001 - compared by type, text, kind and notes
        text = _outcome(exc, name)
        return f"{text.split(' (elapsed')[0]} {text[text.index(' (notes') :]} kind={getattr(exc, 'kind', None)}"


def _idle_run(module, name: str, saver: bool) -> str:
    CALLERS.clear()
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=[ai_tool_calls(("idles", {"name": name})), AIMessage("done")]),
        tools=[idles],
        checkpointer=InMemorySaver() if saver else None,
    )
    result = asyncio.run(agent.ainvoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "t"}}))
    return result["messages"][2].content


@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
@pytest.mark.parametrize("name", list(IDLE_TASKS))
def test_a_task_calls_idle_timeout_counts_its_progress(name, saver):
    theirs = _idle_run(deepagents, name, saver)
    assert theirs.startswith("ok" if name in ("beating", "writing") else "NodeTimeoutError")
    assert _idle_run(deepagents_rs, name, saver) == theirs
