"""The agent composes as deepagents' graph does: a node (subgraph) of a user's StateGraph, with
its checkpoints under the parent's namespace, its stream parts under ``subgraphs=True`` and
its interrupts surfacing to the parent; and a ``CompiledSubAgent`` of another agent, of
either implementation."""

from __future__ import annotations

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, Interrupt

IMPLS = {"deepagents": deepagents, "deepagents_rs": deepagents_rs}


def _script():
    return ScriptedChatModel(
        responses=[
            ai_tool_calls(("write_file", {"file_path": "/a.md", "content": "one"})),
            ai_tool_calls(("edit_file", {"file_path": "/a.md", "old_string": "one", "new_string": "two"})),
            AIMessage("edited"),
        ]
    )


def _parent(module):
    agent = module.create_deep_agent(model=_script(), interrupt_on={"edit_file": True})
    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    return builder.compile(checkpointer=InMemorySaver())


def _plain(value):
    """A stream payload without what differs run to run (ids, task ids, timestamps)."""
    if isinstance(value, Interrupt):
        return ("interrupt", _plain(value.value))
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in ("created_at", "modified_at")}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "content") and hasattr(value, "type"):
        calls = [(c["name"], c["args"]) for c in getattr(value, "tool_calls", None) or []]
        return (value.type, value.content, calls)
    return value


def _part(ns, mode, data):
    return ([n.split(":")[0] for n in ns], mode, _plain(data))


def _session(module):
    graph = _parent(module)
    thread = {"configurable": {"thread_id": "t"}}
    modes = ["updates", "values"]
    first = [_part(*p) for p in graph.stream({"messages": [("user", "go")]}, thread, subgraphs=True, stream_mode=modes)]
    paused = graph.get_state(thread, subgraphs=True)
    (task,) = paused.tasks
    sub = task.state
    resumed = [
        _part(*p)
        for p in graph.stream(
            Command(resume={"decisions": [{"type": "approve"}]}), thread, subgraphs=True, stream_mode=modes
        )
    ]
    done = graph.get_state(thread)
    return {
        "first": first,
        "paused": (paused.next, task.name, [_plain(i.value) for i in task.interrupts]),
        "sub": (sub.next, _plain(sub.values), sub.config["configurable"]["checkpoint_ns"].split(":")[0]),
        "resumed": resumed,
        "done": _plain(done.values),
        "history": [(s.metadata["step"], s.next) for s in graph.get_state_history(thread)],
    }


def test_subgraph_of_a_state_graph():
    ours, theirs = _session(deepagents_rs), _session(deepagents)
    assert ours["paused"][0] == ("agent",)
    for key in theirs:
        assert ours[key] == theirs[key], key
    assert ours["done"]["messages"][-1] == ("ai", "edited", [])


@pytest.mark.parametrize(("parent", "child"), [("deepagents_rs", "deepagents"), ("deepagents", "deepagents_rs")])
def test_compiled_subagent_of_either_implementation(parent, child):
    """A compiled agent of one implementation as the subagent of the other's, against both
    built by deepagents."""

    def run(parent_module, child_module):
        child_agent = child_module.create_deep_agent(
            model=ScriptedChatModel(
                responses=[
                    ai_tool_calls(("write_file", {"file_path": "/r.md", "content": "found"})),
                    AIMessage("found it"),
                ]
            )
        )
        agent = parent_module.create_deep_agent(
            model=ScriptedChatModel(
                responses=[
                    ai_tool_calls(("task", {"description": "research", "subagent_type": "researcher"})),
                    AIMessage("reported"),
                ]
            ),
            subagents=[{"name": "researcher", "description": "researches", "runnable": child_agent}],
        )
        result = agent.invoke({"messages": [("user", "research")]})
        return _plain(result["messages"]), {p: f["content"] for p, f in result.get("files", {}).items()}

    mixed = run(IMPLS[parent], IMPLS[child])
    reference = run(deepagents, deepagents)
    assert mixed == reference
    assert mixed[1] == {"/r.md": "found"}


def _namespaces(module, checkpointer):
    """The checkpoint namespaces a two-turn parent thread holds for the agent as a node."""
    agent = module.create_deep_agent(
        model=ScriptedChatModel(responses=[AIMessage("one"), AIMessage("two")]), checkpointer=checkpointer
    )
    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    saver = InMemorySaver()
    graph = builder.compile(checkpointer=saver)
    thread = {"configurable": {"thread_id": "t"}}
    for text in ("a", "b"):
        graph.invoke({"messages": [("user", text)]}, thread)
    # A per-call namespace names its task (`agent:<task id>`); a subgraph's own is `agent`.
    spaces = sorted(
        {
            ns.split(":")[0] + (":<task>" if ":" in ns else "")
            for ns in (c.config["configurable"]["checkpoint_ns"] for c in saver.list(None))
        }
    )
    return spaces, len(list(saver.list(None)))


@pytest.mark.parametrize("checkpointer", [None, True, False], ids=["inherit", "own-state", "never"])
def test_subgraph_checkpointer_modes(checkpointer):
    """LangGraph's `checkpointer=` for a subgraph: None checkpoints per call under the parent's
    task, True keeps the agent's own state across the parent's turns, False never checkpoints."""
    ours = _namespaces(deepagents_rs, checkpointer)
    assert ours == _namespaces(deepagents, checkpointer)


@pytest.mark.parametrize("checkpointer", [True, False])
def test_root_checkpointer_flags(checkpointer):
    errors = []
    for module in (deepagents_rs, deepagents):
        agent = module.create_deep_agent(model=ScriptedChatModel(responses=[AIMessage("x")]), checkpointer=checkpointer)
        try:
            agent.invoke({"messages": [("user", "a")]})
            errors.append(None)
        except Exception as exc:  # noqa: BLE001 - compared between the two
            errors.append((type(exc).__name__, str(exc)))
    assert errors[0] == errors[1]
    assert (errors[0] is None) == (checkpointer is False)
