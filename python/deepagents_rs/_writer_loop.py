"""LangGraph's loops as the direct thread writer (`_direct_writer`) drives them: the sync one's saver
calls on a `SaverThread`, its plain steps' tasks made by `PlainTasks` and committed by
`_plain_commit` (the writes applied, the checkpoint made and saved); everything else is
LangGraph's ``SyncPregelLoop`` as it is (other steps, the durability, the exit)."""

from __future__ import annotations

import concurrent.futures
from typing import Any

from deepagents_rs._langgraph_private import AsyncPregelLoop, SyncPregelLoop

from . import _plain_commit
from ._plain_tasks import PlainTasks
from ._saver_thread import SaverThread


class _PlainCommits:
    """A loop whose plain steps are committed by `_plain_commit` (LangGraph's
    ``after_tick`` and ``put_writes`` for the rest)."""

    #: Whether plain steps are committed by `_plain_commit` (benches switch it off to
    #: compare, in one process, with LangGraph's ``after_tick`` / ``put_writes``).
    plain_commit = True
    #: The channels `_plain_commit` asks, made at the loop's first plain step (LangGraph's
    #: loops' ``__init__`` is left as it is).
    _channel_lists: _plain_commit.ChannelLists | None = None

    def plain_submit(self, fn: Any, *args: Any) -> Any:
        """How `_plain_commit` hands the saver a call (``put_writes``, ``put``): as the loop
        submits any."""
        return self.submit(fn, *args)  # type: ignore[attr-defined]

    def _lists(self) -> _plain_commit.ChannelLists:
        """The loop's `ChannelLists`, read for its current channels (once per entry: a
        step's ``put_writes`` and its ``after_tick`` each ask once)."""
        lists = self._channel_lists
        if lists is None:
            lists = self._channel_lists = _plain_commit.ChannelLists()
        return lists.of(self)

    def put_writes(self, task_id: str, writes: Any, *, cached: bool = False) -> None:
        if cached or not self.plain_commit or not _plain_commit.put_writes(self, task_id, writes, self._lists()):
            super().put_writes(task_id, writes, cached=cached)  # type: ignore[misc]

    def after_tick(self) -> None:
        lists = self._lists()
        task = _plain_commit.plain_step(self, lists) if self.plain_commit else None
        if task is None:
            super().after_tick()  # type: ignore[misc]
        else:
            _plain_commit.commit(self, task, lists)


class AsyncWriterLoop(_PlainCommits, AsyncPregelLoop):
    """LangGraph's async loop with its plain steps committed by `_plain_commit`: the saver's
    ``a*`` calls each a task of their own, as LangGraph makes them."""


class WriterLoop(_PlainCommits, SyncPregelLoop):
    """``SyncPregelLoop.__enter__`` sets ``self.submit`` to its executor's ``submit`` before it
    pushes its exit handler (which may still save the last checkpoint); the property takes
    that assignment, keeps the executor's ``submit`` for the rest and enters the saver thread
    on the loop's stack there, so it is closed after that handler and before the executor."""

    _plain_tasks: PlainTasks | None = None
    #: Whether a task's ``put_writes`` waits for the step's ``put`` to go to the saver thread
    #: with it (`SaverThread.hold`): set by the writer around a step's one task of an
    #: ``invoke``, where nothing runs between the two but the loop; a step of several tasks
    #: sends each task's writes as it finishes, as LangGraph does (a finished task's writes
    #: are saved while its siblings run, so a run killed meanwhile does not run it again).
    hold_writes = False

    @property  # type: ignore[override]
    def submit(self) -> Any:
        return self._route

    @submit.setter
    def submit(self, pool_submit: Any) -> None:
        self._pool_submit = pool_submit
        self._saver_thread = self.stack.enter_context(SaverThread())

    def _route(self, fn: Any, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        if not kwargs:
            if fn is self.checkpointer_put_writes:
                if self.hold_writes:
                    return self._saver_thread.hold(fn, *args)
                return self._saver_thread.submit(fn, *args)
            if getattr(fn, "__func__", None) is SyncPregelLoop._checkpointer_put_after_previous:
                return self._saver_thread.submit(fn, *args)
        return self._pool_submit(fn, *args, **kwargs)

    def plain_submit(self, fn: Any, *args: Any) -> Any:
        # A plain commit's calls are waited for by ``result()`` only (`SaverCall`).
        return self._saver_thread.call(fn, args, hold=self.hold_writes and fn is self.checkpointer_put_writes)

    def _prepare_tasks_and_emit_checkpoint(self) -> None:
        # The writer streams ``updates`` only: LangGraph's method also emits the checkpoint
        # to the ``checkpoints`` / ``debug`` modes.
        tasks = self._prepared_plain_tasks(("checkpoints", "debug"))
        if tasks is not None:
            self.tasks = tasks
            return
        super()._prepare_tasks_and_emit_checkpoint()

    def _prepared_plain_tasks(self, unstreamed: tuple[str, ...]) -> dict | None:
        """The next step's tasks made by `PlainTasks`, when none of the ``unstreamed``
        modes is streamed and the step is one it makes (else ``None``)."""
        if self.stream is not None:
            modes = self.stream.modes
            for mode in unstreamed:
                if mode in modes:
                    return None
        if self._plain_tasks is None:
            self._plain_tasks = PlainTasks()
        return self._plain_tasks.prepare(self)

    def tick(self) -> bool:
        """``SyncPregelLoop.tick`` for a step whose tasks `PlainTasks` makes: of what
        LangGraph's tick then does, only the drain check can apply (past the step limit,
        with no task, with breakpoints before nodes, LangGraph's own tick runs). Such tasks
        are fresh (no pending writes to reapply, nothing to output of them), and neither
        the checkpoint nor the tasks are streamed (no ``checkpoints``, ``debug`` or
        ``tasks`` mode)."""
        if self.step <= self.stop and not self.interrupt_before:
            tasks = self._prepared_plain_tasks(("checkpoints", "debug", "tasks"))
            if tasks:
                self.tasks = tasks
                control = self.control
                if control is not None and control.drain_requested:
                    self.status = "draining"
                    return False
                return True
        return super().tick()
