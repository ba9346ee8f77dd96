"""A new checkpoint's id, as LangGraph makes it, without its UUID objects.

LangGraph's loop names each checkpoint ``str(uuid6(clock_seq=step))``: a version-6 UUID of
the time in 100 ns intervals since 1582 (one more than the last id's when the clock has not
moved past it), the step as its clock sequence and 48 random bits as its node. That makes a
``uuid.UUID`` subclass (two ``__init__``s checking their arguments) only to format it: about
a tenth of the Python a plain step's commit runs, and twice the time of formatting the same
bits directly, as done here. The last timestamp is LangGraph's own (the module global its
``uuid6`` keeps), so ids made here and by LangGraph in one process stay in order, as
LangGraph's alone do.
``tests/test_plain_commit.py`` compares the two, bit for bit, with the clock and the random
bits fixed.
"""

from __future__ import annotations

import random
import time

from langgraph.checkpoint.base.id import uuid6

from ._core import _uuid6_text

#: ``uuid6``'s module's globals, where it keeps the last timestamp it used (read and set by
#: name: a LangGraph that renamed it gets its own ``uuid6`` called instead, see below).
_UUID6_GLOBALS = uuid6.__globals__
_LAST = "_last_v6_timestamp"
#: Whether ids are made here (``tests/test_plain_commit.py`` asserts it, so a LangGraph that
#: moved its state is noticed rather than silently slower).
SHARES_LANGGRAPHS_CLOCK = _LAST in _UUID6_GLOBALS
#: 100 ns intervals from the UUID epoch (1582-10-15) to the Unix epoch.
_UUID_EPOCH_OFFSET = 0x01B21DD213814000


def checkpoint_id(step: int) -> str:
    """``str(uuid6(clock_seq=step))``, with the same clock, random bits and shared state."""
    if not SHARES_LANGGRAPHS_CLOCK:
        return str(uuid6(clock_seq=step))
    timestamp = time.time_ns() // 100 + _UUID_EPOCH_OFFSET
    last = _UUID6_GLOBALS[_LAST]
    if last is not None and timestamp <= last:
        timestamp = last + 1
    _UUID6_GLOBALS[_LAST] = timestamp
    # The timestamp's high 48 bits, version 6 over its low 12, the RFC 4122 variant over the
    # clock sequence's 14, the random node's 48: what ``UUID(int=..., version=6)`` holds,
    # formatted by the core (``src/python/checkpoint_ids.rs``, one call for some 40 bytecodes).
    return _uuid6_text(timestamp, step, random.getrandbits(48))
