"""The direct thread writer (`_direct_writer`) against the thread graph run by LangGraph's own
runner: the same runs written both ways into savers of their own, every saver call compared
(`put`'s checkpoint, metadata and new versions, `put_writes`' writes, task id and task path),
then every row read back, on memory, SQLite and PostgreSQL. Only what LangGraph draws at
random differs: checkpoint ids (uuid6), the task ids hashed from them, message and interrupt
ids, the random fraction of a version, timestamps; each is replaced by the order in which it
first appears, so that every place an id recurs is still compared."""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Callable
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _direct_writer
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command, Interrupt, Send
from thread_support import THREAD, my_tool, new_saver, pg_dsn, script  # noqa: F401 - fixtures

#: What LangGraph draws at random: uuids (checkpoint, message and run ids), task and interrupt
#: ids (hex digests), and a version's random fraction.
_RANDOM = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}|lc_run--\S+")
_ADDRESS = re.compile(r"0x[0-9a-f]+")
#: A version: ``InMemorySaver`` formats its fraction with ``:016``, which writes one under
#: 1e-4 in exponent form (``5.86e-05``), about once in a few runs of this file.
_VERSION = re.compile(r"^(\d{32})\.(\d+\.\d+(?:e-\d+)?|\d+)$")


class Canon:
    """Replaces each random id by its first appearance's number, everywhere it recurs."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def text(self, s: str) -> str:
        if (m := _VERSION.match(s)) is not None:
            return f"v{int(m.group(1))}"
        s = _RANDOM.sub(lambda m: self.seen.setdefault(m.group(0), f"<id{len(self.seen)}>"), s)
        # An object's repr carries its address.
        return _ADDRESS.sub("0x", s)

    def __call__(self, v: Any) -> Any:
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, BaseMessage):
            return (type(v).__name__, self(v.model_dump()))
        if isinstance(v, Interrupt):
            return ("Interrupt", self(v.value), self(v.id))
        if isinstance(v, Send):
            return ("Send", v.node, self(v.arg))
        if isinstance(v, dict):
            return {self(k): self(x) for k, x in v.items() if k not in ("ts", "created_at", "modified_at")}
        if isinstance(v, (list, tuple)):
            return [self(x) for x in v]
        if v is None or isinstance(v, (int, float, bool, bytes)):
            return v
        return repr(v)


def recorded(saver: Any) -> list[tuple]:
    """Records every write call the saver gets, in order (its `a*` forms too). The wrappers
    keep the methods' signatures: LangGraph reads them (a `put_writes` taking `task_path`
    is given the task's path, which orders a delta channel's replay)."""
    calls: list[tuple] = []

    def wrap(name: str) -> None:
        inner = getattr(saver, name)
        if asyncio.iscoroutinefunction(inner):

            @functools.wraps(inner)
            async def acall(*args: Any) -> Any:
                calls.append((name.lstrip("a"), args))
                return await inner(*args)

            setattr(saver, name, acall)
        else:

            @functools.wraps(inner)
            def call(*args: Any) -> Any:
                calls.append((name, args))
                return inner(*args)

            setattr(saver, name, call)

    for name in ("put", "put_writes", "aput", "aput_writes"):
        wrap(name)
    return calls


def canonical_calls(calls: list[tuple]) -> list[Any]:
    """The saver calls, canonical: each `put` in order (LangGraph chains them; the agent's
    namespace first, then each other namespace's in the order they first put: two graphs'
    loops put on threads of their own, so which puts first is the scheduler's), each followed
    by the `put_writes` calls made against the checkpoint it put, sorted by task path. Those
    run on LangGraph's background executor beside the `put`s, and its runner commits the
    tasks of one step as they finish: their order among the other calls is not LangGraph's
    to keep."""
    canon = Canon()
    puts: list[tuple] = []
    writes: dict[str, list[tuple]] = {}
    for name, args in calls:
        if name == "put":
            puts.append(args)
        else:
            config, written, task_id, *path = args
            at = config["configurable"]["checkpoint_id"]
            writes.setdefault(at, []).append((str(path), config, written, task_id))
    # A subagent's graph puts its checkpoints (in its namespace) beside the agent's.
    spaces = list(dict.fromkeys(["", *(p[0]["configurable"].get("checkpoint_ns", "") for p in puts)]))
    puts.sort(key=lambda p: spaces.index(p[0]["configurable"].get("checkpoint_ns", "")))
    out: list[Any] = []
    for config, checkpoint, metadata, versions in puts:
        out.append(("put", _config(canon, config), canon(checkpoint), canon(metadata), canon(versions)))
        out.extend(_writes(canon, sorted(writes.pop(checkpoint["id"], []), key=lambda b: b[0])))
    for batch in writes.values():
        out.extend(_writes(canon, sorted(batch, key=lambda b: b[0])))
    return out


def _writes(canon: Canon, batch: list[tuple]) -> list[Any]:
    return [
        ("put_writes", path, _config(canon, config), canon(writes), canon(task_id))
        for path, config, writes, task_id in batch
    ]


def _config(canon: Canon, config: dict) -> Any:
    """What a saver reads of a call's config: the thread's keys and the metadata (LangGraph's
    own run keys, `__pregel_*`, are objects of the run)."""
    configurable = {k: v for k, v in config.get("configurable", {}).items() if not k.startswith("__")}
    return canon({"configurable": configurable, "metadata": config.get("metadata")})


def rows(saver: Any) -> list[Any]:
    """Every checkpoint of the thread (all namespaces) as the saver reads it back, oldest
    first, with its pending writes."""
    return _rows(list(saver.list(_WHOLE_THREAD))[::-1])


async def arows(saver: Any) -> list[Any]:
    return _rows([t async for t in saver.alist(_WHOLE_THREAD)][::-1])


#: The thread, every namespace of it.
_WHOLE_THREAD = {"configurable": {"thread_id": THREAD["configurable"]["thread_id"]}}


def _rows(tuples: list[Any]) -> list[Any]:
    canon = Canon()
    return [
        (
            canon(t.config),
            canon(t.parent_config),
            canon(t.checkpoint),
            canon(t.metadata),
            canon(sorted(t.pending_writes, key=_unordered)),
        )
        for t in tuples
    ]


def _unordered(write: tuple) -> str:
    """A pending write's place among its checkpoint's: savers order them by task id (SQLite,
    PostgreSQL), which is random, so they are compared by what they write."""
    return _RANDOM.sub("", repr(write[1:]))


@pytest.fixture
def direct(monkeypatch: pytest.MonkeyPatch) -> Callable[[bool], None]:
    def switch(on: bool) -> None:
        monkeypatch.setattr(_direct_writer, "ENABLED", on)

    return switch


def both_ways(direct: Callable[[bool], None], make_saver: Callable[[], Any], run: Callable[[Any], Any]) -> list[Any]:
    """``run(saver)`` with the writer and with LangGraph's runner: results, calls, rows."""
    out = []
    for on in (True, False):
        direct(on)
        saver = make_saver()
        calls = recorded(saver)
        result = run(saver)
        out.append((Canon()(result), canonical_calls(calls), rows(saver)))
    return out


def assert_same(written: list[Any]) -> None:
    (result, calls, stored), (ref_result, ref_calls, ref_stored) = written
    assert result == ref_result
    assert len(calls) == len(ref_calls)
    for i, (ours, ref) in enumerate(zip(calls, ref_calls, strict=True)):
        assert ours == ref, f"saver call {i}"
    assert stored == ref_stored


def two_turns(saver: Any, **kwargs: Any) -> Any:
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=saver)
    agent.invoke({"messages": [("user", "go")]}, THREAD, **kwargs)
    return agent.invoke({"messages": [{"role": "user", "content": "again"}]}, THREAD, **kwargs)


