"""Plain function tools called directly (``_direct_tools.py``) give what ``BaseTool.invoke``
(``ainvoke`` for coroutine functions) gives under deepagents: results, coercion by the
schema, validation errors, injected call ids, the config and stream writer a tool reads from
its context, exceptions; and a callback handler still sees every tool run (the call then
goes through ``invoke``)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any
from uuid import UUID

import pytest
from deepagents_rs._direct_tools import call_direct
from deepagents_rs._tools import LangChainToolAdapter
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import InjectedToolCallId, StructuredTool, ToolException, tool
from langgraph.config import get_config, get_stream_writer

from .harness import MODES, ScriptedChatModel, _run_one, ai_tool_calls, assert_parity, assert_same_error, run_both

USER = {"messages": [{"role": "user", "content": "go"}]}


def add(a: float, b: int) -> str:
    """Add two numbers."""
    return f"{a!r} + {b!r} = {a + b!r}"


def config_view() -> str:
    """Report what the tool's config says."""
    cfg = get_config()
    meta = cfg.get("metadata") or {}
    return repr(
        (
            meta.get("langgraph_node"),
            meta.get("langgraph_step"),
            (cfg.get("configurable") or {}).get("thread_id"),
            (cfg.get("configurable") or {}).get("user_key"),
            "callbacks" in cfg,
        )
    )


