"""One run's stream from the core, as the thread graph's nodes read it (see ``_threads``).

Each node of the thread graph takes its own write from the core's stream, and where the core
went after it. The core runs ahead; the graph follows. A subagent the core runs is followed
by a graph of its own inside its ``task`` call's task (``_subagent_threads``), reading its
writes from the same stream under the subagent's namespace.
"""

from __future__ import annotations

import collections
import contextvars
import inspect
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

_END = "__end__"


class TaskConfigs:
    """The configs of the `tools` tasks that run `task` calls of compiled subagents, by call:
    the core calls a compiled subagent (a LangGraph graph, usually) ahead of the thread graph,
    and waits here for its task, so the subagent runs as a subgraph of that task (its
    checkpoints under the task's namespace, its interrupts resumed from them), as in
    deepagents, where the `task` tool hands the subagent its task's config."""

    def __init__(self) -> None:
        self._configs: dict[str, dict] = {}
        self._ready = threading.Condition()
        self._waiting: dict[str, asyncio.Event] = {}
        #: The checkpoint map of each step's tasks (the checkpoint the step runs from), for
        #: the tasks the core runs itself (`_task_config`).
        self._steps: dict[int, dict] = {}

    def step_started(self, config: dict) -> None:
        step = (config.get("metadata") or {}).get("langgraph_step")
        checkpoints = (config.get("configurable") or {}).get("checkpoint_map")
        if isinstance(step, int) and checkpoints is not None:
            with self._ready:
                self._steps[step] = dict(checkpoints)
                self._ready.notify_all()

    def step_checkpoints(self, step: int, timeout: float) -> dict | None:
        """The checkpoint map of ``step``'s tasks, waiting up to ``timeout`` seconds for the
        graph to start that step (it follows the core a little behind)."""
        with self._ready:
            self._ready.wait_for(lambda: step in self._steps, timeout)
            return self._steps.get(step)

    def put(self, call_id: str, config: dict) -> None:
        with self._ready:
            self._configs[call_id] = config
            self._ready.notify_all()
        event = self._waiting.pop(call_id, None)
        if event is not None:
            event.set()

    def wait(self, call_id: str, timeout: float = 60.0) -> dict | None:
        """The task's config once its task runs (``None`` if it never does)."""
        with self._ready:
            self._ready.wait_for(lambda: call_id in self._configs, timeout)
            return self._configs.get(call_id)

    async def await_(self, call_id: str, timeout: float = 60.0) -> dict | None:
        import asyncio

        if call_id not in self._configs:
            event = self._waiting.setdefault(call_id, asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), timeout)
            except TimeoutError:
                return None
        return self._configs.get(call_id)


#: How long (seconds) the first of a step's resuming subagents waits for the others' tasks.
_RESUME_WAIT = 30.0

#: The run's `TaskConfigs`, while the core runs under a thread graph (read by
#: `_subagents.RunnableAdapter`, in the contextvars the core's run keeps).
RUN_TASKS: contextvars.ContextVar[TaskConfigs | None] = contextvars.ContextVar("deepagents_rs_run_tasks", default=None)


