"""Parity: tool calls (single, multi-turn, parallel, non-string results), async tools,
``@tool``, ``BaseTool`` subclasses with ``args_schema`` and dict tool specs.

Normalizations are those of ``harness`` (see its docstring).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, tool
from pydantic import BaseModel, Field

from .harness import FS_TOOLS, MODES, ai_tool_calls, assert_parity, run_both

USER = {"messages": [{"role": "user", "content": "go"}]}


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def get_weather(city: str, unit: str = "celsius") -> str:
    """Get the weather for a city.

    Args:
        city: The city.
        unit: celsius or fahrenheit.
    """
    return f"Sunny in {city} ({unit})"


def as_dict(key: str) -> dict:
    """Return a dict."""
    return {"key": key, "n": 1, "nested": {"ok": True}, "text": "é"}


def as_list(n: int) -> list:
    """Return a list of numbers."""
    return list(range(n))


def as_blocks(text: str) -> list:
    """Return content blocks."""
    return [{"type": "text", "text": text}]


def as_none() -> None:
    """Return nothing."""


async def slow_echo(text: str) -> str:
    """Echo text asynchronously."""
    await asyncio.sleep(0)
    return f"echo: {text}"


@tool
def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()


@tool("lookup_user", description="Look a user up by id.")
def lookup(user_id: int, verbose: bool = False) -> str:
    return f"user {user_id} verbose={verbose}"


class SearchArgs(BaseModel):
    query: str = Field(description="What to search for")
    limit: int = Field(default=3, ge=1, le=10, description="Max results")


class SearchTool(BaseTool):
    name: str = "search"
    description: str = "Search the knowledge base."
    args_schema: type[BaseModel] = SearchArgs

    def _run(self, query: str, limit: int = 3) -> str:
        return f"{limit} results for {query}"

    async def _arun(self, query: str, limit: int = 3) -> str:
        return f"{limit} async results for {query}"


def _multiply(x: float, y: float) -> float:
    return x * y


multiply = StructuredTool.from_function(_multiply, name="multiply", description="Multiply two numbers.")

DICT_TOOL = {
    "type": "function",
    "function": {
        "name": "provider_side",
        "description": "A tool run by the provider.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    },
}


@pytest.mark.parametrize("mode", MODES)
def test_single_tool_call(mode):
    script = [ai_tool_calls(("get_weather", {"city": "Paris"}), content="let me check"), "It is sunny."]
    both = run_both(script, [get_weather], USER, mode=mode)
    ref = assert_parity(both)
    assert [type(m) for m in ref["messages"]] == [type(m) for m in both.rs.unwrap()["messages"]]
    assert ref["messages"][2].content == "Sunny in Paris (celsius)"
    schema = both.rs.calls[0].tools
    assert [t["function"]["name"] for t in schema] == [*FS_TOOLS, "task", "get_weather"]
    assert "unit" in schema[-1]["function"]["parameters"]["properties"]


@pytest.mark.parametrize("mode", MODES)
def test_three_tool_rounds(mode):
    script = [
        ai_tool_calls(("add", {"a": 1, "b": 2})),
        ai_tool_calls(("add", {"a": 3, "b": 4})),
        ai_tool_calls(("get_weather", {"city": "Oslo", "unit": "fahrenheit"})),
        "done",
    ]
    both = run_both(script, [add, get_weather], USER, mode=mode)
    ref = assert_parity(both)
    assert len(both.rs.calls) == 4
    assert [m.content for m in ref["messages"] if isinstance(m, ToolMessage)] == [
        "3",
        "7",
        "Sunny in Oslo (fahrenheit)",
    ]


@pytest.mark.parametrize("mode", MODES)
def test_parallel_tool_calls_keep_call_order(mode):
    script = [
        ai_tool_calls(("get_weather", {"city": "Rome"}), ("add", {"a": 5, "b": 6}), ("get_weather", {"city": "Lima"})),
        "done",
    ]
    both = run_both(script, [add, get_weather], USER, mode=mode)
    ref = assert_parity(both)
    tool_msgs = [m for m in both.rs.unwrap()["messages"] if isinstance(m, ToolMessage)]
    assert [m.content for m in tool_msgs] == ["Sunny in Rome (celsius)", "11", "Sunny in Lima (celsius)"]
    assert [m.tool_call_id for m in tool_msgs] == ["call_0_0", "call_0_1", "call_0_2"]
    assert len(ref["messages"]) == 6


RESULT_TOOLS: dict[str, tuple[Any, dict[str, Any]]] = {
    "int": (add, {"a": 2, "b": 40}),
    "dict": (as_dict, {"key": "k"}),
    "list": (as_list, {"n": 3}),
    "content-blocks": (as_blocks, {"text": "blk"}),
    "none": (as_none, {}),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn,args", RESULT_TOOLS.values(), ids=RESULT_TOOLS.keys())
def test_tool_result_types(fn, args, mode):
    both = run_both([ai_tool_calls((fn.__name__, args)), "ok"], [fn], USER, mode=mode)
    ref = assert_parity(both)
    assert isinstance(ref["messages"][2], ToolMessage)


def test_async_tool_under_ainvoke():
    both = run_both([ai_tool_calls(("slow_echo", {"text": "hey"})), "ok"], [slow_echo], USER, mode="ainvoke")
    assert_parity(both)
    assert both.rs.unwrap()["messages"][2].content == "echo: hey"


def test_async_only_tool_under_invoke_runs_where_deepagents_raises():
    """A deliberate difference: deepagents raises NotImplementedError('StructuredTool does not
    support sync invocation.') out of invoke; deepagents_rs awaits the coroutine on its own loop,
    so code that worked with deepagents keeps working and async-only tools work under invoke."""
    both = run_both([ai_tool_calls(("slow_echo", {"text": "hey"})), "ok"], [slow_echo], USER, mode="invoke")
    assert isinstance(both.ref.error, NotImplementedError)
    assert str(both.ref.error) == "StructuredTool does not support sync invocation."
    assert both.rs.error is None
    assert both.rs.unwrap()["messages"][2].content == "echo: hey"


@pytest.mark.parametrize("mode", MODES)
def test_tool_decorated(mode):
    script = [ai_tool_calls(("shout", {"text": "hi"}), ("lookup_user", {"user_id": 7})), "ok"]
    both = run_both(script, [shout, lookup], USER, mode=mode)
    ref = assert_parity(both)
    assert [m.content for m in ref["messages"][2:4]] == ["HI", "user 7 verbose=False"]


@pytest.mark.parametrize("mode", MODES)
def test_base_tool_subclass_and_structured_tool(mode):
    script = [ai_tool_calls(("search", {"query": "rust", "limit": 2}), ("multiply", {"x": 1.5, "y": 2})), "ok"]
    both = run_both(script, [SearchTool(), multiply], USER, mode=mode)
    assert_parity(both)
    schemas = {t["function"]["name"]: t["function"] for t in both.rs.calls[0].tools}
    assert schemas["search"]["parameters"]["properties"]["limit"]["maximum"] == 10
    expected = "2 results for rust" if mode == "invoke" else "2 async results for rust"
    assert both.rs.unwrap()["messages"][2].content == expected


@pytest.mark.parametrize("mode", MODES)
def test_dict_tool_is_shown_but_not_callable(mode):
    script = [ai_tool_calls(("provider_side", {"q": "x"}), ("add", {"a": 1, "b": 1})), "ok"]
    both = run_both(script, [DICT_TOOL, add], USER, mode=mode)
    ref = assert_parity(both)
    # create_agent offers dict specs after the tools it can run.
    assert both.rs.calls[0].tool_names == [*FS_TOOLS, "task", "add", "provider_side"]
    err = ref["messages"][2]
    assert err.status == "error"
    assert "provider_side is not a valid tool" in err.content


@pytest.mark.parametrize("mode", MODES)
def test_ai_message_metadata_round_trips(mode):
    reply = AIMessage(
        content="fin",
        response_metadata={"model_name": "scripted", "stop_reason": "end_turn"},
        usage_metadata={"input_tokens": 3, "output_tokens": 1, "total_tokens": 4},
    )
    both = run_both([reply], None, USER, mode=mode)
    assert_parity(both)
    ref_ai, rs_ai = both.ref.unwrap()["messages"][-1], both.rs.unwrap()["messages"][-1]
    assert rs_ai.usage_metadata == ref_ai.usage_metadata
    assert rs_ai.response_metadata == ref_ai.response_metadata
