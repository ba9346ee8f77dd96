"""deepagents_rs-only tests of the agent loop: result shape, ``name=``, concurrency (the GIL
is released while Rust works, parallel tool calls run at the same time) and cancellation.

Overlap is proven with barriers rather than wall-clock budgets: a tool waits until its
sibling has started too, so the test fails (BrokenBarrierError / TimeoutError from the
barrier) if the two never run at once, and passes as soon as they do.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from pathlib import Path

import deepagents_rs
import pytest
from langchain_core.messages import AIMessage, ToolMessage

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_models import ScriptedChatModel, ai_tool_calls

USER = {"messages": [{"role": "user", "content": "go"}]}
BARRIER_TIMEOUT = 10.0  # only reached when the property under test is broken


class Intervals:
    """Start/end timestamps of tool executions, by label."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spans: dict[str, list[float]] = {}

    def start(self, tag: str) -> str:
        """Record a start; returns the label: the tag, or ``tag#n`` for its n-th repeat."""
        with self.lock:
            label = tag if tag not in self.spans else f"{tag}#{sum(k.startswith(tag) for k in self.spans)}"
            self.spans[label] = [time.monotonic()]
            return label

    def end(self, label: str) -> None:
        with self.lock:
            self.spans[label].append(time.monotonic())

    def assert_overlap(self, a: str, b: str) -> None:
        (a0, a1), (b0, b1) = self.spans[a], self.spans[b]
        assert max(a0, b0) < min(a1, b1), f"{a}: {a0:.3f}-{a1:.3f}, {b}: {b0:.3f}-{b1:.3f} do not overlap"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_result_keys_and_classes():
    model = ScriptedChatModel([ai_tool_calls(("add", {"a": 1, "b": 2})), "3"])
    result = deepagents_rs.create_deep_agent(model=model, tools=[add]).invoke(USER)
    assert sorted(result) == ["files", "messages"]
    assert result["files"] == {}
    assert [type(m).__name__ for m in result["messages"]] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    tool_msg = result["messages"][2]
    assert (tool_msg.content, tool_msg.name, tool_msg.status, tool_msg.tool_call_id) == (
        "3",
        "add",
        "success",
        "call_0_0",
    )


async def test_ainvoke_result_keys():
    model = ScriptedChatModel(["hi"])
    result = await deepagents_rs.create_deep_agent(model=model).ainvoke(USER)
    assert sorted(result) == ["files", "messages"]
    assert result["messages"][-1].content == "hi"


def test_name_is_set_on_every_ai_message():
    """deepagents (create_agent: ``if name: output.name = name``) names every model reply,
    including tool-calling ones, and the model sees those names in its history."""
    model = ScriptedChatModel([ai_tool_calls(("add", {"a": 1, "b": 2})), "done"])
    agent = deepagents_rs.create_deep_agent(model=model, tools=[add], name="helper")
    result = agent.invoke(USER)
    assert [(m.type, m.name) for m in result["messages"]] == [
        ("human", None),
        ("ai", "helper"),
        ("tool", "add"),
        ("ai", "helper"),
    ]
    assert model.calls[1].messages[2].name == "helper"
    assert agent.name == "helper"


def test_name_overrides_the_models_own_name():
    model = ScriptedChatModel([AIMessage(content="x", name="model-chose-this")])
    result = deepagents_rs.create_deep_agent(model=model, name="helper").invoke(USER)
    assert result["messages"][-1].name == "helper"


def test_no_name_leaves_ai_messages_unnamed():
    model = ScriptedChatModel(["x"])
    result = deepagents_rs.create_deep_agent(model=model).invoke(USER)
    assert result["messages"][-1].name is None


def _waiting_tool(intervals: Intervals, barrier: threading.Barrier):
    def wait_for_sibling(tag: str) -> str:
        """Wait until the sibling tool runs too."""
        label = intervals.start(tag)
        barrier.wait(timeout=BARRIER_TIMEOUT)
        intervals.end(label)
        return f"ran {tag}"

    return wait_for_sibling


@pytest.mark.parametrize("shared_agent", [False, True], ids=["two-agents", "one-agent"])
def test_invoke_releases_the_gil_across_threads(shared_agent):
    """Two threads in ``invoke`` at once: each one's tool waits for the other's to start, so
    this only passes if a thread blocked in ``invoke`` lets the other run Python."""
    intervals = Intervals()
    tool = _waiting_tool(intervals, threading.Barrier(2))
    call = ai_tool_calls(("wait_for_sibling", {"tag": "x"}))
    # Both first model calls happen before either tool returns (the barrier), so a shared
    # script serves two tool calls, then two answers.
    shared = (
        deepagents_rs.create_deep_agent(model=ScriptedChatModel([call, call, "done", "done"]), tools=[tool])
        if shared_agent
        else None
    )
    results: dict[str, object] = {}

    def worker(tag: str) -> None:
        agent = shared or deepagents_rs.create_deep_agent(model=ScriptedChatModel([call, "done"]), tools=[tool])
        try:
            results[tag] = agent.invoke({"messages": [{"role": "user", "content": tag}]})
        except BaseException as exc:  # noqa: BLE001 - reported below
            results[tag] = exc

    threads = [threading.Thread(target=worker, args=(t,)) for t in ("t1", "t2")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=2 * BARRIER_TIMEOUT)
    assert not any(t.is_alive() for t in threads)
    for tag in ("t1", "t2"):
        assert isinstance(results[tag], dict), results[tag]
        assert [m.content for m in results[tag]["messages"][2:]] == ["ran x", "done"]
    intervals.assert_overlap("x", "x#1")


