"""The core's stream read by several tasks of the thread graph at once (`_thread_feed.Feed`).

The tasks of one step (two `task` calls' subagents, each followed by a graph of its own) read
one stream: one task waits for the core's next item while another looks for what arrived
already. The core's next item may wait for that other task (a subagent's node asks for its
step's checkpoint map, which only its graph's task can name), so a task waiting for the core
must not keep the others from what has arrived. The core's stream here is a queue the test
fills, which tells when a reader waits in it, so each ordering is made, not hoped for.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _direct_writer
from deepagents_rs._thread_feed import Feed
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config

#: How long a step of a test may wait before it counts as stuck (only a failing run waits).
STUCK = 20.0

A = ("tools:a",)
B = ("tools:b",)
CONFIG: dict = {"metadata": {"langgraph_step": 1}, "configurable": {}}


def started(ns: tuple, call_id: str) -> tuple:
    """The core's item telling a subagent started (`Event::Route` of kind ``subagent``)."""
    return ("routes", ns, ("tools", "subagent", (call_id, {"messages": []}, ["model", "tools"], "general-purpose")))


def model_write(ns: tuple, text: str) -> list[tuple]:
    """The core's items for a subagent's `model` node: its write, then where it went."""
    return [("updates", ns, ("model", {"said": text}, False)), ("routes", ns, ("model", "node", "tools"))]


class CoreStream:
    """A core's stream the test feeds; ``reads`` counts the reads begun, and ``busy`` fails
    two at once (a generator raises there too)."""

    def __init__(self) -> None:
        self.items: queue.Queue = queue.Queue()
        self.reads = 0
        self.busy = False
        self.changed = threading.Condition()

    def __iter__(self) -> CoreStream:
        return self

    def __next__(self) -> tuple:
        with self.changed:
            assert not self.busy, "two tasks read the core's stream at once"
            self.busy = True
            self.reads += 1
            self.changed.notify_all()
        try:
            item = self.items.get(timeout=STUCK)
        finally:
            self.busy = False
        if item is None:
            raise StopIteration
        return item

    def wait_reads(self, n: int) -> None:
        """Until the ``n``-th read has begun (its reader waits for the core)."""
        with self.changed:
            assert self.changed.wait_for(lambda: self.reads >= n, STUCK), self.reads


def feed_over(stream: Any) -> Feed:
    return Feed(lambda *_: stream, lambda _item: None)


def in_thread(call: Any) -> tuple[threading.Thread, list]:
    out: list = []
    thread = threading.Thread(target=lambda: out.append(call()), daemon=True)
    thread.start()
    return thread, out


def test_a_subagent_start_that_arrived_is_found_while_another_task_waits_for_the_core() -> None:
    stream = CoreStream()
    stream.items.put(started(B, "call-b"))
    feed = feed_over(stream)
    # Task A reads B's start, then waits in the core's stream for its own write.
    reader, a_out = in_thread(lambda: feed.take_in(A, "model", {}, CONFIG))
    stream.wait_reads(2)
    # Task B finds its subagent's start meanwhile (the core may be waiting for B's graph).
    finder, b_out = in_thread(lambda: feed.child("call-b"))
    finder.join(STUCK)
    assert b_out == [(B, {"messages": []}, ["model", "tools"])]
    assert reader.is_alive()
    for item in model_write(A, "a"):
        stream.items.put(item)
    reader.join(STUCK)
    assert [c.update for c in a_out] == [{"said": "a"}]


def test_a_task_waiting_while_another_reads_gets_its_write_from_that_read() -> None:
    stream = CoreStream()
    feed = feed_over(stream)
    reader, a_out = in_thread(lambda: feed.take_in(A, "model", {}, CONFIG))
    stream.wait_reads(1)
    waiter, b_out = in_thread(lambda: feed.take_in(B, "model", {}, CONFIG))
    # B's write and route arrive through A's reads (B waits for them, never reading along).
    for item in model_write(B, "b"):
        stream.items.put(item)
    waiter.join(STUCK)
    assert [c.update for c in b_out] == [{"said": "b"}]
    for item in [*model_write(A, "a"), None]:
        stream.items.put(item)
    reader.join(STUCK)
    assert [c.update for c in a_out] == [{"said": "a"}]
    feed.drain()


class AsyncCoreStream:
    """`CoreStream` under `astream`: one event loop, the test's coroutine feeding it."""

    def __init__(self) -> None:
        self.items: asyncio.Queue = asyncio.Queue()
        self.reads = 0
        self.reading = asyncio.Event()

    def __aiter__(self) -> AsyncCoreStream:
        return self

    async def __anext__(self) -> tuple:
        self.reads += 1
        self.reading.set()
        item = await asyncio.wait_for(self.items.get(), STUCK)
        if item is None:
            raise StopAsyncIteration
        return item

    async def wait_reads(self, n: int) -> None:
        while self.reads < n:
            self.reading.clear()
            await asyncio.wait_for(self.reading.wait(), STUCK)


