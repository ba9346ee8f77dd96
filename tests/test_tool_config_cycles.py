"""A tool call's config leaves no reference cycle behind: its configurable's ``__pregel_call``
(`_task_calls.Caller`) held the configurable itself, so every tool call's channels, runtime and
scratchpad waited for the cyclic collector (about 80 MiB more at the peak of 1,000 concurrent
20-step runs with the collector off). The collector is turned off around one run and every
object it then finds unreachable is kept (``gc.DEBUG_SAVEALL``): none may be one of a tool
call's config parts."""

from __future__ import annotations

import asyncio
import gc
import sys
from pathlib import Path
from typing import Any

import deepagents_rs
import pytest
from langchain_core.messages import AIMessage

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_models import ScriptedChatModel, ai_tool_calls

#: The types a tool call's config is made of (`_stream.config_with_writer`, `_task_channels`).
CONFIG_PARTS = {"TaskChannels", "Caller", "PregelScratchpad", "LazyAtomicCounter", "Runtime", "LazyFilesContext"}

STEPS = 4


def echo(text: str) -> str:
    """Echo the text back."""
    return text


def _garbage_of_one_run(mode: str) -> list[Any]:
    script = [ai_tool_calls(("echo", {"text": f"step {i}"})) for i in range(STEPS)] + [AIMessage(content="done")]
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script), tools=[echo])
    inputs = {"messages": [{"role": "user", "content": "go"}]}
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result = agent.invoke(inputs) if mode == "invoke" else asyncio.run(agent.ainvoke(inputs))
        assert result["messages"][-1].content == "done"
        assert sum(m.type == "tool" for m in result["messages"]) == STEPS
        del result
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_tool_calls_leave_no_config_cycles(mode: str) -> None:
    left = sorted(type(o).__qualname__ for o in _garbage_of_one_run(mode) if type(o).__qualname__ in CONFIG_PARTS)
    assert left == []