class Feed:
    """The core's stream, read by the thread graph's nodes: each takes its node's write in its
    namespace (``()`` for the agent, the core's ``tools:<id>`` for a subagent), and where the
    core went after it. Every item also goes to ``forward`` (the caller's stream)."""

    def __init__(
        self,
        start: Callable[..., Any],
        forward: Callable[[tuple], None],
        subagents: Any = None,
    ) -> None:
        #: ``start(node, arg, steps_before, task_config, subagents)`` starts the core's run.
        self._start = start
        #: The run's exception: raised by the node the core was in when it failed.
        self._error: BaseException | None = None
        self._error_raised = False
        self._forward = forward
        self._events: Any = None
        #: The core's node writes and routes, in order: `("update", ns, node, write)` and
        #: `("route", ns, node, (kind, value))`.
        self._entries: list[tuple[str, tuple, str, Any]] = []
        self._taken: set[int] = set()
        #: The subagents the core started, by their `task` call: `(ns, input state, nodes)`.
        self._starts: dict[str, collections.deque] = {}
        #: The interrupts subagents stopped for, by their namespace.
        self._paused: dict[tuple, BaseException] = {}
        #: Subagents waiting to resume together, by call (see `start_resuming`).
        self._resumes: dict[str, tuple] = {}
        self._resumes_ready = threading.Condition()
        self._resumed_with: set[str] = set()
        #: How many subagents of the step the run resumes stopped inside (`expected_resumes`).
        self.expected: int | None = None
        self._aresumes_ready: asyncio.Condition | None = None
        #: Where each task the core ran goes next, by task id.
        self.routes: dict[str, Any] = {}
        #: The subagents followed as subgraphs (`_subagent_threads.SubagentThreads`), if any.
        self.subagents = subagents
        #: The tasks of compiled subagents' calls (see `TaskConfigs`).
        self.task_configs = TaskConfigs()
        self._ended = False
        self._lock = threading.Lock()
        self._alock: asyncio.Lock | None = None
        #: The agent graph's steps whose tasks have started, and the core's node boundaries
        #: passed (see `core_boundary`); `_closed` once the graph's run is over.
        self._graph_steps: set[int] = set()
        self._boundaries = 0
        self._closed = False
        self._steps_seen = threading.Condition()

    # -- run control (LangGraph's `control=`)

    def _step_started(self, config: dict) -> None:
        step = (config.get("metadata") or {}).get("langgraph_step")
        self.task_configs.step_started(config)
        with self._steps_seen:
            self._graph_steps.add(step)
            self._steps_seen.notify_all()

    def _graph_closed(self) -> None:
        with self._steps_seen:
            self._closed = True
            self._steps_seen.notify_all()

    def core_boundary(self) -> bool:
        """The core asks before each node after its first (on a blocking thread) whether to
        stop there. The graph decides: LangGraph drains at its own step boundaries, and it
        follows the core a little behind, so the core waits until the graph has started the
        step of that node (go on) or has stopped without starting it (a drain: stop too).
        Otherwise a core ahead of the graph would run a node whose work the graph drops."""
        with self._steps_seen:
            self._boundaries += 1
            while len(self._graph_steps) <= self._boundaries and not self._closed:
                self._steps_seen.wait()
            return len(self._graph_steps) <= self._boundaries

    # -- reading the core's stream

    def _accept(self, item: tuple) -> None:
        mode, ns, payload = item
        if mode == "done":
            self._ended = True
        elif mode == "updates":
            node, value, core = payload
            from ._stream import _update

            self._entries.append(("update", ns, node, _update(value, core)))
        elif mode == "routes":
            node, kind, value = payload
            if kind == "subagent":
                call_id, state, nodes = value
                self._starts.setdefault(call_id, collections.deque()).append((ns, state, nodes))
            elif kind == "paused":
                # A subagent stopped for its own interrupt: the graph following it stops with
                # that one (the run's error is the first of its step's).
                self._paused[ns] = value[1]
            else:
                self._entries.append(("route", ns, node, (kind, value)))
        self._forward(item)

    def forward(self, item: tuple) -> None:
        """Hands the caller's stream an item of the graph's own (not the core's)."""
        self._forward(item)

    def _pull(self) -> bool:
        if self._ended:
            return False
        try:
            item = next(self._events)
        except StopIteration:
            self._ended = True
            return False
        except Exception as exc:  # noqa: BLE001 - raised again by the node that failed
            self._error, self._ended = exc, True
            return False
        self._accept(item)
        return True

    async def _apull(self) -> bool:
        if self._ended:
            return False
        try:
            item = await self._events.__anext__()
        except StopAsyncIteration:
            self._ended = True
            return False
        except Exception as exc:  # noqa: BLE001 - raised again by the node that failed
            self._error, self._ended = exc, True
            return False
        self._accept(item)
        return True

    # -- what a node asks

    def _find(self, ns: tuple, node: str, call_id: str | None) -> int | None:
        for i, (kind, at, name, update) in enumerate(self._entries):
            if kind != "update" or i in self._taken or name != node or at != ns:
                continue
            if call_id is None or call_id in _answered(update):
                return i
        return None

    def _route(self, index: int) -> tuple[bool, Any]:
        """Where the core went after the write at ``index``: ``(known, goto)``. The core
        reports it before it runs the next node."""
        _kind, ns, node, _write = self._entries[index]
        for _kind, at, name, (route, value) in (e for e in self._entries[index + 1 :] if e[0] == "route"):
            if name == node and at == ns:
                return True, goto_of(route, value)
        # A run that ended without a route (it failed in between) goes nowhere.
        return self._ended, _END

    def _keep_route(self, config: dict, goto: Any) -> None:
        """Where this task goes, for the node's edge to read (see `ThreadGraph`)."""
        self.routes[_task_id(config)] = goto

    def take_route(self, config: dict) -> tuple[bool, Any]:
        task = _task_id(config)
        if task in self.routes:
            return True, self.routes.pop(task)
        return False, None

    def begin(self, node: str, arg: Any, config: dict, subagents: list | None = None) -> Any:
        """Starts the core's run at the first node that asks, numbering its steps on from the
        thread's (an awaitable under `astream` when the start reads the checkpoint);
        ``subagents``: the subagents of that step to resume (see `CoreAgent.stream`)."""
        step = (config.get("metadata") or {}).get("langgraph_step", 1)
        return self._start(node, arg, max(step - 1, 0), config, subagents)

    @property
    def started(self) -> bool:
        return self._events is not None

    def _taken_write(self, ns: tuple, node: str, arg: Any) -> int | None:
        """The index of ``node``'s write, once it has arrived."""
        index = self._find(ns, node, _call_id(node, arg))
        if index is not None:
            self._taken.add(index)
        return index

    def take(self, node: str, arg: Any, config: dict) -> Any:
        """A node of the agent's own graph takes its write (a subagent's `task` call has its
        subgraph followed first)."""
        self._step_started(config)
        if (call := self._task_call(node, arg, config)) is not None:
            self.subagents.follow(self, call, arg, config)
        return self.take_in((), node, arg, config)

    async def atake(self, node: str, arg: Any, config: dict) -> Any:
        self._step_started(config)
        if (call := self._task_call(node, arg, config)) is not None:
            await self.subagents.afollow(self, call, arg, config)
        return await self.atake_in((), node, arg, config)

    def _task_call(self, node: str, arg: Any, config: dict) -> dict | None:
        """The `task` call of a subagent this task follows; any other `task` call's task
        config is kept for the compiled subagent the core calls (`TaskConfigs`)."""
        call = self.subagents.followed_call(node, arg) if self.subagents is not None else None
        if call is None and (task_call := _task_call_of(node, arg)) is not None:
            self.task_configs.put(task_call["id"], config)
        return call

    def take_in(self, ns: tuple, node: str, arg: Any, config: dict) -> Any:
        with self._lock:
            if self._events is None:
                self._events = self.begin(node, arg, config)
            while (index := self._taken_write(ns, node, arg)) is None:
                if not self._pull():
                    raise self._missing(node, config, ns)
            while not (route := self._route(index))[0]:
                self._pull()
            self._keep_route(config, route[1])
            return _command(self._entries[index][3])

    async def atake_in(self, ns: tuple, node: str, arg: Any, config: dict) -> Any:
        async with self._async_lock():
            if self._events is None:
                events = self.begin(node, arg, config)
                self._events = await events if inspect.isawaitable(events) else events
            while (index := self._taken_write(ns, node, arg)) is None:
                if not await self._apull():
                    raise self._missing(node, config, ns)
            while not (route := self._route(index))[0]:
                await self._apull()
            self._keep_route(config, route[1])
            return _command(self._entries[index][3])

    def _async_lock(self) -> asyncio.Lock:
        import asyncio

        if self._alock is None:
            self._alock = asyncio.Lock()
        return self._alock

    # -- the subagents the core starts

    def _started_child(self, call_id: str, answered_first: bool) -> tuple | None:
        queue = self._starts.get(call_id)
        if queue:
            return queue.popleft()
        if answered_first and self._find((), "tools", call_id) is not None:
            return None
        return ()

    def child(self, call_id: str, answered_first: bool = False) -> tuple | None:
        """``(ns, input state, nodes)`` of the subagent the core started for ``call_id``, once
        it has; ``None`` if the run ended first, or (``answered_first``) the call was answered
        without one (the `task` call failed before starting it)."""
        with self._lock:
            while (found := self._started_child(call_id, answered_first)) == ():
                if not self._pull():
                    return None
            return found

    async def achild(self, call_id: str, answered_first: bool = False) -> tuple | None:
        async with self._async_lock():
            while (found := self._started_child(call_id, answered_first)) == ():
                if not await self._apull():
                    return None
            return found

    def ensure_started(self, node: str, arg: Any, config: dict) -> None:
        """Starts the core's run from ``node``'s task unless a task already has."""
        with self._lock:
            if self._events is None:
                self._events = self.begin(node, arg, config)

    async def aensure_started(self, node: str, arg: Any, config: dict) -> None:
        async with self._async_lock():
            if self._events is None:
                events = self.begin(node, arg, config)
                self._events = await events if inspect.isawaitable(events) else events

    def start_resuming(self, node: str, arg: Any, config: dict, subagent: tuple, expected: int) -> None:
        """Starts the core's run at ``node`` (the `tools` task of a `task` call), resuming
        the subagent ``(call id, state, node, steps run, task config, finished calls)``
        inside it, once the ``expected`` subagents of the step that resume have all asked
        (LangGraph runs their tasks side by side; the core resumes them in one run)."""
        with self._resumes_ready:
            self._resumes[subagent[0]] = subagent
            self._resumes_ready.notify_all()
            self._resumes_ready.wait_for(lambda: len(self._resumes) >= expected or self.started, _RESUME_WAIT)
        with self._lock:
            if self._events is None:
                self._resumed_with = set(self._resumes)
                self._events = self.begin(node, arg, config, list(self._resumes.values()))
            self._check_resumed(subagent)

    async def astart_resuming(self, node: str, arg: Any, config: dict, subagent: tuple, expected: int) -> None:
        import asyncio

        if self._aresumes_ready is None:
            self._aresumes_ready = asyncio.Condition()
        async with self._aresumes_ready:
            self._resumes[subagent[0]] = subagent
            self._aresumes_ready.notify_all()
            try:
                await asyncio.wait_for(
                    self._aresumes_ready.wait_for(lambda: len(self._resumes) >= expected or self.started), _RESUME_WAIT
                )
            except TimeoutError:
                pass
        async with self._async_lock():
            if self._events is None:
                self._resumed_with = set(self._resumes)
                events = self.begin(node, arg, config, list(self._resumes.values()))
                self._events = await events if inspect.isawaitable(events) else events
            self._check_resumed(subagent)

    def _check_resumed(self, subagent: tuple) -> None:
        if subagent[0] not in self._resumed_with:
            from ._run_options import _planned

            # Its task came after the core had started without it (past the wait).
            raise _planned("resuming a subagent whose task started after the others of its step", "durable threads")

    def _missing(self, node: str, config: dict, ns: tuple = ()) -> BaseException:
        if ns in self._paused:
            self._error_raised = True
            return _in_task(self._paused[ns], config)
        if self._error is not None:
            self._error_raised = True
            return _in_task(self._error, config)
        return RuntimeError(f"deepagents_rs: the run ended without the thread's node {node!r} (a bug)")

    def error_state(self) -> dict | None:
        """The core's state when its run failed (or stopped for an interrupt)."""
        state = getattr(self._error, "partial_state", None)
        return state if isinstance(state, dict) else None

    def drain(self) -> None:
        """Reads what is left of the core's stream (the run's last items)."""
        if self._events is not None:
            while self._pull():
                pass
        self._raise_unraised()

    async def adrain(self) -> None:
        if self._events is not None:
            while await self._apull():
                pass
        self._raise_unraised()

    def _raise_unraised(self) -> None:
        """A failure no node of the graph took up (it had already ended) still ends the run."""
        if self._error is not None and not self._error_raised:
            self._error_raised = True
            raise self._error

    def close(self) -> None:
        self._graph_closed()
        if self._events is not None and hasattr(self._events, "close"):
            self._events.close()

    async def aclose(self) -> None:
        self._graph_closed()
        if self._events is not None and hasattr(self._events, "aclose"):
            await self._events.aclose()


