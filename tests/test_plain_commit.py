"""The thread graph's plain steps committed by `_plain_commit` (the writes applied, the
checkpoint made and saved, a task's writes put), against the thread graph run by LangGraph's
own runner: every saver call and every row read back compared (`test_direct_writer`'s
helpers), on memory, SQLite and PostgreSQL, over runs long enough for the messages channel
to be snapshotted (every 50 updates), with files written, a thread continued, and the
durabilities that save each step."""

from __future__ import annotations

import asyncio
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _plain_commit, _writer_loop
from fake_models import ScriptedChatModel, ai_tool_calls
from langgraph.checkpoint.memory import InMemorySaver
from test_direct_writer import assert_same, async_sqlite_both_ways, both_ways, direct, two_turns  # noqa: F401
from thread_support import THREAD, my_tool, new_saver, pg_dsn  # noqa: F401 - fixtures

#: Tool turns of the long run: 60 steps writing messages, past the channel's snapshot at 50.
_TURNS = 30


def _long_script() -> list[Any]:
    """One call a turn, every fifth a file written; then answers."""
    turns = []
    for i in range(_TURNS):
        if i % 5 == 4:
            call = ("write_file", {"file_path": f"/f{i}.txt", "content": f"file {i}"}, f"call_{i}")
        else:
            call = ("my_tool", {"x": i}, f"call_{i}")
        turns.append(ai_tool_calls(call))
    return [*turns, "done", "second turn"]


def _long_run(saver: Any, **kwargs: Any) -> Any:
    agent = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel(_long_script()), tools=[my_tool], checkpointer=saver
    )
    agent.invoke({"messages": [("user", "go")]}, THREAD, recursion_limit=200, **kwargs)
    # The thread continued: its state loaded from the saver (the snapshot and the writes
    # after it).
    return agent.invoke({"messages": [{"role": "user", "content": "again"}]}, THREAD, **kwargs)


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_a_long_run_is_written_as_langgraphs_runner_writes_it(
    direct: Any,  # noqa: F811 - the fixture
    durability: str,
    new_saver: Any,  # noqa: F811 - the fixture
) -> None:
    written = both_ways(direct, new_saver, lambda saver: _long_run(saver, durability=durability))
    assert_same(written)
    # The messages channel was snapshotted in a step of the run (`_plain_commit` made it;
    # a checkpoint holds a delta channel's value only as a snapshot).
    snapshots = [
        call[3]["step"] for call in written[0][1] if call[0] == "put" and "messages" in call[2]["channel_values"]
    ]
    assert snapshots and min(snapshots) > 0, snapshots


async def _along_run(saver: Any, **kwargs: Any) -> Any:
    agent = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel(_long_script()), tools=[my_tool], checkpointer=saver
    )
    await agent.ainvoke({"messages": [("user", "go")]}, THREAD, recursion_limit=200, **kwargs)
    return await agent.ainvoke({"messages": [{"role": "user", "content": "again"}]}, THREAD, **kwargs)


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_a_long_async_run_is_written_as_langgraphs_runner_writes_it(
    direct: Any,  # noqa: F811 - the fixture
    durability: str,
    tmp_path: Any,
) -> None:
    """The same under ``ainvoke`` (LangGraph's async loop, the savers' ``a*`` methods): an
    ``InMemorySaver``, and an ``AsyncSqliteSaver`` on a file."""
    assert_same(both_ways(direct, InMemorySaver, lambda saver: asyncio.run(_along_run(saver, durability=durability))))

    assert_same(async_sqlite_both_ways(direct, tmp_path, lambda saver: _along_run(saver, durability=durability)))


class _PathlessSaver(InMemorySaver):
    """A saver whose ``put_writes`` takes no task path (LangGraph then passes none)."""

    def put_writes(self, config: Any, writes: Any, task_id: str) -> None:  # type: ignore[override]
        super().put_writes(config, writes, task_id)


