"""What user code does with LangGraph's loop keys in its task's config, side by side with
deepagents: ``__pregel_read`` (one channel or several, as the step started or with the task's
own writes applied), ``__pregel_send`` (writes to ``files`` and to another channel, applied
when the task ends), deepagents' own ``StateBackend`` (which reads and writes through them),
a functional-API ``@task`` (``__pregel_call``), ``interrupt()``'s counter in the scratchpad,
and the run's ``Runtime.control``, the same object in every task of a run. In tools, in a
middleware hook and in a tool call's wrapper, with and without a saver, sync and async, in a subagent too."""

from __future__ import annotations

import asyncio
from typing import Any, NotRequired

import deepagents
import deepagents_rs
import pytest
from deepagents.backends import StateBackend as ReferenceStateBackend
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.func import task
from langgraph.runtime import get_runtime

SEEN: list[Any] = []
CONTROLS: list[Any] = []


def _keys() -> dict:
    return get_config()["configurable"]


def _entry(text: str) -> dict:
    return {"content": text, "encoding": "utf-8", "created_at": "t", "modified_at": "t"}


def _summary(files: dict | None) -> list:
    return sorted((path, (entry or {}).get("content")) for path, entry in (files or {}).items())


@task
def double(x: int) -> int:
    return 2 * x


@tool
def channels(tag: str) -> str:
    """Read and write the agent's state through the task's channels."""
    keys = _keys()
    read, send = keys["__pregel_read"], keys["__pregel_send"]
    messages = read("messages")
    before = read("files", True)
    send([("files", {f"/{tag}.md": _entry(f"sent {tag}")})])
    try:
        unset: Any = read("note")
    except Exception as exc:  # noqa: BLE001 - compared by type
        unset = type(exc).__name__
    send([("note", f"note {tag}")])
    both = read(["files", "note"], fresh=True)
    SEEN.append(
        (
            "tool",
            tag,
            len(messages),
            type(messages[-1]).__name__,
            _summary(before),
            _summary(read("files")),
            _summary(both.get("files")),
            both.get("note"),
            unset,
            read(["note"]),
        )
    )
    CONTROLS.append(get_runtime().control)
    return f"channels {tag}"


@tool
def reference_backend(tag: str) -> str:
    """Use deepagents' own StateBackend: it reads and writes through the task's channels."""
    backend = ReferenceStateBackend()
    backend.write(f"/ref-{tag}.md", "one")
    backend.edit(f"/ref-{tag}.md", "one", "two")
    read = backend.read(f"/ref-{tag}.md")
    listing = sorted(e["path"] for e in backend.ls("/").entries)
    SEEN.append(("reference", tag, read.file_data["content"], listing))
    return f"reference {tag}"


@tool
def functional(x: int) -> str:
    """Call a functional-API task, and count interrupts."""
    result = double(x).result()
    scratchpad = _keys()["__pregel_scratchpad"]
    counts = [scratchpad.interrupt_counter(), scratchpad.interrupt_counter()]
    SEEN.append(("functional", result, counts, scratchpad.resume))
    return f"functional {result}"


@tool
async def async_functional(x: int) -> str:
    """Call a functional-API task from a coroutine."""
    result = await double(x)
    SEEN.append(("async_functional", result))
    return f"async {result}"


class NoteState(AgentState):
    note: NotRequired[str]


class Hook(AgentMiddleware):
    """A hook writing through its task's channels."""

    state_schema = NoteState

    def before_model(self, state, runtime):
        keys = _keys()
        count = len(state["messages"])
        keys["__pregel_send"]([("files", {f"/hook-{count}.md": _entry("hook")})])
        fresh = keys["__pregel_read"]("files", fresh=True)
        SEEN.append(("hook", count, _summary(fresh), _summary(keys["__pregel_read"]("files"))))
        CONTROLS.append(runtime.control)

    def _wrapped(self, request) -> None:
        """A tool call's wrapper writes through the call's task too (around a tool that does
        not read the files; `test_task_shared_writes` has a tool reading its wrapper's)."""
        if request.tool_call["name"] != "functional":
            return
        tag = request.tool_call["args"]["x"]
        keys = _keys()
        keys["__pregel_send"]([("files", {f"/wrapped-{tag}.md": _entry("wrapped")})])
        SEEN.append(("wrapper", tag, _summary(keys["__pregel_read"]("files", fresh=True))))

    def wrap_tool_call(self, request, handler):
        self._wrapped(request)
        return handler(request)

    async def awrap_tool_call(self, request, handler):
        self._wrapped(request)
        return await handler(request)


