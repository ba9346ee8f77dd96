"""The durable-thread face of a deep agent: checkpointed and interruptible runs, and the
thread's state, through the LangGraph graph of ``_threads`` (a mixin of ``DeepAgent``)."""

from __future__ import annotations

import collections
import functools
import operator
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from . import _convert, _lockstep, _runtime, _stream, _stream_modes, _stream_protocol, _threads
from ._callbacks import with_cleared_handlers
from ._late_subagents import LateSubagents
from ._output_keys import OutputFilter, output_keys_of
from ._run_options import _merge_configs, _versioned, durability_of
from ._subagent_threads import SubagentThreads
from ._task_config import TASKS_KEY, RunConfig
from ._task_places import step_sends
from ._thread_feed import RUN_TASKS, goto_of


def _tools_resume(snapshot: Any, config: dict) -> tuple[dict, list[str], list[dict]]:
    """The state a `tools` step resumes from, the calls of the step that had finished before
    it stopped, and their writes. The core runs every call of the last AI message still
    unanswered, as LangChain's edge sent them: all of them for a replay from a past
    checkpoint (time travel reruns every task, as LangGraph does); at the thread's latest
    checkpoint, the calls that had finished are answered by the writes LangGraph kept for
    them, as LangGraph hands them back instead of running those tasks again."""
    time_travel = bool((config.get("configurable") or {}).get("checkpoint_id"))
    # A tool's own interrupt() is resumed as LangGraph resumes it: the tool runs again and
    # interrupt() returns the answer. Subagents resume from their own checkpoints: the
    # core's (`_subagent_threads`) and compiled ones (run in their tasks, `TaskConfigs`).
    # LangGraph's snapshot already holds the finished calls' writes in its values.
    answered, finished = ([], []) if time_travel else _threads.finished_calls(snapshot)
    return dict(snapshot.values), answered, finished


