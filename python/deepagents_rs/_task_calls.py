"""LangGraph's ``__pregel_call`` in the tasks the core runs: what a functional-API ``@task``
called inside a tool or a hook uses. LangGraph pushes such a call as a task of its own,
under the calling task's namespace, and runs it with its own config (its task id, namespace
and checkpoint map, metadata naming it, a scratchpad of its own), as a chain run of its own
under the caller's callbacks; retried as its ``retry_policy`` says; an async one bounded by
its ``timeout``; its result taken from the graph's cache when its ``cache_policy`` asks and
the graph has a ``cache=``. A sync run cannot call an async task (LangGraph's
``RuntimeError``); an async run can, from the loop (an asyncio future) or from a sync tool's
thread (a future of the run's loop).
"""

from __future__ import annotations

import inspect
from collections.abc import Generator
from concurrent.futures import Future
from typing import Any

from ._runtime import running_loop
from ._task_channels import CALL_KEY, CHECKPOINTER_KEY, SCRATCHPAD_KEY, SEND_KEY, own_value

#: Where a run's configurable carries the agent's ``cache=`` (LangGraph's graph cache): the
#: agent's own tasks use it, not its subagents' (deepagents compiles them without one).
CACHE_KEY = "__deepagents_rs_cache"
#: Where a run's configurable carries the event loop an async run runs on (``None`` for a
#: sync run).
LOOP_KEY = "__deepagents_rs_loop"
#: LangGraph's channel a task's result is written to (``langgraph._internal._constants.RETURN``).
_RETURN = "__return__"
_RUNTIME_KEY = "__pregel_runtime"
_DURABILITY_KEY = "__pregel_durability"


class Caller:
    """The ``__pregel_call`` of one task: ``configurable`` and ``metadata`` are the calling
    task's; ``asynchronous`` whether its run is (``None``: not known)."""

    __slots__ = ("asynchronous", "configurable", "metadata", "pushed")

    def __init__(self, configurable: dict, metadata: dict, asynchronous: bool | None, pushed: Any = None) -> None:
        # The calling task's configurable as it is when its `__pregel_call` is made (the last
        # key set in it), less that key: holding the dict itself, whose `__pregel_call` holds
        # this caller, made every tool call's configurable a reference cycle, its channels,
        # runtime and scratchpad freed only by the cyclic collector (a call never reads its
        # own `__pregel_call`: a task's config sets its own).
        self.configurable = dict(configurable)
        self.configurable.pop(CALL_KEY, None)
        self.metadata, self.asynchronous = metadata, asynchronous
        #: Where the parts of the tasks it pushes go, when the calling task is itself a pushed
        #: one (`_pushed_parts.PushedParts.source`); otherwise found from ``configurable``.
        self.pushed = pushed

    def call(
        self,
        func: Any,
        input: Any,
        *,
        retry_policy: Any = None,
        cache_policy: Any = None,
        timeout: Any = None,
        callbacks: Any = None,
    ) -> Any:
        """The call's future: a done one for a sync function (run now), an asyncio one for a
        coroutine function called on a loop, a concurrent one called from another thread."""
        coroutine = inspect.iscoroutinefunction(func)
        if coroutine and self.asynchronous is False:
            raise RuntimeError("In an sync context async tasks cannot be called")
        args, kwargs = input if isinstance(input, tuple) and len(input) == 2 else ((input,), {})
        scratchpad = self.configurable.get(SCRATCHPAD_KEY)
        counter = scratchpad.call_counter() if scratchpad is not None else 0
        task = _Task(self, func, (args, kwargs), counter, callbacks, _policies(retry_policy))
        cached = task.cache_key(cache_policy)
        on_loop = running_loop() is not None
        if on_loop and (coroutine or self.asynchronous):
            # An async run's call made on its loop is an asyncio future, as LangGraph's (a
            # sync function then runs in an executor thread).
            return _future_of(task.arun(cached, timeout))
        if coroutine:
            # A sync tool's thread of an async run: the call runs on the run's loop.
            loop = own_value(self.configurable, LOOP_KEY) if self.asynchronous is not False else None
            if loop is None:
                raise RuntimeError("In an sync context async tasks cannot be called")
            import asyncio

            return asyncio.run_coroutine_threadsafe(task.arun(cached, timeout), loop)
        future = _DoneFuture()
        try:
            future.set_result(task.run(cached))
        except Exception as exc:  # noqa: BLE001 - handed to the caller through the future
            future.set_exception(exc)
        return future


