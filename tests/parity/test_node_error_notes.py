"""An error raised in the `model` node (the model call, a `wrap_model_call` middleware) or in
a middleware hook's node (`before_model`, `after_model`) leaves the run with the notes
LangGraph's runner adds ("During task with name '<node>' and id '<task id>'"), one per task
it leaves, innermost first, side by side with deepagents: with and without a saver, from
``invoke``, ``stream`` and ``ainvoke``, in the agent and in a subagent (its node's task, then
the `tools` task of the `task` call that ran it).

Task ids cannot be equal across the implementations (LangGraph derives them from a
time-based checkpoint id), so each note's id is checked to be the failing node's own: the
namespace its code saw (``get_config()`` in a hook or wrapper, the model call's callback
metadata), and with a saver the failed task the checkpoint keeps (``get_state().tasks``)."""

from __future__ import annotations

from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware
from langchain_core.callbacks import BaseCallbackHandler
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config

from .error_notes_support import run_error, task_notes

_NODES = {"model": "model", "wrap": "model", "before": "Fails.before_model", "after": "Fails.after_model"}


class Fails(AgentMiddleware):
    """Raises in the node ``where`` names, after noting the task namespace its config has."""

    def __init__(self, where: str, seen: list[str]) -> None:
        super().__init__()
        self.where, self.seen = where, seen

    def _fail(self, where: str) -> None:
        if where == self.where:
            self.seen.append(get_config()["metadata"]["langgraph_checkpoint_ns"])
            raise RuntimeError(f"{where} failed")

    def before_model(self, state: Any, runtime: Any) -> None:
        self._fail("before")

    def after_model(self, state: Any, runtime: Any) -> None:
        self._fail("after")

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        self._fail("wrap")
        return handler(request)

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        self._fail("wrap")
        return await handler(request)


class FailingModel(ScriptedChatModel):
    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("model failed")

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("model failed")


class ModelCalls(BaseCallbackHandler):
    """The task namespace of each model call, from its callback metadata."""

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    def on_chat_model_start(self, serialized: Any, messages: Any, *, metadata: Any = None, **kwargs: Any) -> None:
        self.seen.append(metadata["langgraph_checkpoint_ns"])


def _agent(module: Any, where: str, subagent: bool, saver: bool, seen: list[str]) -> Any:
    model = FailingModel([]) if where == "model" else ScriptedChatModel(["done"])
    middleware = [] if where == "model" else [Fails(where, seen)]
    kwargs: dict[str, Any] = {"checkpointer": InMemorySaver()} if saver else {}
    if not subagent:
        return module.create_deep_agent(model=model, middleware=middleware, **kwargs)
    worker = {"name": "worker", "description": "Works.", "system_prompt": "Work.", "model": model}
    worker["middleware"] = middleware
    parent = ScriptedChatModel(
        [ai_tool_calls(("task", {"description": "do", "subagent_type": "worker"}, "c1")), "done"]
    )
    return module.create_deep_agent(model=parent, subagents=[worker], **kwargs)


def _failure(module: Any, api: str, where: str, subagent: bool, saver: bool) -> tuple[BaseException, str, Any]:
    seen: list[str] = []
    agent = _agent(module, where, subagent, saver, seen)
    payload = {"messages": [{"role": "user", "content": "go"}]}
    config: dict[str, Any] = {"configurable": {"thread_id": "t"}}
    if where == "model":
        config["callbacks"] = [ModelCalls(seen)]
    exc = run_error(agent, api, payload, config)
    tasks = agent.get_state(config).tasks if saver else None
    # The failing call is the last model call (a subagent's comes after its parent's).
    return exc, seen[-1], tasks


@pytest.mark.parametrize(
    ("api", "saver"), [("invoke", False), ("stream", False), ("ainvoke", False), ("invoke", True), ("ainvoke", True)]
)
@pytest.mark.parametrize("subagent", [False, True], ids=["agent", "subagent"])
@pytest.mark.parametrize("where", list(_NODES))
def test_a_nodes_error_carries_its_tasks_notes(where: str, subagent: bool, api: str, saver: bool) -> None:
    shapes = []
    for module in (deepagents, deepagents_rs):
        exc, task_ns, tasks = _failure(module, api, where, subagent, saver)
        assert str(exc) == f"{where} failed", module.__name__
        # Each task the error left, innermost first: the ids the failing node's code saw.
        expected = [tuple(segment.rsplit(":", 1)) for segment in reversed(task_ns.split("|"))]
        found = task_notes(exc, module.__name__)
        assert found == expected, module.__name__
        if tasks is not None:
            # The checkpoint keeps the failed task (the agent's own, or the `task` call's).
            assert [(t.name, t.id) for t in tasks if t.error] == [expected[-1]], module.__name__
        shapes.append([name for name, _ in found])
    node = _NODES[where]
    assert shapes[0] == shapes[1] == ([node, "tools"] if subagent else [node])
