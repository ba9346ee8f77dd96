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
from itertools import repeat
from operator import attrgetter
from typing import Any

from . import _convert


class MessageObjects:
    """The run's messages as objects, by id (see the module's doc)."""

    def __init__(self) -> None:
        #: id -> (the dict the object stands for, the object); the dict is ``None`` for a
        #: loaded object (`seed_objects`) until a dict of its id is compared with it.
        self._known: dict[str, tuple[dict | None, Any]] = {}
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

    def seed_objects(self, objects: list[Any]) -> None:
        """The thread's messages as the saver loaded them (LangGraph's objects), handed to
        the core as they are (it reads their fields and hands back each one the run leaves
        as it was): kept for a dict of the same id the core may hand back, whose object's
        dict is made only then (`_one`). Kept in C: a long history loads each run."""
        ids = list(map(_ID, objects))
        self._known.update(zip(ids, zip(repeat(None, len(ids)), objects, strict=True), strict=True))
        # An id that is no str is never looked up (`_one`).
        self._seeded.update(ids)

    def convert(self, raw: list[dict]) -> list[Any]:
        """The core's messages as objects, each known one reused."""
        # The objects the core hands back as it was handed them (`seed_objects`: a loaded
        # history's messages the run left as they were) lead the list: taken as they are, in
        # C, up to the first dict.
        try:
            first = list(map(type, raw)).index(dict)
        except ValueError:
            return list(raw)
        one = self._one
        return [*raw[:first], *(one(d) for d in raw[first:])]

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
            if known[0] is None:
                # A loaded object (`seed_objects`): its dict as the core was once handed it.
                known = self._known[msg_id] = (_convert.to_core(known[1]), known[1])
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


_ID = attrgetter("id")


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
