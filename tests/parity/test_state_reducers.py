"""State keys with a reducer (``Annotated[list, operator.add]``, a function of the user's,
deepagents' ``async_tasks``) take every write, folded in LangGraph's order, side by side with
deepagents: parallel tool ``Command``s of one step, hook writes, the run's input, a thread
resumed and ``update_state``, a subagent's own schema and what its ``task`` call hands back, a
reducer that raises; sync and async, with and without a saver, and the ``updates`` stream
(which shows each write as written, not folded)."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, NotRequired

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command


def tagged(left: list, right: list) -> list:
    """A reducer of the user's: order and arguments show in the result."""
    return [*left, *(f"<{x}>" for x in right)]


def refuses_bad(left: list, right: list) -> list:
    if "bad" in right:
        raise ValueError(f"refused {right!r} after {left!r}")
    return [*left, *right]


class _State(AgentState):
    acc: NotRequired[Annotated[list, operator.add]]
    tag: NotRequired[Annotated[list, tagged]]
    strict: NotRequired[Annotated[list, refuses_bad]]


class _Hooks(AgentMiddleware):
    """Writes the keys from its hooks too."""

    state_schema = _State

    def before_agent(self, state: Any, runtime: Any) -> dict:
        return {"acc": ["before_agent"]}

    def after_model(self, state: Any, runtime: Any) -> dict:
        return {"tag": ["after_model"]}


class _Keys(AgentMiddleware):
    state_schema = _State


