"""A plain ``invoke``'s own entry and exit, which run at every call: one without keywords
handles none (no copy of them, no stream mode or output keys or durability to look for), and
a result's keys are put in channel order once per key sequence, not sorted at every call.
What they give is what the general path gives."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import deepagents_rs
from deepagents_rs._output_keys import in_channel_order
from langchain_core.tools import tool
from sim.anthropic import SimAnthropic, text, tool_use

PACKAGE = str(Path(deepagents_rs.__file__).parent)


@tool
def echo(text: str) -> str:
    """Echo the given text back unchanged."""
    return text


def _calls(run: Any) -> list[str]:
    """``file:function`` of every Python function of the package called on this thread by
    ``run``."""
    seen: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(PACKAGE):
            seen.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return seen


def test_a_plain_invoke_without_keywords_handles_none_and_sorts_nothing(sim: SimAnthropic) -> None:
    agent = deepagents_rs.create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[echo])
    prompt = {"messages": [{"role": "user", "content": "go"}]}
    results = []

    def run(**kwargs: Any) -> None:
        sim.script(tool_use(("echo", {"text": "step"})), text("done"))
        results.append(agent.invoke(prompt, **kwargs))

    run()  # the first run fills what is kept after a first use
    calls = _calls(run)
    assert "_deep_agent.py:_prepare" in calls  # the profile sees the entry
    for name in (
        "_run_options.py:_graph_kwargs",
        "_run_options.py:durability_of",
        "_output_keys.py:output_keys_of",
        "_stream_modes.py:asks_graph_modes",
        "_output_keys.py:<lambda>",
    ):
        assert name not in calls, (name, calls)
    # Through the general path (a keyword to handle): the same result, keys in the same order.
    run(durability=None, stream_mode="values")
    plain, general = results[-2], results[-1]
    assert list(plain) == list(general)
    assert [(m.type, m.text) for m in plain["messages"]] == [(m.type, m.text) for m in general["messages"]]
    assert next(iter(plain)) == "messages"


def test_channel_order_is_the_given_orders_each_time() -> None:
    state = {"files": 1, "messages": 2, "todos": 3}
    assert list(in_channel_order(state, {"messages": 0, "todos": 1, "files": 2}, {})) == ["messages", "todos", "files"]
    assert list(in_channel_order(state, {"messages": 0, "files": 1}, {})) == ["messages", "files", "todos"]
    in_order = {"files": 0, "messages": 1, "todos": 2}
    assert in_channel_order(state, in_order, {}) is state
