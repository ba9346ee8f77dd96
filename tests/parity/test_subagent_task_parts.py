"""The ``tasks``, ``debug`` and ``checkpoints`` parts of subagents with ``subgraphs=True``,
side by side with deepagents: each subagent run is a LangGraph subgraph under its `task`
call's namespace (``tools:<task id>``), whose loop streams its tasks' starts and results
(``id``, ``name``, ``input``, ``triggers``, ``metadata`` / ``error``, ``result``,
``interrupts``), its ``debug`` ``task`` / ``task_result`` / ``checkpoint`` parts, in order
with the parent's; ``stream`` and ``astream``, isolated and fork subagents, with and
without a saver, and a subagent whose tool fails.

Ids compare by first place: LangGraph derives a task's id from its checkpoint's id, a uuid6
of the moment (with or without a saver), so no id is equal across the two runs; each id
names the same task (and each namespace the same `task` call) on both sides."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

#: deepagents' forked subagents warn that they are in beta.
pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    if key == "bad":
        raise RuntimeError("lookup failed")
    return f"value of {key}"


def _agent(module: Any, fork: bool, saver: bool, key: str = "a") -> Any:
    sub_model = ScriptedChatModel([ai_tool_calls(("lookup", {"key": key}, "s1")), "sub result"])
    spec: dict[str, Any] = {
        "name": "researcher",
        "description": "Researches.",
        "system_prompt": "Research.",
        "model": sub_model,
        "tools": [lookup],
    }
    if fork:
        spec["mode"] = "fork"
    model = ScriptedChatModel(
        [ai_tool_calls(("task", {"description": "research a", "subagent_type": "researcher"}, "c1")), "done"]
    )
    kwargs: dict[str, Any] = {"checkpointer": InMemorySaver()} if saver else {}
    return module.create_deep_agent(model=model, tools=[lookup], subagents=[spec], **kwargs)


class _Ids:
    """Each id (or namespace's task id) named by its first place."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def __call__(self, value: Any) -> str:
        return _UUID.sub(lambda m: self.names.setdefault(m.group(0), f"<id{len(self.names)}>"), str(value))


def _task(payload: dict, ids: _Ids) -> tuple:
    if "result" not in payload:
        metadata = payload.get("metadata")
        return ("start", ids(payload["id"]), payload["name"], payload["triggers"], metadata)
    error = payload["error"]
    error = None if error is None else (type(error).__name__, str(error))
    return ("result", ids(payload["id"]), payload["name"], error, len(payload["interrupts"]))


def _checkpoint(payload: dict, ids: _Ids) -> tuple:
    metadata = payload.get("metadata") or {}
    ns = (payload.get("config") or {}).get("configurable", {}).get("checkpoint_ns")
    tasks = tuple((ids(t["id"]), t["name"]) for t in payload.get("tasks") or ())
    return (
        "checkpoint",
        ids(ns),
        metadata.get("source"),
        metadata.get("step"),
        tuple(payload.get("next") or ()),
        tasks,
    )


def _shape(chunk: tuple, ids: _Ids) -> tuple:
    ns, mode, data = chunk
    where = tuple(ids(segment) for segment in ns)
    if mode == "tasks":
        return (where, mode, _task(data, ids))
    if mode == "checkpoints":
        return (where, mode, _checkpoint(data, ids))
    if mode == "debug":
        payload = data["payload"]
        inner = _checkpoint(payload, ids) if data["type"] == "checkpoint" else _task(payload, ids)
        return (where, mode, data["type"], data["step"], inner)
    return (where, mode)


def _stream(module: Any, modes: list[str], fork: bool, saver: bool, asynchronous: bool, key: str = "a") -> tuple:
    agent = _agent(module, fork, saver, key)
    payload = {"messages": [{"role": "user", "content": "go"}]}
    config = {"configurable": {"thread_id": "t"}}
    kwargs = {"stream_mode": modes, "subgraphs": True}
    chunks: list = []
    error = None
    try:
        if asynchronous:

            async def go() -> None:
                async for chunk in agent.astream(payload, config, **kwargs):
                    chunks.append(chunk)

            asyncio.run(go())
        else:
            for chunk in agent.stream(payload, config, **kwargs):
                chunks.append(chunk)  # noqa: PERF402 - the chunks before an error are kept
    except RuntimeError as exc:
        error = str(exc)
    ids = _Ids()
    return [_shape(c, ids) for c in chunks], error


@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
@pytest.mark.parametrize("fork", [False, True], ids=["isolated", "fork"])
@pytest.mark.parametrize(
    "modes", [["tasks"], ["debug"], ["tasks", "checkpoints"]], ids=["tasks", "debug", "checkpoints"]
)
def test_a_subagents_task_parts(modes: list[str], fork: bool, saver: bool, asynchronous: bool) -> None:
    ours, ours_error = _stream(deepagents_rs, modes, fork, saver, asynchronous)
    theirs, their_error = _stream(deepagents, modes, fork, saver, asynchronous)
    assert ours_error is their_error is None
    assert ours == theirs
    # Not vacuous: the subagent's own tasks are there, under its task's namespace.
    assert any(s[0] and s[1] in ("tasks", "debug") for s in ours)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
@pytest.mark.parametrize("saver", [False, True], ids=["no_saver", "saver"])
def test_a_failing_subagents_task_parts(saver: bool, asynchronous: bool) -> None:
    ours, ours_error = _stream(deepagents_rs, ["tasks"], False, saver, asynchronous, key="bad")
    theirs, their_error = _stream(deepagents, ["tasks"], False, saver, asynchronous, key="bad")
    assert ours_error == their_error == "lookup failed"
    assert ours == theirs
    assert any(s[0] and s[2][0] == "result" and s[2][3] == ("RuntimeError", "lookup failed") for s in ours)
