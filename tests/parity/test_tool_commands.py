"""Tools returning LangGraph ``Command``s beyond a plain update, side by side with deepagents:
``goto`` (the end, the node the tools edge goes to anyway, no node of the graph), ``resume``
(ignored by a node's command), ``graph=Command.PARENT`` (raised to the caller, applied by a
graph embedding the agent, or, from a subagent's tool, written by the parent's ``task``
call), updates that are not dicts, messages besides the call's answer, a command with no
update, lists of commands, and a ``wrap_tool_call`` middleware passing such a command on or
returning its own; a ``goto`` when the tools edge ends the run (a subagent's tool that
returns directly), which goes on at the node named. Gotos beside the edge's destination and
``Send``s: ``test_tool_goto_branches.py``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any

import deepagents
import deepagents_rs
import pytest
from langchain.agents.middleware import AgentMiddleware
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import ParentCommand
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import Command

from .harness import (
    MODES,
    ScriptedChatModel,
    ai_tool_calls,
    assert_parity,
    assert_same_error,
    norm,
    norm_files,
    run_both,
)

USER = {"messages": [{"role": "user", "content": "go"}]}
NOTE = {"/note.txt": {"content": "n", "encoding": "utf-8"}}


def command_tool(make: Callable[[str], Any]) -> Any:
    """A tool ``t`` answering with ``make(tool_call_id)``."""

    @tool("t")
    def t(x: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Do the thing."""
        return make(tool_call_id)

    return t


def answer(call_id: str, text: str = "ok") -> ToolMessage:
    return ToolMessage(text, tool_call_id=call_id)


def scenario(make: Callable[[str], Any], mode: str, **kwargs: Any) -> Any:
    script = [ai_tool_calls(("t", {"x": "1"}, "c1")), "done", "again", "more", "enough"]
    return run_both(script, [command_tool(make)], USER, mode=mode, **kwargs)


