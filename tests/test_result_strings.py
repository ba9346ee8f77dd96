"""A run's result messages share their short repeated text values, as deepagents' do: the
tool's name in the reply's block, its tool call and the tool message, and the model's name
in every reply, are one ``str`` each (a result keeps every message; a thousand conversations'
results are held at once at the end of a run)."""

from __future__ import annotations

import sys
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _core
from sim.anthropic import SimAnthropic

MODEL = "anthropic:claude-sonnet-4-5"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _script() -> list[dict[str, Any]]:
    call = {"stop_reason": "tool_use"}
    return [
        {
            **call,
            "id": "msg_1",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}}],
        },
        {
            **call,
            "id": "msg_2",
            "content": [{"type": "tool_use", "id": "toolu_2", "name": "add", "input": {"a": 5, "b": 1}}],
        },
        {"id": "msg_3", "content": [{"type": "text", "text": "It is 6."}]},
    ]


def _messages(
    impl: Any, script: list[dict] | None = None, tools: list[Any] | None = None, prompt: str = "what is 2+3+1?"
) -> list[Any]:
    with SimAnthropic() as sim, pytest.MonkeyPatch.context() as mp:
        mp.setenv("ANTHROPIC_BASE_URL", sim.base_url)
        mp.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
        sim.script(*(_script() if script is None else script))
        agent = impl.create_deep_agent(model=MODEL, tools=[add] if tools is None else tools)
        return agent.invoke({"messages": [{"role": "user", "content": prompt}]})["messages"]


def _shared(messages: list[Any]) -> dict[str, int]:
    """How many distinct objects hold each repeated value."""
    calls = [m for m in messages if m.type == "ai" and m.tool_calls]
    tools = [m for m in messages if m.type == "tool"]
    replies = [m for m in messages if m.type == "ai"]
    names = [c.content[0]["name"] for c in calls] + [c.tool_calls[0]["name"] for c in calls] + [t.name for t in tools]
    models = [r.response_metadata["model_name"] for r in replies] + [r.response_metadata["model"] for r in replies]
    types = [c.content[0]["type"] for c in calls] + [c.response_metadata["stop_reason"] for c in calls]
    assert set(names) == {"add"} and len(names) == 6
    assert len(set(models)) == 1 and len(models) == 6
    assert set(types) == {"tool_use"} and len(types) == 4
    return {
        what: len({id(v) for v in values}) for what, values in [("names", names), ("models", models), ("types", types)]
    }


#: Interning is left out where it would keep every string until exit (see the last test).
_interning = pytest.mark.skipif(not _core._interns_strings(), reason="this CPython's interned strings are immortal")


@pytest.mark.parametrize(
    ("version", "interns"),
    [((3, 11, 7), True), ((3, 12, 0), False), ((3, 12, 6), False), ((3, 12, 7), True), ((3, 13, 0), True)],
)
def test_strings_are_interned_only_where_python_frees_them(version: tuple[int, int, int], interns: bool) -> None:
    """CPython 3.12.0 to 3.12.6 made interned strings immortal (gh-113993): interning a
    long-lived process' keys and values (file paths, tool arguments) there would keep each
    distinct one until exit."""
    assert _core._interns_strings(version) is interns
    assert _core._interns_strings() is _core._interns_strings(sys.version_info[:3])


@_interning
def test_a_results_short_repeated_values_are_one_object_each() -> None:
    assert _shared(_messages(deepagents_rs)) == {"names": 1, "models": 1, "types": 1}


@_interning
def test_no_more_objects_than_deepagents() -> None:
    """deepagents shares them within a reply (its SDK's parsed objects: 3 names, 3 models, 1
    type for these 3 replies); ours are shared across replies too, never fewer shared."""
    deepagents = pytest.importorskip("deepagents")
    theirs = _shared(_messages(deepagents))
    ours = _shared(_messages(deepagents_rs))
    assert all(ours[k] <= theirs[k] for k in theirs), (ours, theirs)


def record(data: dict) -> str:
    """Record the data."""
    return "recorded"


#: More distinct short keys and values than the binding keeps interned strings for (512
#: slots), so texts share slots and take them over from one another.
_MANY = 1500
#: Their keys and values: 1,500 keys, 700 values.
_DATA = {f"k{i}": f"v{i % 700}" for i in range(_MANY)}


def _many_keys_messages(impl: Any) -> list[Any]:
    data = dict(_DATA)
    script = [
        {
            "stop_reason": "tool_use",
            "id": "msg_1",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "record", "input": {"data": data}}],
        },
        {"id": "msg_2", "content": [{"type": "text", "text": "Recorded."}]},
    ]
    return _messages(impl, script, [record], "record it")


def test_many_distinct_keys_and_values_come_back_as_sent() -> None:
    """Every key and short value of a reply's block and tool call is its own text, the
    interned string where interning frees them, and the same as deepagents' result holds."""
    messages = _many_keys_messages(deepagents_rs)
    call = messages[1]
    block_data = call.content[0]["input"]["data"]
    args_data = call.tool_calls[0]["args"]["data"]
    expected = _DATA
    for made in (block_data, args_data):
        assert list(made.items()) == list(expected.items())
        if _core._interns_strings():
            assert all(sys.intern(k) is k and sys.intern(v) is v for k, v in made.items())
    deepagents = pytest.importorskip("deepagents")
    theirs = _many_keys_messages(deepagents)[1]
    assert call.content == theirs.content
    assert call.tool_calls == theirs.tool_calls
