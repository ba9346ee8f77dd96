"""A run stopped inside a subagent, resumed as deepagents resumes it: the subagent's checkpoints
under its task's namespace (``tools:<task id>``) in the parent's thread, every human decision,
sync and async, streamed, and threads one implementation stopped continued by the other, on
LangGraph's savers. Both implementations run the same script; results, the model calls made
and every checkpoint written (the subagent's included) are compared."""

from __future__ import annotations

import asyncio
import importlib
import os
import sqlite3
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import deepagents
import deepagents_rs
import psycopg
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls, normalize_messages
from killed_run_support import BLOCKING_ECHO, SAVER_AT, _killed_and_resumed
from langchain.agents.middleware import AgentMiddleware
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command
from psycopg.rows import dict_row
from test_hitl import DECISIONS, interrupts
from thread_support import (
    IMPLS,
    THREAD,
    _value,
    first_difference,
    fresh_database,
    my_tool,
    pg_dsn,
    snapshot,
)

__all__ = ["pg_dsn"]  # the PostgreSQL server fixture, defined in thread_support

# Forked subagents are in beta in deepagents, which says so on each one built.
pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

#: The parent delegates; the subagent calls the gated tool, then answers; so does the parent.
SCRIPT = [
    ai_tool_calls(("task", {"description": "do it", "subagent_type": "general-purpose"}, "call_T")),
    ai_tool_calls(("my_tool", {"x": 5}, "call_S")),
    "sub done",
    "done",
]


def make(impl: Any, saver: Any, model: ScriptedChatModel, **create: Any) -> Any:
    return impl.create_deep_agent(
        model=model, tools=[my_tool], checkpointer=saver, interrupt_on={"my_tool": True}, **create
    )


def dump_all(saver: Any) -> list[Any]:
    """Every checkpoint of the thread, the subagents' included, oldest first per namespace:
    namespaces and parent ids (drawn at random) as the order they first appear in."""
    rows = list(saver.list(THREAD))
    namespaces: dict[str, int] = {}
    for t in sorted(rows, key=lambda t: t.checkpoint["id"]):
        namespaces.setdefault(t.config["configurable"]["checkpoint_ns"], len(namespaces))
    ids = {t.checkpoint["id"]: i for i, t in enumerate(sorted(rows, key=lambda t: t.checkpoint["id"]))}
    out = []
    for t in sorted(rows, key=lambda t: (namespaces[t.config["configurable"]["checkpoint_ns"]], t.checkpoint["id"])):
        c = t.checkpoint
        meta = dict(t.metadata)
        meta["parents"] = {namespaces.get(k, k): ids.get(v, v) for k, v in (meta.get("parents") or {}).items()}
        out.append(
            {
                "ns": namespaces[t.config["configurable"]["checkpoint_ns"]],
                "metadata": meta,
                "values": _input_values(meta, _value(c["channel_values"])),
                "channels": sorted(c["channel_versions"]),
                "seen": {k: sorted(v) for k, v in c["versions_seen"].items()},
                "updated": c.get("updated_channels"),
                "parent": t.parent_config is not None,
                "writes": [(w[1], _input_write(meta, _value(w[2]))) for w in t.pending_writes],
            }
        )
    return out


def _input_values(meta: dict, values: dict) -> dict:
    start = values.get("__start__")
    if meta.get("source") != "input" or not isinstance(start, dict):
        return values
    return {**values, "__start__": {k: _input_write(meta, v) for k, v in start.items()}}


def _input_write(meta: dict, value: Any) -> Any:
    """An input's messages as stored, without whether they had an id yet: LangGraph gives
    them ids in place while the checkpoint and its writes may still wait to be stored (in
    both implementations, more often on a slower saver)."""
    if meta.get("source") != "input" or not isinstance(value, list):
        return value
    return [v[:4] if isinstance(v, tuple) else v for v in value]


def calls_made(model: ScriptedChatModel, ids: Any = "stable") -> list[Any]:
    return [normalize_messages(c.messages, ids=ids) for c in model.calls]


