"""``invoke`` callers whose runs end together get their results made in one batch
(``src/python/result_batch.rs``): the first caller to hold the GIL makes every queued result
under one pause of the collector, and each caller returns its own run's result.

The model is the simulated API in a process of its own (``benches/sim_async.py``), so the
runs end on tokio's workers while this test's main thread holds the GIL: the in-process
simulator would need the GIL to answer.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deepagents_rs import _core, create_deep_agent

SIM = Path(__file__).resolve().parent.parent / "benches" / "sim_async.py"
#: Callers, and how long the simulated API takes to answer each (their runs end meanwhile).
CALLERS = 8
LATENCY = 2.0


@pytest.fixture
def sim_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``sim_async.py`` answering every request with a final text (``--steps 1``)."""
    server = subprocess.Popen(
        [sys.executable, str(SIM), "--port", "0", "--latency", str(LATENCY), "--steps", "1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    try:
        line = server.stdout.readline()
        assert line.startswith("PORT "), line
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{line.split()[1]}")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
        yield
    finally:
        server.terminate()
        server.communicate(timeout=30)


def _hold_the_gil(seconds: float) -> None:
    """Runs Python on this thread for ``seconds`` without letting another thread take the GIL
    (a switch interval longer than that: no other thread asks for it meanwhile)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(seconds + 30)
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass
    finally:
        sys.setswitchinterval(interval)


def test_runs_ending_together_have_their_results_made_in_one_batch(sim_process: None) -> None:
    agent = create_deep_agent(model="anthropic:claude-sonnet-4-5")
    # The runtime and the connection pool started, outside what is looked at.
    agent.invoke({"messages": [{"role": "user", "content": "warm"}]})
    _core._result_threads()  # starts the record, drops any earlier
    results: dict[int, Any] = {}
    entered: list[int] = []

    def call(i: int) -> None:
        entered.append(i)
        results[i] = agent.invoke({"messages": [{"role": "user", "content": f"run {i}"}]})

    threads = [threading.Thread(target=call, args=(i,)) for i in range(CALLERS)]
    for t in threads:
        t.start()
    while len(entered) < CALLERS:
        time.sleep(0.01)
    # Each caller into the core's wait (its request sent; a second is ample on a loaded
    # machine, and its reply takes longer), then every run ends while this thread holds the
    # GIL: their states wait in the queue.
    time.sleep(1.0)
    _hold_the_gil(LATENCY + 1.0)
    for t in threads:
        t.join(timeout=60)
    assert sorted(results) == list(range(CALLERS))
    for i, result in results.items():
        assert [m.type for m in result["messages"]] == ["human", "ai"]
        assert result["messages"][0].content == f"run {i}"
        assert result["messages"][1].content == "done"
    # One caller made all of them (each made its own before: one entry a caller).
    made = _core._result_threads()
    assert [n for _thread, n in made] == [2 * CALLERS], made
