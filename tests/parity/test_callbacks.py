"""LangChain callbacks (``config={"callbacks": [handler]}``) and LangSmith tracing through both
implementations: the same scenario, run through ``deepagents`` and ``deepagents_rs``, must give a
handler the same events, and LangSmith the same run tree.

Scenarios (``SCENARIOS``), each run on fresh agents and models: ``plain`` (one answer),
``research`` (the research fixture: the main model calls ``my_tool{x:1}``, then ``task`` to the
isolated subagent ``researcher``, whose own model calls ``my_tool{x:2}`` and answers; then
``"Final answer: done"``), ``tool_error`` (a tool raising ``ValueError``; compared up to the
error, and both must raise it), ``config`` (the research fixture with
``config={"run_name": "custom", "tags": ["t1"], "metadata": {"k": "v"}}``) and ``named``
(the research fixture with ``create_deep_agent(name="named")``). They run under ``invoke``,
``ainvoke``, ``stream``/``astream`` (``stream_mode="messages"`` with
``StreamingScriptedChatModel``, which adds ``on_llm_new_token``), with a
``BaseCallbackHandler`` (``Recorder``) and an ``AsyncCallbackHandler`` (``AsyncRecorder``), plus
the handler switches users set (``ignore_*``, ``raise_error``, a handler without
``on_chat_model_start``, which LangChain serves ``on_llm_start`` instead) and ``run_id``.

What is compared (``Recorder`` records every callback method of ``BaseCallbackHandler``), per
event, in order:

* Skeleton: the method name; ``run`` and ``parent`` (``run_id`` and ``parent_run_id``, so who is
  whose parent); ``name`` (the ``name=`` keyword: the root chain, ``model``/``tools``/
  ``<Middleware>.<hook>`` node chains, the subagent chain named after its spec; and for
  ``on_tool_end`` the tool); ``serialized`` (``None``, or the ``serialized`` dict's ``name``: the
  chat model class or the tool); ``tags`` (sorted; LangChain's own order differs between
  chains, models and tools); ``metadata`` (every key except the noise below); and the set of
  keyword arguments the method got (``inputs``, ``tool_call_id``, ``invocation_params``, ...).
* Payload: chain ``inputs``/``outputs`` (the root's are the input as given and the final
  state; a node's are the state it got and the update it returned: ``[Command(update=...)]`` for
  ``model``, ``{"messages": [ToolMessage]}`` or ``[Command]`` for ``tools``); chat model
  ``messages``, ``options``, ``batch_size``, the ``invocation_params`` keys and the offered
  tool names; ``on_llm_start`` prompts; ``on_llm_end``'s ``LLMResult`` (generations and
  ``llm_output``); ``on_llm_new_token``'s token and chunk; ``on_tool_start``'s ``input_str``,
  ``inputs`` and ``tool_call_id``; ``on_tool_end``'s output (a ``ToolMessage``, or the
  ``Command`` of ``task``); errors as class and message.

Normalization, applied to both sides:

* Values are snapshotted when the event fires (implementations mutate messages afterwards).
  Messages become ``fake_models.normalize_messages`` dicts plus their class (and, for chunks,
  ``tool_call_chunks`` and ``chunk_position``). ``LLMResult``/``ChatGeneration``, ``Command``/``Send`` and
  other dataclasses become plain dicts; any other object becomes ``"<ClassName>">``.
* Then every uuid, in order of first appearance in the event sequence, becomes
  ``uuid<version>#n`` and ``lc_run--<uuid>`` becomes ``lc_run--#n``, with one counter for run ids
  and message ids: so parents are placeholder references, and a model reply's id is checked to
  be ``lc_run--`` + its LLM run's id.
* Not compared: ``serialized`` beyond its name (a dump of the model or the tool description),
  ``invocation_params`` values (only the keys and the offered tool names), the metadata keys
  ``lc_versions`` (version strings), ``langgraph_triggers``, ``langgraph_path``,
  ``langgraph_checkpoint_ns`` and ``checkpoint_ns`` (LangGraph task bookkeeping with random
  ids), and the ids of messages in a node's (not the root's) outputs (LangGraph gives a node's
  new messages ids in place, so whether one already has it when ``on_chain_end`` fires depends
  on nesting). Timestamps are not recorded.

LangSmith (``test_langsmith_*``): a loopback ``http.server`` stands in for the LangSmith API and
records what the ``langsmith`` client sends (``GET /info``; runs by ``POST /runs/multipart``,
``/runs/batch``, ``/runs`` or ``PATCH /runs/<id>``, whichever is used); ``LANGSMITH_TRACING``,
``LANGSMITH_ENDPOINT`` and ``LANGSMITH_API_KEY`` are set with ``monkeypatch``, and langsmith's
env caches and cached client are reset around each test. Each implementation's runs are flushed
(``Client.flush``) and compared as a tree: run type, name, sorted tags, the metadata keys
``ls_integration``, ``lc_agent_name``, ``ls_agent_type``, ``langgraph_node``,
``langgraph_step``, the root's inputs, each run's children in start order. The ``chain`` spans
LangChain adds per middleware ``wrap_model_call``/``wrap_tool_call`` hook (only when tracing)
are collapsed (their children hang from their parent), as is their ``ls_method`` metadata. Both
sides must also send well-formed runs: one ``trace_id`` (the root's id) and each
``dotted_order`` extending its parent's.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import email.parser
import email.policy
import http.server
import json
import re
import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, StreamingScriptedChatModel, ai_tool_calls, normalize_messages
from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, Generation, LLMResult
from langchain_core.tools import tool
from langgraph.types import Send

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

# --------------------------------------------------------------------------------------------
# Recording handlers

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


class AsyncRecorder(AsyncCallbackHandler):
    """``Recorder`` as an ``AsyncCallbackHandler`` (coroutine methods)."""

    raise_error = True

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    record = Recorder.record


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


for _event in CALLBACK_METHODS:
    setattr(Recorder, _event, _sync_method(_event))
    setattr(AsyncRecorder, _event, _async_method(_event))


class LLMStartOnlyRecorder(Recorder):
    """A handler written for completion models: no ``on_chat_model_start`` (the base class's
    raises ``NotImplementedError``), so LangChain calls ``on_llm_start`` with message strings."""

    on_chat_model_start = BaseCallbackHandler.on_chat_model_start


class IgnoreChainRecorder(Recorder):
    ignore_chain = True


class IgnoreLLMRecorder(Recorder):
    ignore_llm = True


class IgnoreChatModelRecorder(Recorder):
    ignore_chat_model = True


class IgnoreAgentRecorder(Recorder):
    """``ignore_agent`` also silences the tool callbacks."""

    ignore_agent = True


class HandlerFailure(RuntimeError):
    pass


class FailingRecorder(Recorder):
    """Raises from ``on_tool_start`` (after recording it); ``raise_error`` set per test."""

    def on_tool_start(self, *args: Any, **kwargs: Any) -> None:
        self.record("on_tool_start", args, kwargs)
        raise HandlerFailure("handler failed in on_tool_start")


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

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_UUID_RE = re.compile(_UUID)
_LC_RUN_RE = re.compile(rf"lc_run--({_UUID})")


class Placeholders:
    """Rewrites ``lc_run--`` ids and uuids in order of first appearance (one counter)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def _number(self, raw: str) -> int:
        return self.ids.setdefault(raw.lower(), len(self.ids) + 1)

    def string(self, s: str) -> str:
        s = _LC_RUN_RE.sub(lambda m: f"lc_run--#{self._number(m[1])}", s)

        def bare(m: re.Match[str]) -> str:
            version = uuid.UUID(m[0]).version
            return f"uuid{version or 'x'}#{self._number(m[0])}"

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
    return Placeholders()(events)


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


