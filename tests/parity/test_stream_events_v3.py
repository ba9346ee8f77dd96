"""``stream_events(version="v3")`` and ``astream_events(version="v3")``: LangGraph's run stream
over the agent gives the same projections as over deepagents' graph.

Each scenario runs through both implementations with fresh scripted models, and every
projection deepagents' graph has (``run.values``, ``run.messages``, ``run.tool_calls``,
``run.subgraphs``, ``run.subagents``, ``run.lifecycle``), each subagent handle's own
projections, ``run.output``, ``run.interrupted`` and ``run.interrupts`` are compared:

* sync: ``run.interleave(...)`` over every projection, so the order across projections is
  compared too; a subagent handle's projections are drained as the handle arrives (as a
  caller must, before the run goes on), in their own interleaved order.
* async: LangGraph has no async ``interleave``, so the main event log (every protocol event:
  values, message events, tool events and lifecycle, of every namespace) is compared in order,
  and each root projection as a list, all drained concurrently.

What is compared of each item: a state (messages as plain dicts); a chat model stream's node,
namespace, message id, protocol events and assembled message; a tool call's id, name, input,
output (a ``Command``'s update), error and completion; a subgraph or subagent handle's path,
graph name, name, cause, status, error, output and whether its trigger id is the task of its
namespace (LangGraph's task ids are hashes, the core's are uuids); lifecycle payloads likewise.
Then ids and namespaces are rewritten by order of first appearance (``Placeholders``).
"""

from __future__ import annotations

import asyncio
import copy
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, StreamingScriptedChatModel, ai_tool_calls
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langgraph.types import Command, Interrupt

from .harness import norm_files
from .stream_support import Placeholders, _metadata, plain
from .test_compiled_subagent_stream import compiled_agent

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = (deepagents, deepagents_rs)
INPUT = {"messages": [{"role": "user", "content": "go"}]}
SECOND = {"messages": [{"role": "user", "content": "again"}]}
PROJECTIONS = ("values", "messages", "tool_calls", "subgraphs", "subagents", "lifecycle")
SUB_PROJECTIONS = ("values", "messages", "tool_calls", "subgraphs", "lifecycle")


@tool
def my_tool(x: int) -> str:
    """Double x."""
    return f"result={2 * x}"


@tool
def slow_lookup(key: str) -> str:
    """Look a key up, slowly."""
    time.sleep(0.1)
    return f"slow value of {key}"


@tool
def fast_lookup(key: str) -> str:
    """Look a key up, quickly."""
    return f"fast value of {key}"


@tool
def broken_tool(x: int) -> str:
    """Fail."""
    raise RuntimeError(f"broken with {x}")


class BrokenModel(ScriptedChatModel):
    """A model whose every call fails."""

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("research failed")

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("research failed")


@dataclass(frozen=True)
class Scenario:
    script: list[Any]
    tools: tuple = (my_tool,)
    sub_script: list[Any] | None = None
    streaming: bool = True
    sub_broken: bool = False
    #: Parallel calls finish in no fixed order: the order across projections is not compared.
    unordered: bool = False
    interrupt_on: dict | None = None
    #: The subagent's own human-in-the-loop gates.
    sub_interrupt_on: dict | None = None


_RESEARCH = [
    ai_tool_calls(("my_tool", {"x": 1}, "call_A"), content="Calling my_tool"),
    ai_tool_calls(("task", {"description": "research x", "subagent_type": "researcher"}, "call_B")),
    "Final answer: done",
]
_SUB = [ai_tool_calls(("my_tool", {"x": 2}, "call_S")), "sub result 4"]

SCENARIOS = {
    "research": Scenario(_RESEARCH, sub_script=_SUB),
    "research_whole_messages": Scenario(_RESEARCH, sub_script=_SUB, streaming=False),
    "plain_answer": Scenario(["Hello there, how can I help?"], sub_script=[]),
    "file_write": Scenario(
        [
            ai_tool_calls(("write_file", {"file_path": "/notes.md", "content": "hi"}, "call_W")),
            ai_tool_calls(("read_file", {"file_path": "/notes.md"}, "call_R")),
            "written",
        ]
    ),
    "parallel": Scenario(
        [
            ai_tool_calls(
                ("slow_lookup", {"key": "a"}, "call_1"),
                ("fast_lookup", {"key": "b"}, "call_2"),
                content="Looking both up",
            ),
            "Both found",
        ],
        tools=(slow_lookup, fast_lookup),
        unordered=True,
    ),
    "failing_subagent": Scenario(_RESEARCH, sub_script=[], sub_broken=True),
    "failing_tool": Scenario([ai_tool_calls(("broken_tool", {"x": 1}, "call_X")), "unreached"], tools=(broken_tool,)),
}