@tool
def write(key: str, v: Any, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Write v to key."""
    return Command(update={key: v, "messages": [ToolMessage(f"{key}+={v}", tool_call_id=tool_call_id)]})


def _calls(*writes: tuple[str, Any]) -> AIMessage:
    return ai_tool_calls(*(("write", {"key": k, "v": v}) for k, v in writes))


#: Two parallel calls of one step, then one more, each writing both keys.
STEPS = [
    _calls(("acc", ["a"]), ("tag", ["a"]), ("acc", ["b"]), ("tag", ["b"])),
    _calls(("acc", ["c"]), ("tag", ["c"])),
]


def _agent(module: Any, script: list, middleware: Any = None, saver: Any = None, **kwargs: Any) -> Any:
    return module.create_deep_agent(
        model=ScriptedChatModel(responses=script),
        tools=[write],
        middleware=[middleware or _Hooks()],
        checkpointer=saver,
        **kwargs,
    )


def _keys(result: dict) -> dict:
    return {k: result.get(k) for k in ("acc", "tag", "strict")}


def _invoke(agent: Any, payload: Any, config: dict, asynchronous: bool) -> Any:
    return asyncio.run(agent.ainvoke(payload, config)) if asynchronous else agent.invoke(payload, config)


def _run(module: Any, asynchronous: bool, saver: bool) -> dict:
    agent = _agent(module, [*STEPS, AIMessage("done")], saver=InMemorySaver() if saver else None)
    config = {"configurable": {"thread_id": "t"}}
    out = _keys(
        _invoke(agent, {"messages": [("user", "go")], "acc": ["input"], "tag": ["input"]}, config, asynchronous)
    )
    if saver:
        out["checkpoint"] = _keys(agent.get_state(config).values)
    return out


@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_every_write_is_folded_in_langgraph_s_order(asynchronous, saver):
    theirs = _run(deepagents, asynchronous, saver)
    assert theirs["acc"] == ["input", "before_agent", "a", "b", "c"]
    assert theirs["tag"] == ["<input>", "<after_model>", "<a>", "<b>", "<after_model>", "<c>", "<after_model>"]
    assert _run(deepagents_rs, asynchronous, saver) == theirs


def test_a_key_never_written_holds_its_empty_value():
    def run(module: Any) -> dict:
        agent = _agent(module, [AIMessage("done")], middleware=_Keys())
        return _keys(agent.invoke({"messages": [("user", "go")]}))

    theirs = run(deepagents)
    assert theirs == {"acc": [], "tag": [], "strict": []}
    assert run(deepagents_rs) == theirs


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_a_resumed_thread_and_update_state_go_through_the_reducer(asynchronous):
    def run(module: Any) -> list:
        script = [_calls(("acc", ["a"])), AIMessage("one"), _calls(("acc", ["b"]), ("acc", ["c"])), AIMessage("two")]
        agent = _agent(module, script, middleware=_Keys(), saver=InMemorySaver())
        config = {"configurable": {"thread_id": "t"}}
        seen = [_keys(_invoke(agent, {"messages": [("user", "go")], "acc": ["first"]}, config, asynchronous))]
        agent.update_state(config, {"acc": ["updated"], "tag": ["updated"]})
        seen.append(_keys(agent.get_state(config).values))
        seen.append(_keys(_invoke(agent, {"messages": [("user", "again")], "acc": ["second"]}, config, asynchronous)))
        return seen

    theirs = run(deepagents)
    assert theirs[-1]["acc"] == ["first", "a", "updated", "second", "b", "c"]
    assert run(deepagents_rs) == theirs


def _outcome(module: Any, script: list, asynchronous: bool, saver: bool) -> tuple:
    agent = _agent(module, script, middleware=_Keys(), saver=InMemorySaver() if saver else None)
    try:
        result = _invoke(agent, {"messages": [("user", "go")]}, {"configurable": {"thread_id": "t"}}, asynchronous)
    except Exception as exc:  # noqa: BLE001 - compared by type and text
        return type(exc).__name__, str(exc)
    return "ok", _keys(result)


@pytest.mark.parametrize("saver", [False, True], ids=["no-saver", "saver"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize(
    "calls",
    [
        [("strict", ["ok"]), ("strict", ["bad"])],
        [("strict", ["bad"])],
        [("acc", "not a list")],
    ],
    ids=["second-call-refused", "refused", "operator-fails"],
)
def test_a_reducer_that_raises_ends_the_run_with_its_error(calls, asynchronous, saver):
    # deepagents fails in the edge after the refused call (LangGraph's `local_read`: the
    # step's state with that call's write alone), naming the state before the step.
    script = [_calls(*calls), AIMessage("done")]
    theirs = _outcome(deepagents, script, asynchronous, saver)
    assert theirs[0] in ("ValueError", "TypeError")
    assert _outcome(deepagents_rs, script, asynchronous, saver) == theirs


def test_the_updates_stream_shows_each_write_as_written():
    def run(module: Any) -> list:
        agent = _agent(module, [*STEPS, AIMessage("done")])
        out = []
        for chunk in agent.stream({"messages": [("user", "go")]}, stream_mode="updates"):
            for node, update in chunk.items():
                keys = {k: v for k, v in (update or {}).items() if k in ("acc", "tag")}
                if keys:
                    out.append((node, keys))
        # A step's tool calls stream as each ends, in no fixed order (on both).
        return sorted(out, key=repr)

    theirs = run(deepagents)
    assert ("tools", {"acc": ["b"]}) in theirs
    assert run(deepagents_rs) == theirs


def test_async_tasks_merge_by_task_id_from_parallel_calls():
    def record(task_id: str, status: str) -> dict:
        return {task_id: {"task_id": task_id, "agent_name": "r", "thread_id": task_id, "run_id": "x", "status": status}}

    script = [
        _calls(("async_tasks", record("t1", "running")), ("async_tasks", record("t2", "running"))),
        _calls(("async_tasks", record("t1", "success"))),
        AIMessage("done"),
    ]
    remote = [{"name": "r", "description": "remote", "graph_id": "g", "url": "http://127.0.0.1:9"}]

    def run(module: Any) -> Any:
        agent = _agent(module, script, middleware=_Keys(), subagents=remote)
        return agent.invoke({"messages": [("user", "go")]}).get("async_tasks")

    theirs = run(deepagents)
    assert {k: v["status"] for k, v in theirs.items()} == {"t1": "success", "t2": "running"}
    assert run(deepagents_rs) == theirs


def _subagent(kind: str) -> tuple[dict, list]:
    """A subagent writing ``acc`` from two parallel calls, and the parent's script around it
    (a fork runs on the parent's model, continuing its script)."""
    calls = [_calls(("acc", ["s1"]), ("acc", ["s2"]), ("tag", ["s"])), AIMessage("sub done")]
    task = ai_tool_calls(("task", {"description": "write", "subagent_type": "sub"}))
    if kind == "fork":
        return {"name": "sub", "description": "forks", "mode": "fork"}, [_calls(("acc", ["p"])), task, *calls]
    if kind == "idle":
        # Writes nothing: its `task` call hands the keys back all the same.
        calls = [AIMessage("sub done")]
    spec = {
        "name": "sub",
        "description": "writes",
        "system_prompt": "write",
        "model": ScriptedChatModel(responses=calls),
        "tools": [write],
        "middleware": [_Keys()],
    }
    return spec, [_calls(("acc", ["p"])), task]


@pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")
@pytest.mark.parametrize("kind", ["isolated", "fork", "idle"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_a_subagent_folds_its_writes_and_its_task_hands_the_keys_back(kind, asynchronous):
    def run(module: Any) -> dict:
        spec, script = _subagent(kind)
        agent = _agent(module, [*script, AIMessage("done")], middleware=_Keys(), subagents=[spec])
        payload = {"messages": [("user", "go")], "acc": ["in"], "tag": ["in"]}
        return _keys(_invoke(agent, payload, {}, asynchronous))

    theirs = run(deepagents)
    # The subagent starts from the parent's keys, folded onto its own empty values (its graph
    # takes them as input); its `task` call hands back the keys that changed, whole, and the
    # parent's reducer adds them again.
    assert theirs["acc"] == (["in", "p"] if kind == "idle" else ["in", "p", "in", "p", "s1", "s2"])
    assert theirs["tag"][:2] == ["<in>", "<<<in>>>"]
    assert run(deepagents_rs) == theirs
