"""LangGraph's frozen dataclasses a plain tool call's task is made of (its ``ExecutionInfo``,
``Runtime`` and ``PregelScratchpad``), made without running their ``__init__``.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` from Python:
some 60 bytecodes an instance, three instances a plain tool call, every step, on the thread
every run's tool calls share. These classes keep their fields in slots, so a record is made
by the core (``src/python/frozen_records.rs``) as the class's bare instance with each slot set
as ``object.__setattr__`` sets it, in one call: the same class, fields and values as the call
would give. This module checks that a class can be made so. A class this cannot stand in
for (no slots, a ``__post_init__``, a field ``__init__`` does not take, one given or left to a
default factory) is called as usual.
"""

from __future__ import annotations

import dataclasses
import functools
from types import MemberDescriptorType
from typing import Any

from . import _core


class Records:
    """Makes ``cls(**dict(zip(given, values)))`` from ``values`` in the order of ``given``
    (field names); the other fields take their defaults. ``maker`` is what to call: the
    core's (`_core.SlotRecords`) where the class can be made so, else this."""

    __slots__ = ("cls", "given", "maker")

    def __init__(self, cls: type, given: tuple[str, ...]) -> None:
        self.cls = cls
        self.given = given
        fields = {f.name: f for f in dataclasses.fields(cls)}
        slots = vars(cls)
        rest = [f for name, f in fields.items() if name not in given]
        usable = (
            "__post_init__" not in dir(cls)
            and set(given) <= set(fields)
            and all(f.init for f in fields.values())
            and all(isinstance(slots.get(name), MemberDescriptorType) for name in fields)
            and all(f.default is not dataclasses.MISSING for f in rest)
        )
        # The given fields' names in order, then the others', with the others' defaults.
        order = [*given, *(f.name for f in rest)]
        new = functools.partial(cls.__new__, cls)
        self.maker = _core.SlotRecords(new, order, [f.default for f in rest]) if usable else self

    def __call__(self, *values: Any) -> Any:
        return self.cls(**dict(zip(self.given, values, strict=True)))
