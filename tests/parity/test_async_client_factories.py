"""The LangGraph SDK client factories of ``deepagents.middleware.async_subagents``
(``get_sync_client``, ``get_client``) are module attributes the middleware looks up when it
first needs a client, so a program (or its tests) replacing them there reaches every async
subagent tool, side by side with deepagents: the same factory calls, the same SDK calls, the
same answers and task records."""

from __future__ import annotations

import asyncio
from typing import Any
from unittest.mock import patch

import deepagents
import deepagents_rs
import pytest

from .harness import MODES, ScriptedChatModel, ai_tool_calls, norm

USER = {"messages": [{"role": "user", "content": "go"}]}
SPEC = {"name": "researcher", "description": "Researches.", "graph_id": "research_graph", "url": "http://sdk.test"}


class _Section:
    """One SDK section (``threads``, ``runs``): records each call, answers from ``answers``."""

    def __init__(self, name: str, log: list, answers: dict[str, Any], is_async: bool) -> None:
        self._name, self._log, self._answers, self._async = name, log, answers, is_async

    def __getattr__(self, method: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            self._log.append((f"{self._name}.{method}", args, kwargs))
            return self._answers[f"{self._name}.{method}"]

        async def acall(*args: Any, **kwargs: Any) -> Any:
            return call(*args, **kwargs)

        return acall if self._async else call


class RecordingClient:
    """A stand-in for the SDK's client: the calls a tool makes, and canned server answers."""

    def __init__(self, log: list, is_async: bool) -> None:
        answers = {
            "threads.create": {"thread_id": "thread_1"},
            "runs.create": {"run_id": "run_1", "status": "pending"},
            "runs.get": {"run_id": "run_1", "status": "success"},
            "threads.get": {"thread_id": "thread_1", "values": {"messages": [{"type": "ai", "content": "found it"}]}},
            "runs.cancel": None,
        }
        self.threads = _Section("threads", log, answers, is_async)
        self.runs = _Section("runs", log, answers, is_async)


def _run(module: Any, mode: str) -> tuple:
    factory_calls: list = []
    sdk_calls: list = []

    def get_sync_client(**kwargs: Any) -> RecordingClient:
        factory_calls.append(("sync", kwargs))
        return RecordingClient(sdk_calls, is_async=False)

    def get_client(**kwargs: Any) -> RecordingClient:
        factory_calls.append(("async", kwargs))
        return RecordingClient(sdk_calls, is_async=True)

    script = [
        ai_tool_calls(("start_async_task", {"description": "look", "subagent_type": "researcher"}, "c1")),
        ai_tool_calls(("check_async_task", {"task_id": "thread_1"}, "c2")),
        "done",
    ]
    model = ScriptedChatModel(script)
    target = f"{module.__name__}.middleware.async_subagents"
    with patch(f"{target}.get_sync_client", get_sync_client), patch(f"{target}.get_client", get_client):
        agent = module.create_deep_agent(model=model, subagents=[dict(SPEC)])
        if mode == "invoke":
            result = agent.invoke(USER)
        else:
            result = asyncio.run(agent.ainvoke(USER))
    return factory_calls, sdk_calls, norm(result["messages"]), result.get("async_tasks", {}).keys()


@pytest.mark.parametrize("mode", MODES)
def test_patched_factories_reach_the_tools(mode: str) -> None:
    ref = _run(deepagents, mode)
    rs = _run(deepagents_rs, mode)
    assert rs[0] == ref[0]
    assert rs[1] == ref[1]
    assert rs[2] == ref[2]
    assert list(rs[3]) == list(ref[3])
    assert ref[0], "deepagents made no client"
    assert [name for name, _, _ in ref[1]][:2] == ["threads.create", "runs.create"]
