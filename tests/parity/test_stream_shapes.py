"""What ``stream()`` and ``astream()`` of the reference yield, spelled out (update node keys,
values chunks, v2 parts, custom writes from subagents, message chunks, when the provider
streams, private channels); both implementations are held to it."""

from __future__ import annotations

import asyncio
import copy
import uuid
import warnings
from types import ModuleType
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel
from langchain_core.messages import AIMessageChunk

from .stream_support import (
    _DEFAULT,
    ABSENT,
    INPUT,
    SCENARIOS,
    Placeholders,
    _checkpoint_ns,
    build,
    collect,
    normalize_stream,
    plain,
    run,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = (deepagents, deepagents_rs)


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