def test_two_turns_are_written_row_for_row_as_langgraphs_runner_writes_them(
    direct: Any,
    new_saver: Any,  # noqa: F811 - the fixture
) -> None:
    assert_same(both_ways(direct, new_saver, two_turns))


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_each_durability_writes_what_langgraphs_runner_writes(
    direct: Any,
    durability: str,
    new_saver: Any,  # noqa: F811 - the fixture
) -> None:
    assert_same(both_ways(direct, new_saver, lambda saver: two_turns(saver, durability=durability)))


def test_a_long_thread_is_written_as_langgraphs_runner_writes_it(
    direct: Any,
    new_saver: Any,  # noqa: F811 - the fixture
) -> None:
    """A thread of 1,000 earlier messages: the messages channel's delta writes and its
    snapshots (every 50 updates) as LangGraph makes them."""
    earlier = [{"role": ("user", "assistant")[i % 2], "content": f"earlier {i}"} for i in range(1000)]

    def run(saver: Any) -> Any:
        agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=saver)
        agent.invoke({"messages": [*earlier, {"role": "user", "content": "go"}]}, THREAD)
        return agent.invoke({"messages": [{"role": "user", "content": "again"}]}, THREAD)

    assert_same(both_ways(direct, new_saver, run))


def test_a_thread_deepagents_continues_is_the_same_either_way(
    direct: Any,
    new_saver: Any,  # noqa: F811 - the fixture
) -> None:
    """A thread ours wrote (with the writer, then with LangGraph's runner), continued by
    deepagents (the oracle) on the same saver: the same rows and result."""
    import deepagents

    def run(saver: Any) -> Any:
        two_turns(saver)
        theirs = deepagents.create_deep_agent(
            model=ScriptedChatModel(["from deepagents"]), tools=[my_tool], checkpointer=saver
        )
        return theirs.invoke({"messages": [{"role": "user", "content": "third"}]}, THREAD)

    assert_same(both_ways(direct, new_saver, run))


