"""A thread stopped at, or replayed from, a step of several tasks side by side (a tool's
``Command(goto=...)`` beside the tools edge's destination, a ``Send``'s node on its own
state), resumed next to deepagents: LangGraph starts the step's tasks from the checkpoint
(each sent task on the state its ``Send`` gave it), and the run goes on. Compared: the
outputs, the model's calls and the whole checkpoint history, on InMemorySaver, SqliteSaver
and AsyncSqliteSaver; stopped with ``interrupt_before``/``interrupt_after``, by an
``interrupt()`` in one of the tasks, and replayed from every past checkpoint.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command, Send, interrupt

from .harness import ai_tool_calls, norm
from .test_tool_goto_branches import USER, ByInputModel, _agent, _calls, _history, goto_tool, plain

CONFIG = {"configurable": {"thread_id": "t"}}

AFTER_TOOLS = [{"interrupt_after": ["tools"]}]
#: The first run stops before the first model call, the resumed one before the next step
#: with a `model` task: the step of several tasks.
BEFORE_MODEL = [{"interrupt_before": ["model"]}, {"interrupt_before": ["model"]}]

#: (case, the breakpoints of each run before the last): each stop but the first resumes.
STOPS: dict[str, tuple[str, list[dict]]] = {
    "after_model_beside_model": ("after_model_beside_model", AFTER_TOOLS),
    "after_model_beside_model_before": ("after_model_beside_model", BEFORE_MODEL),
    "send_after_model": ("send_after_model", AFTER_TOOLS),
    "send_model": ("send_model", AFTER_TOOLS),
    "send_model_before": ("send_model", BEFORE_MODEL),
    "two_sends": ("two_sends", AFTER_TOOLS),
    "list_mixing_them": ("list_mixing_them", AFTER_TOOLS),
    "list_mixing_them_before": ("list_mixing_them", BEFORE_MODEL),
    "tools_on_the_whole_state": ("tools_on_the_whole_state", AFTER_TOOLS),
    "two_calls_going_apart": ("two_calls_going_apart", AFTER_TOOLS),
}


def _out(result: Any) -> Any:
    return norm(result["messages"]) if isinstance(result, dict) and "messages" in result else result


def _stop_and_resume(module: Any, name: str, kind: str, path: Path) -> tuple:
    """Each run's output and the tasks it stopped before, the model's calls and the
    thread's history."""
    case, stops = STOPS[name]
    if kind == "async_sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        async def run() -> tuple:
            async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
                agent, model = _agent(module, case, saver)
                runs = []
                for n, kwargs in enumerate([*stops, {}]):
                    out = await agent.ainvoke(None if n else USER, CONFIG, **kwargs)
                    runs.append((_out(out), (await agent.aget_state(CONFIG)).next))
                history = [s async for s in agent.aget_state_history(CONFIG)]
                return runs, _calls(model), _history(history)

        return asyncio.run(run())
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
    agent, model = _agent(module, case, saver)
    runs = []
    for n, kwargs in enumerate([*stops, {}]):
        out = agent.invoke(None if n else USER, CONFIG, **kwargs)
        runs.append((_out(out), agent.get_state(CONFIG).next))
    return runs, _calls(model), _history(list(agent.get_state_history(CONFIG)))


@pytest.mark.parametrize("kind", ["memory", "sqlite", "async_sqlite"])
@pytest.mark.parametrize("case", sorted(STOPS))
def test_a_breakpoint_before_a_step_of_several_tasks_resumes_as_in_deepagents(
    case: str, kind: str, tmp_path: Path
) -> None:
    ref = _stop_and_resume(deepagents, case, kind, tmp_path / "ref.db")
    # The last stop is before a step of several tasks (so the resume is the case named),
    # and the thread ran to its end.
    assert len(ref[0][-2][1]) > 1
    assert ref[0][-1][1] == ()
    assert _stop_and_resume(deepagents_rs, case, kind, tmp_path / "rs.db") == ref


class Ask(AgentMiddleware):
    """An ``after_model`` node (``Ask.after_model``) that asks a human when it sees a tool's
    answer or a sent ``ask``: in the step of several tasks only."""

    def after_model(self, state: Any, runtime: Any) -> Any:
        last = state["messages"][-1]
        if getattr(last, "type", None) == "tool" or getattr(last, "content", None) == "ask":
            answer = interrupt({"seen": last.content})
            return {"messages": [HumanMessage(f"answer {answer}")]}
        return None


#: The tool's goto: Ask's node named beside the model, or sent a state of its own.
ASKS: dict[str, Any] = {
    "named": "Ask.after_model",
    "sent": Send("Ask.after_model", {"messages": [HumanMessage("ask")]}),
    "sent_and_named": [Send("Ask.after_model", {"messages": [HumanMessage("ask")]}), "model"],
}


