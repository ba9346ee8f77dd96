"""The thread graph's supersteps written without LangGraph's task runner.

LangGraph's ``Pregel.stream`` runs each superstep's tasks through its ``PregelRunner``: a
callback run per task, an executor thread per task of a step of several, futures, and a wait
for them all. The thread graph's tasks do no work of their own: each takes its write from the
core's stream (``_thread_feed``). So here the same ``SyncPregelLoop`` / ``AsyncPregelLoop``
(LangGraph's own: it opens the thread, prepares the tasks and their ids, applies the writes,
makes the checkpoints and calls the saver, with ``durability`` as LangGraph applies it) is
driven directly: a step's one task runs on the caller's thread (as LangGraph's runner would
run it, minus its callback run), a step of several goes to LangGraph's runner (see ``_runner``).
The saver sees the same calls with the same rows. Under ``stream`` the loop is `_writer_loop`'s
``WriterLoop``: LangGraph's sync loop with its saver calls on one thread of their own and its
plain steps' tasks made without re-merging the run's config for each.

Only for what LangGraph's runner is not needed for: runs with just the ``updates`` stream mode
of the graph (the core makes every other), no breakpoints, no run control, not inside a parent
graph (chosen in ``ThreadGraph.run``).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

# At import: the module is loaded only by a run of the thread graph (LangChain present), and
# `_recursed` checks a step's result against it at every recursing call. LangGraph's names
# read at each step (`_steps`) or each run (`_direct_call`) too: an import inside a function
# costs more than a microsecond at each call.
from langchain_core.runnables import Runnable
from langgraph.constants import END, START
from langgraph.errors import InvalidUpdateError
from langgraph.types import Send

from deepagents_rs._langgraph_private import (
    _CHANNEL_BRANCH_TO,
    CONF,
    CONFIG_KEY_SEND,
    PASSTHROUGH,
    TASKS,
    BranchSpec,
    ChannelWrite,
    ChannelWriteTupleEntry,
    RunnableCallable,
    RunnableSeq,
)

from ._threads import _FEED, FEED_ROUTE

#: Whether runs in scope use this writer; tests switch it off to compare rows with the
#: thread graph run by LangGraph's own runner.
ENABLED = True


def _setup(graph: Any, input: Any, config: dict, durability: str | None, output_keys: Any) -> tuple:
    """What ``Pregel.stream`` hands its loop, for a run streaming ``updates`` only: the
    graph's defaults, its own checkpoint config, the durability and the runtime."""
    from langgraph.runtime import DEFAULT_RUNTIME, RunControl, Runtime

    from deepagents_rs._langgraph_private import (
        CONF,
        CONFIG_KEY_DURABILITY,
        CONFIG_KEY_RUNTIME,
        _build_server_info,
        _coerce_context,
        _coerce_parent_runtime,
        ensure_config,
    )

    pregel = graph
    config = ensure_config(pregel.config, config)
    modes, keys, before, after, checkpointer, store, cache, durability_ = pregel._defaults(
        config,
        stream_mode=["updates"],
        print_mode=(),
        output_keys=output_keys,
        interrupt_before=None,
        interrupt_after=None,
        durability=durability,
    )
    config = pregel._own_checkpoint_config(config)
    if durability is not None:
        config[CONF][CONFIG_KEY_DURABILITY] = durability_
    parent = _coerce_parent_runtime(config[CONF].get(CONFIG_KEY_RUNTIME, DEFAULT_RUNTIME))
    runtime = Runtime(
        context=_coerce_context(pregel.context_schema, None),
        store=store,
        stream_writer=_no_stream_writer,
        previous=None,
        execution_info=None,
        server_info=_build_server_info(config, parent),
        control=parent.control or RunControl(),
    )
    config[CONF][CONFIG_KEY_RUNTIME] = parent.merge(runtime)
    queue: collections.deque = collections.deque()
    from langgraph.pregel.protocol import StreamProtocol

    loop_kwargs = {
        "stream": StreamProtocol(queue.append, modes),
        "config": config,
        "store": store,
        "cache": cache,
        "checkpointer": checkpointer,
        "nodes": pregel.nodes,
        "specs": pregel.channels,
        "output_keys": keys,
        "input_keys": pregel.input_channels,
        "stream_keys": pregel.stream_channels_asis,
        "interrupt_before": before,
        "interrupt_after": after,
        "manager": None,
        "durability": durability_,
        "trigger_to_nodes": pregel.trigger_to_nodes,
        "migrate_checkpoint": pregel._migrate_checkpoint,
        "retry_policy": pregel.retry_policy,
        "cache_policy": pregel.cache_policy,
    }
    return pregel, input, loop_kwargs, queue, durability_


