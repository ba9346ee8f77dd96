"""A ``CompiledSubAgent``'s own stream parts: deepagents' `task` tool runs the user's graph
inside its `tools` task, so with ``subgraphs=True`` the graph's ``updates``, ``values``,
``messages`` and ``custom`` parts come under that task's namespace, in order with the
caller's. The same stream through both implementations, compared after ids and namespaces
are numbered by first appearance (``test_stream.Placeholders``)."""

from __future__ import annotations

import asyncio
import copy
import re
from types import ModuleType
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import StreamingScriptedChatModel, ai_tool_calls
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, Interrupt, interrupt

from .stream_support import Placeholders, plain

IMPLS = (deepagents, deepagents_rs)
INPUT = {"messages": [{"role": "user", "content": "go"}]}


@tool
def report(x: int) -> str:
    """Double x, reporting progress."""
    from langgraph.config import get_stream_writer

    get_stream_writer()({"progress": x})
    return f"result={2 * x}"


@tool
def consult(question: str) -> str:
    """Ask a human; the question "fail" fails instead."""
    if question == "fail":
        raise RuntimeError("boom 1")
    return f"answer={interrupt(question)}"


def compiled_agent(module: ModuleType, saver: Any = None) -> Any:
    """An agent whose `task` call runs LangChain's agent graph as a ``CompiledSubAgent``; the
    graph calls a tool that writes a custom payload, then answers."""
    from langchain.agents import create_agent

    inner = create_agent(
        model=StreamingScriptedChatModel([ai_tool_calls(("report", {"x": 3}, "call_C")), "compiled done"]),
        tools=[report],
        name="helper",
    )
    main = StreamingScriptedChatModel(
        [ai_tool_calls(("task", {"description": "help", "subagent_type": "helper"}, "call_H")), "Final"]
    )
    subagents = [{"name": "helper", "description": "Helps.", "runnable": inner}]
    return module.create_deep_agent(model=main, subagents=subagents, checkpointer=saver)


def _stream(module: ModuleType, api: str, saver: bool, **kwargs: Any) -> list[Any]:
    agent = compiled_agent(module, InMemorySaver() if saver else None)
    config = {"configurable": {"thread_id": "t"}} if saver else None
    if api == "sync":
        parts = list(agent.stream(copy.deepcopy(INPUT), config, **kwargs))
    else:

        async def go() -> list[Any]:
            return [p async for p in agent.astream(copy.deepcopy(INPUT), config, **kwargs)]

        parts = asyncio.run(go())
    return Placeholders()(plain(parts))


MODES = {
    "updates": "updates",
    "values": "values",
    "messages": "messages",
    "custom": "custom",
    "multi": ["updates", "values", "messages", "custom"],
}


def _compare(api: str, saver: bool, **kwargs: Any) -> list[Any]:
    ref, ours = (_stream(m, api, saver, **kwargs) for m in IMPLS)
    assert ours == ref
    return ref


@pytest.mark.parametrize("mode_id", list(MODES))
@pytest.mark.parametrize("api", ["sync", "async"])
def test_subgraph_parts(mode_id: str, api: str) -> None:
    ref = _compare(api, False, stream_mode=copy.deepcopy(MODES[mode_id]), subgraphs=True)
    # The compiled graph's own parts are there, under one namespace below the root's.
    assert ("tools:#1",) in {part[0] for part in ref} <= {(), ("tools:#1",)}


@pytest.mark.parametrize("mode_id", ["multi", "custom"])
def test_v2_parts(mode_id: str) -> None:
    ref = _compare("sync", False, stream_mode=copy.deepcopy(MODES[mode_id]), subgraphs=True, version="v2")
    assert any(part["ns"] for part in ref)


@pytest.mark.parametrize("api", ["sync", "async"])
def test_without_subgraphs_only_the_root(api: str) -> None:
    ref = _compare(api, False, stream_mode=copy.deepcopy(MODES["multi"]))
    assert all(mode != "custom" for mode, _ in ref)


@pytest.mark.parametrize("api", ["sync", "async"])
def test_checkpointed(api: str) -> None:
    """Through a saver (the thread graph follows the core): the graph runs in the `task`
    call's own task, whose namespace its parts have."""
    ref = _compare(api, True, stream_mode=copy.deepcopy(MODES["multi"]), subgraphs=True)
    assert any(part[0] for part in ref)


