"""The ids a checkpointed run's ``messages`` reducer remembers (`_messages_reducer.HistoryIds`)
are that run's alone: two runs stepping at once, in two threads or two asyncio tasks, never
use or replace each other's, and a run's memory dies with it.

A shared memory (one for the process) would be replaced by whichever run stepped last, so the
other run's next step would scan its whole history again (counted here as reads of message
ids), and it would keep the last run's history alive after that run ended."""

from __future__ import annotations

import asyncio
import gc
import struct
import sys
import threading
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _messages_reducer, _threads
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

#: How long a step waits for the other run's before the test counts as stuck (never reached
#: when the runs interleave as planned).
STUCK = 30.0


class Scans:
    """Counts the message ids the reducer reads while scanning a history, by thread and
    asyncio task."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.by_runner: dict[tuple, int] = {}
        self.lock = threading.Lock()

        def read(message: Any) -> Any:
            with self.lock:
                runner = _runner()
                self.by_runner[runner] = self.by_runner.get(runner, 0) + 1
            return message.id

        monkeypatch.setattr(_messages_reducer, "_message_id", read)

    def of_this_thread(self) -> int:
        with self.lock:
            return self.by_runner.get(_runner(), 0)


def _runner() -> tuple:
    try:
        task = asyncio.current_task()
    except RuntimeError:
        task = None
    return threading.get_ident(), id(task)


def _history(label: str, n: int) -> list:
    return [HumanMessage(f"{label}{i}", id=f"{label}{i}") for i in range(n)]


class _Run:
    """A run's steps as the thread graph steps them (`_threads._WithoutAmbient` around each),
    each reducing one new message onto the history the last one returned."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.stepping = _threads._WithoutAmbient()
        self.history: list | None = None
        self.steps = 0

    def step(self) -> None:
        with self.stepping:
            start = self.history if self.history is not None else _history(self.label, 50)
            self.steps += 1
            new = HumanMessage(f"{self.label} step {self.steps}", id=f"{self.label}-step-{self.steps}")
            self.history = _messages_reducer._messages_reducer(start, [[new]])