def _no_stream_writer(_chunk: Any) -> None:
    return None


def _chunks(queue: collections.deque) -> Iterator[tuple[str, Any]]:
    """The loop's stream items as ``Pregel.stream`` yields them for a list of modes."""
    while queue:
        _ns, mode, payload = queue.popleft()
        yield mode, payload


def _recursion_error(config: dict) -> BaseException:
    from langgraph.errors import ErrorCode, GraphRecursionError, create_error_message

    return GraphRecursionError(
        create_error_message(
            message=(
                f"Recursion limit of {config['recursion_limit']} reached "
                "without hitting a stop condition. You can increase the "
                "limit by setting the `recursion_limit` config key."
            ),
            error_code=ErrorCode.GRAPH_RECURSION_LIMIT,
        )
    )


class _Writer:
    """A run's steps of one task, each run on the caller's thread and committed as
    LangGraph's runner commits it (``PregelRunner.commit``): the writes, an interrupt's, or
    the error's; an interrupt raised once the step's chunks are out, as the runner raises it
    after its tick."""

    def __init__(self, pregel: Any, loop: Any, queue: collections.deque) -> None:
        from langchain_core.runnables.config import var_child_runnable_config
        from langgraph.errors import GraphInterrupt

        from deepagents_rs._langgraph_private import CONTROL_WRITES, NO_WRITES, PregelRunner

        self.control_writes = CONTROL_WRITES
        self.no_writes = NO_WRITES
        self.loop = loop
        self.queue = queue
        self.retry_policy = pregel.retry_policy
        self.committer = PregelRunner(submit=_no_submit, put_writes=lambda: loop.put_writes)
        self.ambient = var_child_runnable_config
        self.interrupt = GraphInterrupt
        self.interrupted: BaseException | None = None
        loop.output_writes = _interrupts_only(loop)
        #: How each task runnable's steps are called (`_direct_call`), by runnable: the
        #: thread graph's few nodes, asked once per run.
        self._calls: dict[Any, list[Callable[[Any, dict], Any] | None]] = {}

    def tasks(self) -> list[Any]:
        # A task holding writes already (kept from before a resume) is not run again.
        return [t for t in self.loop.tasks.values() if not t.writes]

    def done(self, task: Any, exc: BaseException | None) -> None:
        if exc is None:
            # ``PregelRunner.commit`` of a finished task (its committer has no
            # ``node_finished``): a task that wrote nothing but control writes is marked as
            # having written, and its writes go to the loop.
            writes = task.writes
            for chan, _ in writes:
                if chan not in self.control_writes:
                    break
            else:
                writes.append((self.no_writes, None))
            self.loop.put_writes(task.id, writes)
            return
        self.committer.commit(task, exc)
        if isinstance(exc, self.interrupt):
            self.interrupted = exc
            return
        raise exc

    def chunks(self) -> Iterator[tuple[str, Any]]:
        """The loop's stream items (an interrupt's), or one item standing for the task's
        writes (see `_interrupts_only`): the caller hands out the core's stream items at
        each."""
        if not self.queue:
            yield _WRITTEN
        yield from _chunks(self.queue)

    def finish(self) -> None:
        exc, self.interrupted = self.interrupted, None
        if exc is not None:
            raise self.interrupt(tuple(exc.args[0]))

    def run(self, task: Any) -> None:
        """Runs a thread graph task as LangGraph's ``RunnableSeq`` runs it, without the
        callback run it starts for the task and each of its steps (the thread graph is not
        traced): the node with the task's config as LangChain's ambient one (what
        LangGraph's ``interrupt()`` and a nested graph read), then its writers, which put the
        task's writes. Its failures as ``run_with_retry`` takes them (`_handled`,
        `_cancelled`)."""
        steps = _steps(task, self.retry_policy)
        if steps is None:
            from deepagents_rs._langgraph_private import run_with_retry

            run_with_retry(task, self.retry_policy)
            return
        config = _steps_config(task)
        calls = self._calls.get(task.proc)
        if calls is None:
            calls = self._calls[task.proc] = [_direct_call(step) for step in steps]
        try:
            token = self.ambient.set(config)
            try:
                call = calls[0]
                value = steps[0].invoke(task.input, config) if call is None else call(task.input, config)
            finally:
                self.ambient.reset(token)
            for step, call in zip(steps[1:], calls[1:], strict=True):
                value = step.invoke(value, config) if call is None else call(value, config)
        except asyncio.CancelledError as exc:
            raise _cancelled(task, exc, is_async=False) from exc
        except Exception as exc:
            if not _handled(exc, task):
                raise

    async def arun(self, task: Any) -> None:
        steps = _steps(task, self.retry_policy)
        if steps is None:
            from deepagents_rs._langgraph_private import arun_with_retry

            await arun_with_retry(task, self.retry_policy)
            return
        config = _steps_config(task)
        try:
            token = self.ambient.set(config)
            try:
                value = await steps[0].ainvoke(task.input, config)
            finally:
                self.ambient.reset(token)
            for step in steps[1:]:
                value = await step.ainvoke(value, config)
        except asyncio.CancelledError as exc:
            failure = _cancelled(task, exc, is_async=True)
            if failure is exc:
                raise
            raise failure from exc
        except Exception as exc:
            if not _handled(exc, task):
                raise


