"""Parity: sync tools run as LangGraph runs them, on an executor of
``min(32, os.cpu_count() + 4)`` workers (the event loop's default one under ``ainvoke``, one
per run under ``invoke``): the calls past that wait for a worker. Both implementations run the
same parallel calls of a tool that counts how many of its calls run together."""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
import time

import pytest
from fake_models import ScriptedChatModel, ai_tool_calls

WORKERS = min(32, (os.cpu_count() or 1) + 4)
CALLS = WORKERS + 3


def _max_together(impl: str, mode: str) -> int:
    lock = threading.Lock()
    state = {"now": 0, "max": 0}

    def hold(i: int) -> str:
        """Hold a worker a moment."""
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.3)
        with lock:
            state["now"] -= 1
        return str(i)

    model = ScriptedChatModel([ai_tool_calls(*[("hold", {"i": i}) for i in range(CALLS)]), "done"])
    agent = importlib.import_module(impl).create_deep_agent(model=model, tools=[hold])
    inputs = {"messages": [{"role": "user", "content": "go"}]}
    if mode == "ainvoke":
        out = asyncio.run(agent.ainvoke(inputs))
    else:
        out = agent.invoke(inputs)
    assert sorted(m.content for m in out["messages"] if m.type == "tool") == sorted(str(i) for i in range(CALLS))
    return state["max"]


@pytest.mark.parametrize("mode", ["ainvoke", "invoke"])
def test_sync_tools_run_on_langchains_executor(mode: str) -> None:
    ref = _max_together("deepagents", mode)
    assert _max_together("deepagents_rs", mode) == ref
    assert ref == WORKERS
