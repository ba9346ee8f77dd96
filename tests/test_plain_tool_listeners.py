"""A plain tool call (``_plain_tool_calls``) looks up once a run whether anything would listen
to its tool run, and at each call only what can change within a run (``_quiet``). A listener
a tool turns on during the run is seen from the next call on, as LangChain's
``CallbackManager.configure`` (which reads it all at every tool run) sees it: the debug flag,
and an environment variable that makes a configure hook give a handler.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from deepagents_rs import create_deep_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.globals import get_debug, set_debug
from sim.anthropic import SimAnthropic, text, tool_use

MODEL = "anthropic:claude-sonnet-4-5"
#: The variable that turns on `_HOOK`'s handler.
HOOK_VAR = "DEEPAGENTS_RS_TEST_TOOL_LISTENER"


class Heard(BaseCallbackHandler):
    """Notes the input of each tool run it is given."""

    heard: ClassVar[list[str]] = []

    def on_tool_start(self, serialized: Any, input_str: str, **kwargs: Any) -> None:
        Heard.heard.append(input_str)


def _script(sim: SimAnthropic) -> None:
    sim.script(
        tool_use(("turn_on", {"text": "first"}, "toolu_1")),
        tool_use(("turn_on", {"text": "second"}, "toolu_2")),
        text("done"),
    )


def _run(agent: Any) -> list[Any]:
    return agent.invoke({"messages": [{"role": "user", "content": "go"}]})["messages"]


@pytest.fixture
def debug_restored() -> Iterator[None]:
    before = get_debug()
    yield
    set_debug(before)


def test_debug_turned_on_by_a_tool_shows_the_next_tool_run(
    sim: SimAnthropic, debug_restored: None, capsys: pytest.CaptureFixture[str]
) -> None:
    def turn_on(text: str) -> str:
        """Turn debug output on."""
        set_debug(True)
        return text

    _script(sim)
    messages = _run(create_deep_agent(model=MODEL, tools=[turn_on]))
    assert [m.content for m in messages if m.type == "tool"] == ["first", "second"]
    out = capsys.readouterr().out
    # LangChain's console handler prints the end of the second call's tool run, not the first's.
    ends = [i for i, line in enumerate(out.splitlines()) if "[tool/end]" in line and "turn_on" in line]
    assert len(ends) == 1, out
    assert "content='second'" in out.splitlines()[ends[0] + 1]


@pytest.fixture
def hook() -> Iterator[None]:
    """A configure hook giving a `Heard` handler when ``HOOK_VAR`` is set, removed after."""
    from langchain_core.tracers.context import _configure_hooks, register_configure_hook

    var: contextvars.ContextVar[Any] = contextvars.ContextVar("deepagents_rs_test_listener", default=None)
    register_configure_hook(var, True, Heard, HOOK_VAR)
    Heard.heard = []
    yield
    os.environ.pop(HOOK_VAR, None)
    _configure_hooks[:] = [entry for entry in _configure_hooks if entry[0] is not var]


def test_a_hooks_variable_set_by_a_tool_gives_the_next_tool_run_its_handler(sim: SimAnthropic, hook: None) -> None:
    def turn_on(text: str) -> str:
        """Set the hook's variable."""
        os.environ[HOOK_VAR] = "true"
        return text

    _script(sim)
    messages = _run(create_deep_agent(model=MODEL, tools=[turn_on]))
    assert [m.content for m in messages if m.type == "tool"] == ["first", "second"]
    assert len(Heard.heard) == 1 and "second" in Heard.heard[0], Heard.heard
