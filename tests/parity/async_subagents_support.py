"""Shared pieces of the async-subagent parity tests: the subagent graphs the server runs and their
gated models, the served subagent's waits, the directed parent model, and the views that
normalise a run's ids."""

from __future__ import annotations

import asyncio
import copy
import re
import time
from pathlib import Path
from typing import Any

import pytest

langgraph_sdk = pytest.importorskip("langgraph_sdk")

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

#: Task, thread and run ids (uuids), and interrupt ids (32 hex digits, from the thread).
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b"


_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


CHILD = '''
import asyncio, os, time
from pathlib import Path
from typing import Any
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
import deepagents_rs

GATES = Path(os.environ["ASYNC_SUBAGENT_GATES"])


class GatedModel(BaseChatModel):
    """Answers `done: <task>` once the gate the task names (`wait:<gate>`) is open."""

    @property
    def _llm_type(self) -> str:
        return "gated"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _task(self, messages):
        text = [m.text for m in messages if isinstance(m, HumanMessage)][-1]
        gate = next((w[5:] for w in text.split() if w.startswith("wait:")), None)
        return text, gate

    def _answer(self, text):
        if "boom" in text:
            raise RuntimeError("the subagent blew up")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="done: " + text))])

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        text, gate = self._task(messages)
        while gate and not (GATES / gate).exists():
            time.sleep(0.05)
        return self._answer(text)

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
        text, gate = self._task(messages)
        while gate and not (GATES / gate).exists():
            await asyncio.sleep(0.05)
        return self._answer(text)


child = deepagents_rs.create_deep_agent(model=GatedModel(), system_prompt="You are a researcher.")


class AskingModel(GatedModel):
    """Once its gate is open, asks to write a file (which its user must approve)."""

    def _answer(self, text):
        if "ask" in text:
            call = {"name": "write_file", "args": {"file_path": "/plan.md", "content": text}, "id": "w", "type": "tool_call"}
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[call]))])
        return super()._answer(text)


asker = deepagents_rs.create_deep_agent(model=AskingModel(), interrupt_on={"write_file": True})
'''


class Server:
    """The served subagent: its gates, and waits on its runs by polling (the SDK's sync
    client, as deepagents' own checks use it)."""

    def __init__(self, url: str, gates: Path) -> None:
        self.url = url
        self.gates = gates
        self.client = langgraph_sdk.get_sync_client(url=url)

    def open(self, gate: str) -> None:
        (self.gates / gate).touch()

    def shut_all(self) -> None:
        for gate in self.gates.iterdir():
            gate.unlink()

    def wait_run(self, thread_id: str, run_id: str, statuses: set[str], timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            run = self.client.runs.get(thread_id, run_id)
            if run["status"] in statuses:
                return run
            assert time.monotonic() < deadline, f"run {run_id} stayed {run['status']}"
            time.sleep(0.05)

    def wait_settled(self, thread_id: str) -> None:
        """No run of the thread is pending or running (a cancelled run stops a little later)."""
        deadline = time.monotonic() + 30
        while any(r["status"] in ("pending", "running") for r in self.client.runs.list(thread_id)):
            assert time.monotonic() < deadline, f"thread {thread_id} kept running"
            time.sleep(0.05)

    def wait_ended(self, thread_id: str, status: str) -> None:
        """The thread's newest run ended with ``status`` and the thread is no longer busy."""
        deadline = time.monotonic() + 60
        while True:
            runs = self.client.runs.list(thread_id, limit=1)
            thread = self.client.threads.get(thread_id)
            if runs and runs[0]["status"] == status and thread["status"] != "busy":
                return
            assert time.monotonic() < deadline, f"thread {thread_id}: {runs[0]['status'] if runs else None}"
            time.sleep(0.05)


class Director(BaseChatModel):
    """A scripted model whose turns may read the conversation (the task ids the tools
    returned); records every call as ``ScriptedChatModel`` does."""

    turns: list[Any] = Field(default_factory=list)
    calls: list[dict[str, Any]] = Field(default_factory=list, exclude=True)

    @property
    def _llm_type(self) -> str:
        return "director"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _next(self, messages: list[BaseMessage], kwargs: dict) -> ChatResult:
        index = len(self.calls)
        self.calls.append({"messages": list(messages), "tools": list(kwargs.get("tools") or [])})
        assert index < len(self.turns), f"unscripted call #{index + 1}: {messages[-1].content!r}"
        turn = self.turns[index]
        reply = turn(messages) if callable(turn) else copy.deepcopy(turn)
        if isinstance(reply, str):
            reply = AIMessage(content=reply)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return self._next(messages, kwargs)

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
        return await asyncio.to_thread(self._next, messages, kwargs)


def _call(name: str, args: dict, call_id: str) -> dict:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def _calls(*calls: dict) -> AIMessage:
    return AIMessage(content="", tool_calls=list(calls))


# -- normalising ------------------------------------------------------------------------------


class _Ids:
    """Task, run and thread ids (uuids) named in the order they appear, and timestamps."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def text(self, s: str) -> str:
        return re.sub(_UUID, lambda m: self.names.setdefault(m.group(0), f"<id{len(self.names)}>"), s)

    def value(self, v: Any) -> Any:
        if isinstance(v, str):
            return "<time>" if _STAMP.match(v) else self.text(v)
        if isinstance(v, dict):
            return {self.text(k): self.value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v


def _message(m: BaseMessage, ids: _Ids) -> dict:
    out = {"type": m.type, "content": ids.value(m.content)}
    if isinstance(m, AIMessage):
        out["tool_calls"] = [(c["name"], ids.value(c["args"]), c["id"]) for c in m.tool_calls]
    if isinstance(m, ToolMessage):
        out.update(tool_call_id=m.tool_call_id, status=m.status, name=m.name)
    if m.additional_kwargs:
        out["additional_kwargs"] = ids.value(m.additional_kwargs)
    return out
