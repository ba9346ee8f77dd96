"""A tool's ``Command`` whose update removes messages (``RemoveMessage``, by id or all of them
with ``REMOVE_ALL_MESSAGES``), side by side with deepagents: the messages reducer applies
each call's write in turn, in the order the update gives; what the model is sent next, the
final state, the checkpointed state, the streamed updates, a ``wrap_tool_call`` middleware
passing the command on, and an id that is nowhere (ignored by deepagents' reducer) all match."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain.agents.middleware import AgentMiddleware
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.types import Command

from .harness import MODES, ScriptedChatModel, ai_tool_calls, assert_parity, norm, run_both
from .test_tool_commands import PassOn

USER = {"messages": [{"role": "user", "content": "go"}, {"role": "user", "content": "second"}]}
NOTE = {"content": "n", "encoding": "utf-8"}

#: ``make(tool_call_id, state messages, x)`` -> what the tool returns.
Make = Callable[[str, list, str], Any]


def removal_tool(make: Make) -> Any:
    @tool("t")
    def t(x: str, runtime: ToolRuntime) -> Any:
        """Do the thing."""
        return make(runtime.tool_call_id, runtime.state["messages"], x)

    return t


def answer(call_id: str, text: str = "ok") -> ToolMessage:
    return ToolMessage(text, tool_call_id=call_id)


def _parallel(i: str, messages: list, x: str) -> Command:
    """The first call adds a message, the second (same step) removes it: the writes apply
    in call order."""
    if x == "1":
        return Command(update={"messages": [HumanMessage("added", id="added-1"), answer(i, "one")]})
    return Command(update={"messages": [RemoveMessage(id="added-1"), answer(i, "two")]})


RUNS: dict[str, Make] = {
    "remove_first": lambda i, ms, x: Command(update={"messages": [RemoveMessage(id=ms[0].id), answer(i)]}),
    "remove_after_answer": lambda i, ms, x: Command(update={"messages": [answer(i), RemoveMessage(id=ms[1].id)]}),
    "remove_all_alone": lambda i, ms, x: Command(update={"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)]}),
    "remove_all_then_new": lambda i, ms, x: Command(
        update={
            "messages": [AIMessage("lost"), RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("fresh"), answer(i)]
        }
    ),
    "remove_then_write_again": lambda i, ms, x: Command(
        update={"messages": [RemoveMessage(id=ms[0].id), HumanMessage("go again", id=ms[0].id), answer(i)]}
    ),
    "remove_added_in_the_write": lambda i, ms, x: Command(
        update={"messages": [HumanMessage("temp", id="temp-1"), RemoveMessage(id="temp-1"), answer(i)]}
    ),
    "remove_the_calling_message": lambda i, ms, x: Command(
        update={"messages": [answer(i), RemoveMessage(id=ms[-1].id)], "files": {}}
    ),
    "remove_with_files": lambda i, ms, x: Command(
        update={"messages": [RemoveMessage(id=ms[1].id), answer(i)], "files": {"/a.txt": NOTE}}
    ),
    # deepagents' reducer ignores an id it does not hold (LangGraph's `add_messages` would
    # raise): nowhere, or only written later in the same update.
    "unknown_id": lambda i, ms, x: Command(update={"messages": [RemoveMessage(id="nowhere"), answer(i)]}),
    "id_added_later": lambda i, ms, x: Command(
        update={"messages": [RemoveMessage(id="later"), HumanMessage("x", id="later"), answer(i)]}
    ),
}


def scenario(make: Make, mode: str, calls: int = 1, **kwargs: Any) -> Any:
    turn = ai_tool_calls(*[("t", {"x": str(n + 1)}, f"c{n + 1}") for n in range(calls)])
    return run_both([turn, "done", "again"], [removal_tool(make)], USER, mode=mode, **kwargs)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(RUNS))
def test_removal_runs_as_in_deepagents(case: str, mode: str) -> None:
    ref = assert_parity(scenario(RUNS[case], mode))
    assert ref, "deepagents raised"


@pytest.mark.parametrize("mode", MODES)
def test_a_later_call_removes_what_an_earlier_call_of_the_step_added(mode: str) -> None:
    ref = assert_parity(scenario(_parallel, mode, calls=2))
    assert "added" not in [m.content for m in ref["messages"]]


class Sees(AgentMiddleware):
    """Records the update's message types the middleware is handed, then passes it on."""

    def __init__(self) -> None:
        self.seen: list = []

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        result = handler(request)
        self.seen.append(
            [(type(m).__name__, m.id if isinstance(m, RemoveMessage) else None) for m in result.update["messages"]]
        )
        return result


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", ["remove_first", "remove_all_then_new", "remove_added_in_the_write"])
def test_wrap_tool_call_passes_removals_on(case: str, mode: str) -> None:
    ref = assert_parity(scenario(RUNS[case], mode, middleware=[PassOn()]))
    assert ref, "deepagents raised"


def test_wrap_tool_call_sees_the_removals_in_place() -> None:
    mw = Sees()
    script = [ai_tool_calls(("t", {"x": "1"}, "c1")), "done"]
    # run_both hands both runs the same middleware: its record holds deepagents' then ours.
    assert_parity(run_both(script, [removal_tool(RUNS["remove_added_in_the_write"])], USER, middleware=[mw]))
    ref_seen, rs_seen = mw.seen
    assert rs_seen == ref_seen
    assert [t for t, _ in ref_seen] == ["HumanMessage", "RemoveMessage", "ToolMessage"]


def _checkpointed(module: Any, make: Make, mode: str) -> tuple:
    model = ScriptedChatModel([ai_tool_calls(("t", {"x": "1"}, "c1")), "done"])
    agent = module.create_deep_agent(model=model, tools=[removal_tool(make)], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    if mode == "invoke":
        result = agent.invoke(USER, config)
    else:
        result = asyncio.run(agent.ainvoke(USER, config))
    saved = agent.get_state(config).values
    return norm(result["messages"]), norm(saved["messages"]), [norm(c.messages) for c in model.calls]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", ["remove_first", "remove_all_then_new", "remove_then_write_again"])
def test_removal_on_a_thread_as_in_deepagents(case: str, mode: str) -> None:
    ref = _checkpointed(deepagents, RUNS[case], mode)
    rs = _checkpointed(deepagents_rs, RUNS[case], mode)
    assert rs == ref
    assert ref[0] == ref[1]


def _updates(module: Any, make: Make, checkpointer: bool) -> list:
    model = ScriptedChatModel([ai_tool_calls(("t", {"x": "1"}, "c1")), "done"])
    agent = module.create_deep_agent(
        model=model, tools=[removal_tool(make)], checkpointer=InMemorySaver() if checkpointer else None
    )
    out = []
    for chunk in agent.stream(USER, {"configurable": {"thread_id": "s"}}, stream_mode="updates"):
        for node, update in chunk.items():
            messages = (update or {}).get("messages") if isinstance(update, dict) else None
            out.append(
                (
                    node,
                    [
                        (type(m).__name__, isinstance(m, RemoveMessage) and m.id == REMOVE_ALL_MESSAGES)
                        for m in messages or []
                    ],
                )
            )
    return out


@pytest.mark.parametrize("checkpointer", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize("case", ["remove_first", "remove_all_then_new", "remove_after_answer"])
def test_removal_updates_stream_as_in_deepagents(case: str, checkpointer: bool) -> None:
    assert _updates(deepagents_rs, RUNS[case], checkpointer) == _updates(deepagents, RUNS[case], checkpointer)