def build(module: ModuleType, scenario: Scenario, checkpointer: Any = None, models: list | None = None) -> Any:
    """The scenario's agent from ``module``; its models (main, subagent) go to ``models``."""
    model_cls = StreamingScriptedChatModel if scenario.streaming else ScriptedChatModel
    main = model_cls(scenario.script)
    subagents = None
    sub = None
    if scenario.sub_script is not None:
        sub = BrokenModel([]) if scenario.sub_broken else model_cls(scenario.sub_script)
        subagents = [
            {
                "name": "researcher",
                "description": "Researches things.",
                "system_prompt": "You research.",
                "model": sub,
                "tools": [my_tool],
            }
        ]
        if scenario.sub_interrupt_on is not None:
            subagents[0]["interrupt_on"] = scenario.sub_interrupt_on
    kwargs: dict[str, Any] = {}
    if scenario.interrupt_on is not None:
        kwargs["interrupt_on"] = scenario.interrupt_on
    if models is not None:
        models.extend([main, sub])
    return module.create_deep_agent(
        model=main,
        tools=list(scenario.tools),
        subagents=subagents,
        checkpointer=checkpointer,
        **kwargs,
    )


# --------------------------------------------------------------------------------------------
# Views of the projections' items


def _output(value: Any) -> Any:
    if isinstance(value, Command):
        return {"Command": plain(value.update)}
    return plain(value)


def _chat(stream: Any) -> dict[str, Any]:
    # Both lanes keep every protocol event of the call (the replay buffer, `_events`).
    return {
        "node": stream.node,
        "namespace": list(stream.namespace),
        "message_id": stream.message_id,
        "events": plain(list(stream._events)),
        "output": plain(stream.output_message),
    }


def _tool_call(tc: Any) -> dict[str, Any]:
    return {
        "id": tc.tool_call_id,
        "name": tc.tool_name,
        "input": plain(tc.input),
        "output": _output(tc.output),
        "error": tc.error,
        "completed": tc.completed,
    }


def _handle(h: Any) -> dict[str, Any]:
    out = {
        "class": type(h).__name__,
        "path": list(h.path),
        "graph_name": h.graph_name,
        "status": h.status,
        "error": h.error,
        # The trigger is the task hosting the subgraph: the id in its namespace segment.
        "trigger_is_task": h.trigger_call_id == h.path[-1].partition(":")[2],
    }
    if hasattr(h, "cause"):
        out.update(name=h.name, cause=h.cause)
    return out


def _lifecycle(payload: dict) -> dict[str, Any]:
    out = plain(payload)
    trigger = out.pop("trigger_call_id", None)
    if trigger is not None:
        out["trigger_is_task"] = trigger == payload["namespace"][-1].partition(":")[2]
    return out


def _tool_event(data: dict) -> dict:
    """A ``tools`` event's payload. A tool's message gets its id from LangGraph's reducer, in
    place, while the event waits in the queue: whether deepagents' event shows it depends on
    thread timing, so it is not compared."""
    if isinstance(data.get("output"), ToolMessage):
        return {**data, "output": data["output"].model_copy(update={"id": None})}
    return data


def _event(event: dict) -> dict[str, Any]:
    """A protocol event of the main log without its timestamp; a message event's metadata
    reduced as ``test_stream`` reduces it, plus the model call's ``run_id``."""
    params = {k: v for k, v in event["params"].items() if k != "timestamp"}
    data = params["data"]
    if event["method"] == "messages":
        payload, meta = data
        data = (payload, {**_metadata(meta), "run_id": meta.get("run_id")})
    elif event["method"] == "lifecycle":
        data = _lifecycle(data)
    elif event["method"] == "tools":
        data = _tool_event(data)
    return plain({**params, "data": data, "method": event["method"]})


def _view(name: str, item: Any) -> Any:
    if name == "messages":
        return _chat(item)
    if name == "tool_calls":
        return _tool_call(item)
    if name == "lifecycle":
        return _lifecycle(item)
    if name in ("subgraphs", "subagents"):
        return _handle(item)
    return plain(item)


