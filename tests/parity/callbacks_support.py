"""Shared pieces of the callback parity tests: the tools and scenarios, the recording handlers, a
scenario's run and the normalization of its events."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import deepagents
import deepagents_rs
from fake_models import ScriptedChatModel, ai_tool_calls, normalize_messages
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, Generation, LLMResult
from langchain_core.tools import tool
from langgraph.types import Send

from .harness import researcher_subagents
from .placeholders import Placeholders

INPUT = {"messages": [{"role": "user", "content": "go"}]}


IMPLS = (deepagents, deepagents_rs)


# --------------------------------------------------------------------------------------------
# Tools and scenarios


@tool
def my_tool(x: int) -> str:
    """Double x."""
    return f"result={2 * x}"


@tool
def boom(x: int) -> str:
    """Always fails."""
    raise ValueError(f"kaboom {x}")


@dataclass(frozen=True)
class Scenario:
    name: str
    script: list[Any]
    tools: list[Any] | None = None
    #: The ``researcher`` subagent's own script (None: no subagent given).
    sub_script: list[Any] | None = None
    sub_tools: list[Any] | None = None
    create_kwargs: dict[str, Any] = field(default_factory=dict)
    #: Config besides ``callbacks``.
    config: dict[str, Any] = field(default_factory=dict)
    #: The run raises (the scenario's tool fails).
    raises: bool = False


def _research(name: str, **kwargs: Any) -> Scenario:
    return Scenario(
        name,
        script=[
            ai_tool_calls(("my_tool", {"x": 1}, "call_A"), content="Calling my_tool"),
            ai_tool_calls(("task", {"description": "research x", "subagent_type": "researcher"}, "call_B")),
            "Final answer: done",
        ],
        tools=[my_tool],
        sub_script=[ai_tool_calls(("my_tool", {"x": 2}, "call_S")), "sub result 4"],
        sub_tools=[my_tool],
        **kwargs,
    )


SCENARIOS = {
    s.name: s
    for s in (
        Scenario("plain", script=["Hello there, how can I help?"]),
        _research("research"),
        Scenario(
            "tool_error",
            script=[ai_tool_calls(("boom", {"x": 1}, "call_A"), content="Trying"), "never reached"],
            tools=[boom],
            raises=True,
        ),
        _research("config", config={"run_name": "custom", "tags": ["t1"], "metadata": {"k": "v"}}),
        _research("named", create_kwargs={"name": "named"}),
    )
}


#: Metadata keys not compared (see the module docstring).
NOISE_METADATA = frozenset(
    {"lc_versions", "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns", "checkpoint_ns"}
)


_ROUTING_KWARGS = frozenset({"run_id", "parent_run_id", "tags", "metadata"})


#: Keyword arguments that are the payload of an event rather than options.
_PAYLOAD_KWARGS = frozenset({"token"})


def _message(m: BaseMessage) -> dict[str, Any]:
    (d,) = normalize_messages([m])  # raw ids; rewritten with the rest of the events
    d["class"] = type(m).__name__
    if isinstance(m, AIMessageChunk):
        d["tool_call_chunks"] = [dict(c) for c in m.tool_call_chunks]
        d["chunk_position"] = m.chunk_position
    return d


def plain(obj: Any) -> Any:
    """A snapshot of a callback argument as plain data (ids still raw)."""
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    if isinstance(obj, BaseMessage):
        return _message(obj)
    if isinstance(obj, LLMResult):
        return {
            "class": "LLMResult",
            "generations": [[plain(g) for g in gens] for gens in obj.generations],
            "llm_output": plain(obj.llm_output),
        }
    if isinstance(obj, Generation):
        out = {"class": type(obj).__name__, "text": obj.text, "generation_info": plain(obj.generation_info)}
        if isinstance(obj, ChatGeneration):
            out["message"] = plain(obj.message)
        return out
    if isinstance(obj, Send):
        return {"class": "Send", "node": obj.node, "arg": plain(obj.arg)}
    if isinstance(obj, BaseException):
        return {"error": type(obj).__name__, "message": str(obj)}
    if isinstance(obj, uuid.UUID):
        return str(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {"class": type(obj).__name__, **{f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return tuple(plain(v) for v in obj)
    if isinstance(obj, list):
        return [plain(v) for v in obj]
    return f"<{type(obj).__name__}>"


def _tool_names(invocation_params: dict[str, Any]) -> list[str]:
    return [
        t.get("function", {}).get("name", t.get("name")) if isinstance(t, dict) else getattr(t, "name", None)
        for t in invocation_params.get("tools") or []
    ]


def _payload(event: str, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
    if event == "on_chain_start":
        return {"inputs": plain(args[1])}
    if event == "on_chain_end":
        return {"outputs": plain(args[0])}
    if event.endswith("_error"):
        return {"error": plain(args[0])}
    if event == "on_chat_model_start":
        params = kwargs.get("invocation_params") or {}
        return {
            "messages": plain(args[1]),
            "invocation_params": sorted(params),
            "tools": _tool_names(params),
            "options": plain(kwargs.get("options")),
            "batch_size": kwargs.get("batch_size"),
        }
    if event == "on_llm_start":
        return {"prompts": list(args[1])}
    if event == "on_llm_new_token":  # the token is a keyword under a sync manager, positional under async
        return {"token": kwargs.get("token", args[0] if args else None), "chunk": plain(kwargs.get("chunk"))}
    if event == "on_llm_end":
        return {"response": plain(args[0])}
    if event == "on_tool_start":
        return {"input_str": args[1], "inputs": plain(kwargs.get("inputs")), "tool_call_id": kwargs.get("tool_call_id")}
    if event == "on_tool_end":
        return {"output": plain(args[0])}
    return {"args": plain(args)}


def snapshot(event: str, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
    """One event as plain data, with raw ids (see the module docstring for what is kept)."""
    serialized = args[0] if event.endswith("_start") and args else None
    metadata = kwargs.get("metadata")
    tags = kwargs.get("tags")
    parent = kwargs.get("parent_run_id")
    return {
        "event": event,
        "run": str(kwargs.get("run_id")),
        "parent": None if parent is None else str(parent),
        "name": kwargs.get("name"),
        "serialized": None if serialized is None else {"name": serialized.get("name")},
        "tags": None if tags is None else sorted(tags),
        "metadata": None
        if metadata is None
        else {k: plain(v) for k, v in sorted(metadata.items()) if k not in NOISE_METADATA},
        "kwargs": sorted(set(kwargs) - _ROUTING_KWARGS - _PAYLOAD_KWARGS),
        "data": _payload(event, args, kwargs),
    }


class Recorder(BaseCallbackHandler):
    """Records every callback, snapshotted as it fires. ``raise_error`` so that a recording
    failure fails the test instead of being logged."""

    raise_error = True

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def record(self, event: str, args: tuple, kwargs: dict[str, Any]) -> None:
        snap = snapshot(event, args, kwargs)
        with self._lock:
            self.events.append(snap)


#: Every callback method of ``BaseCallbackHandler``.
CALLBACK_METHODS = (
    "on_llm_start",
    "on_chat_model_start",
    "on_llm_new_token",
    "on_llm_end",
    "on_llm_error",
    "on_chain_start",
    "on_chain_end",
    "on_chain_error",
    "on_tool_start",
    "on_tool_end",
    "on_tool_error",
    "on_agent_action",
    "on_agent_finish",
    "on_retriever_start",
    "on_retriever_end",
    "on_retriever_error",
    "on_text",
    "on_retry",
    "on_custom_event",
    "on_stream_event",
)


def _sync_method(event: str) -> Any:
    def method(self: Any, *args: Any, **kwargs: Any) -> None:
        self.record(event, args, kwargs)

    method.__name__ = event
    return method


def _async_method(event: str) -> Any:
    async def method(self: Any, *args: Any, **kwargs: Any) -> None:
        self.record(event, args, kwargs)

    method.__name__ = event
    return method


# Installed here, not in a test module: a file using Recorder alone must get the methods too.
for _event in CALLBACK_METHODS:
    setattr(Recorder, _event, _sync_method(_event))


# --------------------------------------------------------------------------------------------
# Running a scenario


@dataclass
class Run:
    impl: str
    events: list[dict[str, Any]]
    result: Any = None
    error: BaseException | None = None


def build(
    module: ModuleType, scenario: Scenario, model_cls: type[ScriptedChatModel] = ScriptedChatModel
) -> tuple[Any, ScriptedChatModel, ScriptedChatModel | None]:
    """A fresh agent for ``scenario`` from ``module``, with fresh models."""
    main = model_cls(scenario.script)
    sub = None
    subagents = None
    if scenario.sub_script is not None:
        sub = model_cls(scenario.sub_script)
        subagents = researcher_subagents(sub, scenario.sub_tools)
    agent = module.create_deep_agent(
        model=main,
        tools=list(scenario.tools) if scenario.tools is not None else None,
        subagents=subagents,
        **scenario.create_kwargs,
    )
    return agent, main, sub


def execute(agent: Any, inp: Any, config: dict[str, Any], api: str) -> Any:
    """Run the agent through ``api``: invoke, ainvoke, or stream/astream in ``messages`` mode."""
    if api == "invoke":
        return agent.invoke(inp, config=config)
    if api == "ainvoke":
        return asyncio.run(agent.ainvoke(inp, config=config))
    if api == "stream":
        return list(agent.stream(inp, config=config, stream_mode="messages"))
    if api == "astream":

        async def go() -> list[Any]:
            return [e async for e in agent.astream(inp, config=config, stream_mode="messages")]

        return asyncio.run(go())
    raise ValueError(api)


def run(
    module: ModuleType,
    scenario: Scenario,
    *,
    api: str = "invoke",
    handler_cls: type[BaseCallbackHandler] = Recorder,
    model_cls: type[ScriptedChatModel] = ScriptedChatModel,
    config: dict[str, Any] | None = None,
    **handler_attrs: Any,
) -> Run:
    """Run ``scenario`` through ``module`` with a fresh recording handler; an exception from the
    run is kept, not raised."""
    agent, _, _ = build(module, scenario, model_cls)
    handler = handler_cls()
    for k, v in handler_attrs.items():
        setattr(handler, k, v)
    cfg = {**copy.deepcopy(scenario.config), **copy.deepcopy(config or {}), "callbacks": [handler]}
    out = Run(impl=module.__name__, events=handler.events)
    try:
        out.result = execute(agent, copy.deepcopy(INPUT), cfg, api)
    except Exception as exc:  # noqa: BLE001 - compared by the tests
        out.error = exc
    return out


# --------------------------------------------------------------------------------------------
# Normalization


def _drop_message_ids(obj: Any) -> Any:
    if isinstance(obj, dict):
        out = {k: _drop_message_ids(v) for k, v in obj.items()}
        if "class" in out and "tool_call_id" in out and "id" in out:  # a normalized message
            out["id"] = "<not compared>"
        return out
    if isinstance(obj, list | tuple):
        return type(obj)(_drop_message_ids(v) for v in obj)
    return obj


def normalize(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The comparable form of a recorded event sequence (see the module docstring)."""
    events = copy.deepcopy(list(events))
    for e in events:
        if e["event"] == "on_chain_end" and e["parent"] is not None:
            e["data"] = _drop_message_ids(e["data"])
    return Placeholders(namespaces=False)(events)


SKELETON = ("event", "run", "parent", "name", "serialized", "tags", "metadata", "kwargs")


def skeleton(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: e[k] for k in SKELETON} for e in events]


def compact(events: Sequence[dict[str, Any]]) -> list[tuple]:
    """``(event, run name, parent run name, tags)`` per event; a run's name is its start
    event's ``name`` or ``serialized`` name."""
    names: dict[str, Any] = {}
    out = []
    for e in events:
        if e["event"].endswith("_start"):
            names[e["run"]] = e["name"] or (e["serialized"] or {}).get("name")
        out.append((e["event"], names.get(e["run"]), names.get(e["parent"]), e["tags"]))
    return out
