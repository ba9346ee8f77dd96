"""``stream()`` and ``astream()`` through both implementations: the same scenario, run through
``deepagents`` and ``deepagents_rs``, must yield the same sequence of events.

Scenarios (``SCENARIOS``): ``plain`` (one answer), ``research`` (the research fixture: the main
model calls ``my_tool{x:1}``, then ``task`` to the isolated subagent ``researcher``, whose own
model calls ``my_tool{x:2}`` and answers; then ``"Final answer: done"``), ``parallel`` (two tool
calls in one turn, the first one slower) and ``custom_writes`` (the research fixture with a tool
that writes to ``langgraph.config.get_stream_writer()``, in the main agent and in the subagent).
Each implementation gets its own fresh models with the same scripts.

Modes (``STREAM_MODES``): none given (``updates``), ``updates``, ``values``, ``messages``,
``custom`` and ``["updates", "messages", "custom"]``; with ``subgraphs`` False and True,
``version`` ``"v1"`` and ``"v2"``, ``stream`` and ``astream``. Defaults are not passed, so they
are checked too.

Normalization (``normalize_stream``), applied to both sides before comparing:

* Messages become plain dicts: ``fake_models.normalize_messages`` (type, id, content, name,
  tool calls, tool_call_id, status, additional_kwargs, response_metadata), plus the class name
  and, for ``AIMessageChunk``, ``tool_call_chunks`` and ``chunk_position``.
* ``messages``-mode metadata keeps only ``langgraph_node``, ``langgraph_step``,
  ``lc_agent_name``, ``ls_provider``, ``ls_model_type`` (``"<absent>"`` when missing) and
  ``checkpoint_ns`` reduced to its node prefixes (``"model:"``); a ``tools:<uuid>`` segment,
  which is a subagent's namespace, is kept and mapped like the namespaces below.
  ``langgraph_path``, ``langgraph_triggers``, ``langgraph_checkpoint_ns``, ``lc_versions`` and
  ``ls_integration`` are not compared.
* Then every string is rewritten, by order of first appearance in the event sequence:
  a namespace ``"<node>:<uuid>"`` (``('tools:<uuid>',)``) becomes ``"<node>:#1"``, ``"#2"``, ...;
  ``lc_run--<uuid>[-n]`` becomes ``lc_run--#1[-n]``; any other uuid becomes ``uuid<version>#n``
  (one counter for message ids, so the id a chunk shares with its stored message, and the uuid
  version of human and tool message ids, are still checked).
* ``parallel`` only: LangGraph yields the results of parallel tool calls in completion order,
  so each run of consecutive tool-result events (a ``tools`` update or a ToolMessage in
  ``messages``) is compared as a multiset: sorted, before the ids are rewritten.
  ``test_parallel_tool_results_stream_in_completion_order`` checks the order itself.

Besides each event sequence, the tests check that the provider is asked to stream (``_stream``
instead of ``_generate``) exactly as often in both, which LangChain does only when ``messages``
is among the stream modes; ``StreamingScriptedChatModel`` streams, the plain
``ScriptedChatModel`` cannot and gives whole messages.
"""

from __future__ import annotations

import asyncio
import copy
import re
import time
import uuid
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import (
    ScriptedChatModel,
    StreamingScriptedChatModel,
    ai_tool_calls,
    normalize_messages,
)
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.tools import tool
from langgraph.config import get_stream_writer

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

INPUT = {"messages": [{"role": "user", "content": "go"}]}
IMPLS = (deepagents, deepagents_rs)

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
STREAM_MODES: dict[str, Any] = {
    "default": _DEFAULT,
    "updates": "updates",
    "values": "values",
    "messages": "messages",
    "custom": "custom",
    "multi": ["updates", "messages", "custom"],
}


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
        subagents = [
            {
                "name": "researcher",
                "description": "Researches things.",
                "system_prompt": "You research.",
                "model": sub,
                "tools": list(scenario.sub_tools or []),
            }
        ]
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

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_UUID_RE = re.compile(_UUID)
_LC_RUN_RE = re.compile(rf"lc_run--({_UUID})")
_NAMESPACE_RE = re.compile(rf"(\w+):({_UUID})")
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


