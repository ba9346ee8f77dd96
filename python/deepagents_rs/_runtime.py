"""The private asyncio loop that runs async tools during a synchronous ``invoke``.

``invoke`` blocks its thread inside Rust, and that thread may itself be running an event loop
(Jupyter, async code calling sync APIs), so async callbacks need a loop of their own.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def background_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="deepagents-rs-loop", daemon=True)
            thread.start()
            _loop = loop
        return _loop


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
