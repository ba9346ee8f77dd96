"""An error raised by a `CompiledSubAgent`'s runnable leaves the run with the note LangGraph's
runner adds for the `task` call's `tools` task ("During task with name 'tools' and id
'<task id>'"), after the runnable's own notes (a graph's node task), side by side with
deepagents: a LangGraph graph whose node fails, a plain runnable that fails, each
implementation's own agent whose model fails; with and without a saver, ``invoke`` and
``ainvoke``.

Task ids cannot be equal across the implementations; the outer note's id is checked to be
the failed `tools` task the checkpoint keeps with a saver (``get_state().tasks``); without
one, a LangGraph graph's node runs inside that task (its namespace), so its notes name the
tasks its node saw."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import START, MessagesState, StateGraph

_NOTE = re.compile(r"During task with name '(\w+)' and id '([0-9a-f-]{36})'")


class FailingModel(ScriptedChatModel):
    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("inner failed")

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("inner failed")


def _runnable(module: Any, kind: str, seen: list[str]) -> Any:
    def fail(state: Any) -> Any:
        if kind == "graph":
            seen.append(get_config()["metadata"]["langgraph_checkpoint_ns"])
        raise RuntimeError("inner failed")

    if kind == "graph":
        graph = StateGraph(MessagesState)
        graph.add_node("inner", fail)
        graph.add_edge(START, "inner")
        return graph.compile()
    if kind == "lambda":
        return RunnableLambda(fail)
    return module.create_deep_agent(model=FailingModel([]))


def _failure(module: Any, kind: str, api: str, saver: bool) -> tuple[BaseException, list[str], Any]:
    seen: list[str] = []
    worker = {"name": "worker", "description": "Works.", "runnable": _runnable(module, kind, seen)}
    model = ScriptedChatModel([ai_tool_calls(("task", {"description": "do", "subagent_type": "worker"}, "c1")), "done"])
    kwargs: dict[str, Any] = {"checkpointer": InMemorySaver()} if saver else {}
    agent = module.create_deep_agent(model=model, subagents=[worker], **kwargs)
    payload = {"messages": [{"role": "user", "content": "go"}]}
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(RuntimeError) as info:
        if api == "invoke":
            agent.invoke(payload, config)
        else:
            asyncio.run(agent.ainvoke(payload, config))
    return info.value, seen, agent.get_state(config).tasks if saver else None


@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize("api", ["invoke", "ainvoke"])
@pytest.mark.parametrize("kind", ["graph", "lambda", "agent"])
def test_a_compiled_subagents_error_carries_the_task_calls_note(kind: str, api: str, saver: bool) -> None:
    shapes = []
    for module in (deepagents, deepagents_rs):
        exc, seen, tasks = _failure(module, kind, api, saver)
        assert str(exc) == "inner failed", module.__name__
        found = [_NOTE.fullmatch(note) for note in getattr(exc, "__notes__", ())]
        assert found and all(found), (module.__name__, getattr(exc, "__notes__", None))
        named = [(m.group(1), m.group(2)) for m in found]
        if seen:
            # The graph's own note names the node's task as the node saw it.
            assert named[0] == tuple(seen[-1].rpartition("|")[2].rsplit(":", 1)), module.__name__
        if tasks is not None:
            assert [(t.name, t.id) for t in tasks if t.error] == [named[-1]], module.__name__
        shapes.append([name for name, _ in named])
    inner = {"graph": ["inner"], "lambda": [], "agent": ["model"]}[kind]
    assert shapes[0] == shapes[1] == [*inner, "tools"]


def test_a_compiled_graph_runs_in_the_task_calls_task_without_a_saver() -> None:
    for module in (deepagents, deepagents_rs):
        exc, seen, _ = _failure(module, "graph", "invoke", False)
        named = [tuple(_NOTE.fullmatch(note).groups()) for note in exc.__notes__]  # type: ignore[union-attr]
        assert named == [tuple(s.rsplit(":", 1)) for s in reversed(seen[-1].split("|"))], module.__name__
