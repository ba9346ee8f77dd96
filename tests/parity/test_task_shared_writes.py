"""One tool call's task, side by side with deepagents: its `wrap_tool_call` middleware and
its tool write through one list of writes (LangGraph gives the task one), so a fresh
``__pregel_read`` in either sees the other's ``__pregel_send`` writes in the order they were
made, and the messages they send reach the state before the call's answer. And reading a
channel the graph does not have raises LangGraph's ``KeyError``, in a tool, a hook and a
wrapper. Sync and async, with and without a saver, in a subagent too."""

from __future__ import annotations

import asyncio
from typing import Any, NotRequired

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.types import Command

SEEN: list[Any] = []


def _entry(text: str) -> dict:
    return {"content": text, "encoding": "utf-8", "created_at": "t", "modified_at": "t"}


def _send(*writes: tuple[str, Any]) -> None:
    get_config()["configurable"]["__pregel_send"](list(writes))


def _read(select: Any, fresh: bool = True) -> Any:
    """A read as the caller sees it: its value, or the exception's type and text."""
    try:
        value = get_config()["configurable"]["__pregel_read"](select, fresh=fresh)
    except Exception as exc:  # noqa: BLE001 - compared by type and text
        return ("raised", type(exc).__name__, str(exc))
    if select == "messages":
        return [(type(m).__name__, m.content) for m in value]
    if select == "files":
        return sorted(value or {})
    return value


def _view(who: str) -> tuple:
    return (who, _read("files"), _read("note"), _read("messages")[2:], _read("missing"), _read(["missing", "note"]))


@tool
def writer(tag: str) -> str:
    """Reads what its wrapper wrote, and writes too."""
    SEEN.append(_view(f"tool {tag} before"))
    # One write to `note` a task (LangGraph refuses two to a last-value channel): the wrapper's.
    _send(("files", {f"/tool-{tag}.md": _entry("tool")}))
    _send(("messages", [HumanMessage(f"from tool {tag}", id=f"tool-{tag}")]))
    SEEN.append(_view(f"tool {tag} after"))
    return f"done {tag}"


class NoteState(AgentState):
    note: NotRequired[str]


class Wrapping(AgentMiddleware):
    """Writes around the call; answers as ``mode`` says (the handler's message, a message of
    its own, a command)."""

    state_schema = NoteState

    def before_model(self, state, runtime):
        SEEN.append(("hook", len(state["messages"]), _read("missing", fresh=False), _read(["missing"])))

    def _before(self, request) -> None:
        tag = request.tool_call["args"]["tag"]
        _send(("files", {f"/wrapper-{tag}.md": _entry("wrapper")}), ("note", f"wrapper {tag}"))
        _send(("messages", HumanMessage(f"from wrapper {tag}", id=f"wrapper-{tag}")))
        SEEN.append(_view(f"wrapper {tag} before"))

    def _after(self, request, answer) -> Any:
        tag = request.tool_call["args"]["tag"]
        SEEN.append(_view(f"wrapper {tag} after"))
        _send(("messages", [HumanMessage(f"after {tag}", id=f"after-{tag}")]))
        call_id = request.tool_call["id"]
        if tag == "own":
            return ToolMessage(f"own answer {tag}", tool_call_id=call_id)
        if tag == "command":
            return Command(
                update={
                    "messages": [RemoveMessage(id=f"wrapper-{tag}"), ToolMessage("by command", tool_call_id=call_id)]
                }
            )
        return answer

    def wrap_tool_call(self, request, handler):
        self._before(request)
        return self._after(request, handler(request))

    async def awrap_tool_call(self, request, handler):
        self._before(request)
        return self._after(request, await handler(request))


class Inner(AgentMiddleware):
    """A second wrapper, inside the first: it shares the task's writes as well."""

    def _before(self, request) -> None:
        SEEN.append(("inner", request.tool_call["args"]["tag"], _read("note"), _read("files")))
        _send(("files", {"/inner.md": _entry("inner")}))

    def wrap_tool_call(self, request, handler):
        self._before(request)
        return handler(request)

    async def awrap_tool_call(self, request, handler):
        self._before(request)
        return await handler(request)


def _script(subagent: bool) -> list:
    inner = [
        ai_tool_calls(("writer", {"tag": "plain"})),
        ai_tool_calls(("writer", {"tag": "own"})),
        ai_tool_calls(("writer", {"tag": "command"})),
        AIMessage("inner done"),
    ]
    if not subagent:
        return inner
    return [ai_tool_calls(("task", {"description": "d", "subagent_type": "worker"})), *inner, AIMessage("done")]


def _run(module, saver: bool, asynchronous: bool, subagent: bool, nested: bool) -> tuple:
    SEEN.clear()
    middleware = [Wrapping(), Inner()] if nested else [Wrapping()]
    worker = {"name": "worker", "description": "w", "system_prompt": "s", "tools": [writer], "middleware": middleware}
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=_script(subagent)),
        tools=[] if subagent else [writer],
        middleware=[] if subagent else middleware,
        subagents=[worker] if subagent else None,
        checkpointer=InMemorySaver() if saver else None,
    )
    config = {"configurable": {"thread_id": "t"}}
    payload = {"messages": [("user", "go")]}
    result = asyncio.run(agent.ainvoke(payload, config)) if asynchronous else agent.invoke(payload, config)
    messages = [(type(m).__name__, m.content) for m in result["messages"][1:]]
    return list(SEEN), (sorted(result.get("files") or {}), None if subagent else result.get("note"), messages)


@pytest.mark.parametrize("nested", [False, True], ids=["one-wrapper", "two-wrappers"])
@pytest.mark.parametrize("subagent", [False, True], ids=["agent", "subagent"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
def test_a_tool_and_its_wrappers_share_the_tasks_writes(saver, asynchronous, subagent, nested):
    theirs = _run(deepagents, saver, asynchronous, subagent, nested)
    assert any(entry[0] == "tool plain before" for entry in theirs[0]), "deepagents ran none of the recorded code"
    assert _run(deepagents_rs, saver, asynchronous, subagent, nested) == theirs


@tool
def sender(tag: str) -> str:
    """Sends messages and reads a channel the graph lacks, with no wrapper around it."""
    _send(("messages", [HumanMessage(f"one {tag}", id=f"one-{tag}"), HumanMessage(f"two {tag}", id=f"two-{tag}")]))
    SEEN.append((tag, _read("messages")[-2:], _read("missing", fresh=False), _read(["missing"], fresh=False)))
    return f"sent {tag}"


def _sent(module, asynchronous: bool) -> tuple:
    SEEN.clear()
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=[ai_tool_calls(("sender", {"tag": "a"})), AIMessage("fin")]),
        tools=[sender],
    )
    payload = {"messages": [("user", "go")]}
    result = asyncio.run(agent.ainvoke(payload)) if asynchronous else agent.invoke(payload)
    return list(SEEN), [(type(m).__name__, m.content) for m in result["messages"]]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_messages_a_tool_sends_come_before_its_answer(asynchronous):
    theirs = _sent(deepagents, asynchronous)
    assert _sent(deepagents_rs, asynchronous) == theirs