# --------------------------------------------------------------------------------------------
# Collecting a run


def _drain_sync(run: Any, names: tuple) -> list:
    """Every item of ``names`` in arrival order; a subagent's own projections are drained as
    it arrives (their items would be gone once the run moves on)."""
    items: list = []
    nested: list = []
    errors: list = []
    try:
        for name, item in run.interleave(*names):
            items.append((name, item))
            if name == "subagents":
                nested.append((item, _drain_sync(item, SUB_PROJECTIONS)))
    except Exception as exc:  # noqa: BLE001 - a failed run's error is compared too
        errors.append(f"{type(exc).__name__}: {exc}")
    views = [(name, _view(name, item)) for name, item in items]
    for handle, inner in nested:
        for view in views:
            if view[0] == "subagents" and view[1]["path"] == list(handle.path):
                view[1]["projections"] = inner
                try:
                    view[1]["output"] = plain(handle.output)
                except Exception as exc:  # noqa: BLE001
                    view[1]["output"] = f"{type(exc).__name__}: {exc}"
    return [*views, *(("error", e) for e in errors)]


def _result(run: Any) -> dict[str, Any]:
    try:
        return {"output": plain(run.output), "interrupted": run.interrupted, "interrupts": plain(run.interrupts)}
    except Exception as exc:  # noqa: BLE001
        return {"error": f"{type(exc).__name__}: {exc}"}


def collect_sync(agent: Any, inp: Any, config: dict | None = None) -> dict[str, Any]:
    run = agent.stream_events(copy.deepcopy(inp), config, version="v3")
    items = _drain_sync(run, PROJECTIONS)
    return {"items": items, **_result(run)}


async def collect_async(agent: Any, inp: Any, config: dict | None = None) -> dict[str, Any]:
    run = await agent.astream_events(copy.deepcopy(inp), config, version="v3")
    found: dict[str, list] = {name: [] for name in ("events", *PROJECTIONS)}
    errors: dict[str, str] = {}

    async def drain(name: str, source: Any) -> None:
        try:
            async for item in source:
                found[name].append(item)
        except Exception as exc:  # noqa: BLE001
            errors[name] = f"{type(exc).__name__}: {exc}"

    await asyncio.gather(drain("events", run), *(drain(name, getattr(run, name)) for name in PROJECTIONS))
    out: dict[str, Any] = {"errors": errors}
    out["events"] = [_event(e) for e in found["events"]]
    for name in PROJECTIONS:
        out[name] = [_view(name, item) for item in found[name]]
    try:
        out.update(
            output=plain(await run.output()),
            interrupted=await run.interrupted(),
            interrupts=plain(await run.interrupts()),
        )
    except Exception as exc:  # noqa: BLE001
        out["error"] = f"{type(exc).__name__}: {exc}"
    return out


def _events_view(collected: dict) -> dict:
    """Per projection, sorted: for runs whose parallel calls finish in no fixed order."""
    items = collected["items"]
    out = {name: sorted((repr(v) for n, v in items if n == name)) for name in {n for n, _ in items}}
    return {**collected, "items": out}


