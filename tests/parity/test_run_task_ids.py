"""The task and checkpoint ids of a run's tool calls belong to that run alone: under many
concurrent runs a call's `wrap_tool_call` middleware and its tool see one task id, the calls
of a step one checkpoint id, and no two runs share an id; a run started after another ended
gets ids of its own (not the ended run's, whose config may have been freed). Checked side by
side with deepagents, which has LangGraph number every task afresh."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config

#: Tool calls a run makes in its one tool step: enough that many runs together make far more
#: ids than any bound on all runs' ids would keep.
CALLS = 16


class Seen:
    """What each call's middleware and tool saw, by run label and call id."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_run: dict[str, dict[int, dict[str, Any]]] = {}

    def add(self, who: str, call: int) -> None:
        """Records the task id and checkpoint id of the config ``who`` runs with."""
        configurable = get_config()["configurable"]
        ids = configurable["__pregel_task_id"], configurable["checkpoint_map"][""]
        with self.lock:
            self.by_run.setdefault(configurable["label"], {}).setdefault(call, {})[who] = ids


SEEN = Seen()


class Calls(BaseChatModel):
    """Calls the `probe` tool ``CALLS`` times for a user message, then answers: one model for
    any number of runs at once (no script to share)."""

    @property
    def _llm_type(self) -> str:
        return "calls"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        if isinstance(messages[-1], HumanMessage):
            calls = [{"name": "probe", "args": {"n": n}, "id": f"call_{n}", "type": "tool_call"} for n in range(CALLS)]
            reply = AIMessage(content="", tool_calls=calls)
        else:
            reply = AIMessage(content="done")
        return ChatResult(generations=[ChatGeneration(message=reply)])


@tool
def probe(n: int) -> str:
    """Records the ids the tool's task has."""
    SEEN.add("tool", n)
    return "ok"


class Watch(AgentMiddleware):
    """Records the ids a call's `wrap_tool_call` sees, then lets other runs go on for a while
    before the tool runs."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        SEEN.add("middleware", request.tool_call["args"]["n"])
        time.sleep(0.02)
        return handler(request)

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        SEEN.add("middleware", request.tool_call["args"]["n"])
        await asyncio.sleep(0.02)
        return await handler(request)


def _agent(module: Any, saver: Any = None) -> Any:
    return module.create_deep_agent(model=Calls(), tools=[probe], middleware=[Watch()], checkpointer=saver)


def _run(agent: Any, label: str, how: str) -> None:
    payload = {"messages": [("user", "go")]}
    # On a checkpointed agent each run has a thread of its own.
    config = {"configurable": {"label": label, "thread_id": label}}
    if how == "ainvoke":
        asyncio.run(agent.ainvoke(payload, config))
    else:
        agent.invoke(payload, config)


def _checked(runs: int) -> dict[str, dict[int, dict[str, Any]]]:
    """Each run's calls, after checking each saw one task id in its middleware and tool, and
    a run's calls one checkpoint id, and that no id is any other run's."""
    seen = SEEN.by_run
    assert len(seen) == runs
    owner: dict[str, str] = {}
    for label, calls in seen.items():
        assert len(calls) == CALLS, label
        checkpoints = set()
        for call, sides in calls.items():
            assert sides["middleware"] == sides["tool"], (label, call)
            task_id, checkpoint = sides["tool"]
            checkpoints.add(checkpoint)
            assert owner.setdefault(task_id, label) == label, f"{label} and {owner[task_id]} share task {task_id}"
        (checkpoint,) = checkpoints
        assert owner.setdefault(checkpoint, label) == label, f"{label} and {owner[checkpoint]} share {checkpoint}"
    return seen


@pytest.fixture(autouse=True)
def _fresh_seen():
    SEEN.by_run.clear()
    yield
    SEEN.by_run.clear()


@pytest.mark.parametrize("saver", [False, True], ids=["no saver", "saver"])
@pytest.mark.parametrize("module", [deepagents, deepagents_rs], ids=["deepagents", "ours"])
def test_concurrent_runs_keep_their_ids(module, saver):
    """300 runs at once on a thread pool (100 on threads of a saver), half invoked, half
    awaited, each with 16 tool calls in one step, middleware and tools reading the ids of
    their task's config."""
    agent = _agent(module, InMemorySaver() if saver else None)
    runs = 100 if saver else 300
    with ThreadPoolExecutor(max_workers=64) as pool:
        done = [pool.submit(_run, agent, f"r{i}", "ainvoke" if i % 2 else "invoke") for i in range(runs)]
        for future in done:
            future.result()
    _checked(runs)


@pytest.mark.parametrize("module", [deepagents, deepagents_rs], ids=["deepagents", "ours"])
def test_later_runs_get_fresh_ids(module):
    """Runs one after another, each config freed before the next run starts (the next config
    may get the same ``id()``): each run's ids are its own."""
    agent = _agent(module)
    # 16 runs of 16 calls: enough for freed configs' ids to come round again, few enough that
    # the collections (slow in a full suite's heap) stay well inside the timeout under load.
    for i in range(16):
        _run(agent, f"r{i}", "ainvoke" if i % 2 else "invoke")
        gc.collect()
    _checked(16)
