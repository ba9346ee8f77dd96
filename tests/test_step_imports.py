"""A step of a checkpointed run runs no import in deepagents_rs' code, on any thread.

An import statement (or the core's `py.import`) costs a trip through Python's import
machinery at each call, a microsecond or more with its formatted ``AttributeError``: names a
step needs are imported once, at the module's load or at their first use, and kept. Every
import is counted (``builtins.__import__`` is what both go through once replaced) by where it
is asked for: the Python frame that asks, or the innermost Python frame under the core's call.
Two runs of the same agent, of 3 and of 6 model turns, must ask for the same imports: what a
run asks for once (its first-use caches, filled by a warm-up run first) is not per step.

A plain ``invoke``'s own entry (config, tracing, loop and host set-up) runs at every call: a
warm one asks for no import at all, and raises (and catches) no exception in our code, as
``asyncio.get_running_loop`` did outside a loop.
"""

from __future__ import annotations

import asyncio
import builtins
import collections
import sys
import threading
from pathlib import Path
from typing import Any

import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from sim.anthropic import SimAnthropic, text, tool_use

PACKAGE = str(Path(deepagents_rs.__file__).parent)
SHORT, LONG = 3, 6


@tool
def echo(text: str) -> str:
    """Echo the given text back unchanged."""
    return text


def _asker() -> str:
    """``file:function`` of the frame that asked for an import, or of the innermost Python
    frame under the core's call ("(no Python frame)" on a thread running none)."""
    try:
        frame = sys._getframe(2)
    except ValueError:
        return "(no Python frame)"
    return f"{frame.f_code.co_filename}:{frame.f_code.co_name}"


class Imports:
    """The imports deepagents_rs' code asks for while ``on``, by asker and module, on every
    thread."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.on = False
        self.seen: collections.Counter[tuple[str, str]] = collections.Counter()
        self._lock = threading.Lock()
        real = builtins.__import__

        def counting(name: str, *args: Any, **kwargs: Any) -> Any:
            if self.on:
                asker = _asker()
                if asker.startswith((PACKAGE, "(")):
                    with self._lock:
                        self.seen[(asker.removeprefix(PACKAGE), name)] += 1
            return real(name, *args, **kwargs)

        monkeypatch.setattr(builtins, "__import__", counting)

    def of(self, run: Any) -> collections.Counter[tuple[str, str]]:
        self.seen = collections.Counter()
        self.on = True
        try:
            run()
        finally:
            self.on = False
        return self.seen


def _per_step(imports: Imports, agent: Any, script: Any, asynchronous: bool) -> dict:
    """What the longer run asked for beyond the shorter one (nothing when no step imports)."""
    counts = []
    for n, turns in enumerate((SHORT, SHORT, LONG)):
        script(turns)
        config = {"configurable": {"thread_id": f"t{n}"}}

        def run(config: dict = config, turns: int = turns) -> None:
            prompt = {"messages": [{"role": "user", "content": "go"}]}
            if asynchronous:
                out = asyncio.run(agent.ainvoke(prompt, config))
            else:
                out = agent.invoke(prompt, config)
            assert len(out["messages"]) == 2 * turns + 2

        counts.append(imports.of(run))
    # The first run fills what is kept after a first use; the second and third differ by steps.
    return {key: count for key, count in (counts[2] - counts[1]).items()}


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_a_native_checkpointed_step_imports_nothing(
    sim: SimAnthropic, monkeypatch: pytest.MonkeyPatch, asynchronous: bool
) -> None:
    def script(turns: int) -> None:
        sim.script(*(tool_use(("echo", {"text": f"step {i}"})) for i in range(turns)), text("done"))

    agent = deepagents_rs.create_deep_agent(
        model="anthropic:claude-sonnet-4-5", tools=[echo], checkpointer=InMemorySaver()
    )
    imports = Imports(monkeypatch)
    per_step = _per_step(imports, agent, script, asynchronous)
    assert not per_step, sorted(per_step.items())


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_a_scripted_checkpointed_step_imports_nothing(monkeypatch: pytest.MonkeyPatch, asynchronous: bool) -> None:
    # A LangChain model (the calls go through the core's Python threads, not its client).
    replies = [
        reply
        for turns in (SHORT, SHORT, LONG)
        for reply in [*(ai_tool_calls(("echo", {"text": f"step {i}"})) for i in range(turns)), "done"]
    ]
    agent = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel(replies), tools=[echo], checkpointer=InMemorySaver()
    )
    imports = Imports(monkeypatch)
    per_step = _per_step(imports, agent, lambda _turns: None, asynchronous)
    assert not per_step, sorted(per_step.items())


def test_a_warm_plain_invoke_imports_and_raises_nothing(sim: SimAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = deepagents_rs.create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[echo])
    prompt = {"messages": [{"role": "user", "content": "go"}]}

    def run() -> None:
        sim.script(tool_use(("echo", {"text": "step"})), text("done"))
        assert len(agent.invoke(prompt)["messages"]) == 4

    run()  # the first run fills what is kept after a first use
    imports = Imports(monkeypatch)
    raised: list[str] = []

    def trace(frame: Any, event: str, arg: Any) -> Any:
        if event == "exception" and frame.f_code.co_filename.startswith(PACKAGE):
            raised.append(f"{frame.f_code.co_filename.removeprefix(PACKAGE)}:{frame.f_code.co_name} {arg[0].__name__}")
        return trace

    sys.settrace(trace)
    try:
        # Asked on the calling thread only: the core's Python threads (no Python frame under
        # them) look `run_base` up at each run's first plain tool call, on purpose (the parity
        # tests replace it).
        seen = {key: n for key, n in imports.of(run).items() if not key[0].startswith("(")}
    finally:
        sys.settrace(None)
    assert not seen, sorted(seen.items())
    assert raised == []