def _script(subagent: bool, asynchronous: bool) -> list:
    calls = [
        ("channels", {"tag": "a"}),
        ("reference_backend", {"tag": "b"}),
        ("functional", {"x": 3}),
    ]
    if asynchronous:
        calls.append(("async_functional", {"x": 5}))
    inner = [ai_tool_calls(*calls), ai_tool_calls(("channels", {"tag": "c"})), AIMessage("inner done")]
    if not subagent:
        return inner
    return [ai_tool_calls(("task", {"description": "d", "subagent_type": "worker"})), *inner, AIMessage("done")]


def _run(module, saver: bool, asynchronous: bool, subagent: bool) -> tuple:
    SEEN.clear()
    CONTROLS.clear()
    tools = [channels, reference_backend, functional, async_functional]
    # In a subagent, the subagent has the tools and the hook (and the state key it writes).
    worker = {"name": "worker", "description": "w", "system_prompt": "s", "tools": tools, "middleware": [Hook()]}
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=_script(subagent, asynchronous)),
        tools=[] if subagent else tools,
        middleware=[] if subagent else [Hook()],
        subagents=[worker] if subagent else None,
        checkpointer=InMemorySaver() if saver else None,
    )
    config = {"configurable": {"thread_id": "t"}}
    payload = {"messages": [("user", "go")], "files": {"/seed.md": _entry("seed")}}
    if asynchronous:
        result = asyncio.run(agent.ainvoke(payload, config))
    else:
        result = agent.invoke(payload, config)
    # Tools of one step run side by side: in a fixed order.
    seen = sorted(SEEN, key=repr)
    controls = {id(c) for c in CONTROLS}
    # A subagent's own state keys are not the parent's: left out (a subagent's key the
    # parent lacks reaches our parent's result, a difference of the `task` tool's own).
    note = None if subagent else result.get("note")
    final = (_summary(result.get("files")), note, [m.content for m in result["messages"][1:]])
    return seen, (len(controls), type(CONTROLS[0]).__name__), final


@pytest.mark.parametrize("subagent", [False, True], ids=["agent", "subagent"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
def test_loop_keys_work(saver, asynchronous, subagent):
    theirs = _run(deepagents, saver, asynchronous, subagent)
    ours = _run(deepagents_rs, saver, asynchronous, subagent)
    assert theirs[0], "deepagents ran none of the recorded code"
    assert ours == theirs


@tool
def asks(question: str) -> str:
    """Ask twice: the scratchpad counts the task's interrupts."""
    from langgraph.types import interrupt

    first = interrupt(question)
    second = interrupt(f"{question} again")
    return f"{first} {second}"


def _interrupted(module, asynchronous: bool) -> list:
    from langgraph.types import Command

    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=[ai_tool_calls(("asks", {"question": "q"})), AIMessage("done")]),
        tools=[asks],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "t"}}
    out = []

    async def arun() -> None:
        for step in ({"messages": [("user", "go")]}, Command(resume="one"), Command(resume="two")):
            result = await agent.ainvoke(step, config)
            out.append([i.value for i in result.get("__interrupt__", ())] or result["messages"][-2].content)

    if asynchronous:
        asyncio.run(arun())
    else:
        for step in ({"messages": [("user", "go")]}, Command(resume="one"), Command(resume="two")):
            result = agent.invoke(step, config)
            out.append([i.value for i in result.get("__interrupt__", ())] or result["messages"][-2].content)
    return out


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_interrupts_resume_through_the_scratchpad(asynchronous):
    theirs = _interrupted(deepagents, asynchronous)
    assert _interrupted(deepagents_rs, asynchronous) == theirs
