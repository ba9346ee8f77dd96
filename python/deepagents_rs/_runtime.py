"""The private asyncio loops that run async tools during a synchronous ``invoke``.

``invoke`` blocks its thread inside Rust, and that thread may itself be running an event loop
(Jupyter, async code calling sync APIs), so async callbacks need a loop of their own. An async
tool that itself calls ``invoke`` blocks that loop's thread, so the nested run gets the next
loop down: one loop (and daemon thread) per nesting depth.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

_lock = threading.Lock()
_loops: list[tuple[asyncio.AbstractEventLoop, threading.Thread]] = []


def background_loop() -> asyncio.AbstractEventLoop:
    """The loop for an ``invoke`` made from the current thread."""
    current = threading.current_thread()
    with _lock:
        depth = next((i + 1 for i, (_, thread) in enumerate(_loops) if thread is current), 0)
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
