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

The threads outlive the runs: a run takes an idle one (or starts one) and gives it back when
its calls are done, so back-to-back runs start no thread, and runs at once each have their
own (one run's slow saver never holds another's calls back).
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import os
import queue
import threading
from _thread import allocate_lock as _allocate_lock
from typing import Any, Self

#: Idle threads kept for the next runs; more than this many finished at once exit.
_KEEP_IDLE = 4


class _Worker:
    """A daemon thread running the calls queued to it, in order, until handed ``None``."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._run, name="deepagents-rs-saver", daemon=True).start()

    def _run(self) -> None:
        while (batch := self.jobs.get()) is not None:
            for job in batch:
                _run_job(*job)
            # An idle thread holds nothing of the last run (its checkpoint, its loop).
            batch = job = None


def _run_job(owner: SaverThread | None, fut: concurrent.futures.Future, ctx: Any, fn: Any, args: tuple) -> None:
    if fn is None:
        # A run's closing mark: every call queued before it is done.
        fut.set_result(None)
        return
    try:
        fut.set_result(ctx.run(fn, *args))
    except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the call
        fut.set_exception(exc)
        if owner is not None:
            owner._failed(exc)


_idle: list[_Worker] = []
_idle_lock = threading.Lock()


def _take() -> _Worker:
    with _idle_lock:
        if _idle:
            return _idle.pop()
    return _Worker()


def _give_back(worker: _Worker) -> None:
    with _idle_lock:
        if len(_idle) < _KEEP_IDLE:
            _idle.append(worker)
            return
    worker.jobs.put(None)


def _forget_idle_in_child() -> None:
    # A forked child has none of its parent's threads: the idle ones are gone with them.
    global _idle_lock
    _idle.clear()
    _idle_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_idle_in_child)


class SaverCall:
    """A saver call's outcome, for the calls whose outcome nobody waits for but with
    ``result()``: a plain commit's ``put_writes`` and ``put`` (the next ``put`` waits for
    them, on the saver's thread, where they are done already since the thread runs its calls
    in order; a ``durability="sync"`` run waits for each ``put``). A
    ``concurrent.futures.Future`` costs a ``Condition`` made at each call (Python code on the
    calling thread) and a ``notify_all`` and callbacks run when set (on the saver's thread);
    this is one lock, held until the outcome is set."""

    __slots__ = ("_done", "_exception", "_lock", "_value")

    def __init__(self) -> None:
        self._done = False
        self._value: Any = None
        self._exception: BaseException | None = None
        lock = self._lock = _allocate_lock()
        lock.acquire()

    def set_result(self, value: Any) -> None:
        self._value = value
        self._done = True
        self._lock.release()

    def set_exception(self, exc: BaseException) -> None:
        self._exception = exc
        self._done = True
        self._lock.release()

    def done(self) -> bool:
        return self._done

    def _wait(self, timeout: float | None) -> None:
        if not self._done:
            lock = self._lock
            if not lock.acquire(timeout=-1 if timeout is None else timeout):
                raise TimeoutError
            lock.release()

    def result(self, timeout: float | None = None) -> Any:
        self._wait(timeout)
        if self._exception is not None:
            raise self._exception
        return self._value

    def exception(self, timeout: float | None = None) -> BaseException | None:
        self._wait(timeout)
        return self._exception


class SaverThread:
    """A run's FIFO of saver calls, on a thread taken at its first call; closing it waits for
    every call made, then raises the first failure, as LangGraph's executor raises its tasks'
    at exit. Only that failure is kept, not each call's future.

    A call may be held (`hold`): it goes to the thread with the next call submitted (or at
    closing), in its place in the order: a step's ``put_writes`` and its ``put``, made a few
    lines of LangGraph apart, wake the thread once, not twice. Nothing waits for a held
    call's future before the next call is submitted: LangGraph waits for a step's writes
    only inside the ``put`` that follows them (and a ``durability="sync"`` run for that
    ``put``)."""

    def __init__(self) -> None:
        self._worker: _Worker | None = None
        self._lock = threading.Lock()
        self._held: list[tuple] = []
        self._failure: BaseException | None = None

    def submit(self, fn: Any, *args: Any) -> concurrent.futures.Future:
        return self._call(concurrent.futures.Future(), fn, args, hold=False)

    def hold(self, fn: Any, *args: Any) -> concurrent.futures.Future:
        return self._call(concurrent.futures.Future(), fn, args, hold=True)

    def call(self, fn: Any, args: tuple, *, hold: bool = False) -> SaverCall:
        """``submit`` (or ``hold``) with the call's outcome a `SaverCall`, for a caller
        whose outcomes are only ever waited for by ``result()``."""
        return self._call(SaverCall(), fn, args, hold=hold)

    def _call(self, fut: Any, fn: Any, args: tuple, *, hold: bool) -> Any:
        # Run in the caller's context, as LangGraph's executor runs a submitted call.
        job = (self, fut, contextvars.copy_context(), fn, args)
        # The tasks of a step of several commit on LangGraph's runner threads.
        with self._lock:
            if hold:
                self._held.append(job)
                return fut
            if self._worker is None:
                self._worker = _take()
            batch, self._held = self._held, []
            batch.append(job)
            # Queued under the lock: batches reach the thread in the order they were made.
            self._worker.jobs.put(batch)
        return fut

    def _failed(self, exc: BaseException) -> None:
        # On the worker, in call order: the first failure is the first call's that failed.
        if self._failure is None:
            from langgraph.errors import GraphBubbleUp

            if not isinstance(exc, GraphBubbleUp):
                self._failure = exc

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            worker, self._worker = self._worker, None
            batch, self._held = self._held, []
        if batch and worker is None:
            worker = _take()
        if worker is not None:
            done: concurrent.futures.Future = concurrent.futures.Future()
            batch.append((None, done, None, None, ()))
            worker.jobs.put(batch)
            try:
                done.result()
            except BaseException:
                # Interrupted while waiting: the thread finishes what it has, then exits.
                worker.jobs.put(None)
                raise
            _give_back(worker)
        failure, self._failure = self._failure, None
        if exc[0] is None and failure is not None:
            raise failure