def _asking(module: Any, case: str, saver: Any) -> tuple[Any, ByInputModel]:
    model = ByInputModel([ai_tool_calls(("t", {"x": "1"}, "c1"))])
    agent = module.create_deep_agent(
        model=model, tools=[goto_tool(ASKS[case]), plain], middleware=[Ask()], checkpointer=saver
    )
    return agent, model


def _stopped_view(snapshot: Any) -> tuple:
    """A stopped thread: what runs next, and each task's kept write and interrupts."""
    tasks = [
        (t.name, norm((t.result or {}).get("messages", [])), [i.value for i in t.interrupts]) for t in snapshot.tasks
    ]
    return snapshot.next, tasks


def _interrupts(out: Any) -> list:
    return [i.value for i in (out.get("__interrupt__") or [])] if isinstance(out, dict) else []


def _update(chunk: dict) -> dict:
    """An ``updates`` chunk, its messages normalized (a kept write is marked cached)."""
    out = {}
    for key, value in chunk.items():
        if isinstance(value, dict) and "messages" in value:
            value = {**value, "messages": norm(value["messages"])}
        elif key == "__interrupt__":
            value = [i.value for i in value]
        out[key] = value
    return out


def _ask_and_answer(module: Any, case: str, kind: str, path: Path) -> tuple:
    if kind == "async_sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        async def run() -> tuple:
            async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
                agent, model = _asking(module, case, saver)
                first = await agent.ainvoke(USER, CONFIG)
                stopped = _stopped_view(await agent.aget_state(CONFIG))
                second = await agent.ainvoke(Command(resume="yes"), CONFIG)
                history = [s async for s in agent.aget_state_history(CONFIG)]
                return (_out(first), _interrupts(first)), stopped, _out(second), _calls(model), _history(history)

        return asyncio.run(run())
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
    agent, model = _asking(module, case, saver)
    first = agent.invoke(USER, CONFIG)
    stopped = _stopped_view(agent.get_state(CONFIG))
    if kind == "stream":
        chunks = [_update(chunk) for chunk in agent.stream(Command(resume="yes"), CONFIG, stream_mode="updates")]
        # The kept writes come first; LangGraph streams a step's tasks' updates as they end
        # (its tasks run concurrently), so the rest are compared as a multiset.
        second = (chunks[0], sorted(map(repr, chunks[1:])))
    else:
        second = _out(agent.invoke(Command(resume="yes"), CONFIG))
    history = _history(list(agent.get_state_history(CONFIG)))
    return (_out(first), _interrupts(first)), stopped, second, _calls(model), history


@pytest.mark.parametrize("kind", ["memory", "sqlite", "async_sqlite", "stream"])
@pytest.mark.parametrize("case", sorted(ASKS))
def test_an_interrupt_in_one_task_of_the_step_resumes_as_in_deepagents(case: str, kind: str, tmp_path: Path) -> None:
    """The other tasks of the step finish and keep their writes; the resumed step runs the
    interrupted task only, on the checkpoint's state, and applies every write in task order."""
    ref = _ask_and_answer(deepagents, case, kind, tmp_path / "ref.db")
    # The step stopped with a finished task beside the interrupted one.
    _next, tasks = ref[1]
    assert any(written for _name, written, _asked in tasks)
    assert any(asked for _name, _written, asked in tasks)
    assert _ask_and_answer(deepagents_rs, case, kind, tmp_path / "rs.db") == ref


def _replayed(module: Any, case: str, kind: str, path: Path) -> tuple:
    """A thread run to its end, then replayed from each of its checkpoints (oldest first):
    each replay's output, then the whole history with the replays' forks."""
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
    agent, model = _agent(module, case, saver)
    agent.invoke(USER, CONFIG)
    past = list(agent.get_state_history(CONFIG))[::-1]
    outputs = []
    for snapshot in past:
        outputs.append((snapshot.next, _out(agent.invoke(None, snapshot.config))))
    return outputs, _calls(model), _history(list(agent.get_state_history(CONFIG)))


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize("case", ["after_model_beside_model", "send_after_model", "list_mixing_them", "two_sends"])
def test_a_replay_from_each_past_checkpoint_is_deepagents(case: str, kind: str, tmp_path: Path) -> None:
    ref = _replayed(deepagents, case, kind, tmp_path / "ref.db")
    assert any(len(n) > 1 for n, _ in ref[0])
    assert _replayed(deepagents_rs, case, kind, tmp_path / "rs.db") == ref


