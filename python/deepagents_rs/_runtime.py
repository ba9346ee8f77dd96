"""The private asyncio loop that runs async tools during a synchronous ``invoke``.

``invoke`` blocks its thread inside Rust, and that thread may itself be running an event loop
(Jupyter, async code calling sync APIs), so async callbacks need a loop of their own.
"""

from __future__ import annotations

import asyncio
import threading

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
