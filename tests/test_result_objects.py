"""A run's plain result messages made in the core: the very objects ``from_core`` makes.

``invoke`` returns every message of the conversation as a LangChain object; the plain ones
(text content, no tool calls, no usage, no extra fields) are made by the core directly
instead of through ``_convert.from_core`` and a dict. Each must be the object ``from_core``
makes of the message's dict: same ``__dict__`` (values and order), set fields, extras and
private attributes. The messages that are not plain still go through ``from_core``.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from deepagents_rs import _core
from test_message_objects_as_given import _same

sys.path.insert(0, str(Path(__file__).parent))


def _cases() -> list[tuple[dict, bool]]:
    """(core message dict, whether the core makes it itself)."""
    cases = []
    for kind, msg_id, name in itertools.product(("human", "system", "ai"), ("id-1", None), (None, "bob")):
        d: dict[str, Any] = {"type": kind, "content": f"text of a {kind} message", "id": msg_id}
        if name is not None and kind != "system":
            d["name"] = name
        cases.append((d, True))
        cases.append(({**d, "additional_kwargs": {"k": [1, {"x": None}]}}, False))
        cases.append(({**d, "response_metadata": {"model_provider": "anthropic"}}, False))
        cases.append(({**d, "content": [{"type": "text", "text": "blocks"}]}, False))
    cases += [
        ({"type": "ai", "content": "", "id": "a", "tool_calls": [{"name": "t", "args": {}, "id": "c"}]}, False),
        (
            {"type": "ai", "content": "x", "id": "a", "invalid_tool_calls": [{"name": "t", "args": "{", "id": "c"}]},
            False,
        ),
        (
            {
                "type": "ai",
                "content": "x",
                "id": "a",
                "usage_metadata": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
            },
            False,
        ),
        ({"type": "tool", "content": "r", "id": "t", "tool_call_id": "c", "status": "success"}, False),
        ({"type": "human", "content": "", "id": "e"}, True),
        ({"type": "human", "content": "é\ud7ff 😀", "id": "u"}, True),
    ]
    return cases


CASES = _cases()


@pytest.mark.parametrize(("d", "plain"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_a_result_message_is_the_object_from_core_makes(d: dict, plain: bool) -> None:
    made, reference, plain_ones = _core._result_objects_for_tests([d])
    assert plain_ones == [plain]
    _same(made[0], reference[0])
    # Its own dicts and lists, as validation leaves them (not the reference's, not shared).
    for field in ("additional_kwargs", "response_metadata"):
        assert getattr(made[0], field) is not getattr(reference[0], field)


def test_a_list_of_mixed_messages_keeps_its_order() -> None:
    dicts = [d for d, _ in CASES]
    made, reference, plain_ones = _core._result_objects_for_tests(dicts)
    assert plain_ones == [p for _, p in CASES]
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
    made, _, plain_ones = _core._result_objects_for_tests(dicts)
    assert all(plain_ones)
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
    again, reference, _ = _core._result_objects_for_tests(dicts)
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
    made, reference, plain_ones = _core._result_objects_for_tests(dicts)
    assert all(plain_ones)
    for m, r in zip(made, reference, strict=True):
        assert not gc.is_tracked(m.__pydantic_fields_set__)
        assert gc.is_tracked(m) and gc.is_tracked(m.__dict__)
        _same(m, r)
        m.name = "bob"
        assert "name" in m.__pydantic_fields_set__
        copy = m.model_copy()
        assert copy == m and copy.__pydantic_fields_set__ == m.__pydantic_fields_set__
        assert gc.is_tracked(copy.__pydantic_fields_set__)