def test_a_saver_taking_no_task_path_gets_what_langgraphs_runner_gives_it(
    direct: Any,  # noqa: F811 - the fixture
) -> None:
    assert_same(both_ways(direct, _PathlessSaver, _long_run))


def test_the_plain_steps_are_committed_here(
    direct: Any,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The comparisons above compare two different commits: with the writer, every step of
    one task is committed by `_plain_commit` and each of its task's writes put by it; the
    step LangGraph still commits is the one of two tasks (`two_turns`' parallel calls)."""
    committed: list[str] = []
    put: list[str] = []
    commit, put_writes = _plain_commit.commit, _plain_commit.put_writes

    def counted_commit(loop: Any, task: Any, lists: Any) -> None:
        committed.append(task.name)
        commit(loop, task, lists)

    def counted_put(loop: Any, task_id: str, writes: Any, lists: Any) -> bool:
        done = put_writes(loop, task_id, writes, lists)
        put.append(task_id if done else "langgraph")
        return done

    monkeypatch.setattr(_plain_commit, "commit", counted_commit)
    monkeypatch.setattr(_plain_commit, "put_writes", counted_put)
    after_tick = _writer_loop.SyncPregelLoop.after_tick
    by_langgraph: list[int] = []

    def counted_after_tick(loop: Any) -> None:
        by_langgraph.append(len(loop.tasks))
        after_tick(loop)

    monkeypatch.setattr(_writer_loop.SyncPregelLoop, "after_tick", counted_after_tick)
    direct(True)
    two_turns(InMemorySaver())
    first = ["__start__", "PatchToolCallsMiddleware.before_agent", "model", "tools", "model"]
    after = "_ParentNotifierMiddleware.after_agent"
    # Turn one: its input's node, the model, a tool, the model, two tools at once, the model,
    # the last node (which writes nothing); turn two: the same without calls.
    assert committed == [*first, "model", after, "__start__", "PatchToolCallsMiddleware.before_agent", "model", after]
    assert "langgraph" not in put, put
    # Every task's writes: the eleven steps' of one task, the two parallel calls'.
    assert len(put) == 13
    # LangGraph commits only the step of the two parallel calls (the inputs are saved by
    # its loop's first tick, not by a step's commit).
    assert by_langgraph == [2], by_langgraph
    committed.clear()
    # The async loop's too.
    asyncio.run(_along_run(InMemorySaver()))
    assert len(committed) > 2 * _TURNS, committed
    committed.clear()
    monkeypatch.setattr(_writer_loop._PlainCommits, "plain_commit", False)
    two_turns(InMemorySaver())
    asyncio.run(_along_run(InMemorySaver()))
    assert committed == []


def _plain_runs(use_direct: Any) -> None:
    """The runs whose plain steps the checks below watch: a long run, a continued thread
    with parallel calls (a step LangGraph commits), and the long run under ``ainvoke``;
    ``use_direct`` the ``direct`` fixture."""
    use_direct(True)
    _long_run(InMemorySaver())
    two_turns(InMemorySaver())
    asyncio.run(_along_run(InMemorySaver()))


def test_the_channels_asked_each_step_are_those_that_can_change() -> None:
    """The channels `_plain_commit` tells of a step nobody wrote them in, and of the run's
    possible end, are those whose class can change then: an ephemeral value, a topic, a
    channel finishing after its run (LangGraph's ``defer=True`` nodes), a user's own class;
    not those whose empty update (or finish) does nothing. The thread graph has no finishing
    channel, so its runs above cannot show a wrong `finishing` list."""
    from langgraph.channels.binop import BinaryOperatorAggregate
    from langgraph.channels.delta import DeltaChannel
    from langgraph.channels.ephemeral_value import EphemeralValue
    from langgraph.channels.last_value import LastValue, LastValueAfterFinish
    from langgraph.channels.named_barrier_value import NamedBarrierValueAfterFinish
    from langgraph.channels.topic import Topic
    from langgraph.channels.untracked_value import UntrackedValue

    class Own(LastValue):
        def update(self, values: Any) -> bool:
            return super().update(values or [None])

    class Loop:
        pass

    loop = Loop()
    loop.channels = {
        "last": LastValue(int),
        "delta": DeltaChannel(lambda state, writes: state),
        "binop": BinaryOperatorAggregate(int, lambda a, b: a + b),
        "untracked": UntrackedValue(dict),
        "ephemeral": EphemeralValue(int),
        "topic": Topic(int),
        "deferred": LastValueAfterFinish(int),
        "barrier": NamedBarrierValueAfterFinish(str, {"a"}),
        "own": Own(int),
    }
    loop.specs = loop.channels
    lists = _plain_commit.ChannelLists().of(loop)
    assert lists.ticked == ("ephemeral", "topic", "barrier", "own")
    assert lists.finishing == ("deferred", "barrier")
    assert lists.saved == ("last", "binop", "ephemeral", "topic", "deferred", "barrier", "own")
    # LangGraph's ephemeral value exactly: a subclass may keep a value an empty update left.
    assert lists.ephemeral == frozenset({"ephemeral"})
    # Worked out again for a loop given other channels.
    loop.channels = loop.specs = {"ephemeral": EphemeralValue(int)}
    assert lists.of(loop).ticked == ("ephemeral",) and lists.saved == ("ephemeral",)


def test_a_checkpoint_id_is_langgraphs_uuid6(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_checkpoint_ids.checkpoint_id(step)` is ``str(uuid6(clock_seq=step))`` bit for bit (the
    clock and the random node fixed), and shares LangGraph's last timestamp: ids made by
    either, in any order, are those LangGraph's alone makes, still in order when the clock
    has not moved (or went back)."""
    import random

    from deepagents_rs import _checkpoint_ids
    from langgraph.checkpoint.base import id as langgraph_ids
    from langgraph.checkpoint.base.id import uuid6

    # The clock (ns) at each id: standing still, going back, moving on.
    ticks = [10**18, 10**18, 10**18 - 5_000, 10**18 + 12_345_678, 10**18 + 12_345_678, 2 * 10**18]
    clock = iter(())
    monkeypatch.setattr("time.time_ns", lambda: next(clock))

    def ids(make: Any) -> list[str]:
        nonlocal clock
        clock = iter(ticks)
        monkeypatch.setattr(langgraph_ids, "_last_v6_timestamp", None)
        random.seed(19)
        return [make(i, step) for i, step in enumerate((0, 1, 2, 16383, 16384 + 7, -1))]

    assert _checkpoint_ids.SHARES_LANGGRAPHS_CLOCK
    theirs = ids(lambda _i, step: str(uuid6(clock_seq=step)))
    assert ids(lambda _i, step: _checkpoint_ids.checkpoint_id(step)) == theirs
    # Taking turns with LangGraph's own: the same ids.
    mixed = ids(lambda i, step: _checkpoint_ids.checkpoint_id(step) if i % 2 else str(uuid6(clock_seq=step)))
    assert mixed == theirs
    assert theirs == sorted(theirs) and len(set(theirs)) == len(theirs)


def test_each_plain_commit_hands_the_saver_langgraphs_new_versions(
    direct: Any,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The versions a plain commit hands the saver as new (`ChannelLists.new_versions`, from
    the channels its step bumped) are ``get_new_channel_versions``' exactly, in its order, at
    every plain step of a long run (snapshots among them), a continued thread and two
    parallel calls (a step LangGraph commits, after which LangGraph's comparison is used)."""
    from deepagents_rs._langgraph_private import get_new_channel_versions

    new_versions = _plain_commit.ChannelLists.new_versions
    bumped: list[bool] = []

    def checked(lists: Any, previous: dict, versions: dict) -> dict:
        ours = new_versions(lists, previous, versions)
        assert list(ours.items()) == list(get_new_channel_versions(previous, versions).items())
        bumped.append(previous is lists.saved_versions)
        return ours

    monkeypatch.setattr(_plain_commit.ChannelLists, "new_versions", checked)
    _plain_runs(direct)
    # Most steps take the bumped channels; a step after a save of LangGraph's compares.
    assert bumped.count(True) > 2 * _TURNS and False in bumped, bumped


def test_a_step_asks_every_ticked_channel_holding_a_value(
    direct: Any,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a plain commit a step tells only the ephemeral channels that commit left holding
    a value that it passed (`ChannelLists.ticking`): at every plain step of a long run, a
    continued thread and two parallel calls (a step LangGraph commits, after which all are
    asked), those are every one of `ChannelLists.ticked` holding a value at the step's
    start, and fewer than all of them after a plain commit."""
    ticking = _plain_commit.ChannelLists.ticking
    sizes: list[tuple[int, int]] = []

    def checked(lists: Any, loop: Any) -> Any:
        asked = ticking(lists, loop)
        written = {chan for chan, _ in loop.tasks[next(iter(loop.tasks))].writes}
        # Asked after the step's writes are applied: a written channel is not asked again.
        holding = {c for c in lists.ticked if loop.channels[c].is_available() and c not in written}
        assert holding <= set(asked), (holding, asked)
        sizes.append((len(asked), len(lists.ticked)))
        return asked

    monkeypatch.setattr(_plain_commit.ChannelLists, "ticking", checked)
    _plain_runs(direct)
    assert sum(asked < ticked for asked, ticked in sizes) > 2 * _TURNS, sizes
    assert any(asked == ticked for asked, ticked in sizes), sizes


def test_a_plain_checkpoint_asks_no_ephemeral_channel_holding_nothing(
    direct: Any,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`_checkpoint` asks an ephemeral channel for its saved value only if the step updated
    it: the others hold nothing once the step is applied (they are what the rows compared
    above leave out). Over the runs above, at every plain step, no channel it asks holds
    nothing, and the channels it leaves out of the checkpoint hold nothing."""
    from deepagents_rs._langgraph_private import MISSING
    from langgraph.channels.ephemeral_value import EphemeralValue

    checkpoint, ask = _plain_commit._checkpoint, EphemeralValue.checkpoint
    asked: list[bool] = []
    inside = [False]

    def watched(loop: Any, previous: dict, updated: set[str], lists: Any) -> dict:
        inside[0] = True
        try:
            made = checkpoint(loop, previous, updated, lists)
        finally:
            inside[0] = False
        for name, channel in loop.channels.items():
            if type(channel) is EphemeralValue and name not in made["channel_values"]:
                assert channel.value is MISSING, name
        return made

    def counted(channel: Any) -> Any:
        if inside[0]:
            asked.append(channel.value is MISSING)
        return ask(channel)

    monkeypatch.setattr(_plain_commit, "_checkpoint", watched)
    monkeypatch.setattr(EphemeralValue, "checkpoint", counted)
    _plain_runs(direct)
    assert asked and not any(asked), (len(asked), sum(asked))


def test_a_plain_step_is_ticked_by_the_writers_loop(
    direct: Any,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`WriterLoop.tick`: a step whose tasks `PlainTasks` makes (each step of these runs, the
    parallel calls' among them) is ticked without LangGraph's ``tick``, which runs only at
    each run's end (no task left: the run is done)."""
    tick = _writer_loop.SyncPregelLoop.tick
    ticked: list[tuple[bool, str, int]] = []

    def counted(loop: Any) -> bool:
        more = tick(loop)
        ticked.append((more, loop.status, len(loop.tasks)))
        return more

    monkeypatch.setattr(_writer_loop.SyncPregelLoop, "tick", counted)
    direct(True)
    two_turns(InMemorySaver())
    assert ticked == [(False, "done", 0)] * 2, ticked
