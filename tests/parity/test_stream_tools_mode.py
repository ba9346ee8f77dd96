"""``stream(stream_mode="tools")``: LangGraph's tool-call events (``tool-started``,
``tool-finished``), through both implementations, with and without ``subgraphs``. The
scaffolding is ``test_stream_events_v3``'s."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from .test_stream_events_v3 import IMPLS, INPUT, SCENARIOS, _output, _tool_event, build, compare


@pytest.mark.parametrize("api", ["sync", "async"])
def test_tools_stream_mode(api: str) -> None:
    """``stream(stream_mode="tools")`` on its own: the tool-call events LangGraph streams."""
    results = {}
    kinds = {}
    for m in IMPLS:
        models: list = []
        agent = build(m, SCENARIOS["research"], models=models)
        for subgraphs in (False, True):
            kwargs = {"stream_mode": ["tools", "values"], "subgraphs": subgraphs}
            if api == "sync":
                chunks = list(agent.stream(copy.deepcopy(INPUT), **kwargs))
            else:

                async def go(agent: Any = agent, kwargs: dict = kwargs) -> list:
                    return [c async for c in agent.astream(copy.deepcopy(INPUT), **kwargs)]

                chunks = asyncio.run(go())
            shown = [(*c[:-1], _tool_event(c[-1])) if c[-2] == "tools" else c for c in chunks]
            results.setdefault(m.__name__, []).append([_output(c) for c in shown])
            kinds.setdefault(m.__name__, []).append([list(model.call_kinds) for model in models])
            models = []
            agent = build(m, SCENARIOS["research"], models=models)
    ref = compare(results)
    assert any(c[0] == "tools" for c in ref[0])
    # LangGraph's tool handler listens as a streaming handler: the provider streams.
    assert kinds["deepagents_rs"] == kinds["deepagents"]
    assert kinds["deepagents"][0] == [["stream"] * 3, ["stream"] * 2]


def _order(chunk: Any, subgraphs: bool) -> tuple:
    """A ``tools``/``messages`` chunk reduced to what its place in the stream shows: its
    namespace's depth, mode, and the event or the message's class and node."""
    ns, mode, data = chunk if subgraphs else ((), *chunk)
    if mode == "tools":
        return (len(ns), mode, data["event"], data.get("tool_call_id"))
    return (len(ns), mode, type(data[0]).__name__, data[1].get("langgraph_node"))


@pytest.mark.parametrize("api", ["sync", "async"])
@pytest.mark.parametrize("name", ["research", "file_write", "failing_tool"])
def test_tools_and_messages_order(name: str, api: str) -> None:
    """``tools`` with ``messages``: a call's ``tool-finished`` comes before its ``ToolMessage``
    (LangGraph's tool handler reports the call's end as the tool returns, its messages handler
    the message as the ``tools`` task ends), in the root and in a subagent."""
    results = {}
    for m in IMPLS:
        for subgraphs in (False, True):
            agent = build(m, SCENARIOS[name])
            kwargs = {"stream_mode": ["tools", "messages"], "subgraphs": subgraphs}
            chunks: list = []
            try:
                if api == "sync":
                    chunks.extend(agent.stream(copy.deepcopy(INPUT), **kwargs))
                else:

                    async def go(agent: Any = agent, kwargs: dict = kwargs, chunks: list = chunks) -> None:
                        chunks.extend([c async for c in agent.astream(copy.deepcopy(INPUT), **kwargs)])

                    asyncio.run(go())
            except RuntimeError as exc:
                chunks.append(("error", str(exc)))
            results.setdefault(m.__name__, []).append([c if c[0] == "error" else _order(c, subgraphs) for c in chunks])
    ref = compare(results)
    # Under `astream` LangGraph raises a failed tool's error before its `tool-error` event.
    assert any(c[1] == "tools" for c in ref[0] if c[0] != "error") or (name, api) == ("failing_tool", "async")