class _FailingWrites(InMemorySaver):
    """Fails its third ``put_writes`` call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        self.calls += 1
        if self.calls == 3:
            raise OSError("disk full")
        super().put_writes(config, writes, task_id, task_path)


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_a_failing_saver_ends_the_run_as_under_langgraphs_runner(direct: Any, durability: str) -> None:
    """A saver call that fails: the run ends with its error, the checkpoints after it are not
    stored (each waits for the writes before it), as under LangGraph's own executor."""

    def run(saver: Any) -> Any:
        agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=saver)
        with pytest.raises(OSError, match="disk full"):
            agent.invoke({"messages": [("user", "go")]}, THREAD, durability=durability)
        return saver.calls

    assert_same(both_ways(direct, _FailingWrites, run))


@pytest.mark.parametrize("on", [True, False], ids=["writer", "runner"])
def test_the_saver_calls_run_on_one_thread_of_the_writers(direct: Any, on: bool) -> None:
    """With the writer, every saver write of the thread graph (its input's, each step's, a
    step of several tasks', the last) runs on the writer's own thread (`_saver_thread`), in
    the order made; LangGraph's runner hands them to its executor's pool."""
    import threading

    saver = InMemorySaver()
    threads: list[str] = []
    for name in ("put", "put_writes"):
        inner = getattr(saver, name)

        @functools.wraps(inner)
        def call(*args: Any, inner: Any = inner) -> Any:
            threads.append(threading.current_thread().name)
            return inner(*args)

        setattr(saver, name, call)
    direct(on)
    two_turns(saver, durability="exit")
    two_turns(saver)
    assert len(threads) > 10
    assert {t == "deepagents-rs-saver" for t in threads} == {on}, threads


def test_a_streamed_run_writes_what_langgraphs_runner_writes(direct: Any) -> None:
    def run(saver: Any) -> Any:
        agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=saver)
        return list(agent.stream({"messages": [("user", "go")]}, THREAD, stream_mode=["updates", "values"]))

    assert_same(both_ways(direct, InMemorySaver, run))


def async_sqlite_both_ways(direct: Callable[[bool], None], folder: Any, run: Callable[[Any], Any]) -> list[Any]:
    """``await run(saver)`` on an ``AsyncSqliteSaver`` (a file in ``folder``) with the writer
    and with LangGraph's runner: results, calls, rows (see `both_ways`)."""

    async def written(path: str) -> tuple[Any, list[Any], list[Any]]:
        async with AsyncSqliteSaver.from_conn_string(path) as saver:
            calls = recorded(saver)
            result = await run(saver)
            return Canon()(result), canonical_calls(calls), await arows(saver)

    out = []
    for on in (True, False):
        direct(on)
        out.append(asyncio.run(written(str(folder / f"{on}.sqlite"))))
    return out


def test_async_runs_write_what_langgraphs_runner_writes(direct: Any, tmp_path: Any) -> None:
    async def run(saver: Any) -> Any:
        agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=saver)
        await agent.ainvoke({"messages": [("user", "go")]}, THREAD)
        return await agent.ainvoke({"messages": [("user", "again")]}, THREAD)

    assert_same(async_sqlite_both_ways(direct, tmp_path, run))


