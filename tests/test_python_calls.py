"""The core's Python calls run on a few threads of their own, and a call that blocks does not
hold up the others (`src/python/python_calls.rs`).

Each Python call of a run (a sync tool, a LangChain model's ``invoke``, a result's
conversion) is queued for a drainer thread that runs the queued calls one after another
under one hold of the GIL, instead of taking a thread of tokio's blocking pool each. So the
tool calls of many concurrent runs run on a few threads, not on a thread per call at once;
and a call that blocks (a tool waiting for an event) has its drainer replaced, so the calls
queued behind it still run.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from deepagents_rs import _core, create_deep_agent
from fake_models import CallTimes
from langchain_core.messages import ToolMessage
from sim.anthropic import SimAnthropic, text, tool_use

#: Seconds: a run whose calls are stuck behind a blocked one would never end.
TIMEOUT = 120


def _ask(i: int) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": f"run {i}"}]}


def _spinner(seconds: float, started: threading.Event | None = None) -> Any:
    """A tool ``spin`` computing for ``seconds`` of its thread's CPU time, setting ``started`` (when
    given) first."""

    def spin(text: str) -> str:
        """Spin for a while."""
        if started is not None:
            started.set()
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass
        return text

    return spin


def _tool_threads_of_many_runs(mode: str) -> set[int]:
    threads: set[int] = set()
    lock = threading.Lock()

    def echo(text: str) -> str:
        """Echo the text back."""
        with lock:
            threads.add(threading.get_ident())
        return text

    agent = create_deep_agent(model=CallTimes(tool="echo"), tools=[echo])
    runs = 64
    if mode == "invoke":
        with ThreadPoolExecutor(max_workers=runs) as pool:
            results = list(pool.map(agent.invoke, [_ask(i) for i in range(runs)]))
    else:

        async def all_runs() -> list[Any]:
            return await asyncio.wait_for(asyncio.gather(*(agent.ainvoke(_ask(i)) for i in range(runs))), TIMEOUT)

        results = asyncio.run(all_runs())
    for result in results:
        assert result["messages"][-1].content == "done"
        assert sum(isinstance(m, ToolMessage) for m in result["messages"]) == 3
    return threads


def test_the_tool_calls_of_many_invoke_runs_share_a_few_threads() -> None:
    # 64 runs at once, each with its own executor of LangGraph's size: a blocking thread per
    # call ran them on 67 threads. A drainer replaced as stuck (a loaded machine can stall one
    # past the limit) adds a thread, so a few are allowed.
    threads = _tool_threads_of_many_runs("invoke")
    assert len(threads) <= 16, len(threads)


def test_the_tool_calls_of_many_ainvoke_runs_share_a_few_threads() -> None:
    threads = _tool_threads_of_many_runs("ainvoke")
    assert len(threads) <= 16, len(threads)


def test_a_blocked_tool_call_does_not_hold_up_the_others() -> None:
    """One run's tool waits until every other run has finished: the others' calls, queued
    behind it, must run meanwhile (its drainer is replaced), or nothing ends."""
    others_done = threading.Event()

    def wait(text: str) -> str:
        """Wait for the other runs."""
        # Blocks in Python, releasing the GIL, as a tool waiting on I/O does.
        return "others done" if others_done.wait(TIMEOUT) else "timed out"

    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    waiting = create_deep_agent(model=CallTimes(tool="wait", times=1), tools=[wait])
    quick = create_deep_agent(model=CallTimes(tool="echo"), tools=[echo])
    _started, replaced_before, _alive = _core._python_calls_stats()
    with ThreadPoolExecutor(max_workers=17) as pool:
        blocked = pool.submit(waiting.invoke, _ask(-1))
        results = list(pool.map(quick.invoke, [_ask(i) for i in range(16)]))
        others_done.set()
        first = blocked.result(timeout=TIMEOUT)
    assert all(r["messages"][-1].content == "done" for r in results)
    assert first["messages"][2].content == "others done"
    _started, replaced_after, _alive = _core._python_calls_stats()
    assert replaced_after > replaced_before


def test_a_nested_call_is_replaced_when_its_drainer_was_slow_to_wake() -> None:
    """A drainer woken for a turn may take longer than the watchdog's linger to run (a loaded
    machine). The watchdog must not fall asleep meanwhile: the drainer's first job here is a
    tool that runs another agent and waits for it, and that agent's calls queue behind it;
    only the watchdog's replacement runs them. A watchdog asleep left the run, and every call
    after it, hung (seen under load in the whole suite). The delay stands in for the slow
    wake-up (0.3 s, longer than the 0.2 s linger), on every turn."""

    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    inner = create_deep_agent(model=CallTimes(tool="echo", times=1), tools=[echo])

    def nest(text: str) -> str:
        """Ask another agent."""
        return inner.invoke(_ask(0))["messages"][-1].content

    outer = create_deep_agent(model=CallTimes(tool="nest", times=1), tools=[nest])
    # Idle drainers exist (a turn goes to one of them, not to a new thread).
    inner.invoke(_ask(1))
    _core._delay_python_call_turns_for_tests(0.3)
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        result = pool.submit(outer.invoke, _ask(2)).result(timeout=60)
    finally:
        _core._delay_python_call_turns_for_tests(0)
        # A hung run would hold the pool's thread for good: fail, do not wait for it.
        pool.shutdown(wait=False)
    assert result["messages"][2].content == "done"
    assert result["messages"][-1].content == "done"


def test_the_calls_time_is_counted() -> None:
    """``_core._call_timing`` (what ``benches/concurrency.py`` reports): each tool call is a
    job on a drainer, its CPU counted within its time; a thread blocked in ``invoke`` (not the
    main thread) is counted once when it takes the GIL back."""
    burn = 0.005
    spin = _spinner(burn)
    agent = create_deep_agent(model=CallTimes(tool="spin", times=3), tools=[spin])
    before = _core._call_timing(True)
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            result = pool.submit(agent.invoke, _ask(0)).result(timeout=TIMEOUT)
    finally:
        after = _core._call_timing(False)
    assert result["messages"][-1].content == "done"
    grew = {key: after[key] - before[key] for key in after}
    # The three tool calls, and the model's calls (a LangChain model runs as a Python call too).
    assert grew["jobs"] >= 3, grew
    assert grew["job_cpu_ns"] >= 3 * burn * 1e9, grew
    assert grew["job_ns"] >= grew["job_cpu_ns"], grew
    assert grew["caller_reattaches"] >= 1, grew


def test_the_calls_time_is_not_counted_unless_asked() -> None:
    """Counting is off by default (it reads clocks at every call): runs leave the counts as
    they were until a bench or test switches it on."""

    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    agent = create_deep_agent(model=CallTimes(tool="echo", times=3), tools=[echo])
    before = _core._call_timing()
    with ThreadPoolExecutor(max_workers=1) as pool:
        result = pool.submit(agent.invoke, _ask(0)).result(timeout=TIMEOUT)
    assert result["messages"][-1].content == "done"
    assert _core._call_timing() == before


def test_a_computing_call_keeps_its_drainer_and_a_blocked_one_does_not() -> None:
    """The watchdog replaces a drainer whose call sleeps (its CPU clock still), not one whose
    call computes (under the 50 ms of CPU after which a computing call is replaced too): a
    call spinning 30 ms of CPU while other runs' calls wait is not replaced, one sleeping
    60 ms is. Eight quick runs start once the slow call has, so their calls queue behind it."""
    started = threading.Event()
    spin = _spinner(0.03, started)

    def nap(text: str) -> str:
        """Sleep for a while."""
        started.set()
        time.sleep(0.06)
        return text

    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    quick = create_deep_agent(model=CallTimes(tool="echo", times=4), tools=[echo])

    def replaced_during(tool: Any) -> int:
        slow = create_deep_agent(model=CallTimes(tool=tool.__name__, times=1), tools=[tool])
        started.clear()
        _started, before, _alive = _core._python_calls_stats()
        with ThreadPoolExecutor(max_workers=9) as pool:
            first = pool.submit(slow.invoke, _ask(-1))
            assert started.wait(TIMEOUT)
            results = list(pool.map(quick.invoke, [_ask(i) for i in range(8)]))
            assert first.result(timeout=TIMEOUT)["messages"][-1].content == "done"
        assert all(r["messages"][-1].content == "done" for r in results)
        _started, after, _alive = _core._python_calls_stats()
        return after - before

    assert replaced_during(nap) >= 1
    assert replaced_during(spin) == 0


def _watchdog_wakes() -> int:
    """How many times the queue's watchdog thread (``dars-python-watch``) went to sleep and
    woke, since it started (0 before it did)."""
    for task in Path("/proc/self/task").iterdir():
        try:
            if (task / "comm").read_text().strip() != "dars-python-wat":  # 15 characters kept
                continue
            status = (task / "status").read_text()
        except OSError:
            continue
        return int(status.split("voluntary_ctxt_switches:")[1].split()[0])
    return 0


@pytest.mark.skipif(sys.platform != "linux", reason="reads the threads' counts in /proc")
def test_one_run_at_a_time_never_wakes_the_watchdog(sim: SimAnthropic) -> None:
    """A run alone hands each tool call to an idle drainer: no call ever waits behind another,
    so the watchdog, which only has work then, sleeps through the run. It used to be woken at
    every call and tick every 2 ms while any drainer was busy, a wake-up of its thread per
    step and more (a fiftieth of a step's CPU)."""

    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    steps = 40
    calls = [tool_use(("echo", {"text": f"step {i}"}, f"toolu_{i}")) for i in range(steps)]
    agent = create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[echo])
    sim.script(*calls, text("done"))
    agent.invoke({"messages": [{"role": "user", "content": "echo"}]})
    # Past the watchdog's linger (0.2 s) after any earlier test's calls: asleep by now.
    time.sleep(0.5)
    before = _watchdog_wakes()
    sim.script(*calls, text("done"))
    result = agent.invoke({"messages": [{"role": "user", "content": "echo"}]})
    woke = _watchdog_wakes() - before
    assert result["messages"][-1].content == "done"
    assert sum(isinstance(m, ToolMessage) for m in result["messages"]) == steps
    # A call can race its drainer's return to the queue (then the watchdog wakes, finds it
    # taken, and sleeps again): a few, not one per step.
    assert woke <= 5, woke


