"""Parity: the metadata LangChain callbacks see on each run, as LangGraph fills it: the
configurable's `thread_id` (and the other keys LangGraph copies) on every run, and a model
call's `checkpoint_ns` (its node's task namespace). Compared with deepagents on a plain and a
checkpointed run; task ids are masked (LangGraph's are random per run)."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.callbacks import BaseCallbackHandler
from langgraph.checkpoint.memory import InMemorySaver

_TASK = re.compile(r"^([\w.]+):[0-9a-f-]{36}$")
_SHOWN = ("thread_id", "checkpoint_ns", "langgraph_checkpoint_ns", "langgraph_node", "assistant_id", "lc_agent_name")


def _masked(value: Any) -> Any:
    return _TASK.sub(r"\1:<task>", value) if isinstance(value, str) else value


class _Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.starts: list[tuple] = []

    def _record(self, kind: str, name: Any, metadata: dict | None) -> None:
        md = metadata or {}
        self.starts.append((kind, name, sorted(md), {k: _masked(md.get(k)) for k in _SHOWN if k in md}))

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self._record("chain", kwargs.get("name"), kwargs.get("metadata"))

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self._record("chat", None, kwargs.get("metadata"))

    def on_tool_start(self, serialized: Any, input_str: Any, **kwargs: Any) -> None:
        self._record("tool", kwargs.get("name"), kwargs.get("metadata"))


def _starts(impl: str, saver: bool) -> list[tuple]:
    model = ScriptedChatModel([ai_tool_calls(("ls", {"path": "/"})), "done"])
    agent = importlib.import_module(impl).create_deep_agent(
        model=model, checkpointer=InMemorySaver() if saver else None
    )
    recorder = _Recorder()
    config = {"configurable": {"thread_id": "t-1", "assistant_id": "a-1", "api_key": "hidden"}, "callbacks": [recorder]}
    agent.invoke({"messages": [{"role": "user", "content": "go"}]}, config)
    return recorder.starts


@pytest.mark.parametrize("saver", [False, True], ids=["plain", "checkpointed"])
def test_runs_carry_langgraphs_metadata(saver: bool) -> None:
    ref = _starts("deepagents", saver)
    assert _starts("deepagents_rs", saver) == ref
    chats = [md for kind, _, _, md in ref if kind == "chat"]
    assert chats and all(md["thread_id"] == "t-1" and md["checkpoint_ns"] == "model:<task>" for md in chats)