def test_an_interrupt_and_its_resume_write_what_langgraphs_runner_writes(direct: Any) -> None:
    def run(saver: Any) -> Any:
        calls = [ai_tool_calls(("my_tool", {"x": 1}, "call_A"), ("my_tool", {"x": 2}, "call_B")), "done"]
        agent = deepagents_rs.create_deep_agent(
            model=ScriptedChatModel(calls), tools=[my_tool], checkpointer=saver, interrupt_on={"my_tool": True}
        )
        first = agent.invoke({"messages": [("user", "go")]}, THREAD)
        decisions = [{"type": "approve"}, {"type": "reject", "message": "no"}]
        return first, agent.invoke(Command(resume={"decisions": decisions}), THREAD)

    assert_same(both_ways(direct, InMemorySaver, run))


def test_a_subagent_call_writes_what_langgraphs_runner_writes(direct: Any) -> None:
    def run(saver: Any) -> Any:
        calls = [
            ai_tool_calls(("task", {"description": "look", "subagent_type": "general-purpose"}, "call_T")),
            ai_tool_calls(("my_tool", {"x": 3}, "call_S")),
            "sub done",
            "done",
        ]
        agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(calls), tools=[my_tool], checkpointer=saver)
        return agent.invoke({"messages": [("user", "go")]}, THREAD)

    assert_same(both_ways(direct, InMemorySaver, run))


def test_a_failing_tool_is_recorded_as_langgraphs_runner_records_it(direct: Any) -> None:
    from langchain_core.tools import tool

    @tool
    def broken(x: int) -> str:
        """Fails."""
        raise RuntimeError("broken tool")

    def run(saver: Any) -> Any:
        agent = deepagents_rs.create_deep_agent(
            model=ScriptedChatModel([ai_tool_calls(("broken", {"x": 1}, "call_X")), "done"]),
            tools=[broken],
            checkpointer=saver,
        )
        with pytest.raises(RuntimeError, match="broken tool") as failed:
            agent.invoke({"messages": [("user", "go")]}, THREAD)
        # The task LangGraph names in the failure's notes.
        return getattr(failed.value, "__notes__", None)

    assert_same(both_ways(direct, InMemorySaver, run))


def test_the_writer_is_what_runs(direct: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparisons above compare two different drivers: with the writer on, LangGraph's
    runner is asked to run only the steps of several tasks (side by side; see
    `test_the_tasks_of_one_step_run_side_by_side`), never a step of one."""
    from langgraph.pregel import _runner

    ticks: list[int] = []
    original = _runner.PregelRunner.tick

    def tick(self: Any, tasks: Any, *args: Any, **kwargs: Any) -> Any:
        tasks = list(tasks)
        ticks.append(len(tasks))
        return original(self, tasks, *args, **kwargs)

    monkeypatch.setattr(_runner.PregelRunner, "tick", tick)
    direct(True)
    two_turns(InMemorySaver())
    assert all(n > 1 for n in ticks)
    ticks.clear()
    direct(False)
    two_turns(InMemorySaver())
    assert 1 in ticks


@pytest.mark.parametrize("on", [True, False], ids=["writer", "runner"])
def test_the_tasks_of_one_step_run_side_by_side(direct: Any, on: bool) -> None:
    """Two subagents started by one model turn run at once, as under LangGraph: each one's tool
    waits for the other's at a barrier, which breaks (after 20 s) if the second subagent only
    starts when the first has finished; each subagent's tool runs under its step's checkpoint
    map."""
    import threading

    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.config import get_config

    barrier = threading.Barrier(2, timeout=20)
    maps: list[Any] = []

    @tool
    def meet(x: int) -> str:
        """Wait for the other subagent's call."""
        maps.append(get_config()["configurable"].get("checkpoint_map"))
        barrier.wait()
        return f"met {x}"

    def sub(name: str) -> dict:
        model = ScriptedChatModel([ai_tool_calls(("meet", {"x": 1})), AIMessage(f"{name} done")])
        return {"name": name, "description": name, "system_prompt": name, "model": model, "tools": [meet]}

    main = ScriptedChatModel(
        [
            ai_tool_calls(
                ("task", {"description": "a", "subagent_type": "s1"}),
                ("task", {"description": "b", "subagent_type": "s2"}),
            ),
            AIMessage("ok"),
        ]
    )
    direct(on)
    agent = deepagents_rs.create_deep_agent(model=main, subagents=[sub("s1"), sub("s2")], checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [("user", "go")]}, THREAD)
    assert [m.content for m in out["messages"] if m.type == "tool"] == ["s1 done", "s2 done"]
    assert len(maps) == 2 and all(maps), maps