RUNS = {
    "goto_end": lambda i: Command(goto="__end__", update={"messages": [answer(i)], "files": NOTE}),
    "goto_model": lambda i: Command(goto="model", update={"messages": [answer(i)]}),
    "goto_list": lambda i: Command(goto=["model", "__end__"], update={"messages": [answer(i)]}),
    "goto_no_node": lambda i: Command(goto="nowhere", update={"messages": [answer(i)]}),
    "resume": lambda i: Command(resume="ignored", update={"messages": [answer(i)]}),
    "messages_around": lambda i: Command(
        update={"messages": [AIMessage("before"), answer(i), HumanMessage("after")], "files": NOTE}
    ),
    "message_dicts": lambda i: Command(
        update={"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "content": "ok", "tool_call_id": i}]}
    ),
    "large_message_around": lambda i: Command(
        update={"messages": [ToolMessage("word " * 30000, tool_call_id="other"), answer(i, "big " * 30000)]}
    ),
    "two_answers": lambda i: Command(update={"messages": [answer(i, "one"), answer(i, "two")]}),
    "no_update": lambda i: Command(goto="model"),
    "mixed_list": lambda i: [Command(update={"messages": [answer(i)]}), "x"],
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(RUNS))
def test_command_runs_as_in_deepagents(case: str, mode: str) -> None:
    both = scenario(RUNS[case], mode)
    ref = assert_parity(both)
    assert ref, "deepagents raised"
    rs = both.rs.unwrap()
    assert norm_files(rs.get("files")) == norm_files(ref.get("files"))


REFUSED = {
    "list_update": lambda i: Command(update=[("messages", [answer(i)])]),
    "no_answer": lambda i: Command(update={"messages": [AIMessage("no answer")]}),
    "empty_update": lambda i: Command(update={}, goto="model"),
    "list_of_commands": lambda i: [Command(update={"files": NOTE}), answer(i)],
    "list_without_answer": lambda i: [Command(update={"files": NOTE}), answer("other")],
    "list_with_bad_update": lambda i: [Command(update=[("files", NOTE)]), answer(i)],
    "pairs_update": lambda i: Command(update=(("messages", [answer(i)]), ("files", NOTE))),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_command_refused_as_in_deepagents(case: str, mode: str) -> None:
    both = scenario(REFUSED[case], mode)
    assert_parity(both)
    assert_same_error(both)


@pytest.mark.parametrize("mode", MODES)
def test_parent_command_reaches_the_caller(mode: str) -> None:
    make = lambda i: Command(graph=Command.PARENT, goto="after", update={"messages": [answer(i)], "files": NOTE})
    both = scenario(make, mode)
    ref = assert_same_error(both)
    assert isinstance(both.rs.error, ParentCommand)
    for error in (ref, both.rs.error):
        command = error.args[0]
        assert (command.graph, command.goto) == ("", "after")
    rs_cmd, ref_cmd = both.rs.error.args[0], ref.args[0]
    assert norm(rs_cmd.update["messages"]) == norm(ref_cmd.update["messages"])
    assert rs_cmd.update["messages"][0].name == "t"
    assert rs_cmd.update["files"] == ref_cmd.update["files"]


def _embedded(module: Any, mode: str) -> dict:
    """The agent as a node of a graph its tool's command goes on in."""
    make = lambda i: Command(graph=Command.PARENT, goto="after", update={"messages": [answer(i, "from tool")]})
    model = ScriptedChatModel([ai_tool_calls(("t", {"x": "1"}, "c1")), "never"])
    agent = module.create_deep_agent(model=model, tools=[command_tool(make)])
    outer = StateGraph(MessagesState)
    outer.add_node("agent", agent)
    outer.add_node("after", lambda s: {"messages": [HumanMessage("after ran")]})
    outer.add_edge(START, "agent")
    graph = outer.compile()
    if mode == "invoke":
        return graph.invoke(USER)
    return asyncio.run(graph.ainvoke(USER))


@pytest.mark.parametrize("mode", MODES)
def test_parent_command_applied_by_an_embedding_graph(mode: str) -> None:
    ref = _embedded(deepagents, mode)
    rs = _embedded(deepagents_rs, mode)
    assert norm(rs["messages"]) == norm(ref["messages"])
    assert [m.content for m in rs["messages"]] == ["go", "from tool", "after ran"]


def _updates(module: Any, make: Callable[[str], Any]) -> list[tuple[str, list]]:
    model = ScriptedChatModel([ai_tool_calls(("t", {"x": "1"}, "c1")), "done"])
    agent = module.create_deep_agent(model=model, tools=[command_tool(make)])
    out = []
    for chunk in agent.stream(USER, stream_mode="updates"):
        for node, update in chunk.items():
            messages = (update or {}).get("messages") if isinstance(update, dict) else None
            out.append((node, [(type(m).__name__, m.content) for m in messages or []]))
    return out


@pytest.mark.parametrize("case", ["messages_around", "no_update", "goto_end"])
def test_command_updates_stream_as_in_deepagents(case: str) -> None:
    assert _updates(deepagents_rs, RUNS[case]) == _updates(deepagents, RUNS[case])


class PassOn(AgentMiddleware):
    """Hands the tool's result on as it came."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        return await handler(request)


class OwnCommand(AgentMiddleware):
    """Answers with a command of its own: messages around the tool's, and a goto."""

    def _wrap(self, request: Any, result: Any) -> Any:
        messages = result.update["messages"] if isinstance(result, Command) else [result]
        return Command(
            goto="__end__",
            update={"messages": [HumanMessage("mw before"), *messages, AIMessage("mw after")], "files": NOTE},
        )

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return self._wrap(request, handler(request))

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        return self._wrap(request, await handler(request))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("middleware", [PassOn, OwnCommand])
@pytest.mark.parametrize("case", ["messages_around", "goto_model", "no_update"])
def test_wrap_tool_call_sees_and_returns_commands(case: str, middleware: type, mode: str) -> None:
    if middleware is OwnCommand and case == "no_update":
        pytest.skip("a command without an update has no messages for the middleware to wrap")
    both = scenario(RUNS[case], mode, middleware=[middleware()])
    ref = assert_parity(both)
    assert ref, "deepagents raised"


class Hooked(AgentMiddleware):
    """A ``before_model`` node a goto can name (``Hooked.before_model``)."""

    def before_model(self, state: Any, runtime: Any) -> Any:
        return {"messages": [HumanMessage(f"hook saw {len(state['messages'])}")]}


def direct_tool(goto: Any) -> Any:
    """A tool that returns directly (the tools edge then ends the run) and goes on to
    ``goto``: the only node left to run, so the run goes on there. (A deep agent's own
    tools edge ends at deepagents' ``_ParentNotifierMiddleware.after_agent`` node, so this
    is a subagent's.)"""

    @tool("t", return_direct=True)
    def t(x: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Do the thing."""
        return Command(goto=goto, update={"messages": [answer(tool_call_id)], "files": NOTE})

    return t


def _goto_in_subagent(module: Any, goto: Any, middleware: list, mode: str, saver: bool = False) -> tuple:
    sub = ScriptedChatModel([ai_tool_calls(("t", {"x": "1"}, "s1")), "sub done", "sub again"])
    model = ScriptedChatModel([ai_tool_calls(("task", {"description": "d", "subagent_type": "w"}, "p1")), "done"])
    spec = {"name": "w", "description": "w", "system_prompt": "s", "model": sub, "tools": [direct_tool(goto)]}
    if middleware:
        spec["middleware"] = middleware
    agent = module.create_deep_agent(model=model, subagents=[spec], checkpointer=InMemorySaver() if saver else None)
    config = {"configurable": {"thread_id": "g"}}
    result = agent.invoke(USER, config) if mode == "invoke" else asyncio.run(agent.ainvoke(USER, config))
    saved = norm(agent.get_state(config).values["messages"]) if saver else None
    return norm(result["messages"]), norm_files(result["files"]), [norm(c.messages) for c in sub.calls], saved


GOTO_AFTER_END = {
    "model": ("model", []),
    "model_twice": (["model", "model", "__end__"], []),
    "hook_node": ("Hooked.before_model", [Hooked()]),
    "model_with_hooks": ("model", [Hooked()]),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(GOTO_AFTER_END))
def test_goto_when_the_tools_edge_ends_goes_on_there(case: str, mode: str) -> None:
    goto, middleware = GOTO_AFTER_END[case]
    ref = _goto_in_subagent(deepagents, goto, middleware, mode)
    rs = _goto_in_subagent(deepagents_rs, goto, middleware, mode)
    assert rs == ref
    # The subagent's model ran again after its tool's direct answer.
    assert len(ref[2]) == 2
    assert ref[0][-2]["content"] == "sub done"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("gotos", ["one", "two"])
def test_goto_when_the_tools_edge_ends_on_a_thread(gotos: str, mode: str) -> None:
    goto, middleware = ("model", []) if gotos == "one" else (["model", "Hooked.before_model"], [Hooked()])
    ref = _goto_in_subagent(deepagents, goto, middleware, mode, saver=True)
    assert _goto_in_subagent(deepagents_rs, goto, middleware, mode, saver=True) == ref
    assert ref[3] == ref[0]


@pytest.mark.parametrize("mode", MODES)
def test_two_gotos_when_the_tools_edge_ends_run_side_by_side(mode: str) -> None:
    """Both named nodes run in the next step, each going on along its own edges."""
    goto = ["model", "Hooked.before_model"]
    ref = _goto_in_subagent(deepagents, goto, [Hooked()], mode)
    assert _goto_in_subagent(deepagents_rs, goto, [Hooked()], mode) == ref


@pytest.mark.parametrize("mode", MODES)
def test_goto_beside_the_exit_of_a_deep_agent_runs_beside_it(mode: str) -> None:
    """A deep agent's tools edge ends at deepagents' ``after_agent`` node; the node a goto
    names runs beside it."""
    script = [ai_tool_calls(("t", {"x": "1"}, "c1")), "done", "again"]
    both = run_both(script, [direct_tool("model")], USER, mode=mode)
    ref = assert_parity(both)
    assert [m.content for m in ref["messages"]][-1] == "done"


def _from_subagent(
    module: Any, make: Callable[[str], Any], mode: str, stream: bool = False, compiled: bool = False
) -> Any:
    """The run of a subagent (declared, or compiled with LangChain's ``create_agent``) whose
    tool sends its parent a command."""
    sub = ScriptedChatModel([ai_tool_calls(("t", {"x": "1"}, "s1")), "sub done"])
    model = ScriptedChatModel([ai_tool_calls(("task", {"description": "d", "subagent_type": "w"}, "p1")), "done"])
    spec: dict[str, Any] = {"name": "w", "description": "w"}
    if compiled:
        from langchain.agents import create_agent

        spec["runnable"] = create_agent(sub, tools=[command_tool(make)])
    else:
        spec.update(system_prompt="s", model=sub, tools=[command_tool(make)])
    agent = module.create_deep_agent(model=model, subagents=[spec])
    if stream:
        out = []
        for chunk in agent.stream(USER, stream_mode="updates"):
            for node, update in chunk.items():
                update = update if isinstance(update, dict) else {}
                out.append((node, norm(update.get("messages") or []), update.get("files")))
        return out, len(sub.calls), len(model.calls)
    result = agent.invoke(USER) if mode == "invoke" else asyncio.run(agent.ainvoke(USER))
    return norm(result["messages"]), result["files"], len(sub.calls), norm(model.calls[-1].messages)


PARENT_RUNS = {
    "files": lambda i: Command(graph=Command.PARENT, update={"files": NOTE}),
    "answer_for_the_parent": lambda i: Command(
        graph=Command.PARENT, update={"messages": [ToolMessage("from sub", tool_call_id="p1")], "files": NOTE}
    ),
    "goto_where_the_parent_goes": lambda i: Command(
        graph=Command.PARENT, goto="model", update={"messages": [answer("p1", "up")]}
    ),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["declared", "compiled"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(PARENT_RUNS))
def test_parent_command_from_a_subagent_is_the_task_calls_write(case: str, mode: str, compiled: bool) -> None:
    ref = _from_subagent(deepagents, PARENT_RUNS[case], mode, compiled=compiled)
    rs = _from_subagent(deepagents_rs, PARENT_RUNS[case], mode, compiled=compiled)
    assert rs == ref
    assert ref[1] == ({} if case == "goto_where_the_parent_goes" else NOTE)
    # The subagent stopped at the step its tool sent the command from.
    assert ref[2] == 1


@pytest.mark.parametrize("case", sorted(PARENT_RUNS))
def test_parent_command_from_a_subagent_streams_as_in_deepagents(case: str) -> None:
    assert _from_subagent(deepagents_rs, PARENT_RUNS[case], "invoke", stream=True) == _from_subagent(
        deepagents, PARENT_RUNS[case], "invoke", stream=True
    )


@tool("rewrite")
def rewrite(text: str, runtime: ToolRuntime) -> Command:
    """Replace the first message of the conversation, and answer."""
    first = runtime.state["messages"][0]
    return Command(
        update={
            "messages": [HumanMessage(text, id=first.id), ToolMessage("rewritten", tool_call_id=runtime.tool_call_id)]
        }
    )


@pytest.mark.parametrize("mode", MODES)
def test_a_command_message_with_a_known_id_replaces_that_message(mode: str) -> None:
    script = [ai_tool_calls(("rewrite", {"text": "go, rewritten"}, "c1")), "done"]
    both = run_both(script, [rewrite], USER, mode=mode)
    ref = assert_parity(both)
    assert [m.content for m in ref["messages"]] == ["go, rewritten", "", "rewritten", "done"]