class Placeholders:
    """Rewrites namespaces, ``lc_run--`` ids and uuids in order of first appearance."""

    def __init__(self) -> None:
        self.namespaces: dict[str, int] = {}
        self.ids: dict[str, int] = {}

    @staticmethod
    def _number(table: dict[str, int], raw: str) -> int:
        return table.setdefault(raw.lower(), len(table) + 1)

    def string(self, s: str) -> str:
        m = _NAMESPACE_RE.fullmatch(s)
        if m:
            return f"{m[1]}:#{self._number(self.namespaces, m[2])}"
        s = _LC_RUN_RE.sub(lambda m: f"lc_run--#{self._number(self.ids, m[1])}", s)

        def bare(m: re.Match[str]) -> str:
            version = uuid.UUID(m[0]).version
            return f"uuid{version or 'x'}#{self._number(self.ids, m[0])}"

        return _UUID_RE.sub(bare, s)

    def __call__(self, obj: Any) -> Any:
        if isinstance(obj, str):
            return self.string(obj)
        if isinstance(obj, dict):
            return {self(k): self(v) for k, v in obj.items()}
        if isinstance(obj, tuple):
            return tuple(self(v) for v in obj)
        if isinstance(obj, list):
            return [self(v) for v in obj]
        return obj


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
        return _UUID_RE.sub("*", repr(event))

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


# --------------------------------------------------------------------------------------------
# Parity


@dataclass
class Compared:
    ref: Run
    rs: Run
    ref_events: list[Any] = field(default_factory=list)
    rs_events: list[Any] = field(default_factory=list)


def assert_stream_parity(
    scenario: Scenario,
    *,
    api: str = "sync",
    model_cls: type[ScriptedChatModel] = StreamingScriptedChatModel,
    **options: Any,
) -> Compared:
    """Run the scenario through deepagents, then deepagents_rs; the normalized event sequences,
    the number of model calls and how each was made (streamed or not) must be equal."""
    ref = run(deepagents, scenario, api=api, model_cls=model_cls, **options)
    ref_events = normalize_stream(ref.events, unordered_tools=scenario.unordered_tools, **options)
    rs = run(deepagents_rs, scenario, api=api, model_cls=model_cls, **options)
    rs_events = normalize_stream(rs.events, unordered_tools=scenario.unordered_tools, **options)
    assert rs_events == ref_events
    assert rs.call_counts == ref.call_counts, "model calls (main, subagent)"
    assert rs.call_kinds == ref.call_kinds, "streamed vs generated model calls (main, subagent)"
    return Compared(ref, rs, ref_events, rs_events)


_MESSAGE_MODES = ("messages", "multi")


def _mode_model_params() -> list[Any]:
    params = []
    for mode_id in STREAM_MODES:
        params.append(pytest.param(mode_id, StreamingScriptedChatModel, id=f"{mode_id}"))
        if mode_id in _MESSAGE_MODES:
            params.append(pytest.param(mode_id, ScriptedChatModel, id=f"{mode_id}-nostream_model"))
    return params


@pytest.mark.parametrize("subgraphs", [False, True], ids=["root", "subgraphs"])
@pytest.mark.parametrize(("mode_id", "model_cls"), _mode_model_params())
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_stream(scenario: str, mode_id: str, model_cls: type, subgraphs: bool) -> None:
    """``stream()`` (v1), every scenario and mode."""
    assert_stream_parity(
        SCENARIOS[scenario], model_cls=model_cls, stream_mode=STREAM_MODES[mode_id], subgraphs=subgraphs
    )