#: What the writer yields for a task's writes: the thread graph's caller reads only the
#: interrupts of its ``updates`` chunks (`_threads._graph_item`).
_WRITTEN = ("updates", {})


def _interrupts_only(loop: Any) -> Any:
    """The loop's ``output_writes`` for interrupts only: a task's other writes would be
    mapped to an ``updates`` chunk (the output channels read, each write filtered) that
    nobody reads, since the core streams the run's own updates. It holds the loop weakly,
    as LangGraph's runner does (no cycle keeping a finished run's loop alive)."""
    import weakref

    from deepagents_rs._langgraph_private import INTERRUPT

    output_writes = type(loop).output_writes
    owner = weakref.ref(loop)

    def out(task_id: str, writes: Any, *, cached: bool = False) -> None:
        if writes and writes[0][0] == INTERRUPT:
            output_writes(owner(), task_id, writes, cached=cached)

    return out


def _steps(task: Any, retry_policy: Any) -> list[Any] | None:
    """A task's runnables in order (the node, then its writers: the state keys' and the
    edge's), its writes cleared; or ``None`` when LangGraph's ``run_with_retry`` must run it
    (a retry policy)."""
    if task.retry_policy or retry_policy:
        return None
    task.writes.clear()
    return list(task.proc.steps) if isinstance(task.proc, RunnableSeq) else [task.proc]