def _one_call_agent(module: ModuleType, question: str, kind: str, saver: Any) -> Any:
    """An agent whose `task` call runs a subagent (a ``CompiledSubAgent`` graph, or a
    ``SubAgent`` spec) that asks ``question`` (see `consult`), then answers."""
    from langchain.agents import create_agent

    model = StreamingScriptedChatModel([ai_tool_calls(("consult", {"question": question}, "call_C")), "sub done"])
    if kind == "compiled":
        spec: dict = {"runnable": create_agent(model=model, tools=[consult], name="helper")}
    else:
        spec = {"system_prompt": "Help.", "model": model, "tools": [consult]}
    main = StreamingScriptedChatModel(
        [ai_tool_calls(("task", {"description": "help", "subagent_type": "helper"}, "call_H")), "Final"]
    )
    subagents = [{"name": "helper", "description": "Helps.", **spec}]
    return module.create_deep_agent(model=main, subagents=subagents, checkpointer=saver)


def _no_interrupt_ids(obj: Any) -> Any:
    """Interrupts by value: LangGraph hashes their ids from its task ids."""
    if isinstance(obj, Interrupt):
        return {"Interrupt": obj.value}
    if isinstance(obj, dict):
        return {k: _no_interrupt_ids(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_no_interrupt_ids(v) for v in obj)
    return obj


def test_interrupt_and_resume() -> None:
    """The compiled graph's tool interrupts: its parts up to the interrupt (under its
    namespace), then after the resume its own again, to the caller's answer."""
    results = {}
    for m in IMPLS:
        agent = _one_call_agent(m, "why", "compiled", InMemorySaver())
        config = {"configurable": {"thread_id": "t"}}
        kwargs: dict = {"stream_mode": ["updates", "values"], "subgraphs": True}
        parts = list(agent.stream(copy.deepcopy(INPUT), config, **kwargs))
        parts += list(agent.stream(Command(resume="because"), config, **kwargs))
        results[m.__name__] = Placeholders()(plain(_no_interrupt_ids(parts)))
    ref, ours = results["deepagents"], results["deepagents_rs"]
    assert ours == ref
    assert any("__interrupt__" in part[2] for part in ref if part[0] and part[1] == "updates")


@pytest.mark.parametrize("kind", ["compiled", "subagent"])
@pytest.mark.parametrize("saver", [False, True])
def test_failing_subagent_streams_its_parts_first(kind: str, saver: bool) -> None:
    """A subagent's tool fails: what it streamed before the error comes out, then the error
    (through a saver too, where the thread graph follows the core)."""
    results = {}
    for m in IMPLS:
        agent = _one_call_agent(m, "fail", kind, InMemorySaver() if saver else None)
        config = {"configurable": {"thread_id": "t"}} if saver else None
        parts: list = []
        with pytest.raises(RuntimeError, match="boom 1"):
            parts.extend(agent.stream(copy.deepcopy(INPUT), config, stream_mode=["updates", "values"], subgraphs=True))
        results[m.__name__] = Placeholders()(plain(parts))
    ref, ours = results["deepagents"], results["deepagents_rs"]
    assert ours == ref
    assert any(part[0] for part in ref)


_PRINTED_IDS = re.compile(r"(id=|'id': |tool_call_id=)'[^']*'|tools:[0-9a-f-]{36}")


@pytest.mark.parametrize("mode", ["updates", "values"])
def test_printed_subgraph_parts(capsys: pytest.CaptureFixture[str], mode: str) -> None:
    """LangGraph's ``print_mode`` with ``subgraphs=True`` prints the compiled graph's parts
    too, marked with its namespace."""
    printed = {}
    for m in IMPLS:
        list(compiled_agent(m).stream(copy.deepcopy(INPUT), stream_mode="custom", print_mode=mode, subgraphs=True))
        out = capsys.readouterr().out
        printed[m.__name__] = _PRINTED_IDS.sub(lambda found: found[1] + "'<id>'" if found[1] else "tools:<id>", out)
    ref = printed["deepagents"].splitlines()
    assert printed["deepagents_rs"].splitlines() == ref
    assert any("[graph=('tools:<id>',)]" in line for line in ref)
