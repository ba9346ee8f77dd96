"""The caller's LangChain message objects read in the core from their fields.

A run's input messages given as LangChain objects are read by the core from each object's
``__dict__`` (``src/python/input_objects.rs``) instead of through ``_convert.to_core`` and a
dict per message. Each reading must be the very message ``to_core``'s dict reads as: the
same core message, read exactly or not alike, and handed back as the same dict. Objects the
core does not know (a subclass, a chunk) still go through ``to_core``.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from deepagents_rs import _convert, _core
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage

sys.path.insert(0, str(Path(__file__).parent))


class _Text(str):
    pass


class _MyHuman(HumanMessage):
    pass


def _known() -> list[Any]:
    """Objects of LangChain's own four classes, plain and not."""
    call = {"name": "echo", "args": {"text": "hi"}, "id": "c1"}
    usage = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    out: list[Any] = []
    for cls in (HumanMessage, SystemMessage, AIMessage):
        out += [
            cls(content="plain", id="i1"),
            cls(content="", id="i2"),
            cls(content="no id"),
            cls(content="named", id="i3", name="bob"),
            cls(content="é\ud7ff 😀", id="i4"),
            cls(content="kwargs", id="i5", additional_kwargs={"k": [1, {"x": None}]}),
            cls(content="meta", id="i6", response_metadata={"model_provider": "anthropic"}),
            cls(content=[{"type": "text", "text": "blocks"}], id="i7"),
            cls(content="lone \ud800 surrogate", id="i8"),
            cls(content="a date", id="i9", additional_kwargs={"when": datetime.date(2026, 1, 2)}),
            cls(content="extra field", id="i10", something="else"),
        ]
        subclassed = cls(content="x", id="i11")
        # A str subclass where validation would have kept it.
        object.__setattr__(subclassed, "__dict__", {**subclassed.__dict__, "content": _Text("sub")})
        out.append(subclassed)
    out += [
        AIMessage(content="", id="a1", tool_calls=[call]),
        AIMessage(content="calls", id="a2", tool_calls=[call, {**call, "id": None, "args": {"n": 1.5}}]),
        AIMessage(content="x", id="a3", invalid_tool_calls=[{"name": "t", "args": "{", "id": "c", "error": None}]),
        AIMessage(content="x", id="a4", usage_metadata=usage),
        AIMessage(
            content=[{"type": "text", "text": "t"}, {"type": "tool_use", "id": "c1", "name": "echo", "input": {}}]
        ),
        ToolMessage(content="result", tool_call_id="c1", id="t1"),
        ToolMessage(content="failed", tool_call_id="c1", id="t2", status="error", name="echo"),
        ToolMessage(content=[{"type": "text", "text": "r"}], tool_call_id="c1", artifact={"raw": [1, 2]}),
        ToolMessage(content="when", tool_call_id="c1", artifact=datetime.datetime(2026, 1, 2, 3, 4)),
    ]
    return out


KNOWN = _known()


@pytest.mark.parametrize("obj", KNOWN, ids=[f"{type(o).__name__}-{i}" for i, o in enumerate(KNOWN)])
def test_a_known_object_is_read_as_to_core_reads_it(obj: Any) -> None:
    ((made, reference, same),) = _core._input_objects_for_tests([obj])
    assert made is not None, "read through to_core"
    assert same
    assert made == reference


@pytest.mark.parametrize(
    "obj",
    [_MyHuman(content="subclass", id="s1"), AIMessageChunk(content="chunk", id="k1")],
    ids=["subclass", "chunk"],
)
def test_another_class_is_read_through_to_core(obj: Any) -> None:
    ((made, reference, same),) = _core._input_objects_for_tests([obj])
    assert made is None and not same
    assert reference["content"] == obj.content


def test_a_run_reads_given_objects_without_to_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run given LangChain objects calls ``to_core`` for none of them (only for what it
    cannot read: the subclass), and the result is the same as through ``to_core``."""
    import deepagents_rs
    from fake_models import ScriptedChatModel

    calls = []
    real = _convert.to_core

    def counting(msg: Any) -> dict:
        calls.append(msg)
        return real(msg)

    monkeypatch.setattr(_convert, "to_core", counting)
    given = [
        HumanMessage(content="first", id="h1"),
        AIMessage(content="", id="a1", tool_calls=[{"name": "echo", "args": {"text": "x"}, "id": "c1"}]),
        ToolMessage(content="x", tool_call_id="c1", id="t1"),
        AIMessage(content="then", id="a2"),
        _MyHuman(content="last", id="h2"),
    ]
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(["done"]))
    out = agent.invoke({"messages": given})
    # (The model's own reply is read through it: a model's output is not an input.)
    assert [m for m in calls if any(m is g for g in given)] == [given[-1]]
    assert [m is g for m, g in zip(out["messages"], given, strict=False)] == [True] * len(given)
    assert out["messages"][-1].content == "done"