def _direct_call(step: Any) -> Callable[[Any, dict], Any] | None:
    """A function doing what ``step.invoke(value, config)`` does, without the pass over the
    step's arguments its ``invoke`` makes at every call; ``None`` for a step called through
    ``invoke``. Three kinds, LangGraph's ``RunnableCallable``s untraced and with LangGraph's
    own ``invoke``:

    - the thread graph's edge (`_threads.FEED_ROUTE`, a ``BranchSpec`` with no path map):
      where the core went, as the edge's writes (`_edge_call`);
    - a ``ChannelWrite`` of ``PASSTHROUGH`` tuple entries (the state keys' writer): each
      entry's mapper applied to the value, the writes sent (`_channel_write_call`);
    - any other with no bound or exploded arguments, asking for nothing but the config (the
      thread graph's nodes): its function called (`_plain_call`)."""
    if (
        not isinstance(step, RunnableCallable)
        or type(step).invoke is not RunnableCallable.invoke
        or step.func is None
        or step.trace
        or step.explode_args
    ):
        return None
    return _edge_call(step) or _channel_write_call(step) or _plain_call(step)


def _plain_call(step: Any) -> Callable[[Any, dict], Any] | None:
    if step.kwargs or not step.func_accepts.keys() <= {"config"}:
        return None
    func, recurse = step.func, step.recurse
    if "config" in step.func_accepts:

        def call(value: Any, config: dict) -> Any:
            out = func(value, config=config)
            return _recursed(out, value, config) if recurse else out

    else:

        def call(value: Any, config: dict) -> Any:
            out = func(value)
            return _recursed(out, value, config) if recurse else out

    return call


def _channel_write_call(step: Any) -> Callable[[Any, dict], Any] | None:
    """``ChannelWrite._write`` for entries that are all ``ChannelWriteTupleEntry`` of the
    passed value: ``_assemble_writes`` then extends the writes with each mapper's truthy
    result, in order, and ``do_write`` validates nothing of such entries."""
    if (
        type(step) is not ChannelWrite
        or step.kwargs
        or getattr(step.func, "__func__", None) is not ChannelWrite._write
        or not all(type(w) is ChannelWriteTupleEntry and w.value is PASSTHROUGH for w in step.writes)
    ):
        return None
    mappers = tuple(w.mapper for w in step.writes)
    recurse = step.recurse

    def call(value: Any, config: dict) -> Any:
        writes: list = []
        for mapper in mappers:
            if out := mapper(value):
                writes.extend(out)
        config[CONF][CONFIG_KEY_SEND](writes)
        return _recursed(value, value, config) if recurse else value

    return call


def _edge_call(step: Any) -> Callable[[Any, dict], Any] | None:
    """The thread graph's edge (``BranchSpec._route`` over `_threads`' route, which goes
    where the core went): the route the feed kept for the task made the edge's writes as
    ``BranchSpec._finish`` makes them with StateGraph's writer for a branch without a path
    map (each ``Send`` to the tasks channel, each other destination but ``END`` a write of
    its ``branch:to:`` channel, nothing written for none), the value passed on. The state
    the branch reads before calling its path is not read: that route does not look at it.
    With no route kept (the core reported none), the edge runs as it is, routing by the
    state."""
    branch = getattr(step.func, "__self__", None)
    if (
        getattr(step.func, "__func__", None) is not BranchSpec._route
        or type(branch) is not BranchSpec
        or branch.ends
        or getattr(branch.path, "func", None) is None
        or not getattr(branch.path.func, FEED_ROUTE, False)
        or getattr(step.kwargs.get("writer"), "__qualname__", "")
        != "CompiledStateGraph.attach_branch.<locals>.get_writes"
    ):
        return None
    recurse = step.recurse

    def call(value: Any, config: dict) -> Any:
        configurable = config[CONF]
        feed = configurable.get(_FEED)
        known, goto = feed.take_route(config) if feed is not None else (False, None)
        if not known:
            return step.invoke(value, config)
        destinations = goto if isinstance(goto, (list, tuple)) else (goto,)
        writes: list = []
        for dest in destinations:
            if type(dest) is Send:
                if dest.node == END:
                    raise InvalidUpdateError("Cannot send a packet to the END node")
                writes.append((TASKS, dest))
            elif dest is None or dest == START:
                raise ValueError("Branch did not return a valid destination")
            elif dest != END:
                writes.append((_CHANNEL_BRANCH_TO.format(dest), None))
        if writes:
            configurable[CONFIG_KEY_SEND](writes)
        return _recursed(value, value, config) if recurse else value

    return call