class _Task:
    """One call's task: its config (as LangGraph's pushed task has it), its attempts."""

    __slots__ = ("callbacks", "caller", "count", "counter", "func", "id", "input", "name", "policies", "writes")

    def __init__(self, caller: Caller, func: Any, input: tuple, counter: int, callbacks: Any, policies: tuple) -> None:
        from ._task_config import call_task_id

        self.caller, self.func, self.input, self.callbacks, self.policies = caller, func, input, callbacks, policies
        self.name = _name(func)
        self.id = call_task_id(caller.configurable, caller.metadata, self.name, counter)
        self.count = 0
        #: The task's writes (its result under LangGraph's ``__return__``).
        self.writes: list[tuple[str, Any]] = []
        self.counter = counter

    # -- the config ------------------------------------------------------------------

    def config(self) -> dict:
        """The config LangGraph's runner gives the pushed task: the calling task's, with the
        call's task id and namespace, the checkpoint it runs from, metadata naming it, a
        scratchpad of its own and the caller's callbacks."""
        import uuid

        from langchain_core.runnables.config import ensure_config

        from ._task_channels import _scratchpad
        from ._task_config import TASK_ID_KEY, execution_info

        caller = self.caller
        calling = caller.configurable
        ns = str(calling.get("checkpoint_ns") or "")
        task_id = self.id or str(uuid.uuid4())
        task_ns = f"{ns}|{self.name}:{task_id}" if ns else f"{self.name}:{task_id}"
        checkpoint_map = dict(calling.get("checkpoint_map") or {})
        checkpoint = checkpoint_map.get(ns.rpartition("|")[0])
        if checkpoint is not None:
            checkpoint_map[ns] = checkpoint
        step = caller.metadata.get("langgraph_step")
        outer = calling.get(SCRATCHPAD_KEY)
        configurable = {
            **calling,
            TASK_ID_KEY: task_id,
            SEND_KEY: self._send,
            "checkpoint_map": checkpoint_map,
            "checkpoint_id": None,
            "checkpoint_ns": task_ns,
            SCRATCHPAD_KEY: _scratchpad(step or 0, None if outer is None else outer.stop - (step or 0) - 1),
        }
        runtime = calling.get(_RUNTIME_KEY)
        if runtime is not None:
            configurable[_RUNTIME_KEY] = runtime.override(execution_info=execution_info(configurable))
        metadata = {k: v for k, v in caller.metadata.items() if k != "checkpoint_ns"}
        metadata.update(
            langgraph_step=step,
            langgraph_node=self.name,
            langgraph_triggers=("__pregel_push",),
            langgraph_path=("__pregel_push", caller.metadata.get("langgraph_path"), self.counter, True),
            langgraph_checkpoint_ns=task_ns,
        )
        from ._pushed_parts import PushedParts

        # A task it calls is pushed to the same graph, its parts streamed as this task's.
        pushed = PushedParts.source(caller)
        configurable[CALL_KEY] = Caller(configurable, metadata, caller.asynchronous, pushed).call
        outer_config = ensure_config()
        config = {
            "metadata": metadata,
            "callbacks": self.callbacks,
            "recursion_limit": outer_config.get("recursion_limit"),
            "run_name": self.name,
            "configurable": configurable,
        }
        if outer_config.get("tags"):
            # The run's tags, which LangGraph's task configs carry (none: no tags key).
            config["tags"] = list(outer_config["tags"])
        return config

    def _send(self, writes: Any) -> None:
        """The task's ``__pregel_send``: its result kept, its other writes the caller's."""
        forward = []
        for channel, value in writes:
            self.writes.append((channel, value))
            if channel != _RETURN:
                forward.append((channel, value))
        if forward:
            self.caller.configurable[SEND_KEY](forward)

    # -- the cache -------------------------------------------------------------------

    def cache_key(self, cache_policy: Any) -> tuple | None:
        """``(cache, key, ttl)`` where the graph's cache keeps this call's writes, when the
        call has a ``cache_policy`` and the agent a cache (LangGraph's key: the function's
        identifier and a hash of what the policy's ``key_func`` makes of the arguments)."""
        calling = self.caller.configurable
        if cache_policy is None or calling.get("ls_agent_type") == "subagent":
            return None
        cache = own_value(calling, CACHE_KEY)
        if cache is None:
            return None
        from xxhash import xxh3_128_hexdigest

        from deepagents_rs._langgraph_private import CACHE_NS_WRITES, identifier

        args, kwargs = self.input
        made = cache_policy.key_func(*args, **kwargs)
        key = xxh3_128_hexdigest(made.encode() if isinstance(made, str) else made)
        return cache, ((CACHE_NS_WRITES, identifier(self.func) or "__dynamic__"), key), cache_policy.ttl

    def _store(self, cached: tuple | None) -> dict | None:
        """What goes to the cache after the call finished (LangGraph caches a finished
        task's writes)."""
        if cached is None:
            return None
        _, key, ttl = cached
        return {key: (list(self.writes), ttl)}

    # -- running ---------------------------------------------------------------------

    def failed(self, exc: Exception) -> float | None:
        """Seconds to wait before the next attempt after ``exc``; ``None``: raise it. The
        error is noted as LangGraph's runner notes it (the call's task name and id)."""
        from langgraph.errors import GraphBubbleUp

        if self.id is not None and not isinstance(exc, GraphBubbleUp):
            exc.add_note(f"During task with name '{self.name}' and id '{self.id}'")
        self.count += 1
        return _retry_wait(self.func, self.policies, exc, self.count)

    # -- the saver -------------------------------------------------------------------

    def saved(self) -> tuple | None:
        """``(saver, config, path)`` where LangGraph's loop keeps this call's writes on a
        checkpointed thread: pending writes of the checkpoint the calling task's step runs
        from, under the call's task id (a resumed run finds them there and does not run the
        call again); ``None`` without a saver, or when the run saves only at its end."""
        calling = self.caller.configurable
        saver = calling.get(CHECKPOINTER_KEY)
        ns = str(calling.get("checkpoint_ns") or "")
        graph_ns = ns.rpartition("|")[0]
        checkpoint = (calling.get("checkpoint_map") or {}).get(graph_ns)
        thread = calling.get("thread_id")
        if saver is None or checkpoint is None or thread is None or self.id is None:
            return None
        if calling.get(_DURABILITY_KEY) == "exit":
            return None
        from deepagents_rs._langgraph_private import task_path_str

        config = {"configurable": {"thread_id": thread, "checkpoint_ns": graph_ns, "checkpoint_id": checkpoint}}
        path = ("__pregel_push", self.caller.metadata.get("langgraph_path"), self.counter, True)
        return saver, config, task_path_str(path)

    def _found(self, saved: Any) -> tuple | None:
        """The call's output its checkpoint has (a run before the resume made it); none when
        that run's call failed or was interrupted (LangGraph runs it again)."""
        if saved is None:
            return None
        from deepagents_rs._langgraph_private import read_task_statuses

        status = read_task_statuses(w for w in saved.pending_writes or () if w[0] == self.id).get(self.id)
        return status.output if status is not None else None

    def _put(self, saved: tuple, writes: list) -> None:
        saver, config, path = saved
        saver.put_writes(config, writes, self.id, path)

    async def _aput(self, saved: tuple, writes: list) -> None:
        saver, config, path = saved
        await saver.aput_writes(config, writes, self.id, path)

    # -- running ---------------------------------------------------------------------

    def _parts(self) -> Any:
        """The task's stream parts (`_pushed_parts`), its start written now; ``None`` when
        the run does not stream them."""
        from ._pushed_parts import PushedParts

        parts = PushedParts.of(self.caller, self.name, self.input, self.config)
        if parts is not None:
            parts.started()
        return parts

    def _cached(self, hit: Any) -> None:
        """The parts of a call answered from the cache: its start, then its writes as a
        cached ``updates`` part (LangGraph's loop streams no ``tasks`` result for it)."""
        parts = self._parts()
        if parts is not None:
            parts.finished(list(hit), cached=True)

    def run(self, cached: tuple | None) -> Any:
        import time

        saved = self.saved()
        if saved is not None and (found := self._found(saved[0].get_tuple(saved[1]))):
            # LangGraph's loop streams a replayed call's start only.
            self._parts()
            return _result(found)
        if cached is not None:
            hit = cached[0].get([cached[1]]).get(cached[1])
            if hit is not None:
                if saved is not None:
                    self._put(saved, list(hit))
                self._cached(hit)
                return _result(hit)
        from deepagents_rs._langgraph_private import get_runnable_for_task

        proc = get_runnable_for_task(self.func)
        parts = self._parts()
        while True:
            self.writes.clear()
            try:
                out = proc.invoke(self.input, self.config())
            except Exception as exc:
                if (wait := self.failed(exc)) is None:
                    if saved is not None and (error := _error_writes(exc)) is not None:
                        self._put(saved, error)
                    _ended(parts, exc)
                    raise
                time.sleep(wait)
                continue
            if parts is not None:
                parts.finished(list(self.writes))
            if saved is not None:
                self._put(saved, list(self.writes))
            if (store := self._store(cached)) is not None:
                cached[0].set(store)
            return out

    async def arun(self, cached: tuple | None, timeout: Any) -> Any:
        import asyncio

        saved = self.saved()
        if saved is not None and (found := self._found(await saved[0].aget_tuple(saved[1]))):
            self._parts()
            return _result(found)
        if cached is not None:
            hit = (await cached[0].aget([cached[1]])).get(cached[1])
            if hit is not None:
                if saved is not None:
                    await self._aput(saved, list(hit))
                self._cached(hit)
                return _result(hit)
        from deepagents_rs._langgraph_private import get_runnable_for_task

        proc = get_runnable_for_task(self.func)
        parts = self._parts()
        while True:
            self.writes.clear()
            try:
                out = await _within(self.name, proc, self.input, self.config(), timeout)
            except Exception as exc:
                if (wait := self.failed(exc)) is None:
                    if saved is not None and (error := _error_writes(exc)) is not None:
                        await self._aput(saved, error)
                    _ended(parts, exc)
                    raise
                await asyncio.sleep(wait)
                continue
            if parts is not None:
                parts.finished(list(self.writes))
            if saved is not None:
                await self._aput(saved, list(self.writes))
            if (store := self._store(cached)) is not None:
                await cached[0].aset(store)
            return out