def stop_and_resume(impl: Any, decisions: list[Any], saver: Any | None = None) -> dict[str, Any]:
    saver = saver or InMemorySaver()
    model = ScriptedChatModel(SCRIPT)
    agent = make(impl, saver, model)
    first = agent.invoke({"messages": [("user", "go")]}, THREAD)
    stopped = agent.get_state(THREAD)
    assert [i.id for i in stopped.interrupts] == [i.id for i in first["__interrupt__"]]
    resumed = agent.invoke(Command(resume={"decisions": decisions}), THREAD)
    return {
        "stopped": (
            _value({k: v for k, v in first.items() if k != "__interrupt__"}),
            interrupts(first["__interrupt__"]),
        ),
        "next": stopped.next,
        "resumed": _value(resumed),
        "snapshot": snapshot(agent),
        "calls": calls_made(model),
        "checkpoints": dump_all(saver),
    }


@pytest.mark.parametrize("decision", list(DECISIONS))
def test_a_gated_call_inside_a_subagent_resumes_where_it_stopped(decision: str) -> None:
    ref, ours = (stop_and_resume(impl, DECISIONS[decision]) for impl in IMPLS)
    for key in ("stopped", "next", "resumed", "snapshot", "calls"):
        assert ours[key] == ref[key], key
    # The subagent's finished model call is not made again.
    assert len(ours["calls"]) == 4 if decision != "respond" else len(ours["calls"]) <= 4
    found = first_difference(ref["checkpoints"], ours["checkpoints"])
    assert found is None, found


def test_the_subagents_checkpoints_are_under_its_tasks_namespace() -> None:
    saver = InMemorySaver()
    agent = make(deepagents_rs, saver, ScriptedChatModel(SCRIPT))
    agent.invoke({"messages": [("user", "go")]}, THREAD)
    stopped = agent.get_state(THREAD)
    task_id = stopped.tasks[0].id
    sub = [t for t in saver.list(THREAD) if t.config["configurable"]["checkpoint_ns"]]
    assert {t.config["configurable"]["checkpoint_ns"] for t in sub} == {f"tools:{task_id}"}
    head = max(sub, key=lambda t: t.checkpoint["id"])
    assert head.metadata["lc_agent_name"] == "general-purpose"
    # The subagent's interrupt is the parent's, with the same id.
    assert [w[2][0].id for w in head.pending_writes if w[1] == "__interrupt__"] == [i.id for i in stopped.interrupts]


def test_resumed_async() -> None:
    async def run(impl: Any) -> Any:
        async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
            model = ScriptedChatModel(SCRIPT)
            agent = make(impl, saver, model)
            first = await agent.ainvoke({"messages": [("user", "go")]}, THREAD)
            resumed = await agent.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), THREAD)
            state = await agent.aget_state(THREAD)
            return interrupts(first["__interrupt__"]), _value(resumed), _value(state.values), calls_made(model)

    ref, ours = (asyncio.run(run(impl)) for impl in IMPLS)
    assert ours == ref


def test_resumed_stream_starts_in_the_subagent_where_it_stopped() -> None:
    out = []
    for impl in IMPLS:
        agent = make(impl, InMemorySaver(), ScriptedChatModel(SCRIPT))
        first = [
            (bool(ns), list(chunk))
            for ns, chunk in agent.stream({"messages": [("user", "go")]}, THREAD, subgraphs=True)
        ]
        resumed = [
            (bool(ns), _value(chunk))
            for ns, chunk in agent.stream(Command(resume={"decisions": [{"type": "approve"}]}), THREAD, subgraphs=True)
        ]
        out.append((first, resumed))
    assert out[0] == out[1]


