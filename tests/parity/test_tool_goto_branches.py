"""A tool's ``Command(goto=...)`` naming nodes beside the tools edge's destination, and
``Send``s, side by side with deepagents: LangGraph runs them all in the next step (each
named node once, each ``Send``'s node on its own state), applies their writes in its task
order, and each goes on along its own edges. Compared under invoke, ainvoke and stream, and
on a thread (InMemorySaver and SqliteSaver): results, the model's calls, the writes of each
step, and the checkpoints.

The model answers by what it is given (its reply names the last message it saw), because
LangGraph runs a step's tasks concurrently: which of two model nodes of one step calls the
model first is not fixed, what each is given and writes is.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import deepagents
import deepagents_rs
import pytest
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command, Send

from .harness import ScriptedChatModel, ai_tool_calls, norm

USER = {"messages": [{"role": "user", "content": "go"}]}


class ByInputModel(ScriptedChatModel):
    """Answers the user's ``go`` with its scripted reply (the tool calls), anything else
    with ``re: <last message>``."""

    def _next(self, messages: list, stop: Any, kwargs: dict) -> Any:
        from fake_models import Call
        from langchain_core.outputs import ChatGeneration, ChatResult

        with self._lock:
            self.calls.append(Call(messages=list(messages), tools=list(kwargs.get("tools") or []), kwargs={}))
        last = messages[-1].content if messages else ""
        reply = self.responses[0].model_copy(deep=True) if last == "go" else AIMessage(f"re: {last}")
        return ChatResult(generations=[ChatGeneration(message=reply)])


class Before(AgentMiddleware):
    """A ``before_model`` node (``Before.before_model``: the loop's entry)."""

    def before_model(self, state: Any, runtime: Any) -> Any:
        return {"messages": [HumanMessage(f"before saw {len(state['messages'])}")]}


class After(AgentMiddleware):
    """An ``after_model`` node (``After.after_model``)."""

    def after_model(self, state: Any, runtime: Any) -> Any:
        return {"messages": [HumanMessage(f"after saw {len(state['messages'])}")]}


def goto_tool(goto: Any, name: str = "t") -> Any:
    @tool(name)
    def t(x: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Do the thing."""
        return Command(goto=goto, update={"messages": [ToolMessage(f"ok {x}", tool_call_id=tool_call_id)]})

    return t


@tool("plain")
def plain(x: str) -> str:
    """Answer plainly."""
    return f"plain {x}"


def sent(text: str) -> dict:
    return {"messages": [HumanMessage(text)]}


#: name: (the tool's goto, middleware, the calls of the model's first reply).
CASES: dict[str, tuple[Any, list, list]] = {
    "model_beside_before_model": ("model", [Before], [("t", {"x": "1"}, "c1")]),
    "before_model_node_itself": ("Before.before_model", [Before], [("t", {"x": "1"}, "c1")]),
    "after_model_beside_model": ("After.after_model", [After], [("t", {"x": "1"}, "c1")]),
    "after_model_beside_before_model": ("After.after_model", [Before, After], [("t", {"x": "1"}, "c1")]),
    "tools_on_the_whole_state": ("tools", [], [("t", {"x": "1"}, "c1")]),
    "end_with_a_pending_call": ("__end__", [], [("t", {"x": "1"}, "c1"), ("plain", {"x": "2"}, "c2")]),
    "send_model": (Send("model", sent("sent")), [], [("t", {"x": "1"}, "c1")]),
    "two_sends": ([Send("model", sent("one")), Send("model", sent("two"))], [], [("t", {"x": "1"}, "c1")]),
    "send_after_model": (Send("After.after_model", sent("s")), [After], [("t", {"x": "1"}, "c1")]),
    "send_before_model": (Send("Before.before_model", sent("s")), [Before], [("t", {"x": "1"}, "c1")]),
    "list_mixing_them": (
        ["After.after_model", Send("model", sent("sent")), "__end__", "model"],
        [After],
        [("t", {"x": "1"}, "c1")],
    ),
    "two_calls_going_apart": (
        "After.after_model",
        [After],
        [("t", {"x": "1"}, "c1"), ("u", {"x": "2"}, "c2")],
    ),
    "unknown_names_ignored": (["nowhere", Send("nowhere", sent("x"))], [], [("t", {"x": "1"}, "c1")]),
}


def _agent(module: Any, case: str, checkpointer: Any = None) -> tuple[Any, ByInputModel]:
    goto, middleware, calls = CASES[case]
    model = ByInputModel([ai_tool_calls(*calls)])
    tools = [goto_tool(goto), plain]
    if case == "two_calls_going_apart":
        tools.append(goto_tool(Send("model", sent("from u")), "u"))
    agent = module.create_deep_agent(
        model=model, tools=tools, middleware=[m() for m in middleware], checkpointer=checkpointer
    )
    return agent, model


def _calls(model: ByInputModel) -> Counter:
    """The model's calls, as a multiset: their order within a step is LangGraph's threads'."""
    return Counter(repr(norm(c.messages)) for c in model.calls)


def _run(module: Any, case: str, mode: str) -> tuple:
    agent, model = _agent(module, case)
    if mode == "invoke":
        result = agent.invoke(USER)
    elif mode == "ainvoke":
        result = asyncio.run(agent.ainvoke(USER))
    else:
        steps: list[Counter] = []
        result = None
        for kind, chunk in agent.stream(USER, stream_mode=["updates", "values"]):
            if kind == "values":
                result = chunk
                steps.append(Counter())
            elif steps:
                for node, update in chunk.items():
                    messages = (update or {}).get("messages") if isinstance(update, dict) else None
                    steps[-1][(node, repr([m.content for m in messages or []]))] += 1
        return norm(result["messages"]), _calls(model), steps
    return norm(result["messages"]), _calls(model)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_gotos_and_sends_run_beside_the_edges_destination(case: str, mode: str) -> None:
    ref = _run(deepagents, case, mode)
    assert _run(deepagents_rs, case, mode) == ref


def test_the_branches_ran() -> None:
    """The cases do what they are named for on deepagents (so the comparison means something)."""
    contents = lambda case: [m["content"] for m in _run(deepagents, case, "invoke")[0]]
    assert "re: sent" in contents("send_model")
    assert {"re: one", "re: two"} <= set(contents("two_sends"))
    assert "after saw 1" in contents("send_after_model")
    # The named node and the edge's destination wrote in one step, in name order.
    out = contents("after_model_beside_model")
    assert out.index("after saw 4") + 1 == out.index("re: ok 1")
    # The tool node ran again on the whole state.
    assert contents("tools_on_the_whole_state").count("ok 1") == 2


def test_a_send_to_tools_without_messages_fails_as_in_deepagents() -> None:
    """LangGraph's tool node refuses a state with no messages."""
    errors = []
    for module in (deepagents, deepagents_rs):
        agent = module.create_deep_agent(
            model=ByInputModel([ai_tool_calls(("t", {"x": "1"}, "c1"))]),
            tools=[goto_tool(Send("tools", {"messages": []}))],
        )
        with pytest.raises(ValueError, match="No message found in input") as caught:
            agent.invoke(USER)
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]


def _langgraph_warnings(caplog: pytest.LogCaptureFixture, module: Any, mode: str, saver: bool, calls: list) -> list:
    """The warnings logged under ``langgraph`` by a run whose tools name unknown nodes."""
    model = ByInputModel([ai_tool_calls(*calls)])
    tools = [goto_tool(["nowhere", Send("nowhere", sent("x")), Send("__end__", sent("y"))]), plain]
    tools.append(goto_tool(["elsewhere", "__end__"], "u"))
    agent = module.create_deep_agent(model=model, tools=tools, checkpointer=InMemorySaver() if saver else None)
    config = {"configurable": {"thread_id": "w"}}
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="langgraph"):
        if mode == "invoke":
            agent.invoke(USER, config)
        elif mode == "ainvoke":
            asyncio.run(agent.ainvoke(USER, config))
        else:
            list(agent.stream(USER, config))
    return [(r.name, r.levelname, r.getMessage()) for r in caplog.records if r.name.startswith("langgraph")]