def _ended(parts: Any, exc: Exception) -> None:
    """The parts of a call that failed (an interrupt or a parent command passes up without
    its task's result, as LangGraph's loop streams none)."""
    from langgraph.errors import GraphBubbleUp

    if parts is not None and not isinstance(exc, GraphBubbleUp):
        parts.finished([("__error__", exc)])


def _error_writes(exc: Exception) -> list | None:
    """The write LangGraph's loop saves for a call that failed (none for an interrupt or a
    parent command, which pass up)."""
    from langgraph.errors import GraphBubbleUp

    return None if isinstance(exc, GraphBubbleUp) else [("__error__", exc)]


def _result(writes: Any) -> Any:
    """A task's result from its writes (saved or cached), as LangGraph's call takes it."""
    return next((value for channel, value in writes if channel == _RETURN), None)


def _policies(retry_policy: Any) -> tuple:
    if retry_policy is None:
        return ()
    from langgraph.types import RetryPolicy

    return (retry_policy,) if isinstance(retry_policy, RetryPolicy) else tuple(retry_policy)


def _name(func: Any) -> str:
    return getattr(func, "__name__", type(func).__name__)


def _retry_wait(func: Any, policies: tuple, exc: Exception, attempts: int) -> float | None:
    """Seconds to wait before the next attempt after ``exc``, the ``attempts``-th failure
    (``None``: raise it), as LangGraph's ``run_with_retry`` decides: the first policy whose
    ``retry_on`` takes the error, its attempts, its backoff and jitter."""
    import random

    from langgraph.errors import GraphBubbleUp

    from deepagents_rs._langgraph_private import _should_retry_on

    if isinstance(exc, GraphBubbleUp):
        return None
    policy = next((p for p in policies if _should_retry_on(p, exc)), None)
    if policy is None or attempts >= policy.max_attempts:
        return None
    interval = min(policy.max_interval, policy.initial_interval * policy.backoff_factor ** (attempts - 1))
    wait = interval + random.uniform(0, 1) if policy.jitter else interval
    import logging

    logging.getLogger("langgraph.pregel._retry").info(
        f"Retrying task {_name(func)} after {wait:.2f} seconds (attempt {attempts}) after {exc.__class__.__name__} {exc}",
        exc_info=exc,
    )
    return wait