@pytest.mark.parametrize("writer", IMPLS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
def test_a_thread_stopped_inside_a_subagent_is_resumed_by_the_other(writer: Any, kind: str, request: Any) -> None:
    def saver() -> Any:
        if kind == "memory":
            return InMemorySaver()
        if kind == "sqlite":
            return SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
        conn = psycopg.connect(
            fresh_database(request.getfixturevalue("pg_dsn")),
            autocommit=True,
            prepare_threshold=0,
            row_factory=dict_row,
        )
        request.addfinalizer(conn.close)
        made = PostgresSaver(conn)
        made.setup()
        return made

    reader = deepagents_rs if writer is deepagents else deepagents
    mixed = saver()
    model = ScriptedChatModel(SCRIPT)
    make(writer, mixed, model).invoke({"messages": [("user", "go")]}, THREAD)
    continued = make(reader, mixed, model).invoke(Command(resume={"decisions": [{"type": "approve"}]}), THREAD)
    alone = stop_and_resume(writer, [{"type": "approve"}], saver())
    assert _value(continued) == alone["resumed"]
    assert calls_made(model) == alone["calls"]
    found = first_difference(alone["checkpoints"], dump_all(mixed))
    assert found is None, found


@pytest.mark.parametrize(
    ("subagent", "parent_gate"),
    [
        pytest.param({"name": "helper", "description": "Helps.", "mode": "fork"}, True, id="fork"),
        pytest.param(
            {
                "name": "helper",
                "description": "Helps.",
                "system_prompt": "You help.",
                "interrupt_on": {"my_tool": True},
            },
            False,
            id="own_interrupt_on",
        ),
        pytest.param(
            {"name": "helper", "description": "Helps.", "mode": "fork", "interrupt_on": {"my_tool": True}},
            False,
            id="fork_own_interrupt_on",
        ),
        pytest.param(
            {
                "name": "helper",
                "description": "Helps.",
                "mode": "fork",
                "interrupt_on": {"my_tool": {"allowed_decisions": ["approve", "reject"]}},
            },
            True,
            id="fork_replacing_the_parents",
        ),
    ],
)
def test_other_subagents_resume_where_they_stopped(subagent: dict, parent_gate: bool) -> None:
    _resumes_alike(subagent, parent_gate)


class _ProfileNode(AgentMiddleware):
    """A harness profile's middleware with a node of its own."""

    def before_model(self, state: Any, runtime: Any) -> None:
        return None


class _OtherProfileNode(_ProfileNode):
    """Another profile's middleware."""


class OtherScripted(ScriptedChatModel):
    """A scripted model reporting a provider of its own (``otherscripted``), so it has a
    harness profile of its own."""


@pytest.fixture
def profiled_model() -> Iterator[None]:
    """A harness profile for the scripted model in both implementations, with middleware and
    a hidden tool of its own: a fork then runs its parent's stack rebuilt with the profile's
    part. The registries are put back afterwards."""
    registries = []
    for impl in IMPLS:
        importlib.import_module(f"{impl.__name__}.profiles._builtin_profiles")._ensure_builtin_profiles_loaded()
        registry = importlib.import_module(f"{impl.__name__}.profiles.harness.harness_profiles")._HARNESS_PROFILES
        registries.append((registry, dict(registry)))
        impl.register_harness_profile(
            "scriptedchatmodel",
            impl.HarnessProfile(extra_middleware=lambda: [_ProfileNode()], excluded_tools=frozenset({"grep"})),
        )
        impl.register_harness_profile(
            "otherscripted",
            impl.HarnessProfile(extra_middleware=lambda: [_OtherProfileNode()], excluded_tools=frozenset({"glob"})),
        )
    try:
        yield
    finally:
        for registry, saved in registries:
            registry.clear()
            registry.update(saved)


@pytest.mark.parametrize(
    ("subagent", "parent_gate"),
    [
        pytest.param({"name": "helper", "description": "Helps.", "mode": "fork"}, True, id="fork"),
        pytest.param(
            {"name": "helper", "description": "Helps.", "mode": "fork", "interrupt_on": {"my_tool": True}},
            False,
            id="fork_own_interrupt_on",
        ),
        pytest.param(
            {
                "name": "helper",
                "description": "Helps.",
                "mode": "fork",
                "interrupt_on": {"my_tool": {"allowed_decisions": ["approve", "reject"]}},
            },
            True,
            id="fork_replacing_the_parents",
        ),
    ],
)
@pytest.mark.parametrize("own_model", [False, True], ids=["same_model", "own_model"])
def test_a_fork_whose_profile_rebuilds_its_stack_resumes_where_it_stopped(
    subagent: dict, parent_gate: bool, own_model: bool, profiled_model: None
) -> None:
    checkpoints = _resumes_alike(subagent, parent_gate, fork_model=own_model)
    # deepagents' own answer: the fork's checkpoints (under its task) run its model's
    # profile's node.
    node = f"{'_OtherProfileNode' if own_model else '_ProfileNode'}.before_model"
    assert any(node in c["seen"] for c in checkpoints if c["ns"] != 0)


def _resumes_alike(subagent: dict, parent_gate: bool, fork_model: bool = False) -> list[Any]:
    """The parent delegates to `subagent`, which stops at the gated tool; resumed with an
    approval, both implementations give the same interrupts, result, model calls and
    checkpoints (deepagents' are returned). `fork_model`: the subagent runs on an
    `OtherScripted` model of its own."""
    delegate = ai_tool_calls(("task", {"description": "do it", "subagent_type": "helper"}, "call_T"))
    script = [delegate, SCRIPT[-1]] if fork_model else [delegate, *SCRIPT[1:]]
    out = []
    for impl in IMPLS:
        saver, model = InMemorySaver(), ScriptedChatModel(script)
        own = OtherScripted(SCRIPT[1:-1]) if fork_model else None
        agent = impl.create_deep_agent(
            model=model,
            tools=[my_tool],
            checkpointer=saver,
            subagents=[{**subagent, "model": own} if own is not None else subagent],
            interrupt_on={"my_tool": True} if parent_gate else None,
        )
        first = agent.invoke({"messages": [("user", "go")]}, THREAD)
        resumed = agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), THREAD)
        # Without ids: a fork's messages are its parent's objects, which LangGraph stamps
        # with ids in place, after or before the model saw them (in both).
        calls = [calls_made(m, "drop") for m in (model, own) if m is not None]
        out.append((interrupts(first["__interrupt__"]), _value(resumed), calls, dump_all(saver)))
    assert out[1][:3] == out[0][:3]
    found = first_difference(out[0][3], out[1][3])
    assert found is None, found
    return out[0][3]


