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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

_lock = threading.Lock()
_loops: list[tuple[asyncio.AbstractEventLoop, threading.Thread]] = []
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


class CancelHandle:
    """Lets Rust cancel a coroutine it scheduled on a loop: when the Rust future awaiting it
    is dropped (the caller's ``ainvoke`` was cancelled, Ctrl-C during ``invoke``), the task is
    cancelled instead of running on unobserved."""

    __slots__ = ("_cancelled", "_loop", "_task")

    def __init__(self) -> None:
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cancelled = False

    async def run(self, coro: Any) -> Any:
        import asyncio

        self._task = asyncio.current_task()
        self._loop = asyncio.get_running_loop()
        if self._cancelled:
            coro.close()
            raise asyncio.CancelledError
        return await coro

    def cancel(self) -> None:
        self._cancelled = True
        task, loop = self._task, self._loop
        if task is not None and loop is not None and not task.done() and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)