@pytest.mark.parametrize("subgraphs", [False, True], ids=["root", "subgraphs"])
@pytest.mark.parametrize("mode_id", list(STREAM_MODES))
def test_stream_v2(mode_id: str, subgraphs: bool) -> None:
    """``stream(version="v2")``: ``{'type', 'ns', 'data'}`` parts."""
    compared = assert_stream_parity(
        SCENARIOS["custom_writes"], stream_mode=STREAM_MODES[mode_id], subgraphs=subgraphs, version="v2"
    )
    assert all(isinstance(e, dict) for e in compared.ref_events)


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("subgraphs", [False, True], ids=["root", "subgraphs"])
@pytest.mark.parametrize("mode_id", list(STREAM_MODES))
def test_astream(mode_id: str, subgraphs: bool, version: str) -> None:
    """``astream()`` yields what ``stream()`` does (the same comparison, under asyncio)."""
    assert_stream_parity(
        SCENARIOS["custom_writes"],
        api="async",
        stream_mode=STREAM_MODES[mode_id],
        subgraphs=subgraphs,
        version=version,
    )


@pytest.mark.parametrize("mode_id", ["updates", "messages", "multi"])
def test_astream_parallel(mode_id: str) -> None:
    """``astream()``, parallel tool calls (tool results compared as a multiset)."""
    assert_stream_parity(SCENARIOS["parallel"], api="async", stream_mode=STREAM_MODES[mode_id])


@pytest.mark.parametrize("mode_id", ["messages", "multi"])
def test_astream_nostream_model(mode_id: str) -> None:
    """``astream()`` with a model that cannot stream: whole messages, the subagent's included."""
    assert_stream_parity(
        SCENARIOS["research"],
        api="async",
        model_cls=ScriptedChatModel,
        stream_mode=STREAM_MODES[mode_id],
        subgraphs=True,
    )


# --------------------------------------------------------------------------------------------
# What the reference yields, spelled out; both implementations are held to it.

RESEARCH_UPDATE_KEYS = [
    ((), "PatchToolCallsMiddleware.before_agent"),
    ((), "model"),
    ((), "tools"),
    ((), "model"),
    (("tools:#1",), "PatchToolCallsMiddleware.before_agent"),
    (("tools:#1",), "model"),
    (("tools:#1",), "tools"),
    (("tools:#1",), "model"),
    ((), "tools"),
    ((), "model"),
    ((), "_ParentNotifierMiddleware.after_agent"),
]