#: A run whose subagent is killed inside a tool call, in a process of its own, then resumed on
#: its thread by a fresh process: `argv` = implementation, SQLite path, work directory,
#: `start` or `resume`. The model answers by the conversation it is given, so a resumed
#: process needs no count of what was said; `echo` is killed_run_support's blocking tool.
KILLED_IN_SUBAGENT = (
    textwrap.dedent(
        """
    import importlib, os, sqlite3, sys, time
    from typing import Any
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    impl, where, work, mode = sys.argv[1:5]

    def call(name: str, args: dict, n: int) -> AIMessage:
        return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{n}"}])

    class ByConversation(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "by-conversation"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
            last = messages[-1]
            if last.type == "human" and last.content == "go":
                reply = call("task", {"description": "echo three steps", "subagent_type": "general-purpose"}, 9)
            elif last.type == "human":
                reply = call("echo", {"text": "step 0"}, 0)
            elif last.type == "tool" and last.content.startswith("step "):
                n = int(last.content.split()[1]) + 1
                reply = call("echo", {"text": f"step {n}"}, n) if n < 4 else AIMessage(content="sub done")
            else:
                reply = AIMessage(content="done")
            return ChatResult(generations=[ChatGeneration(message=reply)])

    BLOCKING_ECHO

    SAVER_AT
    config = {"configurable": {"thread_id": "killed"}}
    agent = importlib.import_module(impl).create_deep_agent(model=ByConversation(), tools=[echo], checkpointer=saver)
    if mode == "start":
        agent.invoke({"messages": [("user", "go")]}, config)
    else:
        result = agent.invoke(None, config)
        print("RESULT", [(m.type, m.content) for m in result["messages"]])
    """
    )
    .replace("BLOCKING_ECHO", BLOCKING_ECHO)
    .replace("SAVER_AT", SAVER_AT)
)