def which_call(note: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Say which call this is."""
    return f"{note} from {tool_call_id}"


def shout(text: str) -> str:
    """Write progress to the stream, then answer."""
    get_stream_writer()({"progress": text})
    return text.upper()


def failing(reason: str) -> str:
    """Fail."""
    raise ToolException(f"cannot: {reason}")


def takes_config(key: str, config: RunnableConfig) -> str:
    """Read the config it is handed."""
    return f"{key}: {(config.get('configurable') or {}).get('user_key')}"


def returns_dict(key: str) -> dict[str, Any]:
    """Answer with a dict."""
    return {"key": key, "n": [1, 2]}


class Loud(str):
    pass


def answers(kind: str) -> Any:
    """Answer with a value of the kind asked for."""
    return {"empty": "", "subclass": Loud("loud"), "blocks": [{"type": "text", "text": "b"}], "number": 7}[kind]


async def aanswers(kind: str) -> Any:
    """Answer with a value of the kind asked for, asynchronously."""
    return answers(kind)


async def aadd(a: float, b: int) -> str:
    """Add two numbers, asynchronously."""
    return f"{a!r} + {b!r} = {a + b!r}"


async def aconfig_view() -> str:
    """Report what the tool's config says, asynchronously."""
    return config_view()


async def awhich_call(note: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Say which call this is, asynchronously."""
    return f"{note} from {tool_call_id}"


async def ashout(text: str) -> str:
    """Write progress to the stream, then answer, asynchronously."""
    get_stream_writer()({"progress": text})
    return text.upper()


async def afailing(reason: str) -> str:
    """Fail, asynchronously."""
    raise ToolException(f"cannot: {reason}")


async def atakes_config(key: str, config: RunnableConfig) -> str:
    """Read the config it is handed, asynchronously."""
    return f"{key}: {(config.get('configurable') or {}).get('user_key')}"


def test_plain_functions_take_the_direct_path_and_others_do_not() -> None:
    # Checked so the fast path cannot silently turn off; the parity tests below cover both.
    assert LangChainToolAdapter(tool(add))._direct is not None
    assert LangChainToolAdapter(tool(which_call))._direct is not None
    assert LangChainToolAdapter(tool(takes_config))._direct is None
    assert LangChainToolAdapter(StructuredTool.from_function(add, handle_tool_error=True))._direct is None
    assert LangChainToolAdapter(tool(add, response_format="content_and_artifact"))._direct is None
    assert LangChainToolAdapter(tool(aadd))._adirect is not None
    assert LangChainToolAdapter(tool(aadd))._direct is None
    assert LangChainToolAdapter(tool(add))._adirect is None
    assert LangChainToolAdapter(tool(atakes_config))._adirect is None
    assert LangChainToolAdapter(StructuredTool.from_function(coroutine=aadd, handle_tool_error=True))._adirect is None


def test_a_plain_str_result_is_handed_back_as_it_is() -> None:
    # Checked so the shortcut cannot silently turn off; the parity tests above cover results.
    adapter = LangChainToolAdapter(tool(answers))
    assert adapter._direct is not None
    out = call_direct(adapter.tool, adapter._direct, {"kind": "empty"}, "c1", None)
    assert type(out) is str and out == ""
    assert type(call_direct(adapter.tool, adapter._direct, {"kind": "subclass"}, "c1", None)).__name__ == "ToolMessage"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("add", {"a": 1, "b": "2"}),  # coerced by the schema: 1 -> 1.0, "2" -> 2
        ("add", {"a": "x", "b": 2}),  # a validation error, as LangGraph's tool node words it
        ("add", {"a": 1}),  # a missing argument
        ("returns_dict", {"key": "k"}),
        ("which_call", {"note": "hi"}),
        # A plain str goes back as it is (`_direct_tools._formatted`); the rest as LangChain
        # formats them.
        ("answers", {"kind": "empty"}),
        ("answers", {"kind": "subclass"}),
        ("answers", {"kind": "blocks"}),
        ("answers", {"kind": "number"}),
    ],
)
def test_results_match(mode: str, name: str, args: dict[str, Any]) -> None:
    tools = [add, returns_dict, which_call, answers]
    both = run_both([ai_tool_calls((name, args, "call_1")), "done"], tools, USER, mode=mode)
    assert_parity(both)


@pytest.mark.parametrize("mode", MODES)
def test_the_config_a_tool_reads(mode: str) -> None:
    config = {"configurable": {"thread_id": "t-1", "user_key": "u"}}
    script = [ai_tool_calls(("config_view", {}, "c1"), ("takes_config", {"key": "k"}, "c2")), "done"]
    both = run_both(script, [config_view, takes_config], USER, mode=mode, config=config)
    ref = assert_parity(both)
    assert ref["messages"][2].content == repr(("tools", 3, "t-1", "u", True))


@pytest.mark.parametrize("mode", MODES)
def test_an_exception_propagates_unchanged(mode: str) -> None:
    both = run_both([ai_tool_calls(("failing", {"reason": "r"}, "c1")), "done"], [failing], USER, mode=mode)
    assert isinstance(assert_same_error(both), ToolException)


@pytest.mark.parametrize("function", [shout, ashout])
@pytest.mark.parametrize("impl", ["deepagents", "deepagents_rs"])
def test_the_stream_writer_reaches_a_direct_tool(impl: str, function: Any) -> None:
    module = __import__(impl)
    script = [ai_tool_calls((function.__name__, {"text": "hey"}, "c1")), "done"]
    agent = module.create_deep_agent(model=ScriptedChatModel(script), tools=[function])

    async def astream() -> list[Any]:
        return [chunk async for chunk in agent.astream(USER, stream_mode="custom")]

    if function is shout:
        custom = [chunk for chunk in agent.stream(USER, stream_mode="custom")]
    else:
        custom = asyncio.run(astream())
    assert custom == [{"progress": "hey"}]


class ToolRuns(BaseCallbackHandler):
    def __init__(self) -> None:
        self.runs: list[tuple[str, str]] = []

    def on_tool_start(self, serialized: dict[str, Any], input_str: str, *, run_id: UUID, **kwargs: Any) -> None:
        self.runs.append(("start", serialized["name"]))

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.runs.append(("end", getattr(output, "content", output)))


@pytest.mark.parametrize(("mode", "function"), [*((m, add) for m in MODES), ("ainvoke", aadd)])
def test_a_callback_handler_sees_each_tool_run(mode: str, function: Any) -> None:
    name = function.__name__
    handlers = {"deepagents": ToolRuns(), "deepagents_rs": ToolRuns()}
    script = [ai_tool_calls((name, {"a": 1, "b": 2}, "c1")), "done"]
    for impl, handler in handlers.items():
        out = _run_one(impl, script, [function], USER, mode, {"callbacks": [handler]}, {})
        assert out.error is None, out.error
    assert handlers["deepagents_rs"].runs == handlers["deepagents"].runs
    assert handlers["deepagents"].runs == [("start", name), ("end", "1.0 + 2 = 3.0")]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("aadd", {"a": 1, "b": "2"}),
        ("aadd", {"a": "x", "b": 2}),
        ("aadd", {"a": 1}),
        ("awhich_call", {"note": "hi"}),
        ("aanswers", {"kind": "empty"}),
        ("aanswers", {"kind": "subclass"}),
        ("aanswers", {"kind": "number"}),
    ],
)
def test_async_results_match(name: str, args: dict[str, Any]) -> None:
    tools = [aadd, awhich_call, aanswers]
    both = run_both([ai_tool_calls((name, args, "call_1")), "done"], tools, USER, mode="ainvoke")
    assert_parity(both)


def test_the_config_an_async_tool_reads() -> None:
    config = {"configurable": {"thread_id": "t-1", "user_key": "u"}}
    script = [ai_tool_calls(("aconfig_view", {}, "c1"), ("atakes_config", {"key": "k"}, "c2")), "done"]
    both = run_both(script, [aconfig_view, atakes_config], USER, mode="ainvoke", config=config)
    ref = assert_parity(both)
    assert ref["messages"][2].content == repr(("tools", 3, "t-1", "u", True))


def test_an_async_tools_exception_propagates_unchanged() -> None:
    both = run_both([ai_tool_calls(("afailing", {"reason": "r"}, "c1")), "done"], [afailing], USER, mode="ainvoke")
    assert isinstance(assert_same_error(both), ToolException)