class ThreadRuns:
    """Runs through the thread graph, and the thread's state. The agent supplies `_core`,
    `_prepare`, `_state_keys`, `_shaper`, `_result`, `_fail`, `_schema`, `_call_defaults`, `checkpointer` and the
    rest of its run setup."""

    @property
    def _threaded(self) -> bool:
        """Whether runs go through the thread graph: with a checkpointer, or when a run can
        stop for a human (LangGraph's `interrupt()` needs its task context)."""
        # `checkpointer=False` never checkpoints; `True` is a subgraph's (LangGraph refuses it
        # at the root, through the graph).
        return self.checkpointer not in (None, False) or self._interrupts

    def _route_after(self, node: str, state: dict) -> Any:
        """The core's edge out of `node` on a LangGraph state (see `ThreadGraph`)."""
        kind, value = self._core.route_after(node, _threads.core_state(state), state.get("jump_to"))
        return goto_of(kind, value)

    def _through_graph(
        self, stream_mode: Any, kwargs: dict, config: dict | None = None, protocol: bool = False
    ) -> bool:
        """Whether a run goes through the thread graph: checkpointed or interruptible runs,
        runs inside a parent LangGraph graph (a subgraph's checkpoints, stream parts and
        interrupts are LangGraph's business), and runs asking for what only LangGraph's loop
        makes (its own stream modes, its breakpoints)."""
        # No generator: every plain run asks (a generator expression is a frame of its own).
        breakpoints = bool(kwargs.get("interrupt_before") or kwargs.get("interrupt_after"))
        return (
            self._threaded
            or breakpoints
            # A drain stops the graph's loop, which then raises LangGraph's `GraphDrained`.
            or kwargs.get("control") is not None
            # `invoke` asks with no stream mode, which asks for none of the graph's.
            or (stream_mode is not None and _stream_modes.asks_graph_modes(stream_mode, protocol))
            or _threads.in_parent_graph(config)
        )

    def _thread(self, config: dict | None = None) -> _threads.ThreadGraph:
        # A subgraph's saver is its parent's, handed down in the config.
        if self.checkpointer is None and not _threads.inherits_saver(config):
            # LangGraph's error, word for word.
            raise ValueError("No checkpointer set")
        return self._run_graph()

    def _compile_with_saver(self) -> None:
        """With a saver, the thread graph and the state keys made now, as deepagents compiles
        its graph in ``create_deep_agent``: not in the first run's time (10-20 ms of type
        hints and LangGraph's compile, measured: 0.2-0.4 ms per step of a fifty-step run).
        Without one (or ``checkpointer=True``, a subgraph's, which takes its parent's saver)
        they are made on first use."""
        if self.checkpointer is None or isinstance(self.checkpointer, bool):
            # Nothing imported for an agent without a saver (`benches/startup.py`).
            return
        try:
            from langgraph.checkpoint.base import BaseCheckpointSaver
        except ImportError:
            return
        if isinstance(self.checkpointer, BaseCheckpointSaver):
            self._run_graph()
            self._state_keys()

    def _run_graph(self) -> _threads.ThreadGraph:
        if self._thread_graph is None:
            nodes = dict(self._core.subagent_nodes)
            self._thread_graph = _threads.ThreadGraph(
                self._core.node_names,
                self._state_schemas,
                self.checkpointer,
                self.name,
                self.config["metadata"],
                self._route_after,
                SubagentThreads(
                    nodes, self._subagent_schemas, self._subagent_forks, getattr(self._state_schemas, "files", True)
                )
                if nodes
                else None,
                registered=self._core.registered_node_names,
            )
        return self._thread_graph

    def _thread_run(
        self,
        input: Any,
        config: dict | None,
        stream_mode: Any,
        subgraphs: bool,
        version: str,
        kwargs: dict,
        *,
        asynchronous: bool,
    ) -> tuple[_stream.Shaper, collections.deque, Any]:
        """A checkpointed run: the thread graph's run (an iterator of its states), the
        caller's chunks as they arrive, and the shaper that keeps the final state."""
        kwargs = dict(kwargs)
        durability = durability_of(kwargs)
        if durability not in (None, "sync", "async", "exit"):
            raise ValueError(f"Invalid durability {durability!r}; expected 'sync', 'async' or 'exit'")
        # LangGraph's breakpoints: the graph stops there, and so does the core.
        stops = tuple(_node_list(kwargs.pop(key, None)) for key in ("interrupt_before", "interrupt_after"))
        # LangGraph's run control: given, or a parent graph's (a subgraph drains with it).
        control = kwargs.pop("control", None) or _threads.parent_control(config)
        thread = self._run_graph()
        printed = _stream_modes.print_modes(kwargs, self._debug)
        keys = output_keys_of(kwargs, getattr(self, "channels", None), getattr(self, "output_channels", None))
        modes, single = (
            ([], True) if stream_mode is False else _stream_modes.normalize_modes(stream_mode, self.stream_mode)
        )
        protocol = _stream_protocol.wants_protocol_events(_merge_configs(self._call_defaults, config or {}), version)
        graph_modes = _stream_modes.graph_modes(modes, protocol)
        core_modes = list(
            dict.fromkeys([*_stream_modes.core_modes(modes, printed, protocol, bool(subgraphs)), "updates", "routes"])
        )
        from langgraph.types import Command

        command = isinstance(input, Command)
        # A run given input starts at the graph's first node; any other resumes the thread.
        fresh = isinstance(input, dict)
        if input is not None and not command and not isinstance(input, dict):
            raise _convert.invalid_input(input)
        _state, limit, run_config, subagent_format, tracer = self._prepare(
            input if isinstance(input, dict) else {"messages": []}, config, kwargs
        )
        merged = _merge_configs(self._call_defaults, config or {})
        shaper = self._shaper(modes, single, subgraphs, version, merged)
        shaper.print_modes = printed
        shaper.tracer = tracer
        shaper.follow_tools(protocol)
        if keys is not None:
            shaper.output = OutputFilter(keys, input)
        lockstep = None
        if tracer is not None:
            # The invocation's run starts before the graph's first chunk, the core's or not.
            tracer.open_root(self.name)
            if _lockstep.listens(merged.get("callbacks")):
                lockstep = tracer.lockstep = _lockstep.Lockstep()
        out: collections.deque = collections.deque()

        def forward(item: tuple) -> None:
            # A subagent's writes are read by the graph that follows it, and shown only with
            # `subgraphs=True` (the shaper drops them otherwise).
            chunks = shaper.chunks(item)
            out.extend(chunks)
            emitted = bool(chunks)
            if lockstep is not None and item[0] == "updates" and not item[1]:
                # A node's update: the caller takes it with the chunk just queued (see
                # `_drain`), or now when it streams no such chunk.
                if emitted:
                    out.append(_TakenMark(lockstep))
                else:
                    lockstep.taken()

        first = self._core.node_names[0]

        def in_task(task_config: dict) -> dict:
            # The run's config, with what LangGraph's interrupt() reads from the task's.
            configurable = {**(run_config.get("configurable") or {}), **_threads.task_keys(task_config)}
            # Where the tasks the core runs find the checkpoints the graph's steps run from.
            configurable[TASKS_KEY] = _threads.feed_of(task_config).task_configs
            # The saver the graph's tasks have (the run's or a parent graph's), for the tasks
            # the core runs: LangGraph hands it to every task.
            configurable["__pregel_checkpointer"] = (task_config.get("configurable") or {}).get("__pregel_checkpointer")
            if (task_config.get("configurable") or {}).get("__pregel_resuming"):
                # A resumed run: LangGraph's loop marks the tasks of the step it resumes at
                # (`__pregel_resuming`), which the core runs from this task's step on.
                configurable[_stream.RESUMING_STEP_KEY] = (task_config.get("metadata") or {}).get("langgraph_step")
            out = RunConfig({**run_config, "configurable": configurable})
            # The graph's run control, which every task of the run sees as LangGraph's loop
            # hands it.
            out.control = _threads.parent_control(task_config)
            if tracer is not None:
                # The callbacks' node runs name the tasks with this run's ids.
                tracer.run = out
            return out

        def launch(
            node: str | list,
            thread_state: dict,
            steps_before: int,
            task_config: dict,
            answered: Sequence[str] = (),
            subagents: Sequence[tuple] | None = None,
        ) -> Any:
            core = _threads.core_state(thread_state)
            # The thread's messages as LangGraph loaded them: the run's states show these (the
            # core hands back those it was handed as objects; a dict of the same id it hands
            # back instead is matched here).
            messages = thread_state.get("messages") or ()
            if all(map(operator.is_, messages, core["messages"])):
                shaper.message_objects.seed_objects(messages)
            else:
                shaper.message_objects.seed(messages, core["messages"])
            # A step of several tasks starts as the list of them (`_threads.step_tasks`).
            start_at = None if node == first else node
            args = (core, limit, core_modes, bool(subgraphs), in_task(task_config), subagent_format, tracer)
            resumed = [core_resume(s) for s in subagents or ()]
            awaited = list(late.awaited)
            feed = _threads.feed_of(task_config)
            # The messages the graph's nodes write are the run's states' objects too.
            feed.message_objects = shaper.message_objects
            feed.forward_routes = shaper.reads_routes()
            # With a run control, the core stops at each node boundary where the graph does.
            boundary = feed.core_boundary if control is not None else None
            # The run keeps these contextvars: compiled subagents find their tasks there.
            tasks = RUN_TASKS.set(feed.task_configs)
            try:
                core_run = self._core.astream if asynchronous else self._core.stream
                run_args = (*args, steps_before, start_at, stops, list(answered), resumed)
                # The graph steps without the caller's context handlers (`collect_runs()`):
                # the core's run gets them back.
                start = functools.partial(with_cleared_handlers, _stream_protocol.start_run, protocol, core_run)
                if asynchronous:
                    return start(*run_args, streamed=shaper.streamed(), control=boundary, awaited=awaited)
                token = _runtime.enter_blocking_invoke()
                try:
                    return start(*run_args, streamed=shaper.streamed(), control=boundary, awaited=awaited)
                finally:
                    _runtime.exit_blocking_invoke(token)
            finally:
                RUN_TASKS.reset(tasks)

        def cached(writes: list[dict]) -> None:
            # LangGraph streams the kept writes of finished tasks first, marked as cached.
            if "updates" in modes:
                for update in writes:
                    out.append(shaper.wrap("updates", {**update, "__metadata__": {"cached": True}}))

        def core_resume(subagent: tuple) -> tuple:
            call_id, state, at, steps, sub_config, done = subagent
            return (call_id, _threads.core_state(state), at, steps, in_task(sub_config), done)

        late = LateSubagents(core_resume)

        def start(node: str, arg: Any, steps_before: int, task_config: dict, subagents: Any = None) -> Any:
            """The core's run from the first step the thread graph runs: a fresh run's first
            node gets the thread's state; a resumed or replayed run starts at the step the
            checkpoint holds next (one node, the model's calls, or several tasks side by
            side), so the state, the step's tasks and the other calls' progress come from the
            checkpoint the run started from (and a subagent stopped inside its call, from its
            own: ``subagents``)."""
            if fresh and isinstance(arg, dict) and node == first:
                return launch(node, arg, steps_before, task_config)
            followed = None if isinstance(arg, dict) else thread.subagents
            if asynchronous:

                async def resumed() -> Any:
                    snapshot = await thread.graph.aget_state(merged)
                    sends = step_sends(task_config) if _pushes(snapshot) else []
                    # With kept writes, the step's tasks start from the checkpoint's own
                    # state (the snapshot's values hold those writes).
                    kept = _threads.kept_writes(snapshot, merged)
                    before = (await thread.graph.aget_state(snapshot.config)).values if kept else None
                    if followed is not None:
                        late.expect(await followed.astopped_calls(snapshot, task_config), subagents)
                    return begin_at(node, arg, snapshot, sends, before, steps_before, task_config, subagents)

                return resumed()
            snapshot = thread.graph.get_state(merged)
            sends = step_sends(task_config) if _pushes(snapshot) else []
            kept = _threads.kept_writes(snapshot, merged)
            before = thread.graph.get_state(snapshot.config).values if kept else None
            if followed is not None:
                late.expect(followed.stopped_calls(snapshot, task_config), subagents)
            return begin_at(node, arg, snapshot, sends, before, steps_before, task_config, subagents)

        def begin_at(
            node: str,
            arg: Any,
            snapshot: Any,
            sends: list,
            before: dict | None,
            steps_before: int,
            task_config: dict,
            subagents: Any,
        ) -> Any:
            tasks = _threads.step_tasks(snapshot, sends, before is not None)
            if tasks is None and isinstance(arg, dict):
                return launch(node, arg, steps_before, task_config)
            if before is not None and tasks is not None:
                cached([{t.name: t.result} for t in snapshot.tasks if t.result is not None])
                return launch(tasks, dict(before), steps_before, task_config, (), subagents)
            state, answered, writes = _tools_resume(snapshot, merged)
            cached([{"tools": w} for w in writes])
            return launch(node if tasks is None else tasks, state, steps_before, task_config, answered, subagents)

        thread_input = input if command else None
        if isinstance(input, dict):
            keys = {"messages", "files", "structured_response", *self._schema.input}
            # In the caller's order, as LangGraph writes (and serializes) an input's keys: of
            # two values a saver cannot take, the first given is the one reported.
            # `skills_metadata: None` is a write of its own: it asks for the skills again.
            thread_input = {k: v for k, v in input.items() if k in keys and (v is not None or k == "skills_metadata")}
        run = thread.arun if asynchronous else thread.run
        runs = run(
            thread_input,
            {**merged, "recursion_limit": limit},
            start,
            forward,
            durability,
            graph_modes,
            stops,
            whole_run=stream_mode is False,
            control=control,
            late=late,
            subgraphs=bool(subgraphs),
        )
        return shaper, out, _graph_chunks(runs, shaper, out)

    def _graph_values(self, values: Any) -> Any:
        """The thread graph's own state as a result (a run that had nothing to do)."""
        if not isinstance(values, dict):
            return values
        return {k: v for k, v in values.items() if k not in self._schema.omit_output}

    def _stopped_state(self, interrupted: _threads.Interrupted, final: dict | None) -> dict:
        """The state a run that stopped returns: the core's last state (it ended at a
        breakpoint), or the state it had when an `interrupt()` stopped it."""
        if final is not None:
            return final
        if interrupted.state is not None:
            return self._result(interrupted.state)
        return {}

    def _interrupt_result(self, interrupted: _threads.Interrupted, final: dict | None, version: str) -> Any:
        """What `invoke` returns for a run that stopped: the state with `__interrupt__` (a
        list; none for a breakpoint), or in v2 LangGraph's `GraphOutput(value, interrupts)`."""
        state = self._stopped_state(interrupted, final)
        if version == "v1":
            return {**state, "__interrupt__": list(interrupted.interrupts)} if interrupted.interrupts else state
        from langgraph.types import GraphOutput

        return GraphOutput(state, interrupted.interrupts)

    def _thread_result(self, shaper: _stream.Shaper, runs: Any, config: dict | None, version: str) -> Any:
        stops: list[_threads.Interrupted] = []
        with _RootRun(shaper, self._fail):
            for item in runs:
                if isinstance(item, _threads.Interrupted):
                    stops.append(item)
        if stops:
            return self._interrupt_result(_threads.Interrupted.joined(stops), shaper.final, version)
        if shaper.final is None:
            # Nothing to run (an idle thread given no input): the thread's state.
            return _versioned(self._graph_values(self._thread(config).graph.get_state(config).values), version)
        return _versioned(shaper.final, version)

    def get_state(self, config: dict, *, subgraphs: bool = False) -> Any:
        """The thread's current ``StateSnapshot``, as LangGraph reads it."""
        return self._thread(config).graph.get_state(config, subgraphs=subgraphs)

    async def aget_state(self, config: dict, *, subgraphs: bool = False) -> Any:
        return await self._thread(config).graph.aget_state(config, subgraphs=subgraphs)

    def get_state_history(
        self, config: dict, *, filter: dict | None = None, before: dict | None = None, limit: int | None = None
    ) -> Iterator[Any]:
        """The thread's snapshots, newest first."""
        return self._thread(config).graph.get_state_history(config, filter=filter, before=before, limit=limit)

    async def aget_state_history(
        self, config: dict, *, filter: dict | None = None, before: dict | None = None, limit: int | None = None
    ) -> AsyncIterator[Any]:
        async for snapshot in self._thread(config).graph.aget_state_history(
            config, filter=filter, before=before, limit=limit
        ):
            yield snapshot

    def update_state(self, config: dict, values: Any, as_node: str | None = None, task_id: str | None = None) -> dict:
        """Writes ``values`` to the thread as the last node that ran (or as the pending task
        ``task_id``, which then counts as done), as LangGraph writes them."""
        return self._thread(config).graph.update_state(config, values, as_node=as_node, task_id=task_id)

    async def aupdate_state(
        self, config: dict, values: Any, as_node: str | None = None, task_id: str | None = None
    ) -> dict:
        return await self._thread(config).graph.aupdate_state(config, values, as_node=as_node, task_id=task_id)

    def bulk_update_state(self, config: dict, supersteps: Any) -> dict:
        """Several supersteps of writes at once (LangGraph's `StateUpdate`s), as LangGraph
        applies them."""
        return self._thread(config).graph.bulk_update_state(config, supersteps)

    async def abulk_update_state(self, config: dict, supersteps: Any) -> dict:
        return await self._thread(config).graph.abulk_update_state(config, supersteps)

    def _thread_invoke(self, input: Any, config: dict | None, version: str, kwargs: dict) -> Any:
        shaper, _out, runs = self._thread_run(input, config, False, False, version, kwargs, asynchronous=False)
        return self._thread_result(shaper, runs, config, version)

    async def _thread_ainvoke(self, input: Any, config: dict | None, version: str, kwargs: dict) -> Any:
        shaper, _out, runs = self._thread_run(input, config, False, False, version, kwargs, asynchronous=True)
        stops: list[_threads.Interrupted] = []
        with _RootRun(shaper, self._fail):
            async for item in runs:
                if isinstance(item, _threads.Interrupted):
                    stops.append(item)
        if stops:
            return self._interrupt_result(_threads.Interrupted.joined(stops), shaper.final, version)
        if shaper.final is None:
            # Nothing to run (an idle thread given no input): the thread's state.
            return _versioned(self._graph_values((await self._thread(config).graph.aget_state(config)).values), version)
        return _versioned(shaper.final, version)

    def _thread_stream(
        self, input: Any, config: dict | None, stream_mode: Any, subgraphs: bool, version: str, kwargs: dict
    ) -> Iterator[Any]:
        shaper, out, runs = self._thread_run(input, config, stream_mode, subgraphs, version, kwargs, asynchronous=False)
        stops: list[_threads.Interrupted] = []
        with _RootRun(shaper, self._fail):
            try:
                for item in runs:
                    if isinstance(item, _threads.Interrupted):
                        stops.append(item)
                    yield from _drain(out)
            except Exception as exc:
                # What was queued before the error goes out (a subagent's parts), then what
                # the calls the error stopped report.
                yield from _drain(out)
                yield from shaper.failed(exc)
                raise
            yield from _drain(out)
            yield from shaper.stopped(self._stops(stops, shaper))

    async def _thread_astream(
        self, input: Any, config: dict | None, stream_mode: Any, subgraphs: bool, version: str, kwargs: dict
    ) -> AsyncIterator[Any]:
        shaper, out, runs = self._thread_run(input, config, stream_mode, subgraphs, version, kwargs, asynchronous=True)
        stops: list[_threads.Interrupted] = []
        with _RootRun(shaper, self._fail):
            try:
                async for item in runs:
                    if isinstance(item, _threads.Interrupted):
                        stops.append(item)
                    for chunk in _drain(out):
                        yield chunk
            except Exception as exc:
                # As in `_thread_stream`.
                for chunk in [*_drain(out), *shaper.failed(exc)]:
                    yield chunk
                raise
            for chunk in _drain(out):
                yield chunk
            for chunk in shaper.stopped(self._stops(stops, shaper)):
                yield chunk

    def _stops(self, stops: list[_threads.Interrupted], shaper: _stream.Shaper) -> list[tuple[tuple, dict]]:
        """Each stop of a run, as ``(interrupts, state)``: LangGraph streams each interrupted
        task's interrupts on their own."""
        out = []
        for stop in stops:
            if shaper.final_values is not None:
                values = shaper.final_values
            elif stop.state is not None:
                values = self._stream_values(stop.state)
            else:
                values = {}
            out.append((stop.interrupts, values))
        return out