# Child interpreters (each imports deepagents and LangGraph, some twice): past the suite's
# 120 s on a loaded two-core machine, as the other worker runs beside them.
@pytest.mark.timeout(300)
@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_a_run_killed_inside_a_subagent_resumes_it_where_it_was(store: str, tmp_path: Path, request: Any) -> None:
    out = []
    for impl in ("deepagents", "deepagents_rs"):
        work = tmp_path / impl
        work.mkdir()
        if store == "sqlite":
            where = f"sqlite:{work / 'thread.sqlite'}"
        else:
            where = fresh_database(request.getfixturevalue("pg_dsn"))
        out.append(_killed_and_resumed(impl, where, work, KILLED_IN_SUBAGENT))
    # The subagent's finished calls are not run again: only the one the kill cut short.
    assert out[0][0] == ["step 0", "step 1", "step 2", "step 2", "step 3"]
    assert out[1] == out[0]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_compiled_subagent_checkpoints_in_its_task_and_resumes_where_it_stopped(asynchronous: bool) -> None:
    from langchain.agents import create_agent
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    script = [
        ai_tool_calls(("task", {"description": "do it", "subagent_type": "helper"}, "call_T")),
        *SCRIPT[1:],
    ]
    out = []
    for impl in IMPLS:
        saver, model = InMemorySaver(), ScriptedChatModel(script)
        helper = create_agent(model, tools=[my_tool], middleware=[HumanInTheLoopMiddleware({"my_tool": True})])
        agent = impl.create_deep_agent(
            model=model,
            tools=[my_tool],
            checkpointer=saver,
            subagents=[{"name": "helper", "description": "Helps.", "runnable": helper}],
        )
        approve = Command(resume={"decisions": [{"type": "approve"}]})
        if asynchronous:

            async def run(agent: Any = agent, approve: Any = approve) -> tuple[Any, Any]:
                first = await agent.ainvoke({"messages": [("user", "go")]}, THREAD)
                return first, await agent.ainvoke(approve, THREAD)

            first, resumed = asyncio.run(run())
        else:
            first = agent.invoke({"messages": [("user", "go")]}, THREAD)
            resumed = agent.invoke(approve, THREAD)
        out.append((interrupts(first["__interrupt__"]), _value(resumed), calls_made(model), dump_all(saver)))
    assert out[1][:3] == out[0][:3]
    assert len(out[1][2]) == 4  # the subagent's finished model call is not made again
    found = first_difference(out[0][3], out[1][3])
    assert found is None, found


#: More subagents than LangGraph's sync runner has threads for a step's tasks (a
#: `ThreadPoolExecutor`'s default size): the last tasks start only once others have finished.
_BEYOND_THREADS = min(32, (getattr(os, "process_cpu_count", os.cpu_count)() or 1) + 4) + 2


@pytest.mark.parametrize("count", [2, _BEYOND_THREADS], ids=["two", "more_than_threads"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_gated_calls_in_subagents_of_one_step_stop_and_resume_together(asynchronous: bool, count: int) -> None:
    names = [chr(ord("a") + i) if i < 26 else f"z{i}" for i in range(count)]

    def specs(models: dict[str, ScriptedChatModel]) -> list[dict]:
        return [
            {"name": name, "description": f"Helper {name}.", "system_prompt": "Help.", "model": models[name]}
            for name in names
        ]

    parent_script = [
        ai_tool_calls(*(("task", {"description": f"job {n}", "subagent_type": n}, f"call_{n}") for n in names)),
        "done",
    ]
    out = []
    for impl in IMPLS:
        models = {
            n: ScriptedChatModel([ai_tool_calls(("my_tool", {"x": i}, f"call_S{n}")), f"{n} done"])
            for i, n in enumerate(names)
        }
        parent = ScriptedChatModel(parent_script)
        agent = make(impl, InMemorySaver(), parent, subagents=specs(models))

        async def run(agent: Any = agent) -> tuple[Any, Any]:
            first = await agent.ainvoke({"messages": [("user", "go")]}, THREAD)
            answers = {i.id: {"decisions": [{"type": "approve"}]} for i in first["__interrupt__"]}
            return first, await agent.ainvoke(Command(resume=answers), THREAD)

        if asynchronous:
            first, resumed = asyncio.run(run())
        else:
            first = agent.invoke({"messages": [("user", "go")]}, THREAD)
            answers = {i.id: {"decisions": [{"type": "approve"}]} for i in first["__interrupt__"]}
            resumed = agent.invoke(Command(resume=answers), THREAD)
        stopped = sorted(str(v) for v in interrupts(first["__interrupt__"]))
        out.append(
            (stopped, _value(resumed), {k: calls_made(m, "drop") for k, m in models.items()}, calls_made(parent))
        )
    assert len(out[0][0]) == count
    assert out[1] == out[0]
    # Each subagent's model was asked twice: its gated call is not asked for again.
    assert [len(c) for c in out[1][2].values()] == [2] * count
