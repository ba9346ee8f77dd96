"""A loop's saver calls run on one thread of their own, in the order they are made.

LangGraph's sync loop hands each ``put_writes`` and ``put`` to its ``BackgroundExecutor``: a
thread pool that copies the context, makes a future with a done-callback, and wakes whichever
worker is idle, so a step's ``put_writes`` and its ``put`` usually land on two threads, the
``put`` then blocking until the writes' future (and the previous ``put``'s) is done. The thread
graph makes two or three such calls a step, which is a large share of what a checkpointed step
costs. Here those calls go, in order, to one thread: the ``put`` finds what it waits for
done, no pool is grown, no callback runs. The saver gets the same calls with the same
arguments (LangGraph's own ``_checkpointer_put_after_previous`` still makes each ``put``, and
waits for the same futures); everything else the loop submits (a step's tasks run side by
side, a cache write) still goes to LangGraph's executor (see `_writer_loop`).
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import queue
import threading
from typing import Any, Self


class SaverThread:
    """A FIFO of saver calls and the thread running them, started at the first call; closing
    it waits for every call made, then raises the first failure, as LangGraph's executor
    raises its tasks' at exit."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()
        self._futures: list[concurrent.futures.Future] = []

    def submit(self, fn: Any, *args: Any) -> concurrent.futures.Future:
        fut: concurrent.futures.Future = concurrent.futures.Future()
        if self._thread is None:
            # The tasks of a step of several commit on LangGraph's runner threads.
            with self._starting:
                if self._thread is None:
                    thread = threading.Thread(target=self._run, name="deepagents-rs-saver", daemon=True)
                    thread.start()
                    self._thread = thread
        # Run in the caller's context, as LangGraph's executor runs a submitted call.
        self._jobs.put((fut, contextvars.copy_context(), fn, args))
        self._futures.append(fut)
        return fut

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            fut, ctx, fn, args = job
            try:
                fut.set_result(ctx.run(fn, *args))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the call
                fut.set_exception(exc)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join()
        futures, self._futures = self._futures, []
        if exc[0] is not None:
            return
        from langgraph.errors import GraphBubbleUp

        for fut in futures:
            failure = fut.exception()
            if failure is not None and not isinstance(failure, GraphBubbleUp):
                raise failure
