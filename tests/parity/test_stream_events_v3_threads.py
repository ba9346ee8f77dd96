"""``stream_events(version="v3")`` on saved threads, through both implementations: a second
turn, human-in-the-loop interrupts (the run's, a subagent's own, a tool's ``interrupt()``)
and their resumes, breakpoints, and the known gaps found there. The scaffolding (scenarios,
views of the projections, collectors, ``compare``) is ``test_stream_events_v3``'s."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from fake_models import ai_tool_calls
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from .test_stream_events_v3 import (
    _RESEARCH,
    _SUB,
    IMPLS,
    INPUT,
    PROJECTIONS,
    SCENARIOS,
    SECOND,
    Scenario,
    _drain_sync,
    _event,
    _result,
    build,
    collect_async,
    collect_sync,
    compare,
    plain,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


def two_turns(scenario: Scenario, second: Any, api: str, each_alone: bool = False) -> Any:
    """Both implementations' collected runs of ``INPUT`` then ``second`` on one saved thread,
    compared (``each_alone``: each run's ids and namespaces numbered on their own)."""
    results = {}
    for m in IMPLS:
        agent = build(m, scenario, checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t1"}}
        if api == "sync":
            results[m.__name__] = [collect_sync(agent, INPUT, config), collect_sync(agent, second, config)]
        else:

            async def both(agent: Any = agent, config: dict = config) -> list:
                return [await collect_async(agent, INPUT, config), await collect_async(agent, second, config)]

            results[m.__name__] = asyncio.run(both())
    if each_alone:
        return [compare({name: runs[turn] for name, runs in results.items()}) for turn in (0, 1)]
    return compare(results)


@pytest.mark.parametrize("api", ["sync", "async"])
def test_checkpointed_thread(api: str) -> None:
    """Two turns on one saved thread: the second run's projections start from the first's
    state."""
    first, second = two_turns(Scenario([*_RESEARCH, "second turn"], sub_script=_SUB), SECOND, api)
    assert len(second["output"]["messages"]) == len(first["output"]["messages"]) + 2


@pytest.mark.parametrize("api", ["sync", "async"])
def test_human_in_the_loop(api: str) -> None:
    """A gated call stops the run (``run.interrupted``, ``run.interrupts``); the resumed run
    (``Command(resume=...)``) goes on from there."""
    scenario = Scenario([ai_tool_calls(("my_tool", {"x": 1}, "call_A")), "done"], interrupt_on={"my_tool": True})
    first, second = two_turns(scenario, Command(resume={"decisions": [{"type": "approve"}]}), api)
    assert first["interrupted"] and first["interrupts"]
    assert not second["interrupted"]
    assert second["output"]["messages"][-1]["content"][0]["text"] == "done"


@pytest.mark.parametrize("mode", ["values", "updates"])
@pytest.mark.parametrize("decision", ["approve", "edit"])
def test_resumed_hitl_state_keys(mode: str, decision: str) -> None:
    """The human-in-the-loop gate writes its private ``hitl_edited_tool_calls`` on every
    decided turn (the edits, or ``{}``), and clears it on a later gated turn: the root's
    ``values`` stream every written channel, so they show it from then on, as ``updates``
    show the gate's write."""
    script = [
        ai_tool_calls(("my_tool", {"x": 1}, "call_A")),
        ai_tool_calls(("my_tool", {"x": 5}, "call_A2")),
        "done",
    ]
    scenario = Scenario(script, interrupt_on={"my_tool": True})
    first = {"type": "approve"}
    if decision == "edit":
        first = {"type": "edit", "edited_action": {"name": "my_tool", "args": {"x": 21}}}
    results = {}
    for m in IMPLS:
        agent = build(m, scenario, checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t1"}}
        list(agent.stream(copy.deepcopy(INPUT), config, stream_mode=mode))
        runs = [
            [plain(c) for c in agent.stream(Command(resume={"decisions": [d]}), config, stream_mode=mode)]
            for d in (first, {"type": "approve"})
        ]
        results[m.__name__] = {"runs": runs, "state": plain(agent.get_state(config).values)}
    ref = compare(results)
    if mode == "values":
        seen = [c.get("hitl_edited_tool_calls") for c in ref["runs"][0]]
        expected = {"call_A": {"name": "my_tool", "args": {"x": 21}}} if decision == "edit" else {}
        assert seen[0] is None and seen[1] == expected
        assert ref["runs"][1][-1]["hitl_edited_tool_calls"] == {}


@pytest.mark.parametrize("api", ["sync", "async"])
def test_subagent_human_in_the_loop(api: str) -> None:
    """A gate inside the subagent: its handle ends ``interrupted``, its values end with the
    interrupt, the run is interrupted; the resumed run resumes the subagent (a handle named
    and caused by the same call) to completion. Each run is numbered on its own (see
    ``test_resumed_subagent_keeps_its_namespace`` for both together)."""
    scenario = Scenario(
        [ai_tool_calls(("task", {"description": "research x", "subagent_type": "researcher"}, "call_B")), "Final"],
        sub_script=_SUB,
        sub_interrupt_on={"my_tool": True},
    )
    first, second = two_turns(scenario, Command(resume={"decisions": [{"type": "approve"}]}), api, each_alone=True)
    assert first["interrupted"] and not second["interrupted"]
    if api == "sync":
        subs = [[v for n, v in run["items"] if n == "subagents"] for run in (first, second)]
        assert [s[0]["status"] for s in subs] == ["interrupted", "completed"]
        assert all(s[0]["cause"] == {"type": "toolCall", "tool_call_id": "call_B"} for s in subs)


_SUB_GATED = Scenario(
    [ai_tool_calls(("task", {"description": "research x", "subagent_type": "researcher"}, "call_B")), "Final"],
    sub_script=_SUB,
    sub_interrupt_on={"my_tool": True},
)


@pytest.mark.parametrize("api", ["sync", "async"])
def test_resumed_subagent_keeps_its_namespace(api: str) -> None:
    """The resumed subagent runs in its task again, so it streams under the namespace it
    stopped in (both runs numbered together): one subagent namespace over the two runs."""
    first, second = two_turns(_SUB_GATED, Command(resume={"decisions": [{"type": "approve"}]}), api)
    if api == "sync":
        paths = {tuple(v["path"]) for run in (first, second) for n, v in run["items"] if n == "subagents"}
    else:
        paths = {tuple(e["namespace"]) for run in (first, second) for e in run["events"] if e["namespace"]}
    assert paths == {("tools:#1",)}


@pytest.mark.parametrize("mode", ["updates", ["values", "messages", "updates"]], ids=["updates", "modes"])
def test_resumed_subagent_namespace_in_stream(mode: Any) -> None:
    """Outside v3 too: ``stream(..., subgraphs=True)`` of the resumed run shows the subagent
    under the namespace of the run it stopped in, message metadata included."""
    results = {}
    for m in IMPLS:
        agent = build(m, _SUB_GATED, checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t1"}}
        runs = []
        for inp in (copy.deepcopy(INPUT), Command(resume={"decisions": [{"type": "approve"}]})):
            runs.append([plain(c) for c in agent.stream(inp, config, stream_mode=mode, subgraphs=True)])
        results[m.__name__] = runs
    ref = compare(results)
    assert {c[0] for run in ref for c in run if c[0]} == {("tools:#1",)}


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_subagent_interrupt_ends_its_values(version: str) -> None:
    """Outside v3 too: a subagent stopped by its own gate streams its last values again, with
    the interrupt, under its namespace, before the run's own."""
    scenario = Scenario(
        [ai_tool_calls(("task", {"description": "research x", "subagent_type": "researcher"}, "call_B")), "Final"],
        sub_script=_SUB,
        sub_interrupt_on={"my_tool": True},
    )
    results = {}
    for m in IMPLS:
        agent = build(m, scenario, checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t1"}}
        chunks = agent.stream(copy.deepcopy(INPUT), config, stream_mode="values", subgraphs=True, version=version)
        results[m.__name__] = [plain(c) for c in chunks]
    ref = compare(results)
    last_sub = [c for c in ref if (c["ns"] if version == "v2" else c[0])][-1]
    assert last_sub["interrupts"] if version == "v2" else last_sub[1]["__interrupt__"]


@pytest.mark.parametrize("api", ["sync", "async"])
def test_breakpoint_before_tools(api: str) -> None:
    """``interrupt_before=["tools"]``: the run stops before its tools start (no tool call is
    streamed, no values again), and ``None`` goes on from there."""
    results = {}
    for m in IMPLS:
        agent = build(m, SCENARIOS["research"], checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t1"}}
        if api == "sync":
            run = agent.stream_events(copy.deepcopy(INPUT), config, version="v3", interrupt_before=["tools"])
            first = {"items": _drain_sync(run, PROJECTIONS), **_result(run)}
            results[m.__name__] = [first, collect_sync(agent, None, config)]
        else:

            async def both(agent: Any = agent, config: dict = config) -> list:
                run = await agent.astream_events(copy.deepcopy(INPUT), config, version="v3", interrupt_before=["tools"])
                first = [e async for e in run]
                return [[_event(e) for e in first], await collect_async(agent, None, config)]

            results[m.__name__] = asyncio.run(both())
    first, second = compare(results)
    if api == "sync":
        assert [n for n, _ in first["items"]] == ["values", "messages", "values"]
        assert second["output"]["messages"][-1]["content"][0]["text"] == "Final answer: done"


@tool
def ask(question: str) -> str:
    """Ask a human."""
    from langgraph.types import interrupt

    return f"human said {interrupt(question)}"


@pytest.mark.parametrize("api", ["sync", "async"])
def test_tool_interrupt(api: str) -> None:
    """A tool's own ``interrupt()``: its call started (and is closed with no output when the
    run stops), the run is interrupted; the resumed run runs it again to its end."""
    scenario = Scenario([ai_tool_calls(("ask", {"question": "ok?"}, "call_Q")), "thanks"], tools=(ask,))
    first, second = two_turns(scenario, Command(resume="yes"), api)
    assert first["interrupted"] and not second["interrupted"]
    if api == "sync":
        (call,) = [v for n, v in first["items"] if n == "tool_calls"]
        assert call["name"] == "ask" and call["output"] is None
        (call,) = [v for n, v in second["items"] if n == "tool_calls"]
        assert call["output"] == "human said yes"


def test_parallel_subagents_namespaces_on_a_thread() -> None:
    """Two subagents the core runs side by side on a saved thread: each streams under its
    task's namespace from its first item on (one not yet named by its task when the other's
    read passed its start waits for it), as deepagents' do."""
    from .stream_support import Placeholders
    from .test_stream_events_v3 import _two_subagents

    results = {}
    for m in IMPLS:
        agent = _two_subagents(m, InMemorySaver())
        config = {"configurable": {"thread_id": "t1"}}
        chunks = list(agent.stream(copy.deepcopy(INPUT), config, stream_mode=["updates", "messages"], subgraphs=True))
        by_ns: dict = {}
        for ns, mode, data in chunks:
            if ns:
                by_ns.setdefault(ns, []).append((mode, plain(data)))
        # Each namespace on its own, in its own order; named by the subagent that ran there.
        named = {}
        for ns, items in by_ns.items():
            metas = [d[1] for mode, d in items if mode == "messages"]
            assert all(meta["checkpoint_ns"].split("|")[0] == ns[0] for meta in metas)
            named[metas[0]["lc_agent_name"]] = Placeholders()(items)
        results[m.__name__] = named
    ref = compare(results)
    assert sorted(ref) == ["researcher", "writer"]