#: Marks an interrupt raised by a subgraph that already ran in its own task (a compiled
#: subagent's): its ids are LangGraph's own and stay.
PLACED = "_deepagents_rs_placed"


def _in_task(error: BaseException, config: dict) -> BaseException:
    """The run's failure as the thread graph's task raises it. An ``interrupt()`` the core's
    host code called (a human-in-the-loop hook, a tool) is LangGraph's ``GraphInterrupt``,
    whose ids LangGraph derives from the interrupting task's namespace: the core called it
    ahead of this task, so the ids are derived again from this task's."""
    from langgraph.errors import GraphInterrupt

    if not isinstance(error, GraphInterrupt) or not error.args or getattr(error, PLACED, False):
        return error
    from langgraph._internal._constants import CONFIG_KEY_CHECKPOINT_NS
    from langgraph.types import Interrupt, _interrupt_id

    ns = (config.get("configurable") or {}).get(CONFIG_KEY_CHECKPOINT_NS)
    if not ns:
        return error
    interrupts = tuple(
        Interrupt(value=i.value, id=_interrupt_id(ns, n), response_schema=getattr(i, "response_schema", None))
        for n, i in enumerate(error.args[0])
    )
    return GraphInterrupt(interrupts)


def _update_messages(update: Any) -> list[Any]:
    writes = update if isinstance(update, list) else [update]
    out: list[Any] = []
    for w in writes:
        if isinstance(w, dict) and isinstance(w.get("messages"), list):
            out.extend(w["messages"])
    return out