def _recursed(out: Any, value: Any, config: dict) -> Any:
    """What a recursing ``RunnableCallable`` returns for its function's ``out``: a runnable
    it returned, invoked on the step's value; anything else as it is."""
    if type(out) not in _NOT_RUNNABLE:
        if isinstance(out, Runnable):
            return out.invoke(value, config)
        # ``Runnable`` is an ABC: each check of a value's class goes through its Python
        # ``__instancecheck__``; the classes found not runnable (a ``Command``, a list of
        # writes...) are not asked again.
        _NOT_RUNNABLE.add(type(out))
    return out


#: The classes `_recursed` found are not LangChain runnables.
_NOT_RUNNABLE: set[type] = set()


def _steps_config(task: Any) -> dict:
    """The config a task's steps get: the task's, without its run's name and id, which
    ``RunnableSeq`` drops for its steps (they name the task's own run, not what the node
    calls: the core's tools and a compiled subagent would take the node's name)."""
    config = dict(task.config)
    config.pop("run_name", None)
    config.pop("run_id", None)
    return config


def _cancelled(task: Any, exc: BaseException, *, is_async: bool) -> BaseException:
    """What an ``asyncio.CancelledError`` from a task's steps becomes, as ``run_with_retry`` /
    ``arun_with_retry`` take it: one the node raised itself is LangGraph's
    ``NodeCancelledError``, committed as any failure; a cancellation of the run's own task
    (``cancelling()`` set) passes through uncommitted, as under LangGraph's runner."""
    from langgraph.errors import NodeCancelledError

    from deepagents_rs._langgraph_private import _is_user_raised_cancelled

    if is_async and not _is_user_raised_cancelled():
        return exc
    failure = NodeCancelledError(task.name)
    failure.__cause__ = exc
    return failure


def _handled(exc: Exception, task: Any) -> bool:
    """A task's failure as ``run_with_retry`` takes it: a nested graph's command for this
    graph is written as the task's (handled); one for the parent graph is addressed to it;
    LangGraph's interrupts pass untouched; any other failure is noted with the task."""
    from dataclasses import replace

    from langgraph.errors import GraphBubbleUp, ParentCommand
    from langgraph.types import Command

    from deepagents_rs._langgraph_private import (
        CONF,
        CONFIG_KEY_CHECKPOINT_NS,
        _checkpoint_ns_for_parent_command,
        recast_checkpoint_ns,
    )

    if isinstance(exc, ParentCommand):
        ns: str = task.config[CONF][CONFIG_KEY_CHECKPOINT_NS]
        cmd = exc.args[0]
        if cmd.graph in (ns, recast_checkpoint_ns(ns), task.name):
            for writer in task.writers:
                writer.invoke(cmd, task.config)
            return True
        if cmd.graph == Command.PARENT:
            exc.args = (replace(cmd, graph=_checkpoint_ns_for_parent_command(ns)),)
    elif not isinstance(exc, GraphBubbleUp):
        exc.add_note(f"During task with name '{task.name}' and id '{task.id}'")
    return False


def _runner(pregel: Any, loop: Any, *, is_async: bool = False) -> Any:
    """LangGraph's own runner, as ``Pregel.stream`` makes it, for a step of several tasks.

    Those run side by side, not inline: each tool task of the thread graph hands the core the
    config its call runs under (a compiled subagent's checkpoint namespace among it), so a
    task run inline would hold the next one's call back until it finished, and parallel
    subagents would run one after another."""
    import weakref

    from deepagents_rs._langgraph_private import PregelRunner

    handler = {
        "aschedule_error_handler" if is_async else "schedule_error_handler": (
            loop.aschedule_error_handler if is_async else loop.schedule_error_handler
        )
    }
    return PregelRunner(
        submit=weakref.WeakMethod(loop.submit),
        put_writes=weakref.WeakMethod(loop.put_writes),
        node_error_handler_map=pregel.node_error_handler_map,
        **handler,
    )