def test_parallel_tool_calls_overlap_under_invoke():
    intervals = Intervals()
    tool = _waiting_tool(intervals, threading.Barrier(2))
    script = [ai_tool_calls(("wait_for_sibling", {"tag": "a"}), ("wait_for_sibling", {"tag": "b"})), "done"]
    result = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script), tools=[tool]).invoke(USER)
    assert [m.content for m in result["messages"] if isinstance(m, ToolMessage)] == ["ran a", "ran b"]
    intervals.assert_overlap("a", "b")


async def test_parallel_sync_tool_calls_overlap_under_ainvoke():
    intervals = Intervals()
    tool = _waiting_tool(intervals, threading.Barrier(2))
    script = [ai_tool_calls(("wait_for_sibling", {"tag": "a"}), ("wait_for_sibling", {"tag": "b"})), "done"]
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script), tools=[tool])
    result = await agent.ainvoke(USER)
    assert [m.content for m in result["messages"] if isinstance(m, ToolMessage)] == ["ran a", "ran b"]
    intervals.assert_overlap("a", "b")


async def test_parallel_async_tool_calls_overlap_under_ainvoke():
    intervals = Intervals()
    barrier = asyncio.Barrier(2)

    async def wait_async(tag: str) -> str:
        """Wait until the sibling tool runs too."""
        intervals.start(tag)
        await asyncio.wait_for(barrier.wait(), BARRIER_TIMEOUT)
        intervals.end(tag)
        return f"ran {tag}"

    script = [ai_tool_calls(("wait_async", {"tag": "a"}), ("wait_async", {"tag": "b"})), "done"]
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script), tools=[wait_async])
    result = await agent.ainvoke(USER)
    assert [m.content for m in result["messages"] if isinstance(m, ToolMessage)] == ["ran a", "ran b"]
    intervals.assert_overlap("a", "b")


async def test_ainvoke_does_not_block_the_event_loop():
    """While the agent waits in a tool, other tasks on the same loop keep running."""
    started = asyncio.Event()
    release = asyncio.Event()

    async def gate() -> str:
        """Wait for the test to release the gate."""
        started.set()
        await asyncio.wait_for(release.wait(), BARRIER_TIMEOUT)
        return "released"

    script = [ai_tool_calls(("gate", {})), "done"]
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script), tools=[gate])
    task = asyncio.ensure_future(agent.ainvoke(USER))
    await asyncio.wait_for(started.wait(), BARRIER_TIMEOUT)
    assert not task.done()
    release.set()
    result = await asyncio.wait_for(task, BARRIER_TIMEOUT)
    assert result["messages"][2].content == "released"


def _hanging_agent(started: asyncio.Event, cancelled: asyncio.Event):
    async def hang() -> str:
        """Never finishes on its own."""
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "unreachable"

    model = ScriptedChatModel([ai_tool_calls(("hang", {})), "done"])
    return model, deepagents_rs.create_deep_agent(model=model, tools=[hang])


async def _cancel_leftovers() -> None:
    """Cancel tasks a broken cancellation left on the loop, so they don't leak into other tests."""
    current = asyncio.current_task()
    leftovers = [t for t in asyncio.all_tasks() if t is not current]
    for t in leftovers:
        t.cancel()
    await asyncio.gather(*leftovers, return_exceptions=True)


async def test_ainvoke_is_cancelled_by_wait_for_timeout():
    started, cancelled = asyncio.Event(), asyncio.Event()
    model, agent = _hanging_agent(started, cancelled)
    t0 = time.monotonic()
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(agent.ainvoke(USER), timeout=0.2)
        assert time.monotonic() - t0 < 5
        assert started.is_set()
        assert len(model.calls) == 1
    finally:
        await _cancel_leftovers()


async def test_ainvoke_cancellation_reaches_the_running_tool():
    """deepagents (LangGraph) cancels the tool's coroutine when ``ainvoke`` is cancelled."""
    started, cancelled = asyncio.Event(), asyncio.Event()
    _, agent = _hanging_agent(started, cancelled)
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(agent.ainvoke(USER), timeout=0.2)
        # A cancelled task gets its CancelledError within a few loop iterations.
        await asyncio.wait_for(cancelled.wait(), 2.0)
    finally:
        await _cancel_leftovers()


def test_a_raising_tool_keeps_the_state_so_far():
    def explode(x: int) -> int:
        """Fail."""
        raise ValueError(f"bad value {x}")

    model = ScriptedChatModel([ai_tool_calls(("explode", {"x": 1}, "c1")), "never"])
    agent = deepagents_rs.create_deep_agent(model=model, tools=[explode])
    with pytest.raises(ValueError, match="bad value 1") as info:
        agent.invoke(USER)
    state = info.value.partial_state
    assert [m.type for m in state["messages"]] == ["human", "ai"]
    assert state["messages"][1].tool_calls[0]["name"] == "explode"
    assert state["files"] == {}


