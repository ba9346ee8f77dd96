"""A run's result messages made in the core: the very objects ``from_core`` makes.

``invoke`` returns every message of the conversation as a LangChain object; the core makes
them directly (human, system, AI with tool calls, usage, metadata and block content, tool
messages with status and artifact) instead of through ``_convert.from_core`` and a dict. Each
must be the object ``from_core`` makes of the message's dict, and the one LangChain's own
constructor makes of it: same ``__dict__`` (values and order), set fields, extras and private
attributes. What ``from_core`` leaves to LangChain's constructor (a shape its validation could
change) still goes through ``from_core``.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from deepagents_rs import _core
from test_message_objects_as_given import _constructed, _same

sys.path.insert(0, str(Path(__file__).parent))


_USAGE = {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110}
_METADATA = {
    "id": "msg_1",
    "model": "claude-sonnet-4-5",
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 100, "output_tokens": 10, "server_tool_use": None},
    "model_name": "claude-sonnet-4-5",
    "model_provider": "anthropic",
}
_BLOCK = {"id": "toolu_1", "input": {"text": "step 0"}, "name": "echo", "type": "tool_use"}
_CALL = {"name": "echo", "args": {"text": "step 0", "n": {"deep": [1, 2.5]}}, "id": "toolu_1"}


def _cases() -> list[tuple[dict, bool]]:
    """(core message dict, whether the core makes it itself)."""
    cases = []
    for kind, msg_id, name in itertools.product(("human", "system", "ai"), ("id-1", None), (None, "bob")):
        d: dict[str, Any] = {"type": kind, "content": f"text of a {kind} message", "id": msg_id}
        if name is not None and kind != "system":
            d["name"] = name
        cases.append((d, True))
        cases.append(({**d, "additional_kwargs": {"k": [1, {"x": None}]}}, True))
        cases.append(({**d, "response_metadata": {"model_provider": "anthropic"}}, True))
        # Blocks outside an AI or tool message are LangChain's constructor's to validate.
        cases.append(({**d, "content": [{"type": "text", "text": "blocks"}]}, kind == "ai"))
    ai = {"type": "ai", "content": "", "id": "a"}
    cases += [
        ({**ai, "tool_calls": [{"name": "t", "args": {}, "id": "c"}]}, True),
        ({**ai, "tool_calls": [dict(_CALL), {"name": "u", "args": {"x": 1}, "id": None}]}, True),
        ({**ai, "tool_calls": [{"name": "t", "args": {}, "id": "c", "type": "other"}]}, True),
        ({**ai, "content": [dict(_BLOCK)], "tool_calls": [dict(_CALL)], "usage_metadata": dict(_USAGE)}, True),
        ({**ai, "content": ["plain", {"type": "text", "text": "t"}], "response_metadata": dict(_METADATA)}, True),
        ({**ai, "content": [], "usage_metadata": dict(_USAGE)}, True),
        ({**ai, "usage_metadata": {**_USAGE, "input_token_details": {"cache_read": 3, "cache_creation": 4}}}, True),
        (
            {
                **ai,
                "usage_metadata": {
                    **_USAGE,
                    "output_token_details": {"reasoning": 5, "audio": 1},
                    "input_token_details": {"cache_creation": 1, "audio": 0, "cache_read": 2},
                },
            },
            True,
        ),
        ({**ai, "name": "bot", "additional_kwargs": {"k": [1]}, "tool_calls": [dict(_CALL)]}, True),
        # Anthropic's cache details beside the declared ones: kept after them, as pydantic
        # keeps a `TypedDict`'s other keys.
        (
            {
                **ai,
                "usage_metadata": {
                    **_USAGE,
                    "input_token_details": {
                        "cache_read": 0,
                        "cache_creation": 0,
                        "ephemeral_5m_input_tokens": 2621,
                        "ephemeral_1h_input_tokens": 0,
                    },
                    "output_token_details": {"other": 2, "reasoning": 1},
                },
            },
            True,
        ),
        ({**ai, "id": None, "tool_calls": [dict(_CALL)], "usage_metadata": dict(_USAGE)}, True),
        # What validation could change: left to `from_core` and LangChain's constructor.
        ({**ai, "content": "x", "invalid_tool_calls": [{"name": "t", "args": "{", "id": "c"}]}, False),
        ({**ai, "usage_metadata": {**_USAGE, "input_token_details": {"cache_read": 2.0}}}, False),
        ({**ai, "usage_metadata": {**_USAGE, "input_token_details": {"ephemeral": "x"}}}, False),
        ({**ai, "usage_metadata": {**_USAGE, "output_token_details": {"reasoning": True}}}, False),
        (
            {
                **ai,
                "additional_kwargs": {
                    "tool_calls": [{"id": "c3", "function": {"name": "f", "arguments": "{}"}, "type": "function"}]
                },
            },
            False,
        ),
    ]
    tool = {"type": "tool", "content": "r", "id": "t", "tool_call_id": "c", "status": "success"}
    cases += [
        (tool, True),
        ({**tool, "name": "echo"}, True),
        ({**tool, "id": None, "status": "error", "content": "Error: no such file"}, True),
        ({**tool, "artifact": {"rows": [1, 2], "more": None}}, True),
        ({**tool, "artifact": "a text artifact"}, True),
        ({**tool, "artifact": [1, "two"]}, True),
        ({**tool, "content": [{"type": "text", "text": "block"}, "plain"]}, True),
        ({**tool, "response_metadata": {"k": 1}, "additional_kwargs": {"x": [None]}}, True),
        ({**tool, "tool_call_id": "toolu_" + "0" * 40, "name": "a_rather_long_tool_name_here"}, True),
        ({"type": "human", "content": "", "id": "e"}, True),
        ({"type": "human", "content": "é\ud7ff 😀", "id": "u"}, True),
    ]
    return cases


CASES = _cases()


@pytest.mark.parametrize(("d", "native"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_a_result_message_is_the_object_from_core_makes(d: dict, native: bool) -> None:
    made, reference, made_here, core_dicts = _core._result_objects_for_tests([d])
    assert made_here == [native]
    _same(made[0], reference[0])
    # And the one LangChain's own constructor makes of the core's dict.
    _same(made[0], _constructed(core_dicts[0]))
    # Its own dicts and lists, as validation leaves them (not the reference's, not shared).
    for field in ("additional_kwargs", "response_metadata", "tool_calls", "invalid_tool_calls", "usage_metadata"):
        value = getattr(made[0], field, None)
        if value is not None:
            assert value is not getattr(reference[0], field)


REFUSED = [
    {"type": "ai", "content": "", "id": "a", "tool_calls": [{"name": "t", "args": args, "id": "c"}]}
    for args in ([1], "text", None)
] + [{"type": "ai", "content": ["text", 7], "id": "a"}]


@pytest.mark.parametrize("d", REFUSED, ids=[str(i) for i in range(len(REFUSED))])
def test_what_langchain_refuses_is_refused_alike(d: dict) -> None:
    """A call's arguments that are no object, a content item neither text nor dict: not made
    here, and LangChain's validation error as ``from_core`` raises it."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        _constructed({**d, "tool_calls": d.get("tool_calls", [])})
    with pytest.raises(ValidationError):
        _core._result_objects_for_tests([d])