def _no_submit() -> Any:
    raise RuntimeError("deepagents_rs: the direct thread writer runs no task in the background (a bug)")


def stream(
    graph: Any, input: Any, config: dict, durability: str | None, output_keys: Any, whole_run: bool = False
) -> Iterator:
    """``graph.stream(input, config, stream_mode=["updates"], durability=..., output_keys=...)``
    with the tasks run directly (see the module's docstring). ``whole_run``: an ``invoke``,
    whose caller runs nothing of the user's between the chunks: a step's one task's writes
    go to the saver with the step's checkpoint (`WriterLoop.hold_writes`)."""
    from ._writer_loop import WriterLoop

    pregel, input, kwargs, queue, durability_ = _setup(graph, input, config, durability, output_keys)
    with WriterLoop(input, **kwargs) as loop:
        writer = _Writer(pregel, loop, queue)
        while loop.tick():
            for task in loop.match_cached_writes():
                loop.put_writes(task.id, task.writes, cached=True)
            tasks = writer.tasks()
            if len(tasks) > 1:
                for _ in _runner(pregel, loop).tick(tasks, timeout=pregel.step_timeout, schedule_task=loop.accept_push):
                    yield from writer.chunks()
            elif tasks:
                task = tasks[0]
                loop.hold_writes = whole_run
                try:
                    writer.run(task)
                except Exception as exc:  # noqa: BLE001 - committed, then raised as the runner does
                    writer.done(task, exc)
                else:
                    writer.done(task, None)
                finally:
                    loop.hold_writes = False
                yield from writer.chunks()
            writer.finish()
            loop.after_tick()
            if durability_ == "sync":
                loop._put_checkpoint_fut.result()
    yield from _chunks(queue)
    if loop.status == "out_of_steps":
        raise _recursion_error(kwargs["config"])


async def astream(
    graph: Any, input: Any, config: dict, durability: str | None, output_keys: Any, whole_run: bool = False
) -> AsyncIterator:
    """``stream`` under ``astream``: LangGraph's ``AsyncPregelLoop`` (its plain steps
    committed by `_plain_commit`) and the saver's ``a*`` methods (its own task per call:
    ``whole_run`` changes nothing)."""
    from ._writer_loop import AsyncWriterLoop

    pregel, input, kwargs, queue, durability_ = _setup(graph, input, config, durability, output_keys)
    async with AsyncWriterLoop(input, **kwargs) as loop:
        writer = _Writer(pregel, loop, queue)
        while loop.tick():
            for task in await loop.amatch_cached_writes():
                loop.put_writes(task.id, task.writes, cached=True)
            tasks = writer.tasks()
            if len(tasks) > 1:
                async for _ in _runner(pregel, loop, is_async=True).atick(
                    tasks, timeout=pregel.step_timeout, schedule_task=loop.aaccept_push
                ):
                    for chunk in writer.chunks():
                        yield chunk
            elif tasks:
                task = tasks[0]
                try:
                    await writer.arun(task)
                except Exception as exc:  # noqa: BLE001 - committed, then raised as the runner does
                    writer.done(task, exc)
                else:
                    writer.done(task, None)
                for chunk in writer.chunks():
                    yield chunk
            writer.finish()
            loop.after_tick()
            if durability_ == "sync":
                await loop._put_checkpoint_fut
    for chunk in _chunks(queue):
        yield chunk
    if loop.status == "out_of_steps":
        raise _recursion_error(kwargs["config"])