def test_under_astream_a_subagent_start_is_found_while_another_task_waits_for_the_core() -> None:
    async def run() -> None:
        stream = AsyncCoreStream()
        stream.items.put_nowait(started(B, "call-b"))
        feed = feed_over(stream)
        reader = asyncio.ensure_future(feed.atake_in(A, "model", {}, CONFIG))
        await stream.wait_reads(2)
        assert await asyncio.wait_for(feed.achild("call-b"), STUCK) == (B, {"messages": []}, ["model", "tools"])
        assert not reader.done()
        waiter = asyncio.ensure_future(feed.atake_in(B, "model", {}, CONFIG))
        for item in [*model_write(B, "b"), *model_write(A, "a"), None]:
            stream.items.put_nowait(item)
        assert (await asyncio.wait_for(waiter, STUCK)).update == {"said": "b"}
        assert (await asyncio.wait_for(reader, STUCK)).update == {"said": "a"}
        await feed.adrain()

    asyncio.run(run())


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("on", [True, False], ids=["writer", "runner"])
def test_parallel_subagents_tools_run_from_their_graphs_checkpoints(
    monkeypatch: pytest.MonkeyPatch, on: bool, asynchronous: bool
) -> None:
    """Two subagents of one model turn: each one's tool runs from a checkpoint its graph
    wrote, in that graph's namespace (a step lookup that gave up left the core's own ids)."""
    monkeypatch.setattr(_direct_writer, "ENABLED", on)
    seen: list[dict] = []

    @tool
    def probe(x: int) -> str:
        """Record where the call runs."""
        seen.append(get_config()["configurable"])
        return f"ran {x}"

    def sub(name: str) -> dict:
        model = ScriptedChatModel([ai_tool_calls(("probe", {"x": 1})), AIMessage(f"{name} done")])
        return {"name": name, "description": name, "system_prompt": name, "model": model, "tools": [probe]}

    calls = [("task", {"description": n, "subagent_type": n}) for n in ("s1", "s2")]
    main = ScriptedChatModel([ai_tool_calls(*calls), AIMessage("ok")])
    saver = InMemorySaver()
    agent = deepagents_rs.create_deep_agent(model=main, subagents=[sub("s1"), sub("s2")], checkpointer=saver)
    thread = {"configurable": {"thread_id": "parallel"}}
    request = {"messages": [("user", "go")]}
    out = asyncio.run(agent.ainvoke(request, thread)) if asynchronous else agent.invoke(request, thread)
    assert [m.content for m in out["messages"] if m.type == "tool"] == ["s1 done", "s2 done"]
    written = {
        (c.config["configurable"]["checkpoint_ns"], c.config["configurable"]["checkpoint_id"]) for c in saver.list(None)
    }
    assert len(seen) == 2
    for configurable in seen:
        graph_ns = configurable["checkpoint_ns"].rpartition("|")[0]
        assert graph_ns.startswith("tools:"), configurable["checkpoint_ns"]
        assert set(configurable["checkpoint_map"].items()) <= written, (configurable["checkpoint_map"], written)
        assert graph_ns in configurable["checkpoint_map"]


class QueuedCoreStream(CoreStream):
    """A core's stream that also hands out what is queued already (`try_next`, as the
    core's own streams do), ``None`` when a read would wait."""

    def try_next(self) -> tuple | None:
        try:
            item = self.items.get_nowait()
        except queue.Empty:
            return None
        if item is None:
            # The stream's end is read by waiting for it, as the core's own `try_next` leaves it.
            self.items.put(None)
            return None
        return item


def test_what_the_core_queued_is_read_without_waiting_in_its_stream() -> None:
    """A node whose write the core has queued already takes it without a waiting read (the
    feed's lock is not let go, no GIL handoff); only the stream's end is waited for."""
    stream = QueuedCoreStream()
    for item in [*model_write(A, "a"), None]:
        stream.items.put(item)
    feed = feed_over(stream)
    assert feed.take_in(A, "model", {}, CONFIG).update == {"said": "a"}
    assert stream.reads == 0
    feed.drain()
    assert stream.reads == 1


def test_a_failure_the_core_queued_is_raised_by_the_node_that_reads_it() -> None:
    class Failing(QueuedCoreStream):
        def try_next(self) -> tuple | None:
            raise ValueError("the run failed")

    feed = feed_over(Failing())
    with pytest.raises(ValueError, match="the run failed"):
        feed.take_in(A, "model", {}, CONFIG)


def test_under_astream_what_the_core_queued_is_read_without_awaiting_its_stream() -> None:
    class AsyncQueued(AsyncCoreStream):
        def try_next(self) -> tuple | None:
            if self.items.empty() or self.items._queue[0] is None:  # type: ignore[attr-defined]
                return None
            return self.items.get_nowait()

    async def run() -> None:
        stream = AsyncQueued()
        for item in model_write(A, "a"):
            stream.items.put_nowait(item)
        feed = feed_over(stream)
        assert (await feed.atake_in(A, "model", {}, CONFIG)).update == {"said": "a"}
        assert stream.reads == 0
        stream.items.put_nowait(None)
        await feed.adrain()
        assert stream.reads == 1

    asyncio.run(run())
