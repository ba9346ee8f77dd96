"""Durable threads against deepagents, on LangGraph's own savers.

Each test runs the same script through ``deepagents`` and ``deepagents_rs`` with a saver each
(or one saver both write to) and compares what the savers hold, checkpoint by checkpoint:
metadata, channel values and versions, what each node has seen, and every task's writes, with
only ids, timestamps and version strings left out (both draw them at random). Threads one
implementation wrote are continued by the other.
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import deepagents
import deepagents_rs
import psycopg
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from killed_run_support import _killed_and_resumed
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from psycopg.rows import dict_row
from thread_support import (
    IMPLS,
    THREAD,
    _value,
    dump,
    first_difference,
    fresh_database,
    history,
    make,
    my_tool,
    new_saver,
    pg_dsn,
    script,
    snapshot,
)

__all__ = ["new_saver", "pg_dsn"]  # thread_support's fixtures, used here by name


def test_two_turns_write_the_checkpoints_deepagents_writes(new_saver: Any) -> None:
    results, dumps, snaps, hists = [], [], [], []
    for impl in IMPLS:
        saver = new_saver()
        agent = make(impl, saver)
        agent.invoke({"messages": [("user", "go")]}, THREAD)
        results.append(_value(agent.invoke({"messages": [{"role": "user", "content": "again"}]}, THREAD)))
        dumps.append(dump(saver))
        snaps.append(snapshot(agent))
        hists.append((history(agent), history(agent, filter={"source": "input"}), history(agent, limit=3)))
    assert results[0] == results[1]
    assert snaps[0] == snaps[1]
    assert hists[0] == hists[1]
    found = first_difference(*dumps)
    assert found is None, found


@pytest.mark.parametrize("writer", IMPLS, ids=lambda m: m.__name__)
def test_a_thread_one_implementation_wrote_is_continued_by_the_other(new_saver: Any, writer: Any) -> None:
    reader = deepagents_rs if writer is deepagents else deepagents
    mixed, alone = new_saver(), new_saver()
    model = ScriptedChatModel(script())
    make(writer, mixed, model).invoke({"messages": [("user", "go")]}, THREAD)
    continued = make(reader, mixed, model).invoke({"messages": [("user", "again")]}, THREAD)
    single = make(writer, alone)
    single.invoke({"messages": [("user", "go")]}, THREAD)
    expected = single.invoke({"messages": [("user", "again")]}, THREAD)
    assert _value(continued) == _value(expected)
    # The first turn's messages keep the ids they were stored with.
    stored = make(writer, mixed).get_state(THREAD).values["messages"]
    assert [m.id for m in continued["messages"]] == [m.id for m in stored]
    found = first_difference(dump(alone), dump(mixed))
    assert found is None, found


def test_async_runs_use_the_savers_async_methods() -> None:
    async def both() -> list[Any]:
        out = []
        for impl in IMPLS:
            async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
                agent = make(impl, saver)
                await agent.ainvoke({"messages": [("user", "go")]}, THREAD)
                result = await agent.ainvoke({"messages": [("user", "again")]}, THREAD)
                state = await agent.aget_state(THREAD)
                hist = [h.metadata["step"] async for h in agent.aget_state_history(THREAD)]
                chunks = []
                async for chunk in agent.astream({"messages": [("user", "more")]}, THREAD, stream_mode="updates"):
                    chunks.append(_value(chunk))
                out.append((_value(result), _value(state.values), state.next, hist, chunks))
        return out

    ref, ours = asyncio.run(both())
    assert ref == ours


def test_stream_on_a_thread_yields_deepagents_chunks() -> None:
    # One call a turn: parallel calls stream in the order they finish, in both.
    out = []
    for impl in IMPLS:
        model = ScriptedChatModel([ai_tool_calls(("my_tool", {"x": 1}, "call_A")), "done"])
        agent = make(impl, InMemorySaver(), model)
        chunks = [
            _value(c) for c in agent.stream({"messages": [("user", "go")]}, THREAD, stream_mode=["updates", "values"])
        ]
        out.append((chunks, snapshot(agent)))
    assert out[0] == out[1]


def test_errors_are_langgraphs() -> None:
    for impl in IMPLS:
        agent = make(impl, InMemorySaver())
        with pytest.raises(ValueError, match="Checkpointer requires one or more of the following 'configurable' keys"):
            agent.invoke({"messages": [("user", "go")]})
        plain = impl.create_deep_agent(model=ScriptedChatModel(["x"]))
        with pytest.raises(ValueError, match="No checkpointer set"):
            plain.get_state(THREAD)
        sqlite = make(impl, SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False)))
        with pytest.raises(NotImplementedError, match="does not support async methods"):
            asyncio.run(sqlite.ainvoke({"messages": [("user", "go")]}, THREAD))


def test_update_state_writes_as_the_last_node() -> None:
    out = []
    for impl in IMPLS:
        saver = InMemorySaver()
        agent = make(impl, saver)
        agent.invoke({"messages": [("user", "go")]}, THREAD)
        config = agent.update_state(THREAD, {"messages": [{"role": "user", "content": "injected", "id": "u1"}]})
        out.append((sorted(config["configurable"]), snapshot(agent), dump(saver)[-1]))
    assert out[0] == out[1]


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_durability_keeps_the_checkpoints_langgraph_keeps(durability: str) -> None:
    out = []
    for impl in IMPLS:
        saver = InMemorySaver()
        agent = make(impl, saver)
        agent.invoke({"messages": [("user", "go")]}, THREAD, durability=durability)
        out.append(dump(saver))
    found = first_difference(*out)
    assert found is None, found


@pytest.mark.parametrize("where", ["tool", "model"])
def test_a_failed_step_is_recorded_as_deepagents_records_it(where: str) -> None:
    @tool
    def broken(x: int) -> str:
        """Fail."""
        raise RuntimeError("tool broke")

    out = []
    for impl in IMPLS:
        saver = InMemorySaver()
        # The model fails on its second call (no script left).
        script = [ai_tool_calls(("broken" if where == "tool" else "my_tool", {"x": 1}, "call_X"))]
        agent = impl.create_deep_agent(model=ScriptedChatModel(script), tools=[broken, my_tool], checkpointer=saver)
        with pytest.raises(Exception, match="tool broke|only 1 scripted") as info:
            agent.invoke({"messages": [("user", "go")]}, THREAD)
        writes = [(w[0], w[1]) for w in dump(saver)[-1]["writes"]]
        out.append((type(info.value), snapshot(agent)["next"], writes))
    assert out[0] == out[1]


def test_async_postgres_threads_match(pg_dsn: str) -> None:
    async def both() -> list[Any]:
        out = []
        for impl in IMPLS:
            async with AsyncPostgresSaver.from_conn_string(fresh_database(pg_dsn)) as saver:
                await saver.setup()
                agent = make(impl, saver)
                await agent.ainvoke({"messages": [("user", "go")]}, THREAD)
                result = await agent.ainvoke({"messages": [("user", "again")]}, THREAD)
                state = await agent.aget_state(THREAD)
                hist = [(h.metadata["step"], h.next) async for h in agent.aget_state_history(THREAD)]
                out.append((_value(result), _value(state.values), hist))
        return out

    ref, ours = asyncio.run(both())
    assert ref == ours


#: One turn of a thread in a process of its own: `argv` = implementation, database, reply.
WORKER = textwrap.dedent(
    """
    import importlib, sys
    sys.path.insert(0, {tests!r})
    import psycopg
    from psycopg.rows import dict_row
    from fake_models import ScriptedChatModel
    from langgraph.checkpoint.postgres import PostgresSaver

    impl, url, reply = sys.argv[1:4]
    with psycopg.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row) as conn:
        saver = PostgresSaver(conn)
        agent = importlib.import_module(impl).create_deep_agent(model=ScriptedChatModel([reply]), checkpointer=saver)
        agent.invoke({{"messages": [("user", "turn for " + reply)]}}, {{"configurable": {{"thread_id": "shared"}}}})
    """
).format(tests=str(Path(__file__).resolve().parent))


# Child interpreters (each imports deepagents and LangGraph, some twice): past the suite's
# 120 s on a loaded two-core machine, as the other worker runs beside them.
@pytest.mark.timeout(300)
def test_worker_processes_continue_each_others_threads_over_one_postgres(pg_dsn: str) -> None:
    url = fresh_database(pg_dsn)
    with psycopg.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row) as conn:
        PostgresSaver(conn).setup()
    turns = [("deepagents_rs", "one"), ("deepagents_rs", "two"), ("deepagents", "three"), ("deepagents_rs", "four")]
    for impl, reply in turns:
        done = subprocess.run(
            [sys.executable, "-c", WORKER, impl, url, reply], check=False, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-3000:]
    with psycopg.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row) as conn:
        agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel([]), checkpointer=PostgresSaver(conn))
        messages = agent.get_state({"configurable": {"thread_id": "shared"}}).values["messages"]
    expected = [t for _, reply in turns for t in (("human", f"turn for {reply}"), ("ai", reply))]
    assert [(m.type, m.content) for m in messages] == expected


def test_steps_on_a_continued_thread_are_numbered_on_from_the_thread() -> None:
    keys = ("langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path")
    out = []
    for impl in IMPLS:
        model = ScriptedChatModel([ai_tool_calls(("my_tool", {"x": 1}, "call_A")), "done", "again done"])
        agent = make(impl, InMemorySaver(), model)
        agent.invoke({"messages": [("user", "go")]}, THREAD)
        chunks = agent.stream({"messages": [("user", "again")]}, THREAD, stream_mode="messages")
        out.append([(type(m).__name__, m.content, {k: meta.get(k) for k in keys}) for m, meta in chunks])
    assert out[0] == out[1]


@pytest.mark.parametrize("next_node", ["model", "tools"])
def test_replaying_from_a_past_checkpoint_forks_the_thread_as_deepagents_does(next_node: str) -> None:
    out = []
    for impl in IMPLS:
        saver = InMemorySaver()
        model = ScriptedChatModel([ai_tool_calls(("my_tool", {"x": 1}, "call_A")), "done", "replayed"])
        agent = make(impl, saver, model)
        agent.invoke({"messages": [("user", "go")]}, THREAD)
        past = next(s for s in agent.get_state_history(THREAD) if s.next == (next_node,))
        if next_node == "tools":
            # Replaying the tool step reruns the tool, then asks the model again.
            model.responses.append("after the rerun")
        result = agent.invoke(None, past.config)
        out.append((_value(result), snapshot(agent), history(agent), dump(saver)))
    assert out[0][:3] == out[1][:3]
    found = first_difference(out[0][3], out[1][3])
    assert found is None, found


def test_a_run_that_failed_in_a_tool_resumes_from_its_checkpoint() -> None:
    def make_flaky(calls: list[int]) -> Any:
        @tool
        def flaky(x: int) -> str:
            """Fail the first time."""
            calls.append(x)
            if len(calls) == 1:
                raise RuntimeError("not yet")
            return "worked"

        return flaky

    out = []
    for impl in IMPLS:
        calls: list[int] = []
        flaky = make_flaky(calls)
        saver = InMemorySaver()
        model = ScriptedChatModel([ai_tool_calls(("flaky", {"x": 1}, "call_F")), "done"])
        agent = impl.create_deep_agent(model=model, tools=[flaky], checkpointer=saver)
        with pytest.raises(RuntimeError, match="not yet"):
            agent.invoke({"messages": [("user", "go")]}, THREAD)
        result = agent.invoke(None, THREAD)
        out.append((_value(result), calls, snapshot(agent), dump(saver)))
    assert out[0][:3] == out[1][:3]
    found = first_difference(out[0][3], out[1][3])
    assert found is None, found


# Child interpreters (each imports deepagents and LangGraph, some twice): past the suite's
# 120 s on a loaded two-core machine, as the other worker runs beside them.
@pytest.mark.timeout(300)
@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_a_killed_run_resumes_on_its_thread_repeating_only_what_langgraph_repeats(
    store: str, tmp_path: Path, request: Any
) -> None:
    out = []
    for impl in ("deepagents", "deepagents_rs"):
        work = tmp_path / impl
        work.mkdir()
        if store == "sqlite":
            where = f"sqlite:{work / 'thread.sqlite'}"
        else:
            where = fresh_database(request.getfixturevalue("pg_dsn"))
        out.append(_killed_and_resumed(impl, where, work))
    ref, ours = out
    # The call the kill interrupted runs again; no finished step does.
    assert ref[0] == ["step 0", "step 1", "step 2", "step 2", "step 3"]
    assert ours == ref


def _graph_chunk(mode: str, chunk: Any) -> Any:
    """A checkpoints/tasks/debug payload without what is drawn at random (ids, timestamps,
    version strings), keeping its shape and every deterministic field."""
    if mode == "debug":
        return {
            "type": chunk["type"],
            "step": chunk["step"],
            "payload": _graph_chunk(chunk["type"] + "s", chunk["payload"]),
        }
    if mode == "checkpoints" or mode == "checkpoint":
        return {
            "values": _value(chunk["values"]),
            "next": chunk["next"],
            "metadata": chunk["metadata"],
            "tasks": [(t["name"], t.get("interrupts"), _value(t.get("state"))) for t in chunk["tasks"]],
            "parent": chunk["parent_config"] is not None,
        }
    return {k: _value(v) for k, v in chunk.items() if k not in ("id", "triggers")}


@pytest.mark.parametrize("saver", [pytest.param(None, id="no_saver"), pytest.param(InMemorySaver, id="memory")])
def test_checkpoints_tasks_and_debug_stream_as_langgraph_streams_them(saver: Any) -> None:
    out = []
    for impl in IMPLS:
        model = ScriptedChatModel([ai_tool_calls(("my_tool", {"x": 1}, "call_A")), "done"])
        agent = make(impl, saver() if saver else None, model)
        modes = ["checkpoints", "tasks", "debug"]
        chunks = [
            (mode, _graph_chunk(mode, chunk))
            for mode, chunk in agent.stream(
                {"messages": [("user", "go")]}, THREAD if saver else None, stream_mode=modes
            )
        ]
        out.append(chunks)
    found = first_difference(*out)
    assert found is None, found


@pytest.mark.parametrize("where", ["interrupt_before", "interrupt_after"])
@pytest.mark.parametrize("saver", [pytest.param(None, id="no_saver"), pytest.param(InMemorySaver, id="memory")])
def test_breakpoints_stop_the_run_where_langgraph_stops_it(where: str, saver: Any) -> None:
    out = []
    for impl in IMPLS:
        model = ScriptedChatModel([ai_tool_calls(("my_tool", {"x": 1}, "call_A")), "done"])
        agent = make(impl, saver() if saver else None, model)
        config = THREAD if saver else None
        node = "tools" if where == "interrupt_before" else "model"
        stopped = agent.invoke({"messages": [("user", "go")]}, config, **{where: [node]})
        row: list[Any] = [_value(stopped)]
        if saver:
            row.append(snapshot(agent))
            row.append(_value(agent.invoke(None, config)))
            row.append(snapshot(agent))
        chunks = agent.stream(
            {"messages": [("user", "go")]}, {"configurable": {"thread_id": "s"}} if saver else None, **{where: "*"}
        )
        row.append([_value(c) for c in chunks])
        out.append(row)
    assert out[0] == out[1]


@pytest.mark.parametrize("as_node", ["model", "PatchToolCallsMiddleware.before_agent"])
def test_update_state_as_a_node_routes_as_that_node(as_node: str) -> None:
    from langchain_core.messages import AIMessage

    out = []
    for impl in IMPLS:
        saver = InMemorySaver()
        model = ScriptedChatModel(["first", "after the update"])
        agent = make(impl, saver, model)
        agent.invoke({"messages": [("user", "go")]}, THREAD)
        calls = [{"name": "my_tool", "args": {"x": 4}, "id": "call_U", "type": "tool_call"}]
        written = AIMessage(content="", tool_calls=calls, id="ai_update")
        agent.update_state(THREAD, {"messages": [written]}, as_node=as_node)
        updated = snapshot(agent)
        result = agent.invoke(None, THREAD)
        out.append((updated, _value(result), snapshot(agent), dump(saver)))
    assert out[0][:3] == out[1][:3]
    found = first_difference(out[0][3], out[1][3])
    assert found is None, found


def test_bulk_update_state_applies_supersteps_as_langgraph_does() -> None:
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.types import StateUpdate

    out = []
    for impl in IMPLS:
        saver = InMemorySaver()
        agent = make(impl, saver, ScriptedChatModel(["first"]))
        agent.invoke({"messages": [("user", "go")]}, THREAD)
        agent.bulk_update_state(
            THREAD,
            [
                [StateUpdate({"messages": [HumanMessage("more", id="h2")]}, None)],
                [StateUpdate({"messages": [AIMessage("answer", id="a2")]}, "model")],
            ],
        )
        out.append((snapshot(agent), dump(saver)))
    assert out[0][0] == out[1][0]
    found = first_difference(out[0][1], out[1][1])
    assert found is None, found


def test_a_resumed_thread_sends_the_provider_the_bytes_deepagents_sends(sim: Any) -> None:
    """A thread continued in a fresh agent (as in another process) sends the native
    provider what deepagents sends for the same thread, byte for byte in its messages, so
    the provider's prompt cache serves it."""
    from sim.anthropic import text, tool_use

    requests = []
    for impl in IMPLS:
        saver = InMemorySaver()
        start = len(sim.requests)
        sim.script(tool_use(("my_tool", {"x": 2}, "toolu_1"), text="Doubling."), text("It is 4."), text("Again 4."))
        impl.create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[my_tool], checkpointer=saver).invoke(
            {"messages": [{"role": "user", "content": "double 2"}]}, THREAD
        )
        # A new agent on the same saver: nothing carried over but the thread.
        impl.create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[my_tool], checkpointer=saver).invoke(
            {"messages": [{"role": "user", "content": "and again?"}]}, THREAD
        )
        requests.append([r.body for r in sim.requests[start:]])
    ref, ours = requests
    assert len(ref) == len(ours) == 3
    # Every request whole, the turn-two one (the thread read back) included.
    for mine, theirs in zip(ours, ref, strict=True):
        assert mine == theirs