@pytest.mark.parametrize("api", ["sync", "async"])
@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_default_stream_mode_is_updates(impl: ModuleType, api: str) -> None:
    scenario = SCENARIOS["research"]
    default = run(impl, scenario, api=api)
    explicit = run(impl, scenario, api=api, stream_mode="updates")
    assert normalize_stream(default.events) == normalize_stream(explicit.events)
    # Passing the defaults explicitly changes nothing.
    agent = build(impl, scenario).agent
    spelled = collect(agent, copy.deepcopy(INPUT), api, stream_mode="updates", subgraphs=False, version="v1")
    assert normalize_stream(spelled) == normalize_stream(default.events)
    assert getattr(default.agent, "stream_mode", None) == "updates"


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_update_node_keys(impl: ModuleType) -> None:
    """One key per update; the middleware hooks that write nothing yield ``None``."""
    events = normalize_stream(run(impl, SCENARIOS["research"], subgraphs=True).events)
    assert all(len(data) == 1 for _, data in events)
    assert [(ns, next(iter(data))) for ns, data in events] == RESEARCH_UPDATE_KEYS
    hooks = [data for _, data in events if "." in next(iter(data))]
    assert hooks == [
        {"PatchToolCallsMiddleware.before_agent": None},
        {"PatchToolCallsMiddleware.before_agent": None},
        {"_ParentNotifierMiddleware.after_agent": None},
    ]
    tool_results = [data["tools"]["messages"] for ns, data in events if "tools" in data]
    assert [[(m["name"], m["content"], m["status"]) for m in ms] for ms in tool_results] == [
        [("my_tool", "result=2", "success")],
        [("my_tool", "result=4", "success")],
        [("task", "sub result 4", "success")],
    ]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_values_chunks_are_the_output_state(impl: ModuleType) -> None:
    """Six full states at the root (input, then after each model and tools step), each with
    ``messages`` and ``files``; the subagent's own states only with ``subgraphs=True``."""
    root = run(impl, SCENARIOS["research"], stream_mode="values")
    assert [sorted(v) for v in root.events] == [["files", "messages"]] * 6
    assert [len(v["messages"]) for v in root.events] == [1, 2, 3, 4, 5, 6]
    assert all(v["files"] == {} for v in root.events)
    nested = run(impl, SCENARIOS["research"], stream_mode="values", subgraphs=True)
    namespaces = [ns for ns, _ in normalize_stream(nested.events, stream_mode="values", subgraphs=True)]
    assert namespaces == [()] * 4 + [("tools:#1",)] * 4 + [()] * 2


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_v2_parts(impl: ModuleType) -> None:
    """v2 parts are ``{'type', 'ns', 'data'}`` dicts (``values`` parts add ``interrupts``),
    for a single mode too."""
    modes = ["updates", "values", "messages", "custom"]
    for stream_mode, subgraphs in ((modes, True), ("custom", False), ("values", False)):
        parts = run(impl, SCENARIOS["custom_writes"], stream_mode=stream_mode, subgraphs=subgraphs, version="v2").events
        assert parts and all(isinstance(p, dict) for p in parts)
        for p in parts:
            expected = {"type", "ns", "data", "interrupts"} if p["type"] == "values" else {"type", "ns", "data"}
            assert set(p) == expected, p
            assert isinstance(p["ns"], tuple)
            if p["type"] == "values":
                assert p["interrupts"] == ()
        seen = {p["type"] for p in parts}
        assert seen == (set(modes) if isinstance(stream_mode, list) else {stream_mode})
    custom = run(impl, SCENARIOS["custom_writes"], stream_mode="custom", subgraphs=True, version="v2").events
    assert normalize_stream(custom) == [
        {"type": "custom", "ns": (), "data": {"progress": "doubling 1"}},
        {"type": "custom", "ns": (), "data": "doubled 1"},
        {"type": "custom", "ns": ("tools:#1",), "data": {"progress": "doubling 2"}},
        {"type": "custom", "ns": ("tools:#1",), "data": "doubled 2"},
    ]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_custom_writes_from_the_subagent_need_subgraphs(impl: ModuleType) -> None:
    root = run(impl, SCENARIOS["custom_writes"], stream_mode="custom")
    assert root.events == [{"progress": "doubling 1"}, "doubled 1"]
    nested = run(impl, SCENARIOS["custom_writes"], stream_mode="custom", subgraphs=True)
    assert normalize_stream(nested.events) == [
        ((), {"progress": "doubling 1"}),
        ((), "doubled 1"),
        (("tools:#1",), {"progress": "doubling 2"}),
        (("tools:#1",), "doubled 2"),
    ]


