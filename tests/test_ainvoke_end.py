"""The end of a run under ``ainvoke``: its result is made on the event loop's own thread.

The loop's thread holds the GIL to resume the awaiting coroutine anyway, so the core hands it
the run's outcome (``src/python/loop_inbox.rs``'s ``loop_future``) and it makes the result's
message objects, or the failure's ``partial_state``, and sets the future, in one go: not on
the core's Python-calling threads, not on a thread that takes the GIL only to schedule the
future's completion, and never on a tokio worker.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from deepagents_rs import _convert, _core, create_deep_agent
from sim.anthropic import SimAnthropic, text, tool_use


def echo(text: str) -> str:
    """Echo the text back."""
    return text


def explode(text: str) -> str:
    """Fail."""
    raise ValueError(f"bad value {text}")


@pytest.fixture
def made_on(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The threads that made message objects of a core message (``_convert.from_core``)."""
    threads: list[int] = []
    original = _convert.from_core

    def from_core(d: dict) -> Any:
        threads.append(threading.get_ident())
        return original(d)

    monkeypatch.setattr(_convert, "from_core", from_core)
    return threads


@pytest.fixture(autouse=True)
def _fresh_result_threads() -> None:
    """The core's record of the threads that made result messages starts empty."""
    _core._result_threads()


async def _run(agent: Any) -> tuple[Any, int]:
    """The run's result (or exception) and the ident of the loop's thread."""
    try:
        out = await agent.ainvoke({"messages": [{"role": "user", "content": "go"}]})
    except ValueError as exc:
        out = exc
    return out, threading.get_ident()


def test_the_result_is_made_on_the_loops_thread(sim: SimAnthropic, made_on: list[int]) -> None:
    sim.script(tool_use(("echo", {"text": "a"}, "toolu_1")), tool_use(("echo", {"text": "b"}, "toolu_2")), text("done"))
    agent = create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[echo])
    _core._gil_on_workers()
    result, loop_thread = asyncio.run(_run(agent))
    messages = result["messages"]
    assert [m.type for m in messages] == ["human", "ai", "tool", "ai", "tool", "ai"]
    assert [m.content for m in messages if m.type == "tool"] == ["a", "b"]
    assert messages[-1].content == "done"
    # Every message is made by the core (`result_objects.rs`), none by `from_core`: the
    # core's own record says where, all six in one go on the loop's thread.
    assert made_on == []
    assert _core._result_threads() == [(loop_thread, 6)]
    assert _core._gil_on_workers() == []


def test_a_failures_partial_state_is_made_on_the_loops_thread(sim: SimAnthropic, made_on: list[int]) -> None:
    sim.script(tool_use(("explode", {"text": "x"}, "toolu_1")), text("never"))
    agent = create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[explode])
    _core._gil_on_workers()
    error, loop_thread = asyncio.run(_run(agent))
    assert isinstance(error, ValueError)
    assert str(error) == "bad value x"
    state = error.partial_state
    assert [m.type for m in state["messages"]] == ["human", "ai"]
    assert state["messages"][1].tool_calls[0]["name"] == "explode"
    # A failure's state is written as message dicts, made into objects by `from_core`: both
    # on the loop's thread (so this probe sees them), none by the core's result maker.
    assert made_on == [loop_thread, loop_thread]
    assert _core._result_threads() == []
    # The partial state was made with the GIL taken on a tokio worker before; and the tool's
    # error was asked there whether it is LangGraph's interrupt (`tools.rs`' `is_pause_error`),
    # now told where it was raised (`errors.rs`' `Raised`).
    assert _core._gil_on_workers() == []


def test_many_runs_ending_together_each_get_their_own_result(sim: SimAnthropic) -> None:
    """The ends of runs finishing at once reach the loop together (one drain of its inbox):
    each future gets its own run's result."""
    n = 20
    sim.script(*(text(f"reply {i}") for i in range(n)))
    agent = create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[echo])

    async def all_runs() -> list[Any]:
        return await asyncio.gather(
            *(agent.ainvoke({"messages": [{"role": "user", "content": f"run {i}"}]}) for i in range(n))
        )

    results = asyncio.run(all_runs())
    assert [r["messages"][0].content for r in results] == [f"run {i}" for i in range(n)]
    assert sorted(r["messages"][-1].content for r in results) == sorted(f"reply {i}" for i in range(n))
    # `asyncio.run`'s loop runs on this thread: it made all 40.
    assert _core._result_threads() == [(threading.get_ident(), 2 * n)]
