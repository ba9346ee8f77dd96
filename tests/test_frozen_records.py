"""``_frozen_records.Records``: LangGraph's frozen records a plain tool call makes (its
``ExecutionInfo``, ``Runtime`` and ``PregelScratchpad``) are what calling the class gives:
the same class, every field the same object, equal, the same ``repr``; and a class it cannot
stand in for (no slots, a ``__post_init__``) is called as usual."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from deepagents_rs import _plain_tool_calls
from deepagents_rs._frozen_records import Records


def _values(given: tuple[str, ...]) -> tuple:
    """A distinct object for each given field."""
    return tuple(object() for _ in given)


def _same(made: Any, called: Any) -> None:
    assert type(made) is type(called)
    for field in dataclasses.fields(called):
        assert getattr(made, field.name) is getattr(called, field.name), field.name
    assert made == called
    assert repr(made) == repr(called)


@pytest.mark.parametrize("name", ["execution_info", "runtime", "runtime_writing", "scratchpad"])
def test_a_record_is_what_its_class_makes(name: str) -> None:
    records: Records = getattr(_plain_tool_calls._langgraph(), name)
    assert records.setters is not None  # made without `__init__`
    values = _values(records.given)
    _same(records(*values), records.cls(**dict(zip(records.given, values, strict=True))))


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
    assert records.setters is None
    value = object()
    _same(records(value), cls(a=value))
