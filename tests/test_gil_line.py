"""Many runs waiting for the GIL at once, nested runs among them.

The binding lets only a few of its threads wait for the GIL at a time (the others wait in
line in Rust: `src/python/runtime_threads.rs`, `GIL_WAITERS`), since CPython 3.11's GIL
hand-over costs every waiter a futex call on one mutex each time its wait times out. A
thread gives its place back as soon as it has the GIL, and a thread that already holds it
(a tool running an agent of its own: `invoke` called from Python, on a thread of the
binding) takes no place: otherwise a place held by a thread that waits for another run
could leave the threads that run need waiting for it. Here more `invoke` runs than places
run at once, each of whose tool calls runs an inner agent with a tool of its own, while
the tools keep the GIL busy; every run must finish, with its answer.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from deepagents_rs import create_deep_agent
from fake_models import CallTimes

#: More runs than places in the line (two), and than LangGraph's executor's workers.
RUNS = 24
#: Seconds: a run stuck in the line would never end; these end in a few seconds.
TIMEOUT = 120


def _busy(text: str) -> str:
    # Pure Python for a while: the GIL stays taken, so the other runs' threads queue for it.
    total = 0
    for k in range(20_000):
        total += k
    return f"{text} {total}"


def echo(text: str) -> str:
    """Echo the text back."""
    return _busy(text)


def _outer_agent() -> Any:
    inner = create_deep_agent(model=CallTimes(tool="echo", times=1), tools=[echo])

    def nested(text: str) -> str:
        """Ask the inner agent."""
        # `invoke` from a thread of the binding that holds the GIL: a nested run.
        result = inner.invoke({"messages": [{"role": "user", "content": _busy(text)}]})
        return result["messages"][-1].content

    return create_deep_agent(model=CallTimes(tool="nested", times=1), tools=[nested])


def _check(result: dict) -> None:
    messages = result["messages"]
    assert [type(m).__name__ for m in messages] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    # The tool's answer is the inner run's.
    assert messages[2].content == "done"
    assert messages[-1].content == "done"


def test_many_invoke_runs_with_nested_runs_all_finish() -> None:
    agent = _outer_agent()
    with ThreadPoolExecutor(max_workers=RUNS) as pool:
        futures = [
            pool.submit(agent.invoke, {"messages": [{"role": "user", "content": f"run {i}"}]}) for i in range(RUNS)
        ]
        results = [f.result(timeout=TIMEOUT) for f in futures]
    for result in results:
        _check(result)


def test_many_ainvoke_runs_with_nested_runs_all_finish() -> None:
    agent = _outer_agent()

    async def all_runs() -> list[Any]:
        runs = (agent.ainvoke({"messages": [{"role": "user", "content": f"run {i}"}]}) for i in range(RUNS))
        return await asyncio.wait_for(asyncio.gather(*runs), TIMEOUT)

    for result in asyncio.run(all_runs()):
        _check(result)