def test_checkpoint_writes_hold_what_each_step_changed_however_long_the_thread() -> None:
    """A long loop (past the delta channels' snapshot frequency): each step's checkpoint and
    writes hold that step's new messages, not the history, and the whole value is stored
    only where deepagents stores a snapshot of it."""
    steps = 60

    def sizes(impl: Any) -> list[tuple[int, int, bool]]:
        saver = InMemorySaver()
        model = ScriptedChatModel([*(ai_tool_calls(("my_tool", {"x": i}, f"call_{i}")) for i in range(steps)), "done"])
        agent = impl.create_deep_agent(model=model, tools=[my_tool], checkpointer=saver)
        agent.invoke({"messages": [("user", "go")]}, THREAD)
        out = []
        for t in sorted(saver.list(THREAD), key=lambda t: t.checkpoint["id"]):
            written = [w[2] for w in t.pending_writes if w[1] == "messages"]
            new = sum(len(w) if isinstance(w, list) else 1 for w in written)
            stored = t.checkpoint["channel_values"].get("messages")
            held = len(getattr(stored, "value", stored) or [])
            out.append((t.metadata["step"], new, held > 0))
        return out

    ours, theirs = sizes(deepagents_rs), sizes(deepagents)
    assert ours == theirs
    assert max(new for _step, new, _held in ours) == 1
    # The history is stored whole once per snapshot, never on every step.
    assert 0 < sum(held for *_rest, held in ours) <= (2 * steps + 2) // 50 + 1