def test_runs_in_two_threads_keep_their_own_history_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    scans = Scans(monkeypatch)
    turn = {"a": threading.Event(), "b": threading.Event()}
    found: dict[str, Any] = {}

    def run(label: str, other: str) -> None:
        try:
            r = _Run(label)
            for i in range(3):
                if label == "b" or i > 0:
                    assert turn[label].wait(STUCK)
                    turn[label].clear()
                before = scans.of_this_thread()
                r.step()
                found.setdefault(label, []).append(scans.of_this_thread() - before)
                turn[other].set()
        except BaseException as exc:
            found[f"{label} failed"] = exc
            turn[other].set()
            raise

    threads = [threading.Thread(target=run, args=("a", "b")), threading.Thread(target=run, args=("b", "a"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(STUCK * 4)
    assert not any(k.endswith("failed") for k in found), found
    # Each run scans its history once (its first step); the other's steps in between (a
    # then b then a ...) do not make it scan again.
    assert found == {"a": [50, 0, 0], "b": [50, 0, 0]}


def test_runs_in_two_tasks_keep_their_own_history_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    scans = Scans(monkeypatch)

    async def main() -> dict[str, list[int]]:
        turn = {"a": asyncio.Event(), "b": asyncio.Event()}
        found: dict[str, list[int]] = {}

        async def run(label: str, other: str) -> None:
            r = _Run(label)
            for i in range(3):
                if label == "b" or i > 0:
                    await asyncio.wait_for(turn[label].wait(), STUCK)
                    turn[label].clear()
                before = scans.of_this_thread()
                # One step stays open across the other task's (as an `astream` step awaits).
                with r.stepping:
                    turn[other].set()
                    await asyncio.sleep(0)
                    start = r.history if r.history is not None else _history(label, 50)
                    r.steps += 1
                    new = HumanMessage(f"{label} {r.steps}", id=f"{label}-{r.steps}")
                    r.history = _messages_reducer._messages_reducer(start, [[new]])
                found.setdefault(label, []).append(scans.of_this_thread() - before)
            turn[other].set()

        await asyncio.gather(run("a", "b"), run("b", "a"))
        return found

    found = asyncio.run(main())
    assert found == {"a": [50, 0, 0], "b": [50, 0, 0]}


def test_only_the_stepping_thread_uses_a_runs_history_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Code the run calls on another thread in a copy of its context (a tool the core runs)
    reduces messages without the run's memory, and leaves it as it was."""
    import contextvars

    r = _Run("a")
    r.step()
    kept = r.history
    with r.stepping:
        context = contextvars.copy_context()
        elsewhere: list = []
        t = threading.Thread(
            target=lambda: elsewhere.append(
                context.run(_messages_reducer._messages_reducer, _history("x", 3), [[HumanMessage("y", id="y")]])
            )
        )
        t.start()
        t.join(STUCK)
    assert [m.id for m in elsewhere[0]] == ["x0", "x1", "x2", "y"]
    assert r.stepping.history.history is kept
    scans = Scans(monkeypatch)
    r.step()
    assert scans.of_this_thread() == 0


def test_a_known_historys_append_is_one_new_list_at_its_size() -> None:
    """A step appending to the history the run's reducer returned last makes the new history
    in one allocation (the history's pointers copied once, ``state + new``), not a copy
    then grown by a ``realloc`` that copies them again (which leaves spare room at the
    end); the history handed in is left as it was, and so it is when a write replaces a
    message it holds (that copies it first)."""
    r = _Run("a")
    r.step()
    # Four steps: a copy made at its size and then grown by one message is reallocated at
    # one of them at least (a list's room is counted in fours).
    for step in range(2, 6):
        before = r.history
        kept = list(before)
        r.step()
        after = r.history
        assert after is not before and before == kept
        assert after[:-1] == kept and after[-1].id == f"a-step-{step}"
        assert sys.getsizeof(after) == sys.getsizeof([]) + len(after) * struct.calcsize("P")
    with r.stepping:
        replaced = _messages_reducer._messages_reducer(after, [[HumanMessage("again", id="a0")]])
    assert after[0].content == "a0" and replaced[0].content == "again"
    assert replaced[1:] == after[1:]


@tool
def wait_for_the_other(label: str) -> str:
    """Waits until both runs are here."""
    BARRIER.wait(STUCK)
    return f"{label} went on"


BARRIER = threading.Barrier(2)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_concurrent_agent_runs_keep_their_own_history_ids(monkeypatch: pytest.MonkeyPatch, asynchronous: bool) -> None:
    """Two checkpointed agents' runs at once (both inside their tool step together): each
    run's memory holds only its own histories, and none outlives its run."""
    BARRIER.reset()
    kept: list[tuple[int, int, str]] = []
    lock = threading.Lock()
    keep = _messages_reducer.HistoryIds.keep

    def recording(self: _messages_reducer.HistoryIds, history: list, ids: set) -> None:
        with lock:
            kept.append((id(self), threading.get_ident(), history[0].content))
        keep(self, history, ids)

    monkeypatch.setattr(_messages_reducer.HistoryIds, "keep", recording)

    def agent(label: str) -> Any:
        model = ScriptedChatModel([ai_tool_calls(("wait_for_the_other", {"label": label}, f"call_{label}")), "done"])
        return deepagents_rs.create_deep_agent(model=model, tools=[wait_for_the_other], checkpointer=InMemorySaver())

    outs: dict[str, Any] = {}

    def run(label: str) -> None:
        request = {"messages": [("user", label)]}
        thread = {"configurable": {"thread_id": label}}
        a = agent(label)
        outs[label] = asyncio.run(a.ainvoke(request, thread)) if asynchronous else a.invoke(request, thread)

    threads = [threading.Thread(target=run, args=(label,)) for label in ("first", "second")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(STUCK * 4)
    for label in ("first", "second"):
        messages = outs[label]["messages"]
        assert [m.content for m in messages[-2:]] == [f"{label} went on", "done"]
    memories: dict[int, set[tuple[int, str]]] = {}
    for memory, thread, first in kept:
        memories.setdefault(memory, set()).add((thread, first))
    # Both runs' memories were used, each by one run on one thread.
    assert sorted(first for runs in memories.values() for _thread, first in runs) == ["first", "second"]
    assert all(len(runs) == 1 for runs in memories.values())
    outs.clear()
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, _messages_reducer.HistoryIds) and o.history]
    assert not [o for o in alive if o.history[0].content in ("first", "second")]