def test_batch_and_abatch_run_every_input():
    barrier = threading.Barrier(2, timeout=10)

    def meet() -> str:
        """Wait for the other input's run: only concurrent runs get past."""
        barrier.wait()
        return "met"

    model = ScriptedChatModel([ai_tool_calls(("meet", {}, "m1")), ai_tool_calls(("meet", {}, "m2")), "one", "two"])
    agent = deepagents_rs.create_deep_agent(model=model, tools=[meet])
    results = agent.batch([{"messages": [("user", "a")]}, {"messages": [("user", "b")]}])
    assert sorted(r["messages"][-1].content for r in results) == ["one", "two"]
    assert [r["messages"][0].content for r in results] == ["a", "b"]
    model2 = ScriptedChatModel(["x", "y"])
    agent2 = deepagents_rs.create_deep_agent(model=model2)
    results = asyncio.run(agent2.abatch([{"messages": [("user", "a")]}, {"messages": [("user", "b")]}]))
    assert sorted(r["messages"][-1].content for r in results) == ["x", "y"]


def test_async_tool_may_invoke_another_agent_with_async_tools():
    """The nested blocking invoke runs its async tools on a loop of its own (one per depth),
    not on the loop its caller's tool is blocking."""

    async def inner_echo(text: str) -> str:
        """Echo."""
        return f"inner {text}"

    inner = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel([ai_tool_calls(("inner_echo", {"text": "x"}, "i1")), "inner done"]),
        tools=[inner_echo],
    )

    async def delegate(text: str) -> str:
        """Ask the inner agent."""
        result = inner.invoke({"messages": [("user", text)]})
        return result["messages"][2].content

    outer = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel([ai_tool_calls(("delegate", {"text": "x"}, "o1")), "outer done"]),
        tools=[delegate],
    )
    result = outer.invoke(USER)
    assert result["messages"][2].content == "inner x"


def test_with_config_sets_defaults_under_each_calls_config():
    model = ScriptedChatModel([ai_tool_calls(("add", {"a": 1, "b": 2}, "c1")), "never"] * 2)

    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    agent = deepagents_rs.create_deep_agent(model=model, tools=[add]).with_config({"recursion_limit": 2})
    with pytest.raises(deepagents_rs.GraphRecursionError, match="Recursion limit of 2"):
        agent.invoke(USER)
    # A call's own config wins.
    with pytest.raises(deepagents_rs.GraphRecursionError, match="Recursion limit of 3"):
        agent.invoke(USER, {"recursion_limit": 3})


def test_a_deepagents_rs_agent_as_a_compiled_subagent():
    inner = deepagents_rs.create_deep_agent(model=ScriptedChatModel(["inner answer"]))
    parent = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel([ai_tool_calls(("task", {"description": "x", "subagent_type": "s"}, "t1")), "done"]),
        subagents=[{"name": "s", "description": "S.", "runnable": inner}],
    )
    result = parent.invoke(USER)
    assert result["messages"][2].content == "inner answer"


def test_nested_invokes_through_sync_and_async_tools_get_free_loops():
    async def leaf(x: str) -> str:
        """Leaf."""
        return f"leaf {x}"

    inner = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel([ai_tool_calls(("leaf", {"x": "1"}, "l1")), "inner done"]), tools=[leaf]
    )

    def mid_sync(x: str) -> str:
        """Mid, sync."""
        return inner.invoke({"messages": [("user", x)]})["messages"][2].content

    mid = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel([ai_tool_calls(("mid_sync", {"x": "1"}, "m1")), "mid done"]), tools=[mid_sync]
    )

    async def outer_async(x: str) -> str:
        """Outer, async."""
        return mid.invoke({"messages": [("user", x)]})["messages"][2].content

    outer = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel([ai_tool_calls(("outer_async", {"x": "1"}, "o1")), "outer done"]), tools=[outer_async]
    )
    result = outer.invoke(USER)
    assert result["messages"][2].content == "leaf 1"


def test_batch_keeps_the_callers_contextvars():
    import contextvars

    var = contextvars.ContextVar("who", default="unset")

    def who() -> str:
        """Who calls."""
        return var.get()

    model = ScriptedChatModel([ai_tool_calls(("who", {}, "c1")), "ok", ai_tool_calls(("who", {}, "c2")), "ok"])
    agent = deepagents_rs.create_deep_agent(model=model, tools=[who])
    var.set("caller")
    results = agent.batch([USER])
    assert results[0]["messages"][2].content == "caller"


def test_batch_return_exceptions():
    def explode() -> str:
        """Fail."""
        raise ValueError("boom")

    model = ScriptedChatModel([ai_tool_calls(("explode", {}, "c1"))])
    agent = deepagents_rs.create_deep_agent(model=model, tools=[explode])
    (outcome,) = agent.batch([USER], return_exceptions=True)
    assert isinstance(outcome, ValueError) and str(outcome) == "boom"
