"""A native provider client's error leaves the run with the notes LangGraph's runner adds
("During task with name 'model' and id '<task id>'", then the `task` call's `tools` task's for
a subagent's model), side by side with deepagents over the equivalent LangChain model
(``ChatAnthropic``/``ChatOpenAI``) against the same simulated server, which answers the
failing call with a 500: the agent's model and a subagent's; with and without a saver;
``invoke`` and ``ainvoke``. Ids differ between the implementations: each note's id is checked
to be the task's id the failing node's run carries (the one its code sees), and both
implementations for the same tasks."""

from __future__ import annotations

import asyncio
import re
from types import ModuleType
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langgraph.checkpoint.memory import InMemorySaver

from .native_structured import NATIVE_MODELS, native_sim, point_at

_NOTE = re.compile(r"During task with name '(\w+)' and id '([0-9a-f-]{36})'")

#: The namespaces of the model nodes' tasks, as their code saw them.
SEEN: list[str] = []


class Seen(BaseCallbackHandler):
    """The namespace of each `model` node's run (its task's, as the code in it sees it): a
    callback, since a middleware of the user's would carry the error through Python."""

    def on_chain_start(self, serialized, inputs, *, metadata=None, name=None, **kwargs) -> None:
        metadata = metadata or {}
        if name == "model" == metadata.get("langgraph_node"):
            SEEN.append(metadata["langgraph_checkpoint_ns"])


def _failure(module: ModuleType, kind: str, sim: Any, call: Any, subagent: bool, saver: bool, api: str) -> tuple:
    SEEN.clear()
    if subagent:
        sim.script(call(("task", {"description": "do", "subagent_type": "worker"})))
    worker = {"name": "worker", "description": "Works.", "system_prompt": "Work."}
    agent = module.create_deep_agent(
        model=NATIVE_MODELS[kind],
        subagents=[worker],
        checkpointer=InMemorySaver() if saver else None,
    )
    payload = {"messages": [{"role": "user", "content": "go"}]}
    config = {"configurable": {"thread_id": "t"}, "callbacks": [Seen()]}
    with pytest.raises(Exception) as info:
        if api == "invoke":
            agent.invoke(payload, config)
        else:
            asyncio.run(agent.ainvoke(payload, config))
    tasks = agent.get_state(config).tasks if saver else None
    return info.value, list(SEEN), tasks


@pytest.mark.parametrize("api", ["invoke", "ainvoke"])
@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize("subagent", [False, True], ids=["agent", "subagent"])
@pytest.mark.parametrize("kind", ["anthropic", "openai-responses", "openai-chat"])
def test_a_native_providers_error_carries_the_model_tasks_notes(
    kind: str, subagent: bool, saver: bool, api: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    sim, _text, call = native_sim(kind, monkeypatch, request)
    shapes = []
    with sim:
        point_at(kind, sim)
        for module in (deepagents, deepagents_rs):
            exc, seen, tasks = _failure(module, kind, sim, call, subagent, saver, api)
            found = [_NOTE.fullmatch(note) for note in getattr(exc, "__notes__", ())]
            assert found and all(found), (module.__name__, type(exc), getattr(exc, "__notes__", None))
            named = [(m.group(1), m.group(2)) for m in found]
            # Innermost first: the failing model node's task, as its code saw it, then each
            # task around it.
            assert named == [tuple(s.rsplit(":", 1)) for s in reversed(seen[-1].split("|"))], module.__name__
            if tasks is not None:
                assert [(t.name, t.id) for t in tasks if t.error] == [named[-1]], module.__name__
            shapes.append([name for name, _ in named])
    assert shapes[0] == shapes[1] == (["model", "tools"] if subagent else ["model"])