@pytest.mark.parametrize("asynchronous", [True, False], ids=["ainvoke", "invoke"])
def test_a_cancelled_task_is_recorded_as_langgraphs_runner_records_it(direct: Any, asynchronous: bool) -> None:
    """A tool raising `asyncio.CancelledError` itself: the writer commits the task as
    LangGraph's runner does (`NodeCancelledError` written as the task's error) and the run
    ends with the same error."""
    from langchain_core.tools import tool

    @tool
    def cancelled(x: int) -> str:
        """Is cancelled."""
        raise asyncio.CancelledError("tool cancelled")

    @tool("cancelled")
    async def acancelled(x: int) -> str:
        """Is cancelled."""
        raise asyncio.CancelledError("tool cancelled")

    def agent(saver: Any) -> Any:
        return deepagents_rs.create_deep_agent(
            model=ScriptedChatModel([ai_tool_calls(("cancelled", {"x": 1}, "call_X")), "done"]),
            tools=[acancelled if asynchronous else cancelled],
            checkpointer=saver,
        )

    async def arun(saver: Any) -> Any:
        try:
            await agent(saver).ainvoke({"messages": [("user", "go")]}, THREAD)
        except Exception as exc:  # noqa: BLE001 - the way the run ends is compared
            return type(exc).__name__, str(exc), type(exc.__cause__).__name__
        return None

    def run(saver: Any) -> Any:
        if asynchronous:
            return asyncio.run(arun(saver))
        try:
            agent(saver).invoke({"messages": [("user", "go")]}, THREAD)
        except Exception as exc:  # noqa: BLE001 - the way the run ends is compared
            return type(exc).__name__, str(exc), type(exc.__cause__).__name__
        return None

    written = both_ways(direct, InMemorySaver, run)
    assert written[0][0] == ["NodeCancelledError", "Node 'tools' raised asyncio.CancelledError", "CancelledError"]
    assert any("NodeCancelledError" in repr(row[4]) for row in written[0][2])
    assert_same(written)


@pytest.mark.parametrize("on", [True, False], ids=["writer", "runner"])
def test_a_checkpointed_stream_hands_out_chunks_step_by_step(direct: Any, on: bool) -> None:
    """The writer maps only interrupts to LangGraph stream chunks, but still yields after each
    task: the caller gets the first step's chunks while the run goes on, not all at its end
    (the core cannot run more than a step ahead of the thread graph: a tool's config needs its
    step's checkpoint)."""
    calls: list[int] = []

    class Counting(ScriptedChatModel):
        def _generate(self, *args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return super()._generate(*args, **kwargs)

    steps = 6
    model = Counting([*(ai_tool_calls(("my_tool", {"x": i})) for i in range(steps)), "done"])
    direct(on)
    agent = deepagents_rs.create_deep_agent(model=model, tools=[my_tool], checkpointer=InMemorySaver())
    seen = [len(calls) for _ in agent.stream({"messages": [("user", "go")]}, THREAD, stream_mode="updates")]
    assert len(calls) == steps + 1
    assert seen[0] < steps, seen


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_a_message_the_run_writes_is_made_an_object_once(
    monkeypatch: pytest.MonkeyPatch,
    asynchronous: bool,
) -> None:
    """The object the thread graph's node writes (the checkpoint's) is the one the run's
    result holds, as LangGraph's result holds its channel's: each message the run wrote is
    made an object once (by the core, `stream_payloads.rs`' `written_objects`), not once for
    the checkpoint and again for the result, and never by ``from_core``."""
    from collections import Counter

    from deepagents_rs import _convert, _core

    made: Counter = Counter()
    from_core = _convert.from_core

    def counted(d: dict) -> Any:
        made[d.get("id")] += 1
        return from_core(d)

    monkeypatch.setattr(_convert, "from_core", counted)
    agent = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=InMemorySaver()
    )
    go = {"messages": [("user", "go")]}
    # The core's record of the message objects it makes starts now (its first call).
    _core._result_threads()
    out = asyncio.run(agent.ainvoke(go, THREAD)) if asynchronous else agent.invoke(go, THREAD)
    written = [m for m in out["messages"] if m.type != "human"]
    # The model's three replies and the three tool results of turn one.
    assert len(written) == 6
    assert all(made[m.id] == 0 for m in written), made
    assert sum(n for _, n in _core._result_threads()) == len(written)