@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream"])
@pytest.mark.parametrize(
    "calls",
    [[("t", {"x": "1"}, "c1")], [("plain", {"x": "0"}, "c0"), ("u", {"x": "2"}, "c2"), ("t", {"x": "1"}, "c1")]],
    ids=["one-call", "third-of-three"],
)
def test_unknown_gotos_log_langgraphs_warnings(
    caplog: pytest.LogCaptureFixture, mode: str, saver: bool, calls: list
) -> None:
    """A goto or a ``Send`` naming no node is dropped with LangGraph's warning (the task's
    path names the tool call's place among the step's tasks)."""
    ref = _langgraph_warnings(caplog, deepagents, mode, saver, calls)
    assert _langgraph_warnings(caplog, deepagents_rs, mode, saver, calls) == ref
    assert any("branch:to:nowhere" in m for _, _, m in ref)
    assert ("langgraph", "WARNING", "Ignoring unknown node name __end__ in pending sends") in ref


def _saver(kind: str, path: Path) -> Any:
    if kind == "memory":
        return InMemorySaver()
    return SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))


def _on_thread(module: Any, case: str, kind: str, mode: str, path: Path) -> tuple:
    config = {"configurable": {"thread_id": "t"}}
    if mode == "ainvoke" and kind == "sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        async def run() -> tuple:
            async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
                agent, model = _agent(module, case, saver)
                await agent.ainvoke(USER, config)
                return [s async for s in agent.aget_state_history(config)], model

        history, model = asyncio.run(run())
        return _history(history), _calls(model)
    agent, model = _agent(module, case, _saver(kind, path))
    if mode == "invoke":
        agent.invoke(USER, config)
    elif mode == "ainvoke":
        asyncio.run(agent.ainvoke(USER, config))
    else:
        for _ in agent.stream(USER, config, stream_mode="updates"):
            pass
    return _history(list(agent.get_state_history(config))), _calls(model)


def _history(snapshots: list) -> list:
    # LangGraph lists a saved step's tasks in its graph's node order.
    return [
        (s.metadata.get("step"), norm(s.values.get("messages", [])), s.next, [t.name for t in s.tasks])
        for s in snapshots
    ]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream"])
@pytest.mark.parametrize(
    "case", ["after_model_beside_model", "send_after_model", "list_mixing_them", "tools_on_the_whole_state"]
)
def test_on_a_thread_the_checkpoints_are_deepagents(case: str, mode: str, kind: str, tmp_path: Path) -> None:
    ref = _on_thread(deepagents, case, kind, mode, tmp_path / "ref.db")
    assert _on_thread(deepagents_rs, case, kind, mode, tmp_path / "rs.db") == ref