def _message_view(events: list[Any]) -> list[tuple]:
    """(ns, class, content, tool_call_chunks names, lc_agent_name, node) per messages event."""
    out = []
    for ns, (m, meta) in events:
        chunks = [c["name"] for c in m.get("tool_call_chunks", [])]
        out.append((ns, m["class"], m["content"], chunks, meta["lc_agent_name"], meta["langgraph_node"]))
    return out


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_messages_stream_chunks_and_whole_tool_messages(impl: ModuleType) -> None:
    """A streaming model's chunks (one call's chunks share an ``lc_run--`` id, which the stored
    AIMessage keeps), whole ToolMessages, no echoed input; the subagent only with subgraphs."""
    result = run(impl, SCENARIOS["research"], stream_mode="messages", subgraphs=True)
    events = normalize_stream(result.events)
    sub = ("tools:#1",)
    chunk = "AIMessageChunk"
    assert _message_view(events) == [
        ((), chunk, "Calling", [], None, "model"),
        ((), chunk, " my_tool", [], None, "model"),
        ((), chunk, "", ["my_tool"], None, "model"),
        ((), chunk, "", [], None, "model"),
        ((), "ToolMessage", "result=2", [], None, "tools"),
        ((), chunk, "", ["task"], None, "model"),
        ((), chunk, "", [], None, "model"),
        (sub, chunk, "", ["my_tool"], "researcher", "model"),
        (sub, chunk, "", [], "researcher", "model"),
        (sub, "ToolMessage", "result=4", [], "researcher", "tools"),
        (sub, chunk, "sub", [], "researcher", "model"),
        (sub, chunk, " result", [], "researcher", "model"),
        (sub, chunk, " 4", [], "researcher", "model"),
        (sub, chunk, "", [], "researcher", "model"),
        ((), "ToolMessage", "sub result 4", [], None, "tools"),
        ((), chunk, "Final", [], None, "model"),
        ((), chunk, " answer:", [], None, "model"),
        ((), chunk, " done", [], None, "model"),
        ((), chunk, "", [], None, "model"),
    ]
    assert [m["id"] for _, (m, _) in events] == (
        ["lc_run--#1"] * 4
        + ["uuid4#2"]
        + ["lc_run--#3"] * 2
        + ["lc_run--#4"] * 2
        + ["uuid4#5"]
        + ["lc_run--#6"] * 4
        + ["uuid4#7"]
        + ["lc_run--#8"] * 4
    )
    assert [m["chunk_position"] for _, (m, _) in events if m["class"] == chunk].count("last") == 5
    model_meta = [meta for _, (m, meta) in events if m["class"] == chunk]
    assert {(meta["ls_provider"], meta["ls_model_type"]) for meta in model_meta} == {
        ("streamingscriptedchatmodel", "chat")
    }
    assert [meta["checkpoint_ns"] for meta in model_meta] == ["model:"] * 6 + ["tools:#1"] * 6 + ["model:"] * 4
    # A root ToolMessage has no checkpoint_ns; the subagent's has the subagent's namespace.
    tool_meta = [(ns, meta) for ns, (m, meta) in events if m["class"] == "ToolMessage"]
    assert [(ns, meta["ls_provider"], meta["checkpoint_ns"]) for ns, meta in tool_meta] == [
        ((), ABSENT, ABSENT),
        (sub, ABSENT, "tools:#1"),
        ((), ABSENT, ABSENT),
    ]
    steps = [meta["langgraph_step"] for _, (_, meta) in events]
    assert steps == [2, 2, 2, 2, 3, 4, 4, 2, 2, 3, 4, 4, 4, 4, 5, 6, 6, 6, 6]
    # Without subgraphs: the same root events, the subagent's left out.
    root = run(impl, SCENARIOS["research"], stream_mode="messages")
    assert normalize_stream(root.events) == normalize_stream([e for ns, e in result.events if ns == ()])


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_streamed_messages_keep_the_chunks_id(impl: ModuleType) -> None:
    """Each model update's message has the id its chunks were streamed with, and is their sum."""
    events = run(impl, SCENARIOS["research"], stream_mode=["messages", "updates"]).events
    pending: list[Any] = []
    merged = []
    for mode, data in events:
        if mode == "messages" and isinstance(data[0], AIMessageChunk):
            pending.append(data[0])
        elif mode == "updates" and "model" in data:
            (stored,) = data["model"]["messages"]
            assert {c.id for c in pending} == {stored.id}
            total = pending[0]
            for c in pending[1:]:
                total = total + c
            merged.append((stored.content, stored.tool_calls, total.content, total.tool_calls))
            pending = []
    assert [(a, b) for a, b, _, _ in merged] == [(c, t) for _, _, c, t in merged]
    assert len(merged) == 3


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_messages_from_a_model_without_streaming_are_whole(impl: ModuleType) -> None:
    result = run(impl, SCENARIOS["research"], model_cls=ScriptedChatModel, stream_mode="messages")
    events = normalize_stream(result.events)
    assert [(m["class"], m["content"], m["id"]) for m, _ in events] == [
        ("AIMessage", "Calling my_tool", "lc_run--#1-0"),
        ("ToolMessage", "result=2", "uuid4#2"),
        ("AIMessage", "", "lc_run--#3-0"),
        ("ToolMessage", "sub result 4", "uuid4#4"),
        ("AIMessage", "Final answer: done", "lc_run--#5-0"),
    ]


