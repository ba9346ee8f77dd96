"""A new checkpoint's id, as LangGraph makes it, without its UUID objects.

LangGraph's loop names each checkpoint ``str(uuid6(clock_seq=step))``: a version-6 UUID of
the time in 100 ns intervals since 1582 (one more than the last id's when the clock has not
moved past it), the step as its clock sequence and 48 random bits as its node. That makes a
``uuid.UUID`` subclass (two ``__init__``s checking their arguments) only to format it: about
a tenth of the Python a plain step's commit runs. Here the core makes the id in one call
(``src/python/checkpoint_ids.rs``: ``time.time_ns()`` and ``random.getrandbits(48)`` called
as LangGraph calls them, the id formatted from the bits). The last timestamp is LangGraph's
own (the module global its ``uuid6`` keeps), so ids made here and by LangGraph in one process
stay in order, as LangGraph's alone do.
``tests/test_plain_commit.py`` compares the two, bit for bit, with the clock and the random
bits fixed.
"""

from __future__ import annotations

import functools

from langgraph.checkpoint.base.id import uuid6

from ._core import _checkpoint_id

#: ``uuid6``'s module's globals, where it keeps the last timestamp it used (read and set by
#: name: a LangGraph that renamed it gets its own ``uuid6`` called instead, see below).
_UUID6_GLOBALS = uuid6.__globals__
_LAST = "_last_v6_timestamp"
#: Whether ids are made here (``tests/test_plain_commit.py`` asserts it, so a LangGraph that
#: moved its state is noticed rather than silently slower).
SHARES_LANGGRAPHS_CLOCK = _LAST in _UUID6_GLOBALS


def _langgraphs(step: int) -> str:
    return str(uuid6(clock_seq=step))


#: ``checkpoint_id(step)``: ``str(uuid6(clock_seq=step))``, with the same clock, random bits
#: and shared state (the core's call, given LangGraph's clock; LangGraph's own without it).
checkpoint_id = functools.partial(_checkpoint_id, _UUID6_GLOBALS, _LAST) if SHARES_LANGGRAPHS_CLOCK else _langgraphs
