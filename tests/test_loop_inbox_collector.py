"""The cyclic collector across a drain of the loop's inbox (``src/python/loop_inbox.rs``).

Runs ending together under ``ainvoke`` have their results made in one drain on the loop's
thread: objects only, no garbage among them, made with the collector paused across all of
them (``collector_pause.rs``), then set on their futures with the collector as the user left
it. Without the drain's pause each result's messages end their own pause and the next young
collection walks them: one pass or more a result.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from typing import Any

import pytest
from deepagents_rs import create_deep_agent
from sim.anthropic import SimAnthropic, text

#: Runs ending in the same drain, and the history each result makes again (about five
#: tracked containers a message: one young collection's worth of allocations a result).
RUNS = 16
HISTORY = 200


def _in_drain() -> bool:
    """Whether the innermost Python frame is the loop running the inbox's ``drain``."""
    frame = sys._getframe(2)
    handle = frame.f_locals.get("self")
    callback = getattr(handle, "_callback", None)
    return (
        getattr(callback, "__name__", "") == "drain"
        and type(getattr(callback, "__self__", None)).__name__ == "LoopInbox"
    )


async def _runs_ending_together(sim: SimAnthropic, agent: Any, seen: list[bool]) -> list[Any]:
    """``RUNS`` runs that end while the loop's thread is busy: their results wait in
    the inbox and are made in one drain. ``seen`` gets ``gc.isenabled()`` in each run's done
    callback."""
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(HISTORY)]
    history.append({"role": "user", "content": "go"})
    tasks = [asyncio.ensure_future(agent.ainvoke({"messages": history})) for _ in range(RUNS)]
    for task in tasks:
        task.add_done_callback(lambda _t: seen.append(gc.isenabled()))
    # Each run started (its first step taken: the core's run spawned), then the loop's thread
    # busy (the GIL let go) while the runs end on tokio's workers.
    await asyncio.sleep(0)
    time.sleep(1.0)  # noqa: ASYNC251 (blocking the loop is the point)
    return await asyncio.gather(*tasks)


def _young_passes_in_drains(sim: SimAnthropic, seen: list[bool]) -> tuple[int, list[Any]]:
    passes = []

    def count(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 0 and _in_drain():
            passes.append(1)

    sim.script(*[text("done")] * RUNS)
    agent = create_deep_agent(model="anthropic:claude-sonnet-4-5")
    gc.callbacks.append(count)
    try:
        results = asyncio.run(_runs_ending_together(sim, agent, seen))
    finally:
        gc.callbacks.remove(count)
    return len(passes), results


def test_a_drains_results_cost_one_young_collection(sim: SimAnthropic) -> None:
    seen: list[bool] = []
    passes, results = _young_passes_in_drains(sim, seen)
    assert [len(r["messages"]) for r in results] == [HISTORY + 2] * RUNS
    assert all(r["messages"][-1].content == "done" for r in results)
    # One pass a result (16 or more) without the drain's pause; one after it (two drains
    # if a run ended late).
    assert passes <= 2, passes
    assert seen == [True] * RUNS


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_as_the_user_left_it(sim: SimAnthropic, enabled: bool) -> None:
    """On or off before the runs: the same in the futures' done callbacks and after."""
    seen: list[bool] = []
    (gc.enable if enabled else gc.disable)()
    try:
        _young_passes_in_drains(sim, seen)
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
    assert seen == [enabled] * RUNS