def _no_times(obj: Any) -> Any:
    """Every ``files`` mapping with its timestamps made ``"<timestamp>"``; interrupts without
    their ids (LangGraph hashes them from task ids)."""
    if isinstance(obj, Interrupt):
        return {"Interrupt": _no_times(obj.value)}
    if isinstance(obj, dict):
        return {k: norm_files(_no_times(v)) if k == "files" else _no_times(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_no_times(v) for v in obj)
    return obj


def compare(results: dict[str, Any], unordered: bool = False) -> Any:
    ref, ours = (Placeholders()(_no_times(results[m.__name__])) for m in IMPLS)
    if unordered and "items" in ref:
        ref, ours = _events_view(ref), _events_view(ours)
    assert ours == ref
    return ref


# --------------------------------------------------------------------------------------------
# Tests


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_stream_events_v3(name: str) -> None:
    scenario = SCENARIOS[name]
    results = {m.__name__: collect_sync(build(m, scenario), INPUT) for m in IMPLS}
    ref = compare(results, scenario.unordered)
    # What each scenario is about, in deepagents' own answer.
    names = [n for n, _ in ref["items"]] if not scenario.unordered else list(ref["items"])
    assert "values" in names and "messages" in names
    if name.startswith("research"):
        (sub,) = [v for n, v in ref["items"] if n == "subagents"]
        assert sub["name"] == "researcher" and sub["status"] == "completed"
        assert sub["cause"] == {"type": "toolCall", "tool_call_id": "call_B"}
        assert [n for n, _ in sub["projections"]].count("tool_calls") == 1
    if name == "failing_subagent":
        (sub,) = [v for n, v in ref["items"] if n == "subagents"]
        assert sub["status"] == "failed" and "research failed" in sub["error"]
    if name == "failing_tool":
        (call,) = [v for n, v in ref["items"] if n == "tool_calls"]
        assert call["error"] == "broken with 1" and ref["items"][-1] == ("error", "RuntimeError: broken with 1")


@pytest.mark.parametrize(
    "name", ["research", "research_whole_messages", "file_write", "failing_subagent", "failing_tool"]
)
def test_astream_events_v3(name: str) -> None:
    scenario = SCENARIOS[name]
    results = {m.__name__: asyncio.run(collect_async(build(m, scenario), INPUT)) for m in IMPLS}
    ref = compare(results)
    assert ref["events"] and ref["messages"]


def test_subagents_from_the_main_event_log_alone() -> None:
    """Iterating only ``run`` (the raw protocol events) runs the whole agent; the lifecycle of
    the subagent is among them."""
    results = {}
    for m in IMPLS:
        run = build(m, SCENARIOS["research"]).stream_events(copy.deepcopy(INPUT), version="v3")
        results[m.__name__] = [_event(e) for e in run]
    ref = compare(results)
    assert [e["data"]["event"] for e in ref if e["method"] == "lifecycle"] == ["started", "completed"]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_v3_owns_stream_mode_and_subgraphs(impl: ModuleType) -> None:
    agent = build(impl, SCENARIOS["plain_answer"])
    with pytest.raises(TypeError, match="v3 owns these"):
        agent.stream_events(INPUT, version="v3", stream_mode="values")


def test_model_messages_are_content_blocks_under_v3() -> None:
    """Under v3 LangChain runs the model through its content-block event path, so the stored
    reply is v1 output (content blocks), as in deepagents."""
    outputs = {}
    for m in IMPLS:
        run = build(m, SCENARIOS["research"]).stream_events(copy.deepcopy(INPUT), version="v3")
        outputs[m.__name__] = plain(run.output)
    ref = compare(outputs)
    ai = [msg for msg in ref["messages"] if msg["type"] == "ai"]
    assert isinstance(ai[0]["content"], list)


def test_whole_ai_message_kept_without_streaming() -> None:
    outputs = {}
    for m in IMPLS:
        run = build(m, SCENARIOS["research_whole_messages"]).stream_events(copy.deepcopy(INPUT), version="v3")
        outputs[m.__name__] = [_chat(s) for s in run.messages]
    ref = compare(outputs)
    texts = [[b["text"] for b in s["output"]["content"] if b["type"] == "text"] for s in ref]
    assert texts == [["Calling my_tool"], [], ["Final answer: done"]]


def test_plain_ai_message_answer() -> None:
    outputs = {}
    for m in IMPLS:
        agent = build(m, SCENARIOS["plain_answer"])
        run = agent.stream_events(copy.deepcopy(INPUT), version="v3")
        outputs[m.__name__] = [s.output.text for s in run.messages]
    assert compare(outputs) == ["Hello there, how can I help?"]


def _two_subagents(module: ModuleType, checkpointer: Any = None) -> Any:
    """An agent whose first reply calls two subagents at once."""
    subagents = [
        {
            "name": name,
            "description": f"The {name}.",
            "system_prompt": f"You are the {name}.",
            "model": StreamingScriptedChatModel([ai_tool_calls(("my_tool", {"x": x})), f"{name} done"]),
            "tools": [my_tool],
        }
        for name, x in (("researcher", 1), ("writer", 2))
    ]
    calls = ai_tool_calls(
        ("task", {"description": "a", "subagent_type": "researcher"}, "call_B1"),
        ("task", {"description": "b", "subagent_type": "writer"}, "call_B2"),
    )
    return module.create_deep_agent(
        model=StreamingScriptedChatModel([calls, "Final"]), subagents=subagents, checkpointer=checkpointer
    )


def test_two_subagents_in_one_step() -> None:
    """Two ``task`` calls in one reply, to two subagents that run concurrently: two handles
    (compared by name), the root's tool calls (by call id), and each subagent's events from
    the main event log (grouped by namespace, each numbered on its own). A handle's own
    projections are not drained here: with two subagents at once, what a caller sees of the
    second depends on when it subscribes, in deepagents too."""
    results = {}
    for m in IMPLS:
        run = _two_subagents(m).stream_events(copy.deepcopy(INPUT), version="v3")
        raw = list(run.interleave("tool_calls", "subagents", "lifecycle"))
        items = [(n, _view(n, i)) for n, i in raw]  # once the run is over: the handles' end
        events = [_event(e) for e in _two_subagents(m).stream_events(copy.deepcopy(INPUT), version="v3")]
        names = {
            tuple(e["data"]["namespace"]): e["data"]["graph_name"]
            for e in events
            if e["method"] == "lifecycle" and e["data"]["event"] == "started"
        }
        by_name = {
            name: Placeholders()(_no_times([e for e in events if tuple(e["namespace"]) == ns]))
            for ns, name in names.items()
        }
        handles = sorted((v for n, v in items if n == "subagents"), key=lambda v: v["name"])
        results[m.__name__] = {
            "subagents": [Placeholders()(h) for h in handles],
            "tool_calls": Placeholders()(_no_times(sorted((v for n, v in items if n == "tool_calls"), key=str))),
            "lifecycle": sorted(v["event"] for n, v in items if n == "lifecycle"),
            "events": by_name,
        }
    ref = compare(results)
    assert [(h["name"], h["status"], h["cause"]["tool_call_id"]) for h in ref["subagents"]] == [
        ("researcher", "completed", "call_B1"),
        ("writer", "completed", "call_B2"),
    ]
    assert sorted(ref["events"]) == ["researcher", "writer"]


def test_extra_transformers() -> None:
    """``transformers=`` adds projections, built from the stream modes they ask for."""
    from langgraph.stream.transformers import CustomTransformer, UpdatesTransformer

    results = {}
    for m in IMPLS:
        run = build(m, SCENARIOS["research"]).stream_events(
            copy.deepcopy(INPUT), version="v3", transformers=[UpdatesTransformer, CustomTransformer]
        )
        results[m.__name__] = {"items": _drain_sync(run, ("values", "updates", "custom", "tool_calls")), **_result(run)}
    ref = compare(results)
    assert [n for n, _ in ref["items"]].count("updates") == 7


def test_compiled_subagent_handle() -> None:
    """A ``CompiledSubAgent`` graph streams its own parts under its task's namespace, so v3
    shows it on ``run.subagents`` (name, cause, status, path, output, its own projections),
    its messages and tool calls included."""
    results = {m.__name__: collect_sync(compiled_agent(m), INPUT) for m in IMPLS}
    ref = compare(results)
    handles = [v for n, v in ref["items"] if n == "subagents"]
    assert [(h["name"], h["status"], h["cause"]["tool_call_id"]) for h in handles] == [
        ("helper", "completed", "call_H")
    ]
    inner = [n for n, _ in handles[0]["projections"]]
    assert "messages" in inner and "tool_calls" in inner


def test_compiled_subagent_main_event_log_async() -> None:
    """The same through ``astream_events(version="v3")``: the main event log (the compiled
    graph's events under its namespace) and each projection."""
    results = {m.__name__: asyncio.run(collect_async(compiled_agent(m), INPUT)) for m in IMPLS}
    ref = compare(results)
    assert [h["name"] for h in ref["subagents"]] == ["helper"]
    assert any(e["namespace"] and e["method"] == "tools" for e in ref["events"])


def test_projection_names() -> None:
    """The same projections, and the same error for one deepagents 0.7.32 does not have
    (``run.middleware``)."""
    results = {}
    for m in IMPLS:
        run = build(m, SCENARIOS["plain_answer"]).stream_events(copy.deepcopy(INPUT), version="v3")
        with pytest.raises(AttributeError) as missing:
            run.middleware  # noqa: B018
        results[m.__name__] = (sorted(run.extensions), str(missing.value))
        run.abort()
    names, _error = compare(results)
    assert names == ["lifecycle", "messages", "subagents", "subgraphs", "tool_calls", "values"]
