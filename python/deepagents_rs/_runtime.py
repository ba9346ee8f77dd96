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
import threading
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

_lock = threading.Lock()
_loops: list[tuple[asyncio.AbstractEventLoop, threading.Thread]] = []
_inboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
_BLOCKED: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar(
    "deepagents_rs_blocked_loops", default=frozenset()
)


def enter_blocking_invoke() -> contextvars.Token:
    """Marks, for the run about to start, the loops its caller is blocking: those its
    ancestors block, and the loop this thread runs, if it runs one."""
    blocked = set(_BLOCKED.get())
    current = threading.current_thread()
    with _lock:
        blocked.update(i for i, (_, thread) in enumerate(_loops) if thread is current)
    return _BLOCKED.set(frozenset(blocked))


def exit_blocking_invoke(token: contextvars.Token) -> None:
    _BLOCKED.reset(token)


def background_loop() -> asyncio.AbstractEventLoop:
    """A loop no caller of the current run is blocking."""
    import asyncio

    blocked = _BLOCKED.get()
    with _lock:
        depth = 0
        while depth in blocked:
            depth += 1
        while len(_loops) <= depth:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name=f"deepagents-rs-loop-{len(_loops)}", daemon=True)
            thread.start()
            _loops.append((loop, thread))
        return _loops[depth][0]


def loop_inbox(loop: asyncio.AbstractEventLoop) -> Any:
    """The inbox through which the core hands async callbacks to ``loop``'s own thread
    (``_core.LoopInbox``): one per loop, made on first use, dropped with the loop."""
    with _lock:
        inbox = _inboxes.get(loop)
        if inbox is None:
            from ._core import LoopInbox

            inbox = _inboxes[loop] = LoopInbox(loop)
        return inbox
