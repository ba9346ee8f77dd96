"""``_frozen_records.Records``: LangGraph's frozen records a plain tool call makes (its
``ExecutionInfo``, ``Runtime`` and ``PregelScratchpad``) are what calling the class gives:
the same class, every field the same object, equal, the same ``repr``; and a class it cannot
stand in for (no slots, a ``__post_init__``) is called as usual."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from deepagents_rs import _core, _plain_tool_calls
from deepagents_rs._frozen_records import Records
from deepagents_rs._langgraph_private import PregelScratchpad
from langgraph.runtime import ExecutionInfo, Runtime


def _values(given: tuple[str, ...]) -> tuple:
    """A distinct object for each given field."""
    return tuple(object() for _ in given)


def _same(made: Any, called: Any) -> None:
    assert type(made) is type(called)
    for field in dataclasses.fields(called):
        assert getattr(made, field.name) is getattr(called, field.name), field.name
    assert made == called
    assert repr(made) == repr(called)


#: The records a plain tool call makes (`_plain_tool_calls._langgraph`'s names), their classes
#: and given fields.
_RECORDS = {
    "execution_info": (
        ExecutionInfo,
        ("checkpoint_id", "checkpoint_ns", "task_id", "thread_id", "run_id", "node_first_attempt_time"),
    ),
    "runtime": (Runtime, ("context", "store", "execution_info", "control")),
    "runtime_writing": (Runtime, ("context", "store", "execution_info", "control", "stream_writer")),
    "scratchpad": (
        PregelScratchpad,
        ("step", "stop", "call_counter", "interrupt_counter", "get_null_resume", "resume", "subgraph_counter"),
    ),
}


@pytest.mark.parametrize("name", sorted(_RECORDS))
def test_a_record_is_what_its_class_makes(name: str) -> None:
    cls, given = _RECORDS[name]
    records = Records(cls, given)
    # Made without `__init__`, by the core, and that maker is the one a tool call uses.
    assert isinstance(records.maker, _core.SlotRecords)
    assert isinstance(getattr(_plain_tool_calls._langgraph(), name), _core.SlotRecords)
    values = _values(given)
    _same(records.maker(*values), cls(**dict(zip(given, values, strict=True))))


@dataclasses.dataclass(frozen=True)
class _Plain:
    a: Any
    b: Any = 1


@dataclasses.dataclass(frozen=True, slots=True)
class _Checked:
    a: Any
    b: Any = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "b", self.a)


@pytest.mark.parametrize("cls", [_Plain, _Checked])
def test_a_class_it_cannot_stand_in_for_is_called(cls: type) -> None:
    records = Records(cls, ("a",))
    assert records.maker is records  # its own `__call__`: the class called
    value = object()
    _same(records.maker(value), cls(a=value))