STREAMING_MODES = [
    pytest.param(_DEFAULT, False, id="default"),
    pytest.param("values", False, id="values"),
    pytest.param(["updates", "custom"], False, id="updates+custom"),
    pytest.param("messages", True, id="messages"),
    pytest.param(["updates", "messages"], True, id="updates+messages"),
]


@pytest.mark.parametrize("api", ["sync", "async"])
@pytest.mark.parametrize(("stream_mode", "streams"), STREAMING_MODES)
def test_provider_streams_only_when_messages_are_requested(stream_mode: Any, streams: bool, api: str) -> None:
    """LangChain calls ``_stream`` (instead of ``_generate``) only under a ``messages`` stream,
    for the subagent's calls too, even when its messages are filtered out (no subgraphs)."""
    kinds = []
    for impl in IMPLS:
        result = run(impl, SCENARIOS["research"], api=api, stream_mode=stream_mode)
        kinds.append(result.call_kinds)
    kind = "stream" if streams else "generate"
    assert kinds[0] == ([kind] * 3, [kind] * 2), "reference"
    assert kinds[1] == kinds[0]


@pytest.mark.parametrize("api", ["sync", "async"])
def test_invoke_does_not_stream_from_the_provider(api: str) -> None:
    kinds = []
    for impl in IMPLS:
        r = build(impl, SCENARIOS["research"])
        inp = copy.deepcopy(INPUT)
        r.agent.invoke(inp) if api == "sync" else asyncio.run(r.agent.ainvoke(inp))
        kinds.append(r.call_kinds)
    assert kinds[0] == kinds[1] == (["generate"] * 3, ["generate"] * 2)


@pytest.mark.parametrize("api", ["sync", "async"])
def test_invoke_v2_returns_graph_output(api: str) -> None:
    outs = []
    for impl in IMPLS:
        r = build(impl, SCENARIOS["research"])
        inp = copy.deepcopy(INPUT)
        out = r.agent.invoke(inp, version="v2") if api == "sync" else asyncio.run(r.agent.ainvoke(inp, version="v2"))
        assert type(out).__name__ == "GraphOutput"
        assert out.interrupts == ()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            via_key = out["messages"]  # deprecated, but still works
        assert via_key == out.value["messages"]
        warned = [(type(w.message).__name__, str(w.message)) for w in caught]
        outs.append((normalize_stream([out.value]), warned))
    import langgraph.types

    ref_out = build(deepagents, SCENARIOS["research"]).agent.invoke(copy.deepcopy(INPUT), version="v2")
    assert isinstance(ref_out, langgraph.types.GraphOutput)
    assert outs[1] == outs[0]
    (value,) = outs[0][0]
    assert sorted(value) == ["files", "messages"]
    assert outs[0][1] and outs[0][1][0][0] == "LangGraphDeprecatedSinceV11"


@pytest.mark.parametrize("api", ["sync", "async"])
def test_parallel_tool_results_stream_in_completion_order(api: str) -> None:
    """One ``tools`` update per call, as each call finishes: the fast lookup first. The state
    (``values``) keeps them in call order."""
    orders = []
    for impl in IMPLS:
        updates = run(impl, SCENARIOS["parallel"], api=api, stream_mode="updates").events
        tool_updates = [u["tools"]["messages"] for u in updates if "tools" in u]
        assert all(len(ms) == 1 for ms in tool_updates)
        values = run(impl, SCENARIOS["parallel"], api=api, stream_mode="values").events
        orders.append(([ms[0].name for ms in tool_updates], [m.name for m in values[-2]["messages"][2:]]))
    assert orders[0] == orders[1] == (["fast_lookup", "slow_lookup"], ["slow_lookup", "fast_lookup"])