def _checkpoint_configs(module: Any) -> list:
    agent, _ = _agent(module, "send_after_model", InMemorySaver())
    return [
        (
            sorted((chunk.get("config") or {}).get("configurable", {})),
            sorted((chunk.get("parent_config") or {}).get("configurable", {})),
        )
        for chunk in agent.stream(USER, CONFIG, stream_mode="checkpoints")
    ]


def test_streamed_checkpoints_show_only_the_callers_config() -> None:
    """``stream_mode="checkpoints"`` shows LangGraph's own keys, none of the run's internals."""
    ref = _checkpoint_configs(deepagents)
    assert ref[0][0] == ["checkpoint_id", "checkpoint_ns", "thread_id"]
    assert _checkpoint_configs(deepagents_rs) == ref


def _replayed_after_asking(module: Any, case: str) -> tuple:
    """A thread stopped by ``Ask`` and answered, then replayed from each of its checkpoints
    (the stopped step's included, whose kept writes a replay does not reuse)."""
    agent, model = _asking(module, case, InMemorySaver())
    agent.invoke(USER, CONFIG)
    agent.invoke(Command(resume="yes"), CONFIG)
    outputs = []
    for snapshot in list(agent.get_state_history(CONFIG))[::-1]:
        out = agent.invoke(None, snapshot.config)
        outputs.append((snapshot.next, _out(out), _interrupts(out)))
    return outputs, _calls(model), _history(list(agent.get_state_history(CONFIG)))


@pytest.mark.parametrize("case", sorted(ASKS))
def test_a_replay_of_a_thread_an_interrupt_stopped_is_deepagents(case: str) -> None:
    ref = _replayed_after_asking(deepagents, case)
    assert any(asked for _next, _out, asked in ref[0])
    assert _replayed_after_asking(deepagents_rs, case) == ref


class Gate(AgentMiddleware):
    """A ``wrap_model_call`` that asks a human before answering a sent ``two``: one of the
    step's several `model` tasks stops, its siblings of the same node finish."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        if request.messages and request.messages[-1].content == "two":
            answer = interrupt("gate two")
            return handler(request.override(messages=[*request.messages, HumanMessage(f"answer {answer}")]))
        return handler(request)

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        if request.messages and request.messages[-1].content == "two":
            answer = interrupt("gate two")
            return await handler(request.override(messages=[*request.messages, HumanMessage(f"answer {answer}")]))
        return await handler(request)


def _gated(module: Any, saver: Any) -> tuple[Any, ByInputModel]:
    """Two ``Send``s to the model beside the tools edge's own `model`: three `model` tasks
    in one step, the second sent one stopped by `Gate`."""
    model = ByInputModel([ai_tool_calls(("t", {"x": "1"}, "c1"))])
    sends = [Send("model", {"messages": [HumanMessage("one")]}), Send("model", {"messages": [HumanMessage("two")]})]
    agent = module.create_deep_agent(model=model, tools=[goto_tool(sends)], middleware=[Gate()], checkpointer=saver)
    return agent, model


def _gate_and_answer(module: Any, kind: str, path: Path) -> tuple:
    if kind == "async_sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        async def run() -> tuple:
            async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
                agent, model = _gated(module, saver)
                first = await agent.ainvoke(USER, CONFIG)
                stopped = _stopped_view(await agent.aget_state(CONFIG))
                second = await agent.ainvoke(Command(resume="yes"), CONFIG)
                final = (await agent.aget_state(CONFIG)).values
                history = [s async for s in agent.aget_state_history(CONFIG)]
                return _interrupts(first), stopped, _out(second), _out(final), _calls(model), _history(history)

        return asyncio.run(run())
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
    agent, model = _gated(module, saver)
    first = agent.invoke(USER, CONFIG)
    stopped = _stopped_view(agent.get_state(CONFIG))
    second = _out(agent.invoke(Command(resume="yes"), CONFIG))
    final = _out(agent.get_state(CONFIG).values)
    history = _history(list(agent.get_state_history(CONFIG)))
    return _interrupts(first), stopped, second, final, _calls(model), history


@pytest.mark.parametrize("kind", ["memory", "sqlite", "async_sqlite"])
def test_an_interrupt_in_one_of_a_steps_tasks_of_one_node_resumes_as_in_deepagents(kind: str, tmp_path: Path) -> None:
    """Each task keeps its own write (the stopped one wrote none), and the resumed step runs
    the stopped task alone, on the state its ``Send`` gave it."""
    ref = _gate_and_answer(deepagents, kind, tmp_path / "ref.db")
    assert ref[0] == ["gate two"]
    assert [m["content"] for m in ref[2][-3:]] == ["re: ok 1", "re: one", "re: answer yes"]
    assert _gate_and_answer(deepagents_rs, kind, tmp_path / "rs.db") == ref