# --------------------------------------------------------------------------------------------
# Parity


@dataclass
class Compared:
    ref: Run
    rs: Run
    ref_events: list[dict[str, Any]]
    rs_events: list[dict[str, Any]]


def assert_same_outcome(ref: Run, rs: Run, raises: bool) -> None:
    if not raises:
        assert ref.error is None, f"deepagents raised {ref.error!r}"
        assert rs.error is None, f"deepagents_rs raised {rs.error!r}"
        return
    assert ref.error is not None, "deepagents did not raise"
    assert rs.error is not None, "deepagents_rs did not raise"
    assert (type(rs.error), str(rs.error)) == (type(ref.error), str(ref.error))


def assert_events_equal(ref_events: list[dict[str, Any]], rs_events: list[dict[str, Any]]) -> None:
    """The compact view first (the clearest diff), then the skeleton, then the payloads."""
    assert compact(rs_events) == compact(ref_events)
    assert skeleton(rs_events) == skeleton(ref_events)
    for i, (a, b) in enumerate(zip(ref_events, rs_events, strict=True)):
        assert b["data"] == a["data"], f"event {i} ({a['event']} {compact(ref_events)[i][1]}): payload differs"


def assert_callback_parity(scenario: Scenario, **options: Any) -> Compared:
    """Run the scenario through deepagents, then deepagents_rs, each with a fresh recording
    handler; the outcomes and the normalized event sequences must be equal."""
    ref = run(deepagents, scenario, **options)
    rs = run(deepagents_rs, scenario, **options)
    assert_same_outcome(ref, rs, scenario.raises)
    ref_events, rs_events = normalize(ref.events), normalize(rs.events)
    assert ref_events, "the reference recorded no events"
    assert_events_equal(ref_events, rs_events)
    return Compared(ref, rs, ref_events, rs_events)


