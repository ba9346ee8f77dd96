"""The core in step with a LangChain event stream (``astream_events``).

LangGraph's loop starts a node only after the caller has taken the previous node's chunk, so
the event stream reads: a node's end, the graph's ``on_chain_stream`` with that node's update,
the next node's start. The core runs ahead of its caller; when an event stream is listening,
the tracer holds each next node's start until the caller has taken every update so far.
"""

from __future__ import annotations

import threading
from typing import Any

#: How long a node's start waits for the caller at most: a caller that stops reading (or an
#: update that never comes) costs the order of events, never a hang.
_PATIENCE_SECONDS = 5.0


def listens(callbacks: Any) -> bool:
    """Whether LangChain's event stream is among ``callbacks``."""
    try:
        from deepagents_rs._langchain_private import _AstreamEventsCallbackHandler
    except ModuleNotFoundError:
        return False
    handlers = getattr(callbacks, "handlers", callbacks) or []
    return any(isinstance(h, _AstreamEventsCallbackHandler) for h in handlers)


class Lockstep:
    """Counts the nodes that ended (core side) and the updates the caller took."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._ended = 0
        self._taken = 0
        self._closed = False

    def node_ended(self) -> None:
        with self._cond:
            self._ended += 1

    def before_node(self) -> None:
        """Blocks a node's start (on the core's tracer thread) until the caller caught up."""
        with self._cond:
            self._cond.wait_for(lambda: self._closed or self._taken >= self._ended, _PATIENCE_SECONDS)

    def taken(self) -> None:
        """The caller took one node's update (and the event stream has reported it)."""
        with self._cond:
            self._taken += 1
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
