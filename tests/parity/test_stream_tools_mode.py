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