@pytest.mark.parametrize("api", ["invoke", "ainvoke"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_callbacks(scenario: str, api: str) -> None:
    """A ``BaseCallbackHandler`` sees the same events under invoke and ainvoke."""
    assert_callback_parity(SCENARIOS[scenario], api=api)


@pytest.mark.parametrize("api", ["invoke", "ainvoke"])
def test_async_callback_handler(api: str) -> None:
    """An ``AsyncCallbackHandler`` (its coroutines run on a loop of LangChain's under invoke)."""
    compared = assert_callback_parity(SCENARIOS["research"], api=api, handler_cls=AsyncRecorder)
    assert len(compared.ref_events) == 42


@pytest.mark.parametrize("api", ["stream", "astream"])
@pytest.mark.parametrize("scenario", ["plain", "research"])
def test_stream_messages_tokens(scenario: str, api: str) -> None:
    """``stream_mode="messages"`` makes LangChain stream from the provider, and the handler gets
    one ``on_llm_new_token`` per chunk, between the model's start and end."""
    compared = assert_callback_parity(SCENARIOS[scenario], api=api, model_cls=StreamingScriptedChatModel)
    tokens = [e["data"]["token"] for e in compared.ref_events if e["event"] == "on_llm_new_token"]
    if scenario == "research":
        # Per call: one token per word, "" per tool call chunk, "" for the last chunk.
        main1, main2, sub1, sub2 = ["Calling", " my_tool", "", ""], ["", ""], ["", ""], ["sub", " result", " 4", ""]
        assert tokens == main1 + main2 + sub1 + sub2 + ["Final", " answer:", " done", ""]


def test_stream_updates_no_tokens() -> None:
    """Without ``messages`` the provider is not streamed: no ``on_llm_new_token``."""
    runs = []
    for impl in IMPLS:
        agent, _, _ = build(impl, SCENARIOS["research"], StreamingScriptedChatModel)
        handler = Recorder()
        list(agent.stream(copy.deepcopy(INPUT), config={"callbacks": [handler]}))
        runs.append(normalize(handler.events))
    assert not [e for e in runs[0] if e["event"] == "on_llm_new_token"]
    assert_events_equal(runs[0], runs[1])


@pytest.mark.parametrize(
    "handler_cls", [IgnoreChainRecorder, IgnoreLLMRecorder, IgnoreChatModelRecorder, IgnoreAgentRecorder]
)
def test_ignore_flags(handler_cls: type[Recorder]) -> None:
    """``ignore_chain``/``ignore_llm``/``ignore_chat_model``/``ignore_agent`` silence exactly
    what LangChain silences (``ignore_agent`` covers tools; ``ignore_chat_model`` only
    ``on_chat_model_start``)."""
    compared = assert_callback_parity(SCENARIOS["research"], handler_cls=handler_cls)
    seen = {e["event"] for e in compared.ref_events}
    expected = {
        IgnoreChainRecorder: {"on_chat_model_start", "on_llm_end", "on_tool_start", "on_tool_end"},
        IgnoreLLMRecorder: {"on_chain_start", "on_chain_end", "on_chat_model_start", "on_tool_start", "on_tool_end"},
        IgnoreChatModelRecorder: {"on_chain_start", "on_chain_end", "on_llm_end", "on_tool_start", "on_tool_end"},
        IgnoreAgentRecorder: {"on_chain_start", "on_chain_end", "on_chat_model_start", "on_llm_end"},
    }[handler_cls]
    assert seen == expected


def test_llm_start_fallback() -> None:
    """A handler without ``on_chat_model_start`` gets ``on_llm_start`` with one prompt string."""
    compared = assert_callback_parity(SCENARIOS["research"], handler_cls=LLMStartOnlyRecorder)
    prompts = [e["data"]["prompts"] for e in compared.ref_events if e["event"] == "on_llm_start"]
    assert len(prompts) == 5
    assert prompts[0] == ["System: \nHuman: go"]


@pytest.mark.parametrize("raise_error", [True, False], ids=["raise_error", "swallowed"])
def test_handler_exception(raise_error: bool) -> None:
    """A handler raising from ``on_tool_start``: with ``raise_error`` the run fails with the
    handler's exception (no ``on_tool_error``; the node and root chains error); without it, the
    exception is logged and the run goes on."""
    scenario = dataclasses.replace(SCENARIOS["research"], raises=raise_error)
    compared = assert_callback_parity(scenario, handler_cls=FailingRecorder, raise_error=raise_error)
    if raise_error:
        assert isinstance(compared.ref.error, HandlerFailure)
        assert [e["event"] for e in compared.ref_events][-3:] == ["on_tool_start", "on_chain_error", "on_chain_error"]
    else:
        assert len(compared.ref_events) == 42


def test_root_run_id_from_config() -> None:
    """``config["run_id"]`` is the root chain's run id; no other run gets it."""
    for impl in IMPLS:
        given = uuid.uuid4()
        result = run(impl, SCENARIOS["research"], config={"run_id": given})
        assert result.error is None, f"{impl.__name__} raised {result.error!r}"
        assert result.events, impl.__name__
        first = result.events[0]
        assert (first["event"], first["run"], first["parent"]) == ("on_chain_start", str(given), None), impl.__name__
        assert [e["run"] for e in result.events].count(str(given)) == 2, impl.__name__


# --------------------------------------------------------------------------------------------
# What the reference sends, spelled out; both implementations are held to it.


def _node(step: int, name: str, parent: str, *, extra: Sequence[str] = ()) -> list[tuple]:
    tags = sorted([f"graph:step:{step}", *extra])
    return [("on_chain_start", name, parent, tags), ("on_chain_end", name, parent, tags)]


def _model_node(step: int, parent: str, *, extra: Sequence[str] = ()) -> list[tuple]:
    tags = sorted([f"graph:step:{step}", *extra])
    inner = sorted(["seq:step:1", *extra])
    return [
        ("on_chain_start", "model", parent, tags),
        ("on_chat_model_start", "ScriptedChatModel", "model", inner),
        ("on_llm_end", "ScriptedChatModel", "model", inner),
        ("on_chain_end", "model", parent, tags),
    ]


def _tool_node(step: int, tool_name: str, parent: str, *, extra: Sequence[str] = (), inside: list | None = None):
    tags = sorted([f"graph:step:{step}", *extra])
    inner = sorted(["seq:step:1", *extra])
    return [
        ("on_chain_start", "tools", parent, tags),
        ("on_tool_start", tool_name, "tools", inner),
        *(inside or []),
        ("on_tool_end", tool_name, "tools", inner),
        ("on_chain_end", "tools", parent, tags),
    ]


def research_sequence(root: str = "LangGraph", extra: Sequence[str] = ()) -> list[tuple]:
    """The 42 events of the research fixture: ``(event, run, parent run, sorted tags)``."""
    root_tags = sorted(extra)
    sub = [
        ("on_chain_start", "researcher", "task", root_tags),
        *_node(1, "PatchToolCallsMiddleware.before_agent", "researcher", extra=extra),
        *_model_node(2, "researcher", extra=extra),
        *_tool_node(3, "my_tool", "researcher", extra=extra),
        *_model_node(4, "researcher", extra=extra),
        ("on_chain_end", "researcher", "task", root_tags),
    ]
    return [
        ("on_chain_start", root, None, root_tags),
        *_node(1, "PatchToolCallsMiddleware.before_agent", root, extra=extra),
        *_model_node(2, root, extra=extra),
        *_tool_node(3, "my_tool", root, extra=extra),
        *_model_node(4, root, extra=extra),
        *_tool_node(5, "task", root, extra=extra, inside=sub),
        *_model_node(6, root, extra=extra),
        *_node(7, "_ParentNotifierMiddleware.after_agent", root, extra=extra),
        ("on_chain_end", root, None, root_tags),
    ]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_research_sequence_spelled_out(impl: ModuleType) -> None:
    """The research fixture's events, and the metadata users filter on."""
    result = run(impl, SCENARIOS["research"])
    assert result.error is None, f"{impl.__name__} raised {result.error!r}"
    events = normalize(result.events)
    assert compact(events) == research_sequence()
    starts = [e for e in events if e["event"].endswith("_start")]
    meta = [
        (
            e["event"],
            e["metadata"].get("lc_agent_name"),
            e["metadata"].get("ls_integration"),
            "ls_agent_type" in e["metadata"],
        )
        for e in starts
    ]
    root, subagent = (None, "deepagents", False), ("researcher", "langchain_create_agent", False)
    model = ("langchain_chat_model", False)
    expected = (
        [("on_chain_start", *root)] * 3
        + [("on_chat_model_start", None, *model)]
        + [("on_chain_start", *root), ("on_tool_start", *root), ("on_chain_start", *root)]
        + [("on_chat_model_start", None, *model)]
        + [("on_chain_start", *root), ("on_tool_start", *root)]
        + [("on_chain_start", *subagent)] * 3
        + [("on_chat_model_start", "researcher", *model)]
        + [("on_chain_start", *subagent), ("on_tool_start", *subagent), ("on_chain_start", *subagent)]
        + [("on_chat_model_start", "researcher", *model)]
        + [("on_chain_start", *root)]
        + [("on_chat_model_start", None, *model)]
        + [("on_chain_start", *root)]
    )
    assert meta == expected
    nodes = [(e["name"], e["metadata"].get("langgraph_node"), e["metadata"].get("langgraph_step")) for e in starts]
    assert nodes[:3] == [
        ("LangGraph", None, None),
        ("PatchToolCallsMiddleware.before_agent", "PatchToolCallsMiddleware.before_agent", 1),
        ("model", "model", 2),
    ]
    # The subagent's root run inherits the node metadata of the parent's tools step.
    researcher = next(e for e in starts if e["name"] == "researcher")
    assert (researcher["metadata"]["langgraph_node"], researcher["metadata"]["langgraph_step"]) == ("tools", 5)
    assert researcher["serialized"] is None and researcher["data"]["inputs"]["messages"][0]["content"] == "research x"
    # Model replies carry their LLM run's id.
    llm_runs = [e["run"] for e in events if e["event"] == "on_chat_model_start"]
    replies = [
        e["data"]["response"]["generations"][0][0]["message"]["id"] for e in events if e["event"] == "on_llm_end"
    ]
    assert replies == [f"lc_run--#{r.split('#')[1]}-0" for r in llm_runs]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_config_and_name_spelled_out(impl: ModuleType) -> None:
    """``run_name`` renames the root only; tags and metadata reach every run, the subagent's
    too; ``name=`` renames the root and sets ``lc_agent_name`` outside the subagent."""
    result = run(impl, SCENARIOS["config"])
    assert result.error is None, f"{impl.__name__} raised {result.error!r}"
    events = normalize(result.events)
    assert compact(events) == research_sequence("custom", extra=["t1"])
    assert all(e["metadata"]["k"] == "v" for e in events if e["metadata"] is not None)
    named = run(impl, SCENARIOS["named"])
    assert named.error is None, f"{impl.__name__} raised {named.error!r}"
    events = normalize(named.events)
    assert compact(events) == research_sequence("named")
    agents = {(e["name"] or e["serialized"]["name"], e["metadata"]["lc_agent_name"]) for e in events if e["metadata"]}
    assert ("named", "named") in agents and ("researcher", "researcher") in agents


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_tool_error_spelled_out(impl: ModuleType) -> None:
    result = run(impl, SCENARIOS["tool_error"])
    assert isinstance(result.error, ValueError) and str(result.error) == "kaboom 1"
    events = normalize(result.events)
    assert compact(events) == [
        ("on_chain_start", "LangGraph", None, []),
        *_node(1, "PatchToolCallsMiddleware.before_agent", "LangGraph"),
        *_model_node(2, "LangGraph"),
        ("on_chain_start", "tools", "LangGraph", ["graph:step:3"]),
        ("on_tool_start", "boom", "tools", ["seq:step:1"]),
        ("on_tool_error", "boom", "tools", ["seq:step:1"]),
        ("on_chain_error", "tools", "LangGraph", ["graph:step:3"]),
        ("on_chain_error", "LangGraph", None, []),
    ]
    errors = [e["data"]["error"] for e in events if e["event"].endswith("_error")]
    assert errors == [{"error": "ValueError", "message": "kaboom 1"}] * 3
    tool_error = next(e for e in events if e["event"] == "on_tool_error")
    assert tool_error["kwargs"] == ["tool_call_id"]


# --------------------------------------------------------------------------------------------
# LangSmith

_WRAP_SPAN = re.compile(r"\.a?wrap_(model|tool)_call$")
TRACE_METADATA = ("ls_integration", "lc_agent_name", "ls_agent_type", "langgraph_node", "langgraph_step")
#: Bounds every wait on the client.
FLUSH_TIMEOUT = 10.0


class _LangSmithHandler(http.server.BaseHTTPRequestHandler):
    server: _LangSmithServer

    def _reply(self, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _record(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with self.server.lock:
            self.server.requests.append((self.command, self.path, dict(self.headers), body))

    def do_GET(self) -> None:
        self._record()
        self._reply({})  # /info: no batch config, so the client uses its defaults

    def do_POST(self) -> None:
        self._record()
        self._reply({})

    def do_PATCH(self) -> None:
        self._record()
        self._reply({})

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _LangSmithServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _LangSmithHandler)
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def take(self) -> list[tuple[str, str, dict[str, str], bytes]]:
        with self.lock:
            out, self.requests = self.requests, []
        return out


def _reset_langsmith() -> None:
    """Forget langsmith's cached env reads and its cached client (flushing it first)."""
    import langsmith.env
    import langsmith.run_trees
    import langsmith.utils

    client = langsmith.run_trees._CLIENT
    if client is not None:
        client.cleanup(timeout=FLUSH_TIMEOUT)
    langsmith.run_trees._CLIENT = None
    langsmith.utils.get_env_var.cache_clear()
    langsmith.utils.get_tracer_project.cache_clear()
    for fn in (langsmith.env.get_langchain_env_var_metadata, langsmith.env.get_runtime_environment):
        getattr(fn, "cache_clear", lambda: None)()


@pytest.fixture
def langsmith_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[_LangSmithServer]:
    server = _LangSmithServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    for var in ("LANGSMITH_RUNS_ENDPOINTS", "LANGCHAIN_RUNS_ENDPOINTS", "LANGSMITH_OTEL_ENABLED", "LANGSMITH_PROJECT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_ENDPOINT", server.url)
    monkeypatch.setenv("LANGSMITH_API_KEY", "fake")
    _reset_langsmith()
    try:
        yield server
    finally:
        _reset_langsmith()
        monkeypatch.undo()
        _reset_langsmith()
        server.shutdown()
        server.server_close()
        thread.join(timeout=FLUSH_TIMEOUT)


def _flush() -> None:
    import langsmith.run_trees

    client = langsmith.run_trees._CLIENT
    if client is not None:
        client.flush(timeout=FLUSH_TIMEOUT)


def _multipart_parts(headers: dict[str, str], body: bytes) -> list[tuple[str, Any]]:
    encoding = {k.lower(): v for k, v in headers.items()}.get("content-encoding", "")
    if "zstd" in encoding:
        import zstandard

        body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
    content_type = {k.lower(): v for k, v in headers.items()}["content-type"]
    message = email.parser.BytesParser(policy=email.policy.default).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
    )
    parts = []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        parts.append((name, json.loads(payload) if part.get_content_type() == "application/json" else payload))
    return parts


def posted_runs(requests: Sequence[tuple[str, str, dict[str, str], bytes]]) -> dict[str, dict[str, Any]]:
    """Every run the client sent, by id, with its posts and patches merged in arrival order."""
    runs: dict[str, dict[str, Any]] = {}

    def merge(run_id: str, fields: dict[str, Any]) -> None:
        runs.setdefault(str(run_id), {}).update(fields)

    for method, path, headers, body in requests:
        path = path.split("?", 1)[0].rstrip("/")
        if method == "POST" and path.endswith("/runs/multipart"):
            for name, payload in _multipart_parts(headers, body):
                _, run_id, *rest = name.split(".")
                merge(run_id, {rest[0]: payload} if rest else payload)
        elif method == "POST" and path.endswith("/runs/batch"):
            data = json.loads(body)
            for op in ("post", "patch"):
                for r in data.get(op) or []:
                    merge(r["id"], r)
        elif method == "POST" and path.endswith("/runs"):
            r = json.loads(body)
            merge(r["id"], r)
        elif method == "PATCH" and "/runs/" in path:
            merge(path.rsplit("/", 1)[1], json.loads(body))
    return runs


def _check_well_formed(runs: dict[str, dict[str, Any]], impl: str) -> None:
    roots = [r for r in runs.values() if not r.get("parent_run_id")]
    assert len(roots) == 1, f"{impl}: {len(roots)} root runs: {[(r['run_type'], r['name']) for r in roots]}"
    trace_id = str(roots[0]["id"])
    for r in runs.values():
        assert str(r.get("trace_id")) == trace_id, f"{impl}: {r['name']} has another trace_id"
        parent = r.get("parent_run_id")
        if parent:
            assert str(parent) in runs, f"{impl}: {r['name']}'s parent was never sent"
            assert r["dotted_order"].startswith(runs[str(parent)]["dotted_order"] + "."), f"{impl}: {r['name']}"
        assert r.get("end_time"), f"{impl}: {r['name']} never ended"


def run_tree(runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The comparable tree of the runs: middleware ``wrap_*`` spans collapsed, children in start
    (``dotted_order``) order."""
    children: dict[str | None, list[dict[str, Any]]] = {}
    for r in sorted(runs.values(), key=lambda r: r["dotted_order"]):
        parent = r.get("parent_run_id")
        children.setdefault(None if not parent else str(parent), []).append(r)

    def kids(run_id: str) -> list[dict[str, Any]]:
        out = []
        for c in children.get(run_id, []):
            if _WRAP_SPAN.search(c["name"]):
                out.extend(kids(str(c["id"])))
            else:
                out.append(node(c))
        return out

    def node(r: dict[str, Any]) -> dict[str, Any]:
        meta = (r.get("extra") or {}).get("metadata") or {}
        return {
            "run_type": r["run_type"],
            "name": r["name"],
            "tags": sorted(r.get("tags") or []),
            "metadata": {k: meta.get(k, "<absent>") for k in TRACE_METADATA},
            "children": kids(str(r["id"])),
        }

    (root,) = children[None]
    tree = node(root)
    tree["inputs"] = root.get("inputs")
    return tree


def traced(impl: ModuleType, server: _LangSmithServer, api: str) -> dict[str, dict[str, Any]]:
    agent, _, _ = build(impl, SCENARIOS["research"])
    execute(agent, copy.deepcopy(INPUT), {}, api)
    _flush()
    runs = posted_runs(server.take())
    assert runs, f"{impl.__name__}: nothing was sent to LangSmith"
    _check_well_formed(runs, impl.__name__)
    return runs


def _flatten(tree: dict[str, Any], depth: int = 0) -> list[tuple]:
    out = [
        (depth, tree["run_type"], tree["name"], tree["metadata"]["lc_agent_name"], tree["metadata"]["ls_agent_type"])
    ]
    for c in tree["children"]:
        out.extend(_flatten(c, depth + 1))
    return out


@pytest.mark.parametrize("api", ["invoke", "ainvoke"])
def test_langsmith_run_tree(langsmith_server: _LangSmithServer, api: str) -> None:
    """With ``LANGSMITH_TRACING=true`` both send LangSmith the same run tree, the subagent's runs
    marked ``ls_agent_type="subagent"``."""
    ref = traced(deepagents, langsmith_server, api)
    rs = traced(deepagents_rs, langsmith_server, api)
    ref_tree, rs_tree = run_tree(ref), run_tree(rs)
    assert _flatten(rs_tree) == _flatten(ref_tree)
    assert rs_tree == ref_tree
    # The reference, spelled out: chain/llm/tool runs; ls_agent_type only on the subagent's.
    assert _flatten(ref_tree) == [
        (0, "chain", "LangGraph", None, "<absent>"),
        (1, "chain", "PatchToolCallsMiddleware.before_agent", None, "<absent>"),
        (1, "chain", "model", None, "<absent>"),
        (2, "llm", "ScriptedChatModel", None, "<absent>"),
        (1, "chain", "tools", None, "<absent>"),
        (2, "tool", "my_tool", None, "<absent>"),
        (1, "chain", "model", None, "<absent>"),
        (2, "llm", "ScriptedChatModel", None, "<absent>"),
        (1, "chain", "tools", None, "<absent>"),
        (2, "tool", "task", None, "<absent>"),
        (3, "chain", "researcher", "researcher", "subagent"),
        (4, "chain", "PatchToolCallsMiddleware.before_agent", "researcher", "subagent"),
        (4, "chain", "model", "researcher", "subagent"),
        (5, "llm", "ScriptedChatModel", "researcher", "subagent"),
        (4, "chain", "tools", "researcher", "subagent"),
        (5, "tool", "my_tool", "researcher", "subagent"),
        (4, "chain", "model", "researcher", "subagent"),
        (5, "llm", "ScriptedChatModel", "researcher", "subagent"),
        (1, "chain", "model", None, "<absent>"),
        (2, "llm", "ScriptedChatModel", None, "<absent>"),
        (1, "chain", "_ParentNotifierMiddleware.after_agent", None, "<absent>"),
    ]
    assert ref_tree["metadata"]["ls_integration"] == "deepagents"
    assert ref_tree["inputs"] == INPUT


def test_langsmith_requests(langsmith_server: _LangSmithServer) -> None:
    """What the reference's client sends: ``GET /info``, then runs to ``/runs/multipart`` (the
    default when ``/info`` names no batch config), authenticated with the API key."""
    agent, _, _ = build(deepagents, SCENARIOS["research"])
    agent.invoke(copy.deepcopy(INPUT))
    _flush()
    requests = langsmith_server.take()
    paths = [(m, p.split("?", 1)[0]) for m, p, _, _ in requests]
    assert ("GET", "/info") in paths
    assert {p for p in paths if p[0] != "GET"} == {("POST", "/runs/multipart")}
    assert all({k.lower(): v for k, v in h.items()}.get("x-api-key") == "fake" for _, _, h, _ in requests)
    runs = posted_runs(requests)
    # 21 chain/llm/tool runs plus the middleware wrap_* spans.
    wraps = [r for r in runs.values() if _WRAP_SPAN.search(r["name"])]
    assert len(runs) - len(wraps) == 21
    assert all(r["extra"]["metadata"].get("ls_method") == "traceable" for r in wraps)


@pytest.mark.parametrize("api", ["invoke", "ainvoke"])
def test_compiled_subagent_runs_nest_under_the_task_run(api: str) -> None:
    """A ``CompiledSubAgent`` (a LangChain ``create_agent`` graph) traced from deepagents_rs
    nests its runs under the ``task`` tool run, as in deepagents."""
    from langchain.agents import create_agent

    events = {}
    for module in (deepagents, deepagents_rs):
        main = ScriptedChatModel(
            [
                ai_tool_calls(("task", {"description": "research x", "subagent_type": "compiled"}, "call_B")),
                "Final answer: done",
            ]
        )
        sub = ScriptedChatModel(["compiled answer"])
        runnable = create_agent(model=sub, tools=[], name="compiled")
        agent = module.create_deep_agent(
            model=main,
            subagents=[{"name": "compiled", "description": "A compiled agent.", "runnable": runnable}],
        )
        handler = Recorder()
        execute(agent, copy.deepcopy(INPUT), {"callbacks": [handler]}, api)
        events[module.__name__] = normalize(handler.events)
    assert compact(events["deepagents_rs"]) == compact(events["deepagents"])
    assert skeleton(events["deepagents_rs"]) == skeleton(events["deepagents"])