def _answered(update: Any) -> list[str]:
    return [m.tool_call_id for m in _update_messages(update) if getattr(m, "type", None) == "tool"]


def _task_call_of(node: str, arg: Any) -> dict | None:
    """The `task` call a `tools` task runs, if it runs one."""
    if node == "tools" and isinstance(arg, list) and len(arg) == 1 and isinstance(arg[0], dict):
        return arg[0] if arg[0].get("name") == "task" and arg[0].get("id") else None
    return None


def _call_id(node: str, arg: Any) -> str | None:
    """A `tools` task sent one call (LangChain's `Send("tools", [call])`) answers that call."""
    if node == "tools" and isinstance(arg, list) and len(arg) == 1 and isinstance(arg[0], dict):
        return arg[0].get("id")
    return None


def _task_id(config: dict) -> Any:
    from langgraph._internal._constants import CONFIG_KEY_TASK_ID

    return (config.get("configurable") or {}).get(CONFIG_KEY_TASK_ID)


def _command(update: Any) -> Any:
    from langgraph.types import Command

    if isinstance(update, list):
        # One node's several writes, in order.
        update = [(k, v) for w in update if isinstance(w, dict) for k, v in w.items()]
    return Command(update=update)


def goto_of(kind: str, value: Any) -> Any:
    """A route the core reports (`Event::Route`) as LangGraph's edge result."""
    if kind == "node":
        return value
    if kind == "calls":
        from langgraph.types import Send

        # LangChain's edge: one `tools` task per pending call.
        return [Send("tools", [call]) for call in value]
    return _END
