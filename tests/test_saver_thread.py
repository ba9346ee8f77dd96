"""The thread graph's saver thread (`_saver_thread`): its calls run in order on one thread per
run, taken from threads that outlive the runs; a call held for the next one goes with it (a
step's writes with its checkpoint, under ``invoke``), and every call made is done, and the
first failure raised, when the run's loop closes."""

from __future__ import annotations

import queue
import threading
import time
import types
from collections.abc import Iterator
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _saver_thread
from fake_models import ScriptedChatModel
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from thread_support import THREAD, my_tool, script


def _saver_threads(saver: Any) -> list[threading.Thread]:
    """Records the thread of each ``put`` / ``put_writes`` the saver gets (the thread objects
    themselves: an ident or an address may be reused once a thread is gone)."""
    seen: list[threading.Thread] = []
    for name in ("put", "put_writes"):
        inner = getattr(saver, name)

        def call(*args: Any, inner: Any = inner) -> Any:
            seen.append(threading.current_thread())
            return inner(*args)

        setattr(saver, name, call)
    return seen


def test_runs_one_after_another_reuse_one_saver_thread() -> None:
    saver = InMemorySaver()
    seen = _saver_threads(saver)
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=saver)
    agent.invoke({"messages": [("user", "go")]}, THREAD)
    first = set(seen)
    agent.invoke({"messages": [("user", "again")]}, THREAD)
    assert len(seen) > len(first) > 0
    # One thread for both runs (a thread started per run, as before, gave two).
    assert len(set(seen)) == 1, set(seen)
    assert seen[0].name == "deepagents-rs-saver"
    assert seen[0].daemon


def test_runs_at_once_each_have_a_saver_thread_of_their_own() -> None:
    """Two runs in two threads, both inside a tool at once: neither's saver calls wait behind
    the other's."""
    barrier = threading.Barrier(2, timeout=30)

    @tool
    def meet(x: int) -> str:
        """Wait for the other run."""
        barrier.wait()
        return str(x)

    from fake_models import ai_tool_calls

    seen: dict[int, list[threading.Thread]] = {}
    errors: list[BaseException] = []

    def run(i: int) -> None:
        saver = InMemorySaver()
        seen[i] = _saver_threads(saver)
        model = ScriptedChatModel([ai_tool_calls(("meet", {"x": i})), "done"])
        agent = deepagents_rs.create_deep_agent(model=model, tools=[meet], checkpointer=saver)
        try:
            agent.invoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": f"t{i}"}})
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    runs = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in runs:
        t.start()
    for t in runs:
        t.join(60)
    assert not errors, errors
    assert seen[0] and seen[1]
    assert set(seen[0]).isdisjoint(seen[1])


def test_a_held_call_goes_with_the_next_one_and_at_close() -> None:
    order: list[str] = []
    with _saver_thread.SaverThread() as calls:
        held = calls.hold(order.append, "writes")
        # Nothing wakes the thread for a held call.
        time.sleep(0.05)
        assert not held.done() and order == []
        calls.submit(order.append, "checkpoint").result(10)
        assert held.done() and order == ["writes", "checkpoint"]
        last = calls.hold(order.append, "last writes")
    # Closing sends what is held, and waits for it.
    assert last.done() and order == ["writes", "checkpoint", "last writes"]


def test_closing_raises_the_first_failure_once_every_call_is_done() -> None:
    order: list[str] = []

    def fail(what: str) -> None:
        order.append(what)
        raise OSError(what)

    calls = _saver_thread.SaverThread()
    first = calls.submit(fail, "first")
    second = calls.hold(fail, "second")
    calls.submit(order.append, "after")
    with pytest.raises(OSError, match="first"):
        calls.__exit__(None, None, None)
    assert order == ["first", "second", "after"]
    assert isinstance(first.exception(), OSError) and isinstance(second.exception(), OSError)


class _RecordingQueue(queue.SimpleQueue):
    """A saver thread's queue recording what each batch handed to it holds."""

    batches: list[list[str]]

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        if item is not None:
            self.batches.append([_call_name(job[3]) for job in item])
        super().put(item, block, timeout)


