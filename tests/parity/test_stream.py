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

from dataclasses import dataclass, field
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, StreamingScriptedChatModel

from .stream_support import _DEFAULT, SCENARIOS, Run, Scenario, normalize_stream, run

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

STREAM_MODES: dict[str, Any] = {
    "default": _DEFAULT,
    "updates": "updates",
    "values": "values",
    "messages": "messages",
    "custom": "custom",
    "multi": ["updates", "messages", "custom"],
}


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
