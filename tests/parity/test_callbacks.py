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

import copy
import dataclasses
import threading
import uuid
from dataclasses import dataclass
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import StreamingScriptedChatModel
from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler

from .callbacks_support import (
    CALLBACK_METHODS,
    IMPLS,
    INPUT,
    SCENARIOS,
    Recorder,
    Run,
    Scenario,
    _async_method,
    build,
    compact,
    normalize,
    run,
    skeleton,
)

# --------------------------------------------------------------------------------------------
# Recording handlers


class AsyncRecorder(AsyncCallbackHandler):
    """``Recorder`` as an ``AsyncCallbackHandler`` (coroutine methods)."""

    raise_error = True

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    record = Recorder.record


for _event in CALLBACK_METHODS:
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
