"""The run options LangGraph's ``invoke``/``stream`` take, side by side with deepagents:
``output_keys`` (one channel, several, none, unknown ones), ``invoke`` with another
``stream_mode``, ``durability`` and the deprecated ``checkpoint_during`` without a
checkpointer, keywords LangGraph ignores, config keys LangChain drops, and
``max_concurrency`` bounding a step's tool calls."""

from __future__ import annotations

import asyncio
import threading
import time
import warnings
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from .harness import ScriptedChatModel, ai_tool_calls, norm

USER = {"messages": [{"role": "user", "content": "go"}]}


def write_note(text: str) -> str:
    """Pretend to write."""
    return f"wrote {text}"


def _agent(module: Any, **kwargs: Any) -> Any:
    script = [ai_tool_calls(("write_file", {"file_path": "/a.txt", "content": "A"}, "c1")), "done"]
    return module.create_deep_agent(model=ScriptedChatModel(script), tools=[write_note], **kwargs)


def _plain(value: Any) -> Any:
    """Messages normalized, files without their timestamps, the rest as is."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and value and hasattr(value[0], "type") and hasattr(value[0], "content"):
        return norm(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _no_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_times(v) for k, v in value.items() if k not in ("created_at", "modified_at")}
    if isinstance(value, list):
        return [_no_times(v) for v in value]
    return value


def _outcome(call: Any) -> Any:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: Any = ("ok", _no_times(_plain(call())))
        except Exception as exc:  # noqa: BLE001 - compared side by side
            result = ("raised", type(exc).__name__, str(exc))
    ours = sorted({(w.category.__name__, str(w.message)) for w in caught if "durability" in str(w.message)})
    return result, ours


def _both(run: Any, **kwargs: Any) -> tuple[Any, Any]:
    return tuple(_outcome(lambda m=m: run(_agent(m, **kwargs))) for m in (deepagents, deepagents_rs))


OUTPUT_KEYS = ["messages", ["messages"], "files", ["messages", "files"], ["files"], [], "nope", ["messages", "nope"]]


@pytest.mark.parametrize("keys", OUTPUT_KEYS, ids=repr)
@pytest.mark.parametrize("api", ["invoke", "ainvoke"])
def test_invoke_output_keys(keys: Any, api: str) -> None:
    def run(agent: Any) -> Any:
        if api == "invoke":
            return agent.invoke(USER, output_keys=keys)
        return asyncio.run(agent.ainvoke(USER, output_keys=keys))

    ref, rs = _both(run)
    assert rs == ref


@pytest.mark.parametrize("keys", ["messages", ["files"], ["messages", "files"]], ids=repr)
@pytest.mark.parametrize("mode", ["values", "updates", ["values", "updates"]], ids=repr)
def test_stream_output_keys(keys: Any, mode: Any) -> None:
    ref, rs = _both(lambda agent: list(agent.stream(USER, stream_mode=mode, output_keys=keys)))
    assert rs == ref


def test_output_keys_of_a_checkpointed_run() -> None:
    def run(agent: Any) -> Any:
        config = {"configurable": {"thread_id": "t"}}
        return agent.invoke(USER, config, output_keys=["files"]), list(
            agent.stream(USER, config, stream_mode="values", output_keys="messages")
        )

    ref, rs = _both(run, checkpointer=InMemorySaver())
    assert rs == ref


@pytest.mark.parametrize("mode", ["updates", ["values", "updates"], "messages"], ids=repr)
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_invoke_with_a_stream_mode_returns_the_chunks(mode: Any, version: str) -> None:
    ref, rs = _both(lambda agent: agent.invoke(USER, stream_mode=mode, version=version))
    assert rs == ref


@pytest.mark.parametrize(
    "kwargs",
    [
        {"durability": "sync"},
        {"durability": "async"},
        {"durability": "exit"},
        {"checkpoint_during": True},
        {"checkpoint_during": False},
        {"checkpoint_during": True, "durability": "exit"},
        {"not_an_option": 1},
    ],
    ids=repr,
)
@pytest.mark.parametrize("api", ["invoke", "ainvoke", "stream"])
def test_graph_keywords(kwargs: dict, api: str) -> None:
    def run(agent: Any) -> Any:
        if api == "invoke":
            return agent.invoke(USER, **kwargs)
        if api == "stream":
            return list(agent.stream(USER, **kwargs))
        return asyncio.run(agent.ainvoke(USER, **kwargs))

    ref, rs = _both(run)
    assert rs == ref


@pytest.mark.parametrize("config", [{"max_concurrency": 2}, {"not_a_config_key": 1}], ids=repr)
def test_config_keys(config: dict) -> None:
    ref, rs = _both(lambda agent: agent.invoke(USER, config))
    assert rs == ref


class Running:
    """How many calls of ``slow`` run at once, at most."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


RUNNING = Running()


@tool
def slow(key: str) -> str:
    """Take a while."""
    with RUNNING:
        time.sleep(0.05)
    return key


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_max_concurrency_bounds_a_steps_tool_calls(limit: int) -> None:
    calls = [("slow", {"key": k}, f"c{k}") for k in "abc"]
    seen = {}
    for module in (deepagents, deepagents_rs):
        agent = module.create_deep_agent(model=ScriptedChatModel([ai_tool_calls(*calls), "done"]), tools=[slow])
        RUNNING.most = 0
        chunks = list(agent.stream(USER, {"max_concurrency": limit}, stream_mode="updates"))
        order = [m.content for c in chunks for m in (c.get("tools") or {}).get("messages", [])]
        assert 1 <= RUNNING.most <= limit, module.__name__
        seen[module.__name__] = order if limit == 1 else sorted(order)
    assert seen["deepagents_rs"] == seen["deepagents"]
