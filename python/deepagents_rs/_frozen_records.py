"""LangGraph's frozen dataclasses a plain tool call's task is made of (its ``ExecutionInfo``,
``Runtime`` and ``PregelScratchpad``), made without running their ``__init__``.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` from Python:
some 60 bytecodes an instance, three instances a plain tool call, every step, on the thread
every run's tool calls share. These classes keep their fields in slots, so a record is made
here as the class's bare instance with each slot set by its own descriptor, from C (``map``
over the descriptors' setters): the same class, fields and values as the call would give.
A class this cannot stand in for (no slots, a ``__post_init__``, a field ``__init__`` does
not take, one given or left to a default factory) is called as usual.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections import deque
from itertools import repeat
from types import MemberDescriptorType
from typing import Any


class Records:
    """Makes ``cls(**dict(zip(given, values)))`` from ``values`` in the order of ``given``
    (field names); the other fields take their defaults."""

    __slots__ = ("cls", "defaults", "given", "new", "setters")

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
        #: The slot setters of the given fields, in order, then of the others (``None``: the
        #: class is called), and the others' defaults.
        order = [*given, *(f.name for f in rest)]
        self.setters = tuple(slots[name].__set__ for name in order) if usable else None
        self.defaults = tuple(f.default for f in rest)
        self.new = functools.partial(cls.__new__, cls)

    def __call__(self, *values: Any) -> Any:
        setters = self.setters
        if setters is None:
            return self.cls(**dict(zip(self.given, values, strict=True)))
        record = self.new()
        # `deque(..., 0)` runs the setters and keeps nothing.
        deque(map(operator.call, setters, repeat(record), values + self.defaults), 0)
        return record
