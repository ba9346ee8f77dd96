"""The core's warnings and logs issued where the run's Python runs, never on a tokio worker.

A native client's request warns of a system message block it drops (langchain-openai's and
langchain-anthropic's ``UserWarning``s), and a tool's ``Command`` naming no node is logged
under LangGraph's ``langgraph`` logger. Each is issued on the run's loop thread under
``ainvoke`` and on the core's Python threads under ``invoke`` (``_core._gil_on_workers``
names any call site that took the GIL on a worker), and reaches the caller as before: the
warning's text and category under ``pytest.warns``, raised under an ``"error"`` filter, the
log record's logger, level and text under ``caplog``.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from typing import Annotated, Any

import pytest
from deepagents_rs import _core, create_deep_agent
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.types import Command, Send
from sim.anthropic import SimAnthropic
from sim.anthropic import text as anthropic_text
from sim.openai import SimOpenAI
from sim.openai import text as openai_text

MODES = ["invoke", "ainvoke"]
USER = {"role": "user", "content": "Hello."}
AI = {"role": "assistant", "content": "Earlier answer."}


def _run(agent: Any, mode: str, inputs: dict[str, Any]) -> list[Any]:
    if mode == "invoke":
        return agent.invoke(inputs)["messages"]
    return asyncio.run(agent.ainvoke(inputs))["messages"]


def _openai_agent(sim: SimOpenAI) -> tuple[Any, dict[str, Any]]:
    sim.script(openai_text("Ok."))
    odd = {
        "role": "system",
        "content": [{"type": "text", "text": "Mind."}, {"type": "tool_removal", "tool_name": "ls"}],
    }
    return create_deep_agent(model="openai:gpt-5.4"), {"messages": [USER, odd, AI, USER]}


def _anthropic_agent(sim: SimAnthropic) -> tuple[Any, dict[str, Any]]:
    sim.script(anthropic_text("Ok."))
    odd = {
        "role": "system",
        "content": [{"type": "text", "text": "Mind."}, {"type": "image", "url": "https://example.com/a.png"}],
    }
    return create_deep_agent(model="anthropic:claude-opus-5"), {"messages": [USER, odd, AI, USER]}


@pytest.fixture
def openai(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with SimOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        yield server


NATIVE = {
    "openai": (_openai_agent, "Content block 'tool_removal' was dropped from a system message"),
    "anthropic": (_anthropic_agent, "Unrecognized system content block 'image' was dropped"),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("provider", list(NATIVE))
def test_a_native_requests_warning_is_issued_off_the_workers(
    provider: str, mode: str, openai: SimOpenAI, sim: SimAnthropic
) -> None:
    make, said = NATIVE[provider]
    agent, inputs = make(openai if provider == "openai" else sim)
    _core._gil_on_workers()
    with pytest.warns(UserWarning) as record:
        messages = _run(agent, mode, inputs)
    assert messages[-1].text == "Ok."
    ours = [str(w.message) for w in record if "dropped" in str(w.message)]
    assert len(ours) == 1 and ours[0].startswith(said), ours
    assert record[0].category is UserWarning
    assert _core._gil_on_workers() == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("provider", list(NATIVE))
def test_a_native_requests_warning_raises_under_an_error_filter(
    provider: str, mode: str, openai: SimOpenAI, sim: SimAnthropic
) -> None:
    """The warning made an error stops the run before the request is sent, as
    langchain-openai's and langchain-anthropic's do."""
    make, said = NATIVE[provider]
    server = openai if provider == "openai" else sim
    agent, inputs = make(server)
    _core._gil_on_workers()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        with pytest.raises(UserWarning, match=said.split(" ")[0]):
            _run(agent, mode, inputs)
    assert server.requests == []
    assert _core._gil_on_workers() == []


def _goto_tool(goto: Any) -> Any:
    @tool("t")
    def t(x: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Do the thing."""
        return Command(goto=goto, update={"messages": [ToolMessage(f"ok {x}", tool_call_id=tool_call_id)]})

    return t


@pytest.mark.parametrize("mode", MODES)
def test_unknown_gotos_are_logged_off_the_workers(caplog: pytest.LogCaptureFixture, mode: str) -> None:
    model = ScriptedChatModel(responses=[ai_tool_calls(("t", {"x": "1"})), AIMessage(content="done")])
    agent = create_deep_agent(model=model, tools=[_goto_tool(["nowhere", Send("elsewhere", {"messages": []})])])
    _core._gil_on_workers()
    with caplog.at_level(logging.WARNING, logger="langgraph"):
        _run(agent, mode, {"messages": [USER]})
    logged = [(r.name, r.levelname, r.getMessage()) for r in caplog.records if r.name.startswith("langgraph")]
    assert logged == [
        (
            "langgraph",
            "WARNING",
            "Task tools with path ('__pregel_push', 0, False) wrote to unknown channel branch:to:nowhere, ignoring it.",
        ),
        ("langgraph", "WARNING", "Ignoring unknown node name elsewhere in pending sends"),
    ]
    assert _core._gil_on_workers() == []