def test_normalizer() -> None:
    """Placeholders follow first appearance and keep the id's shape; sorting only applies to
    runs of tool results."""
    from langchain_core.messages import AIMessage, ToolMessage

    u4, run_id, ns1, ns2 = (str(uuid.uuid4()) for _ in range(4))
    ai = AIMessage("hi", id=f"lc_run--{run_id}-0")
    chunk = AIMessageChunk("h", id=f"lc_run--{run_id}")
    tool_msg = ToolMessage("r", tool_call_id="c1", id=u4)
    meta = {"langgraph_node": "model", "langgraph_step": 2, "checkpoint_ns": f"tools:{ns1}", "langgraph_path": (1,)}
    events = [((f"tools:{ns2}",), {"model": {"messages": [ai]}}), ((f"tools:{ns1}",), (chunk, meta)), ((), tool_msg)]
    out = normalize_stream(events)
    assert [e[0] for e in out] == [("tools:#1",), ("tools:#2",), ()]
    assert out[0][1]["model"]["messages"][0]["id"] == "lc_run--#1-0"
    assert out[1][1][0]["id"] == "lc_run--#1" and out[2][1]["id"] == "uuid4#2"
    assert out[1][1][1] == {
        "langgraph_node": "model",
        "langgraph_step": 2,
        "lc_agent_name": ABSENT,
        "ls_provider": ABSENT,
        "ls_model_type": ABSENT,
        "checkpoint_ns": "tools:#2",
    }
    assert _checkpoint_ns(f"model:{ns1}") == "model:" and _checkpoint_ns(f"tools:{ns1}|model:{ns2}") == (
        f"tools:{ns1}|model:"
    )
    slow, fast = (ToolMessage(c, tool_call_id=i, id=str(uuid.uuid4())) for c, i in (("s", "c1"), ("f", "c2")))
    first = normalize_stream([{"tools": {"messages": [fast]}}, {"tools": {"messages": [slow]}}], unordered_tools=True)
    second = normalize_stream([{"tools": {"messages": [slow]}}, {"tools": {"messages": [fast]}}], unordered_tools=True)
    assert first == second
    assert normalize_stream([{"tools": {"messages": [slow]}}, {"tools": {"messages": [fast]}}]) != first


@pytest.mark.parametrize("api", ["sync", "async"])
def test_values_show_private_channels(api: str) -> None:
    """The root's ``values`` are every channel LangGraph has a value for, not the output
    schema: memory's and skills' private keys once their hooks wrote them, and skills'
    ``pinned_skills`` reducer channel (``[]``) from the first chunk; ``invoke`` returns the
    output schema only."""
    from deepagents.backends.utils import create_file_data

    inp = {"messages": [{"role": "user", "content": "go"}], "files": {"/AGENTS.md": create_file_data("Be brief.")}}
    results = {}
    for m in (deepagents, deepagents_rs):

        def make(m: ModuleType = m) -> Any:
            return m.create_deep_agent(model=ScriptedChatModel(["hi"]), memory=["/AGENTS.md"], skills=["/skills/"])

        chunks = collect(make(), copy.deepcopy(inp), api, stream_mode="values")
        results[m.__name__] = {
            "values": [{k: v for k, v in plain(c).items() if k != "files"} for c in chunks],
            "invoke": sorted(make().invoke(copy.deepcopy(inp))),
        }
    ours, ref = (Placeholders()(results[m.__name__]) for m in (deepagents_rs, deepagents))
    assert ours == ref
    assert ref["values"][0]["pinned_skills"] == [] and "memory_contents" in ref["values"][-1]
    assert ref["invoke"] == ["files", "messages"]