def test_a_list_of_mixed_messages_keeps_its_order() -> None:
    dicts = [d for d, _ in CASES]
    made, reference, made_here, _ = _core._result_objects_for_tests(dicts)
    assert made_here == [p for _, p in CASES]
    assert len(made) == len(reference) == len(dicts)
    for m, r in zip(made, reference, strict=True):
        _same(m, r)


def test_an_invoke_result_is_what_deepagents_returns_for_plain_input() -> None:
    """Side by side: a history of plain dicts comes back as the same message objects (their
    fields, set fields aside: the core marks an AI message's ``tool_calls`` and
    ``response_metadata`` as set, as ``from_core`` always has)."""
    import deepagents
    import deepagents_rs
    from fake_models import ScriptedChatModel

    history = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "reply"},
        {"role": "system", "content": "note"},
        {"role": "user", "content": "again"},
    ]
    results = []
    for mod in (deepagents, deepagents_rs):
        agent = mod.create_deep_agent(model=ScriptedChatModel(["done"]))
        out = agent.invoke({"messages": [dict(m) for m in history]})
        results.append(out["messages"])
    ref, ours = results
    assert len(ours) == len(ref) == len(history) + 1
    for o, r in zip(ours, ref, strict=True):
        assert type(o) is type(r)
        assert list(o.__dict__) == list(r.__dict__)
        assert {k: v for k, v in o.__dict__.items() if k != "id"} == {k: v for k, v in r.__dict__.items() if k != "id"}
        assert isinstance(o.id, str) and o.id
        assert o.model_dump(exclude={"id"}) == r.model_dump(exclude={"id"})