def _task_view(task: Any) -> Any:
    """What a task is, for comparing two makings of it: its fields, and its config's entries,
    LangGraph's run objects among them by what they hold (the writes deque's `extend` and
    the read partial by what they are bound to, the scratchpad and the runtime by fields)."""
    import dataclasses
    from functools import partial

    def value(v: Any) -> Any:
        if isinstance(v, partial):
            return ("partial", v.func, [value(a) for a in v.args], {k: value(x) for k, x in v.keywords.items()})
        if hasattr(v, "__self__") and getattr(v, "__name__", None) == "extend":
            return ("extend", list(v.__self__))
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return (type(v).__name__, {f.name: value(getattr(v, f.name)) for f in dataclasses.fields(v)})
        if isinstance(v, dict):
            return {k: value(x) for k, x in v.items()}
        if callable(v) and not isinstance(v, type):
            # The scratchpad's closures and counters: what they are, not which.
            return ("callable", getattr(v, "__qualname__", type(v).__qualname__))
        return v

    config = dict(task.config)
    return (
        task.id,
        task.name,
        task.input,
        task.path,
        task.triggers,
        task.retry_policy,
        task.cache_key,
        task.proc,
        task.writers,
        task.subgraphs,
        task.timeout,
        sorted(config),
        {k: value(v) for k, v in config.items()},
    )


@pytest.mark.parametrize("resume", [False, True], ids=["loop", "interrupt-and-resume"])
def test_the_plain_steps_tasks_are_langgraphs(monkeypatch: pytest.MonkeyPatch, resume: bool) -> None:
    """Each step's tasks made by `_plain_tasks` are the ones LangGraph's
    ``prepare_next_tasks`` makes from the same loop: ids, inputs, paths, and every entry of
    their configs; and the plain path makes most of the runs' steps (a resume's first is
    LangGraph's)."""
    from deepagents_rs import _writer_loop
    from langgraph.pregel._algo import prepare_next_tasks

    made: list[str] = []
    original = _writer_loop.PlainTasks.prepare

    def prepare(self: Any, loop: Any) -> Any:
        ours = original(self, loop)
        made.append("plain" if ours is not None else "langgraph")
        if ours is not None:
            # LangGraph's loop asks with these (`_prepare_tasks_and_emit_checkpoint`).
            keys = ("manager", "store", "checkpointer", "trigger_to_nodes", "updated_channels", "retry_policy")
            state = (loop.checkpoint, loop.checkpoint_pending_writes, loop.nodes, loop.channels, loop.managed)
            theirs = prepare_next_tasks(
                *state,
                loop.config,
                loop.step,
                loop.stop,
                for_execution=True,
                cache_policy=loop.cache_policy,
                **{k: getattr(loop, k) for k in keys},
            )
            assert list(ours) == list(theirs)
            for task_id in ours:
                assert _task_view(ours[task_id]) == _task_view(theirs[task_id])
        return ours

    monkeypatch.setattr(_writer_loop.PlainTasks, "prepare", prepare)
    saver = InMemorySaver()
    if resume:
        calls = [ai_tool_calls(("my_tool", {"x": 1}, "call_A"), ("my_tool", {"x": 2}, "call_B")), "done"]
        agent = deepagents_rs.create_deep_agent(
            model=ScriptedChatModel(calls), tools=[my_tool], checkpointer=saver, interrupt_on={"my_tool": True}
        )
        agent.invoke({"messages": [("user", "go")]}, THREAD)
        agent.invoke(Command(resume={"decisions": [{"type": "approve"}, {"type": "approve"}]}), THREAD)
    else:
        two_turns(saver)
    assert made.count("plain") >= 4, made
