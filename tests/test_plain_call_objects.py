"""A plain tool call's scratchpad counters (LangGraph's ``LazyAtomicCounter``) and its task's
files context (``LazyFilesContext``) are made by the core without their ``__init__``
(``src/python/plain_tool_config.rs``: a Python call each, four a tool call on the thread every
run's Python calls share), and are what their classes make: the counters count from 0 each,
one counter per kind, and the files context holds the run's files and no pending write, on
the plain path as on the general one."""

from __future__ import annotations

import asyncio
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _plain_tool_calls
from deepagents_rs._files_context import CURRENT_FILES, LazyFilesContext
from deepagents_rs._langgraph_private import LazyAtomicCounter
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage
from langgraph.config import get_config

SEEN: list[dict] = []


def peek(x: str) -> str:
    """Record the call's counters and files."""
    pad = get_config()["configurable"]["__pregel_scratchpad"]
    files = CURRENT_FILES.get()
    SEEN.append(
        {
            "counters": [type(c).__name__ for c in (pad.call_counter, pad.interrupt_counter, pad.subgraph_counter)],
            "distinct": len({id(pad.call_counter), id(pad.interrupt_counter), id(pad.subgraph_counter)}),
            "counts": [pad.call_counter(), pad.call_counter(), pad.interrupt_counter(), pad.subgraph_counter()],
            "files_type": type(files).__name__,
            "state": sorted(vars(files)),
            "pending": list(files.pending),
            "files": dict(files.files),
        }
    )
    return f"saw {x}"


FILES = {"/a.txt": {"content": ["a"], "created_at": "2024-01-01T00:00:00+00:00", "modified_at": "2024-01-01"}}


def _run(how: str) -> list[dict]:
    SEEN.clear()
    script = [ai_tool_calls(("peek", {"x": "1"}, "c1")), ai_tool_calls(("peek", {"x": "2"}, "c2")), AIMessage("done")]
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(responses=script), tools=[peek])
    payload: dict[str, Any] = {"messages": [("user", "go")], "files": FILES}
    if how == "ainvoke":
        asyncio.run(agent.ainvoke(payload))
    else:
        agent.invoke(payload)
    return list(SEEN)


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_the_counters_and_files_are_the_general_paths(how, monkeypatch):
    plain = _run(how)
    with monkeypatch.context() as patch:
        # Every call on the general path (`_stream.full_config`, LangGraph's own objects).
        patch.setattr(_plain_tool_calls, "run_base", lambda *args: None)
        general = _run(how)
    assert len(plain) == 2
    assert plain == general
    assert plain[0]["counters"] == ["LazyAtomicCounter"] * 3
    assert plain[0]["distinct"] == 3
    assert plain[0]["counts"] == [0, 1, 0, 0]
    assert plain[0]["state"] == ["_files", "_reader", "pending"]
    assert plain[0]["pending"] == []
    assert plain[0]["files"]["/a.txt"]["content"] == ["a"]


def test_they_are_made_without_their_init(monkeypatch):
    _run("invoke")  # the first call's look-ups (which make one of each to compare with)
    inits = {"counter": 0, "files": 0}
    counter_init, files_init = LazyAtomicCounter.__init__, LazyFilesContext.__init__

    def counted_counter(self: Any) -> None:
        inits["counter"] += 1
        counter_init(self)

    def counted_files(self: Any, reader: Any) -> None:
        inits["files"] += 1
        files_init(self, reader)

    monkeypatch.setattr(LazyAtomicCounter, "__init__", counted_counter)
    monkeypatch.setattr(LazyFilesContext, "__init__", counted_files)
    seen = _run("invoke")
    assert len(seen) == 2
    assert seen[0]["counts"] == [0, 1, 0, 0]
    assert inits == {"counter": 0, "files": 0}