def _call_name(fn: Any) -> str:
    if fn is None:
        return "close"
    name = getattr(fn, "__name__", "")
    return "put" if name == "_checkpointer_put_after_previous" else "put_writes" if "put_writes" in name else name


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """The batches the saver threads started meanwhile get (none is taken from the pool);
    those threads end with the test."""
    recorded: list[list[str]] = []
    made: list[_RecordingQueue] = []

    class Recording(_RecordingQueue):
        batches = recorded

        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(_saver_thread, "_idle", [])
    monkeypatch.setattr(_saver_thread, "queue", types.SimpleNamespace(SimpleQueue=Recording))
    yield recorded
    for jobs in made:
        jobs.put(None)


def test_an_invoke_sends_each_steps_writes_with_its_checkpoint(batches: list[list[str]]) -> None:
    """A step's one task's ``put_writes`` reaches the saver thread with the step's ``put``:
    one wake of the thread a step, not two."""
    agent = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=InMemorySaver()
    )
    agent.invoke({"messages": [("user", "go")]}, THREAD)
    with_checkpoint = [b for b in batches if b == ["put_writes", "put"]]
    # The model's step and the first tool's (the second step of tools has two tasks).
    assert len(with_checkpoint) >= 3, batches
    assert all(b[-1] in ("put", "put_writes", "close") for b in batches)


def test_a_stream_sends_each_tasks_writes_when_it_finishes(batches: list[list[str]]) -> None:
    """Under ``stream`` the caller's code runs between a step's chunks: a finished task's
    writes go to the saver at once, as LangGraph sends them, not with the step's checkpoint
    (a run killed while the caller holds a chunk does not run that task again)."""
    agent = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=InMemorySaver()
    )
    for _ in agent.stream({"messages": [("user", "go")]}, THREAD):
        pass
    assert ["put_writes", "put"] not in batches, batches
    assert ["put_writes"] in batches


def test_a_saver_calls_outcome_is_waited_for_set_and_raised() -> None:
    """`SaverCall`: ``result()`` waits for the saver's thread to set it (or times out), then
    gives the value or raises the call's failure, as a ``concurrent.futures.Future`` does."""
    call = _saver_thread.SaverCall()
    assert not call.done()
    with pytest.raises(TimeoutError):
        call.result(0.01)
    threading.Timer(0.05, call.set_result, ("saved",)).start()
    assert call.result(10) == "saved" and call.done() and call.exception() is None
    # Set already: every later wait returns at once.
    assert call.result() == "saved"
    failed = _saver_thread.SaverCall()
    threading.Timer(0.05, failed.set_exception, (OSError("disk"),)).start()
    with pytest.raises(OSError, match="disk"):
        failed.result(10)
    assert isinstance(failed.exception(), OSError)
    with _saver_thread.SaverThread() as calls:
        held = calls.call(len, ("ab",), hold=True)
        assert calls.call(len, ("abc",)).result(10) == 3
        assert held.result(0) == 2


def test_a_plain_steps_saver_calls_make_no_futures(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain step's ``put_writes`` and ``put`` go to the saver's thread as `SaverCall`s: a
    ``concurrent.futures.Future`` (a ``Condition`` made on the calling thread, a
    ``notify_all`` on the saver's) is made only for the calls LangGraph's own code submits
    (a step of several tasks, the run's close), not two per step; the thread still gets
    every call, and a ``durability="sync"`` run waits for each ``put`` through it."""
    import concurrent.futures

    made: list[int] = []
    init = concurrent.futures.Future.__init__

    def counted(self: Any) -> None:
        made.append(1)
        init(self)

    saver = InMemorySaver()
    seen = _saver_threads(saver)
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=saver)
    monkeypatch.setattr(concurrent.futures.Future, "__init__", counted)
    agent.invoke({"messages": [("user", "go")]}, THREAD, durability="sync")
    monkeypatch.undo()
    puts = len(seen)
    assert puts >= 8, seen
    # The step of two tool tasks (LangGraph's runner: its futures, two writes' calls), and
    # the closing mark; every plain step's two calls made none (they made 2 each before).
    assert len(made) <= 6, (len(made), puts)
    assert len(agent.get_state(THREAD).values["messages"]) > 2
