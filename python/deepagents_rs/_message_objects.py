"""One run's message objects, kept across the times the run's state is shown.

LangGraph hands out the objects its channel holds: a thread's history loaded from the saver,
and each node's write, are the same objects in every ``values`` chunk and in the result. The
core's state crosses over as dicts, so without this every ``values`` chunk and the result would
build an object per message of the whole history again (a pydantic validation each), a cost
that grows with the history at every step. Here a message is converted once: a dict the core
hands back unchanged (by id, compared whole) gets the object made or loaded for it before. The
caller's own input objects the core hands back itself, in place of their dicts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import _convert


class MessageObjects:
    """The run's messages as objects, by id (see the module's doc)."""

    def __init__(self) -> None:
        #: id -> (the dict the object stands for, the object).
        self._known: dict[str, tuple[dict, Any]] = {}
        #: The ids whose dict is the one the core was handed, not one it handed back: the
        #: core leaves out some of the fields a message holds empty.
        self._seeded: set[str] = set()

    def seed(self, objects: Iterable[Any], dicts: Iterable[dict]) -> None:
        """The thread's messages as the saver loaded them (LangGraph's objects), with the
        dicts the core was handed for them: reused where the core hands those back."""
        for obj, d in zip(objects, dicts, strict=True):
            msg_id = d.get("id")
            if isinstance(msg_id, str):
                # A copy: the core may take the dict it is handed apart.
                self._known[msg_id] = (dict(d), obj)
                self._seeded.add(msg_id)

    def convert(self, raw: list[dict]) -> list[Any]:
        """The core's messages as objects, each known one reused."""
        return [self._one(d) for d in raw]

    def _one(self, d: Any) -> Any:
        if type(d) is not dict:
            # The caller's own object, which the core hands back while the run holds the
            # message as given (`src/python/input_messages.rs`, `GivenObjects`).
            return d
        msg_id = d.get("id")
        if not isinstance(msg_id, str):
            return _convert.from_core(d)
        known = self._known.get(msg_id)
        if known is not None:
            if known[0] == d:
                return known[1]
            if msg_id in self._seeded and _handed_back(known[0], d):
                # From now on the core's own form is compared, as it hands it over.
                self._seeded.discard(msg_id)
                self._known[msg_id] = (d, known[1])
                return known[1]
        obj = _convert.from_core(d)
        self._seeded.discard(msg_id)
        self._known[msg_id] = (d, obj)
        return obj


def _handed_back(given: dict, d: dict) -> bool:
    """Whether ``d`` is the message ``given`` as the core hands it back: the same fields, but
    maybe without some empty ones (``None``, ``{}``, ``[]``; never the content), which a
    message object made from ``d`` holds all the same: those fields' defaults are empty."""
    if not d.items() <= given.items():
        return False
    left_out = given.keys() - d.keys()
    return "content" not in left_out and all(_empty(given[k]) for k in left_out)


def _empty(value: Any) -> bool:
    return value is None or (type(value) in (dict, list) and not value)
