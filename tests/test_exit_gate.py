"""The exit gate: once the interpreter shuts down, the core's threads enter Python no more.

CPython 3.11 ends a thread that takes the GIL after finalization started with a forced unwind
that aborts the process when it crosses Rust frames; the core's `atexit` hook shuts a gate
first and waits for the threads inside Python to leave (`src/python/exit_gate.rs`). Each test
runs a process of its own: daemon threads loop runs (``invoke``, ``stream``, ``ainvoke``,
``astream``, each calling a tool) while the main thread returns. An atexit handler
registered before the package is imported runs after the core's hook: there, no tool is
called any more from the core's threads (a daemon's event loop may still run what it
had scheduled: pure Python, which CPython ends safely), and a run it starts itself still
finishes. The crash rate itself is ``tests/exit_probe.py``'s (too slow here).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The child's common part: `calls` notes each call of the tool, whether the core's own thread
# made it (a tokio thread: Python's `_DummyThread`), and `runs` counts the runs done by mode;
# `start_daemons()` starts two daemon threads per mode looping runs and returns once a run of
# every mode finished.
_COMMON = """
import asyncio, atexit, collections, sys, threading, time
sys.path.insert(0, {tests!r})
calls = []
runs = collections.Counter()

def agent_of():
    from deepagents_rs import create_deep_agent
    from exit_probe import turns

    def _echo(text: str) -> str:
        \"\"\"Echo the text back.\"\"\"
        calls.append(isinstance(threading.current_thread(), threading._DummyThread))
        return text
    return create_deep_agent(model=turns(), tools=[_echo])

INPUTS = {{"messages": [{{"role": "user", "content": "go"}}]}}

def start_daemons(agent):
    from exit_probe import loop

    modes = ("invoke", "stream", "ainvoke", "astream")
    for mode in modes:
        for _ in range(2):
            done = lambda mode=mode: runs.update([mode])
            threading.Thread(target=loop, args=(agent, mode, done), daemon=True).start()
    deadline = time.monotonic() + 120
    while not all(runs[m] for m in modes) and time.monotonic() < deadline:
        time.sleep(0.05)
"""


def _run(body: str) -> subprocess.CompletedProcess[str]:
    script = _COMMON.format(tests=str(HERE)) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False)


def test_daemon_runs_call_no_tool_after_the_gate_shuts() -> None:
    done = _run(
        """
        def after_gate():
            # Registered before the import: runs after the core's hook shut the gate.
            before = sum(calls)
            time.sleep(0.5)
            print("calls", before, sum(calls), flush=True)
        atexit.register(after_gate)
        start_daemons(agent_of())
        print("modes", sorted(runs), flush=True)
        """
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "modes ['ainvoke', 'astream', 'invoke', 'stream']", done.stdout
    _, before, after = lines[1].split()
    assert int(before) > 0
    assert before == after, "a core thread called a daemon run's tool after the exit gate shut"


def test_a_run_from_a_later_atexit_handler_finishes() -> None:
    done = _run(
        """
        agent = None

        def run_at_exit():
            # Runs after the core's hook shut the gate: its runs' threads go on all the same.
            out = agent.invoke(INPUTS)
            print("invoke", out["messages"][-1].content, flush=True)
            chunks = list(agent.stream(INPUTS, stream_mode="values"))
            print("stream", chunks[-1]["messages"][-1].content, flush=True)
            out = asyncio.run(agent.ainvoke(INPUTS))
            print("ainvoke", out["messages"][-1].content, flush=True)

            async def astream():
                return [c async for c in agent.astream(INPUTS, stream_mode="values")]
            print("astream", asyncio.run(astream())[-1]["messages"][-1].content, flush=True)
        atexit.register(run_at_exit)
        agent = agent_of()
        print("before", agent.invoke(INPUTS)["messages"][-1].content, flush=True)
        """
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["before done", "invoke done", "stream done", "ainvoke done", "astream done"]