class _TakenMark:
    """Queued after a node's update chunk: popped once the caller took that chunk."""

    __slots__ = ("lockstep",)

    def __init__(self, lockstep: Any) -> None:
        self.lockstep = lockstep


def _drain(out: collections.deque) -> Iterator[Any]:
    """The queued chunks, telling the core's tracer when a node's update was taken."""
    while out:
        chunk = out.popleft()
        if isinstance(chunk, _TakenMark):
            chunk.lockstep.taken()
        else:
            yield chunk


class _RootRun:
    """Ends the invocation's traced run when the caller has every chunk (or the run failed);
    a failure carries the state it reached, as every run's does."""

    def __init__(self, shaper: Any, fail: Any) -> None:
        self.tracer = getattr(shaper, "tracer", None)
        self.shaper = shaper
        self.fail = fail

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        lockstep = getattr(self.tracer, "lockstep", None)
        if lockstep is not None:
            # A caller that stopped reading must not hold the core.
            lockstep.close()
        failed = exc if isinstance(exc, Exception) else None
        if failed is not None:
            self.fail(failed)
        if self.tracer is not None:
            self.tracer.close_root(error=failed, outputs=self.shaper.final)


def _graph_chunks(runs: Any, shaper: _stream.Shaper, out: collections.deque) -> Any:
    """The thread graph's run, its own stream chunks queued for the caller with the core's."""

    def take(item: Any) -> Any:
        if isinstance(item, tuple) and len(item) == 4 and item[0] == "graph":
            _graph, mode, chunk, ns = item
            out.append(shaper.part(mode, ns, chunk) if ns else shaper.wrap(mode, chunk))
            return None
        return item

    if hasattr(runs, "__anext__"):

        async def agen() -> AsyncIterator[Any]:
            async for item in runs:
                yield take(item)

        return agen()
    return (take(item) for item in runs)


def _node_list(value: Any) -> list[str]:
    """LangGraph's `interrupt_before`/`interrupt_after`: node names, or `"*"` for all."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _pushes(snapshot: Any) -> bool:
    """Whether a step has tasks sent their input (`Send`s, the model's calls)."""
    from deepagents_rs._langgraph_private import PUSH

    return any(t.path[:1] == (PUSH,) for t in snapshot.tasks)
