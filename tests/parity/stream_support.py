"""Shared pieces of the stream parity tests: the tools, the scenarios' scripts, the
implementations, the normalization of streamed chunks."""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from fake_models import ScriptedChatModel, StreamingScriptedChatModel, ai_tool_calls, normalize_messages
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.tools import tool
from langgraph.config import get_stream_writer

from .harness import researcher_subagents
from .placeholders import UUID_RE, Placeholders

INPUT = {"messages": [{"role": "user", "content": "go"}]}


# --------------------------------------------------------------------------------------------
# Tools and scenarios


@tool
def my_tool(x: int) -> str:
    """Double x."""
    return f"result={2 * x}"


@tool
def progress_tool(x: int) -> str:
    """Double x, reporting progress on the custom stream."""
    write = get_stream_writer()
    write({"progress": f"doubling {x}"})
    write(f"doubled {x}")
    return f"result={2 * x}"


#: How long ``slow_lookup`` takes: long enough that ``fast_lookup`` always finishes first.
SLOW_SECONDS = 0.1


@tool
def slow_lookup(key: str) -> str:
    """Look a key up, slowly."""
    time.sleep(SLOW_SECONDS)
    return f"slow value of {key}"


@tool
def fast_lookup(key: str) -> str:
    """Look a key up, quickly."""
    return f"fast value of {key}"


@dataclass(frozen=True)
class Scenario:
    name: str
    script: list[Any]
    tools: list[Any] | None = None
    #: The ``researcher`` subagent's own script (None: no subagent).
    sub_script: list[Any] | None = None
    sub_tools: list[Any] | None = None
    #: Parallel tool calls: tool results arrive in completion order.
    unordered_tools: bool = False


def _research(name: str, tool_: Any) -> Scenario:
    return Scenario(
        name,
        script=[
            ai_tool_calls((tool_.name, {"x": 1}, "call_A"), content="Calling my_tool"),
            ai_tool_calls(("task", {"description": "research x", "subagent_type": "researcher"}, "call_B")),
            "Final answer: done",
        ],
        tools=[tool_],
        sub_script=[ai_tool_calls((tool_.name, {"x": 2}, "call_S")), "sub result 4"],
        sub_tools=[tool_],
    )


SCENARIOS = {
    s.name: s
    for s in (
        Scenario("plain", script=["Hello there, how can I help?"]),
        _research("research", my_tool),
        Scenario(
            "parallel",
            script=[
                ai_tool_calls(
                    ("slow_lookup", {"key": "a"}, "call_1"),
                    ("fast_lookup", {"key": "b"}, "call_2"),
                    content="Looking both up",
                ),
                "Both found",
            ],
            tools=[slow_lookup, fast_lookup],
            unordered_tools=True,
        ),
        _research("custom_writes", progress_tool),
    )
}


# --------------------------------------------------------------------------------------------
# Running a scenario

#: ``stream_mode`` values by test id; ``_DEFAULT`` means the argument is not passed.
_DEFAULT = object()


@dataclass
class Run:
    impl: str
    events: list[Any]
    main: ScriptedChatModel
    sub: ScriptedChatModel | None = None
    agent: Any = None

    @property
    def call_kinds(self) -> tuple[list[str], list[str]]:
        """Per model (main, subagent): "stream" or "generate" for each call."""
        return tuple(_kinds(m) for m in (self.main, self.sub))  # type: ignore[return-value]

    @property
    def call_counts(self) -> tuple[int, int]:
        return tuple(len(m.calls) if m is not None else 0 for m in (self.main, self.sub))  # type: ignore[return-value]


def _kinds(model: ScriptedChatModel | None) -> list[str]:
    if model is None:
        return []
    if isinstance(model, StreamingScriptedChatModel):
        return list(model.call_kinds)
    return ["generate"] * len(model.calls)


def build(
    module: ModuleType, scenario: Scenario, model_cls: type[ScriptedChatModel] = StreamingScriptedChatModel
) -> Run:
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
    )
    return Run(impl=module.__name__, events=[], main=main, sub=sub, agent=agent)


def stream_kwargs(stream_mode: Any = _DEFAULT, subgraphs: bool = False, version: str = "v1") -> dict[str, Any]:
    """Keyword arguments for stream/astream; defaults are left out."""
    kwargs: dict[str, Any] = {}
    if stream_mode is not _DEFAULT:
        kwargs["stream_mode"] = copy.deepcopy(stream_mode)
    if subgraphs:
        kwargs["subgraphs"] = True
    if version != "v1":
        kwargs["version"] = version
    return kwargs


