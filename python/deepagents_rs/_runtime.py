"""The private asyncio loops that run async tools during a synchronous ``invoke``.

``invoke`` blocks its thread inside Rust, and that thread may itself be running an event loop
(Jupyter, async code calling sync APIs), so async callbacks need a loop of their own. An async
tool that itself calls ``invoke`` blocks that loop's thread, so the nested run needs another
loop. Which loops are blocked is tracked in a context variable: it follows the run into its
tools (sync tools run in a copy of the caller's context, and so does ``asyncio.to_thread``),
so a run nested at any depth, through any mix of sync and async tools, gets a free loop.
"""

from __future__ import annotations

import contextvars
import sys
import threading
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

_lock = threading.Lock()
#: The loops made so far, in the order of their depth; only ever appended to (under `_lock`).
_loops: list[asyncio.AbstractEventLoop] = []
#: Each loop's depth by its thread's ident (threads that run for the process' life).
_depth_of_thread: dict[int, int] = {}
_inboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
_BLOCKED: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar(
    "deepagents_rs_blocked_loops", default=frozenset()
)


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The loop running on this thread, if any: asyncio's own check, which returns None where
    `get_running_loop` raises (a RuntimeError raised and caught each call), and no import
    statement at each call: without asyncio loaded no loop can be running (it is not loaded
    at start-up)."""
    asyncio = sys.modules.get("asyncio")
    return None if asyncio is None else asyncio._get_running_loop()


def enter_blocking_invoke() -> contextvars.Token:
    """Marks, for the run about to start, the loops its caller is blocking: those its
    ancestors block, and the loop this thread runs, if it runs one."""
    blocked = _BLOCKED.get()
    # A dict read by the thread's ident, without the lock (an invoke from an ordinary thread,
    # the common case, finds nothing): a loop's thread is recorded before its loop is handed
    # out, so before it runs anything that could invoke. Its threads never end, so their
    # idents are not reused.
    depth = _depth_of_thread.get(threading.get_ident())
    return _BLOCKED.set(blocked if depth is None else blocked | {depth})


def exit_blocking_invoke(token: contextvars.Token) -> None:
    _BLOCKED.reset(token)


def background_loop() -> asyncio.AbstractEventLoop:
    """A loop no caller of the current run is blocking."""
    blocked = _BLOCKED.get()
    if not blocked and _loops:
        # The first loop, made already (the list only grows): a run not nested in another's
        # async tool, every sync invoke but those, takes no lock.
        return _loops[0]
    with _lock:
        depth = 0
        while depth in blocked:
            depth += 1
        while len(_loops) <= depth:
            # Here only, not at each call: asyncio is not loaded at start-up.
            import asyncio

            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name=f"deepagents-rs-loop-{len(_loops)}", daemon=True)
            thread.start()
            # Started, so its ident is set; recorded before the loop is handed to anyone.
            _depth_of_thread[thread.ident] = len(_loops)  # type: ignore[index]
            _loops.append(loop)
        return _loops[depth]


def loop_inbox(loop: asyncio.AbstractEventLoop) -> Any:
    """The inbox through which the core hands async callbacks to ``loop``'s own thread
    (``_core.LoopInbox``): one per loop, made on first use, dropped with the loop."""
    with _lock:
        inbox = _inboxes.get(loop)
        if inbox is None:
            from ._core import LoopInbox

            inbox = _inboxes[loop] = LoopInbox(loop)
        return inbox