@pytest.mark.skipif(sys.platform != "linux", reason="reads the threads' counts in /proc")
def test_the_watchdog_looks_no_more_often_than_a_job_could_be_found_stuck() -> None:
    """While calls wait behind a busy drainer, and for its linger (0.2 s) after, the watchdog
    looks at the drainers. A drainer's job is found stuck only `STUCK` (10 ms) after a look at
    that job, so it looks every 2 to 5 ms (a job started since its last look is unseen), not
    every 2 ms: under a thousand runs' calls, waiting behind each other for the whole run, a
    look every 2 ms was 3,500 wake-ups of its thread a run. Here a call computes for 40 ms
    (under the 50 ms after which it is replaced) while eight runs' calls wait behind it."""
    started = threading.Event()
    spin = _spinner(0.04, started)

    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    quick = create_deep_agent(model=CallTimes(tool="echo", times=4), tools=[echo])
    slow = create_deep_agent(model=CallTimes(tool="spin", times=1), tools=[spin])
    # Past the linger of any earlier test's calls: asleep by now.
    time.sleep(0.5)
    before = _watchdog_wakes()
    begun = time.perf_counter()
    with ThreadPoolExecutor(max_workers=9) as pool:
        first = pool.submit(slow.invoke, _ask(-1))
        assert started.wait(TIMEOUT)
        results = list(pool.map(quick.invoke, [_ask(i) for i in range(8)]))
        assert first.result(timeout=TIMEOUT)["messages"][-1].content == "done"
    busy = time.perf_counter() - begun
    # The linger runs out, and the watchdog sleeps until a call waits again.
    time.sleep(0.5)
    woke = _watchdog_wakes() - before
    assert all(r["messages"][-1].content == "done" for r in results)
    # A look every 2 ms is about (busy + 0.2) / 0.002 wake-ups (139 seen at busy 0.19 s); one
    # every 5 ms, 40% of that.
    assert woke <= (busy + 0.2) / 0.004, (woke, busy)