def collect(agent: Any, inp: Any, api: str, **kwargs: Any) -> list[Any]:
    """``list(agent.stream(...))``, or the same from ``agent.astream(...)`` under asyncio.run."""
    if api == "sync":
        return list(agent.stream(inp, **kwargs))

    async def go() -> list[Any]:
        return [event async for event in agent.astream(inp, **kwargs)]

    return asyncio.run(go())


def run(
    module: ModuleType,
    scenario: Scenario,
    *,
    api: str = "sync",
    model_cls: type[ScriptedChatModel] = StreamingScriptedChatModel,
    **options: Any,
) -> Run:
    """Stream ``scenario`` through ``module``'s agent and keep every event."""
    result = build(module, scenario, model_cls)
    result.events = collect(result.agent, copy.deepcopy(INPUT), api, **stream_kwargs(**options))
    return result


# --------------------------------------------------------------------------------------------
# Normalization

ABSENT = "<absent>"


META_KEYS = ("langgraph_node", "langgraph_step", "lc_agent_name", "ls_provider", "ls_model_type")


def _message(m: BaseMessage) -> dict[str, Any]:
    (d,) = normalize_messages([m])  # raw ids; rewritten later with the rest of the event
    d["class"] = type(m).__name__
    if isinstance(m, AIMessageChunk):
        d["tool_call_chunks"] = [dict(c) for c in m.tool_call_chunks]
        d["chunk_position"] = m.chunk_position
    return d


def _checkpoint_ns(ns: str) -> str:
    """``"model:<uuid>"`` -> ``"model:"``; a ``"tools:<uuid>"`` segment (a subagent's namespace)
    is kept for the namespace rewrite."""
    parts = []
    for segment in ns.split("|"):
        node = segment.split(":", 1)[0]
        parts.append(segment if node == "tools" else f"{node}:")
    return "|".join(parts)


def _metadata(meta: dict[str, Any]) -> dict[str, Any]:
    out = {k: meta.get(k, ABSENT) for k in META_KEYS}
    ns = meta.get("checkpoint_ns")
    out["checkpoint_ns"] = ABSENT if ns is None else _checkpoint_ns(ns)
    return out


def plain(obj: Any) -> Any:
    """Messages and ``(message, metadata)`` pairs to plain data; ids and namespaces still raw."""
    if isinstance(obj, BaseMessage):
        return _message(obj)
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], BaseMessage) and isinstance(obj[1], dict):
        return (_message(obj[0]), _metadata(obj[1]))
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return tuple(plain(v) for v in obj)
    if isinstance(obj, list):
        return [plain(v) for v in obj]
    return copy.deepcopy(obj)


def unpack(event: Any, stream_mode: Any = _DEFAULT, subgraphs: bool = False, version: str = "v1") -> tuple:
    """``(ns, mode, data)`` of one event, whatever its shape."""
    if version == "v2":
        return event["ns"], event["type"], event["data"]
    multi = isinstance(stream_mode, list)
    mode = None if multi else ("updates" if stream_mode is _DEFAULT else stream_mode)
    if subgraphs and multi:
        ns, mode, data = event
    elif subgraphs:
        ns, data = event
    elif multi:
        ns = ()
        mode, data = event
    else:
        ns, data = (), event
    return ns, mode, data


def _is_tool_result(event: Any, options: dict[str, Any]) -> bool:
    try:
        _, mode, data = unpack(event, **options)
        if mode == "updates":
            return isinstance(data, dict) and list(data) == ["tools"]
        return mode == "messages" and data[0]["type"] == "tool"
    except (KeyError, TypeError, ValueError, IndexError):
        return False


def _sort_tool_results(events: list[Any], options: dict[str, Any]) -> list[Any]:
    """Each run of consecutive tool-result events, sorted (uuids ignored in the sort key)."""

    def key(event: Any) -> str:
        return UUID_RE.sub("*", repr(event))

    out: list[Any] = []
    run_: list[Any] = []
    for event in [*events, None]:
        if event is not None and _is_tool_result(event, options):
            run_.append(event)
            continue
        out.extend(sorted(run_, key=key))
        run_ = []
        if event is not None:
            out.append(event)
    return out


def normalize_stream(events: Sequence[Any], *, unordered_tools: bool = False, **options: Any) -> list[Any]:
    """The comparable form of a stream's events (see the module docstring).

    ``options`` are the stream's ``stream_mode``/``subgraphs``/``version``, used to find the
    tool results of ``unordered_tools`` scenarios.
    """
    out = [plain(e) for e in events]
    if unordered_tools:
        out = _sort_tool_results(out, options)
    return Placeholders()(out)