async def _within(name: str, proc: Any, input: Any, config: dict, timeout: Any) -> Any:
    """``proc`` run on ``input`` within ``timeout`` as LangGraph's runner bounds a task's
    attempt: its run timeout, and its idle timeout refreshed by the progress LangGraph counts
    (the task's writes, stream output, child calls, LangChain callback events under
    ``refresh_on="auto"``; ``runtime.heartbeat()`` always), both watched by LangGraph's own
    attempt scope, which wraps the task's config. Past either, LangGraph's
    ``NodeTimeoutError``; the call's own ``TimeoutError`` passes as it is."""
    if timeout is None or (timeout.run_timeout is None and timeout.idle_timeout is None):
        return await proc.ainvoke(input, config)
    import asyncio
    import contextvars
    import time

    from langgraph.errors import NodeTimeoutError

    from deepagents_rs._langgraph_private import _resolve_timeout, _TimedAttemptScope

    limits = _resolve_timeout(timeout)
    idle, run = limits.idle_timeout_secs, limits.run_timeout_secs
    scope = _TimedAttemptScope(refresh_on=limits.refresh_on)
    start = time.monotonic()
    call = proc.ainvoke(input, scope.wrap_config(config))
    running = asyncio.get_running_loop().create_task(call, context=contextvars.copy_context())
    watchdogs = {}
    if idle is not None:
        watchdogs[asyncio.ensure_future(scope.wait_for_idle_timeout(idle))] = "idle"
    if run is not None:
        watchdogs[asyncio.ensure_future(asyncio.sleep(run))] = "run"
    try:
        await asyncio.wait({running, *watchdogs}, return_when=asyncio.FIRST_COMPLETED)
        if running.done():
            return running.result()
        # A watchdog ended first: the idle one by raising, the run one by sleeping out.
        kind = next(watchdogs[w] for w in watchdogs if w.done())
        scope.close()
        running.cancel()
        running.add_done_callback(_drained)
        raise NodeTimeoutError(name, time.monotonic() - start, kind=kind, idle_timeout=idle, run_timeout=run)
    except asyncio.CancelledError:
        running.cancel()
        running.add_done_callback(_drained)
        raise
    finally:
        scope.close()
        for watchdog in watchdogs:
            watchdog.cancel()
            watchdog.add_done_callback(_drained)


def _future_of(call: Any) -> Any:
    """An asyncio future of ``call`` run as a task on the running loop (LangGraph's call
    hands out a future chained to its task's, not the task); cancelling it cancels the call."""
    import asyncio

    loop = asyncio.get_running_loop()
    out = loop.create_future()
    running = loop.create_task(call)

    def settle(done: Any) -> None:
        if out.cancelled():
            return
        if done.cancelled():
            out.cancel()
        elif (exc := done.exception()) is not None:
            out.set_exception(exc)
        else:
            out.set_result(done.result())

    running.add_done_callback(settle)
    out.add_done_callback(lambda future: running.cancel() if future.cancelled() else None)
    return out


def _drained(task: Any) -> None:
    """Reads a task's end that nobody awaits (a cancelled call, a watchdog), so asyncio does
    not log it as never retrieved."""
    if not task.cancelled():
        task.exception()


class _DoneFuture(Future):
    """A future already done that a coroutine may await too, as LangGraph's call future."""

    def __await__(self) -> Generator[Any, None, Any]:
        return self.result()
        yield  # a generator: awaiting it returns at once