def test_made_messages_share_no_mutable_part() -> None:
    """The core makes each plain message from a per-class template (`__dict__`, set fields):
    every message still has its own dicts, lists and set, and a change to one message shows
    in no other, nor in the next ones made."""
    dicts = [{"type": kind, "content": kind, "id": f"{kind}-{i}"} for kind in ("human", "system", "ai") for i in (1, 2)]
    made, _, made_here, _ = _core._result_objects_for_tests(dicts)
    assert all(made_here)
    for first, second in zip(made[::2], made[1::2], strict=True):
        parts = ["__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "additional_kwargs", "response_metadata"]
        if first.type == "ai":
            parts += ["tool_calls", "invalid_tool_calls"]
        for part in parts:
            assert getattr(first, part) is not getattr(second, part), part
        first.additional_kwargs["k"] = 1
        first.response_metadata["k"] = 1
        first.__pydantic_fields_set__.add("name")
        first.__pydantic_extra__["x"] = 1
        assert second.additional_kwargs == second.response_metadata == second.__pydantic_extra__ == {}
        assert "name" not in second.__pydantic_fields_set__
    again, reference, _, _ = _core._result_objects_for_tests(dicts)
    for m, r in zip(again, reference, strict=True):
        _same(m, r)


def test_a_plain_dicts_content_comes_back_as_the_callers_string() -> None:
    """LangChain's coercion makes a plain dict's message around the caller's very ``str``
    (deepagents' result holds it); the core keeps it for the result instead of copying the
    text back into a new string. A message the run replaced gets its own."""
    import deepagents
    import deepagents_rs
    from fake_models import ScriptedChatModel

    texts = ["first " * 20, "reply " * 20, "é😀 again " * 5]
    for mod in (deepagents, deepagents_rs):
        history = [{"role": r, "content": t} for r, t in zip(("user", "assistant", "user"), texts, strict=True)]
        agent = mod.create_deep_agent(model=ScriptedChatModel(["done"]))
        out = agent.invoke({"messages": history})["messages"]
        assert [m.content for m in out] == [*texts, "done"]
        assert all(m.content is d["content"] for m, d in zip(out, history, strict=False)), mod.__name__


def test_a_made_messages_set_fields_are_left_to_no_collection() -> None:
    """The set of field names of a made message is untracked by the collector (it holds
    strings only, so no cycle runs through it): one container less per message of a long
    history for every collection to walk. It still takes a field set later, and a copy's set
    is pydantic's own."""
    import gc

    dicts = [{"type": kind, "content": kind, "id": f"{kind}-1"} for kind in ("human", "system", "ai")]
    made, reference, made_here, _ = _core._result_objects_for_tests(dicts)
    assert all(made_here)
    for m, r in zip(made, reference, strict=True):
        assert not gc.is_tracked(m.__pydantic_fields_set__)
        assert gc.is_tracked(m) and gc.is_tracked(m.__dict__)
        _same(m, r)
        m.name = "bob"
        assert "name" in m.__pydantic_fields_set__
        copy = m.model_copy()
        assert copy == m and copy.__pydantic_fields_set__ == m.__pydantic_fields_set__
        assert gc.is_tracked(copy.__pydantic_fields_set__)


#: A case `from_core` takes (LangChain's constructor remakes invalid tool calls).
_TAKEN_BY_FROM_CORE = {
    "type": "ai",
    "content": "x",
    "id": "a",
    "invalid_tool_calls": [{"name": "t", "args": "{", "id": "c"}],
}


def _collections_before_from_core(monkeypatch: pytest.MonkeyPatch, dicts: list[dict]) -> tuple[int, bool]:
    """How many collections ran (every allocation collecting) from the call until the made
    side's first ``from_core`` call (the made side runs first), and whether the collector
    was on in that call."""
    import gc

    from deepagents_rs import _convert

    starts = []
    seen: list[tuple[int, bool]] = []
    original = _convert.from_core

    def from_core(d: dict) -> object:
        if not seen:
            seen.append((len(starts), gc.isenabled()))
        return original(d)

    def count(phase: str, _info: dict) -> None:
        if phase == "start":
            starts.append(1)

    monkeypatch.setattr(_convert, "from_core", from_core)
    threshold = gc.get_threshold()
    gc.callbacks.append(count)
    gc.set_threshold(1)
    try:
        _core._result_objects_for_tests(dicts)
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(count)
    return seen[0]


def test_the_collector_waits_while_a_long_result_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long history's messages are thousands of new containers, none garbage: the cyclic
    collector is paused while the core makes them (one walk of them after, not one every 700
    allocations), and on again for the Python code ``from_core`` runs."""
    dicts = [{"type": kind, "content": kind, "id": f"{kind}-{i}"} for i in range(40) for kind in ("human", "ai")]
    # Once first: the core's first result reads the classes (Python code).
    _collections_before_from_core(monkeypatch, [_TAKEN_BY_FROM_CORE])
    before, _ = _collections_before_from_core(monkeypatch, [_TAKEN_BY_FROM_CORE, *dicts])
    collections, enabled = _collections_before_from_core(monkeypatch, [*dicts, _TAKEN_BY_FROM_CORE])
    # Collecting at every allocation, the 80 messages made unpaused start some 140 more
    # than the reading of the dicts before them.
    assert collections - before < 10, (before, collections)
    assert enabled


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_left_as_the_caller_had_it(monkeypatch: pytest.MonkeyPatch, enabled: bool) -> None:
    """On or off before, the same after a result, and in ``from_core``'s Python code; after a
    message refused midway (LangChain's error raised) too."""
    import gc

    from pydantic import ValidationError

    made = [{"type": "human", "content": "h", "id": "h"}, {"type": "ai", "content": "a", "id": "a"}]
    (gc.enable if enabled else gc.disable)()
    try:
        _, in_from_core = _collections_before_from_core(monkeypatch, [*made, _TAKEN_BY_FROM_CORE, *made])
        assert in_from_core is enabled
        assert gc.isenabled() is enabled
        with pytest.raises(ValidationError):
            _core._result_objects_for_tests([*made, REFUSED[0], *made])
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
