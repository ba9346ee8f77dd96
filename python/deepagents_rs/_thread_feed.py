"""One run's stream from the core, as the thread graph's nodes read it (see ``_threads``).

Each node of the thread graph takes its own write from the core's stream, and where the core
went after it. The core runs ahead; the graph follows. A subagent the core runs is followed
by a graph of its own inside its ``task`` call's task (``_subagent_threads``), reading its
writes from the same stream under the subagent's namespace.
"""

from __future__ import annotations

import bisect
import collections
import contextvars
import inspect
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._graph_task_configs import TaskConfigs
from ._late_subagents import LateSubagents
from ._task_interrupts import in_task
from ._task_namespaces import TaskNamespaces
from ._task_places import place_of

if TYPE_CHECKING:
    import asyncio

_END = "__end__"


#: The run's `TaskConfigs`, while the core runs under a thread graph (read by
#: `_compiled_subagent.RunnableAdapter`, in the contextvars the core's run keeps).
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
        late: LateSubagents | None = None,
    ) -> None:
        #: ``start(node, arg, steps_before, task_config, subagents)`` starts the core's run.
        self._start = start
        #: The subagents whose tasks start after the run has (see `start_resuming`).
        self._late = late
        #: The run's exception: raised by the node the core was in when it failed.
        self._error: BaseException | None = None
        self._error_raised = False
        self._forward = forward
        #: Whether the core's ``routes`` items go to ``forward`` too: the caller's stream
        #: makes chunks of them only for some modes (`_stream.Shaper.reads_routes`).
        self.forward_routes = True
        self._events: Any = None
        #: The stream's ``try_next`` (see `_queued`), once it has started, if it has one.
        self._try_next: Callable[[], Any] | None = None
        #: The core's node writes and routes, in order: `("update", ns, node, write)` and
        #: `("route", ns, node, (kind, value))`.
        self._entries: list[tuple[str, tuple, str, Any]] = []
        #: The indexes of the writes no node has taken yet, and of the routes, by namespace
        #: and node (what a node looks for, without a pass over the whole run).
        self._untaken: dict[tuple[tuple, str], list[int]] = {}
        self._routes_at: dict[tuple[tuple, str], list[int]] = {}
        #: The subagents the core started, by their `task` call: `(ns, input state, nodes)`.
        self._starts: dict[str, collections.deque] = {}
        #: The interrupts subagents stopped for, by their namespace.
        self._paused: dict[tuple, BaseException] = {}
        #: Where each task the core ran goes next, by task id.
        self.routes: dict[str, Any] = {}
        #: Where each `tools` task of the model's calls goes, by namespace and call: the core
        #: reports it before the call's write (`Event::CallRoute`).
        self._call_routes: dict[tuple[tuple, str], tuple[str, Any]] = {}
        #: The routes some task already took (see `_route`), by entry index.
        self._sent_routes: set[int] = set()
        #: The place among its step's tasks of the node of each write that has one (see
        #: `_task_places`), by entry index; and the place the core reported last, by
        #: namespace and node, which the node's next write has.
        self._place_of: dict[int, int] = {}
        self._places: dict[tuple[tuple, str], int] = {}
        #: The subagents followed as subgraphs (`_subagent_threads.SubagentThreads`), if any.
        self.subagents = subagents
        #: The run's `MessageObjects` (its states' and result's message objects), once the
        #: run starts: each message the agent's nodes write is made an object once, here, and
        #: the states show that object, as LangGraph's show the one its channel holds.
        self.message_objects: Any = None
        #: The tasks of compiled subagents' calls (see `TaskConfigs`).
        self.task_configs = TaskConfigs()
        #: The followed subagents' namespaces, as their tasks' (see `TaskNamespaces`).
        self.namespaces = TaskNamespaces()
        self._ended = False
        #: Guards what the core's stream brought (`_accept`); released while a task waits for
        #: the core's next item (see `_pull`). A plain lock: `_pull` releases it once. Entered
        #: as ``with self._held_lock`` (the condition's own lock): a ``Condition``'s ``with``
        #: is two Python calls around the lock's.
        self._held_lock = threading.Lock()
        self._lock = threading.Condition(self._held_lock)
        #: Tasks waiting in `_pull` for another's read (notified only when there are).
        self._pull_waits = 0
        self._alock: asyncio.Condition | None = None
        #: Whether a task is waiting for the core's next item (one at a time; `_pull`).
        self._reading = False
        self._areading = False
        #: Held only while the run starts: a task handing over a subagent must not wait for
        #: `_lock`, which the task starting the run holds meanwhile (`take_in`).
        self._begin_lock = threading.Lock()
        self._abegin_lock: asyncio.Lock | None = None
        #: The agent graph's steps whose tasks have started, and the core's node boundaries
        #: passed (see `core_boundary`); `_closed` once the graph's run is over.
        self._graph_steps: set[int] = set()
        self._boundaries = 0
        self._closed = False
        #: Entered as ``with self._steps_lock``, as `_held_lock` is.
        self._steps_lock = threading.RLock()
        self._steps_seen = threading.Condition(self._steps_lock)
        #: Whether the core waits in `core_boundary` (a step's start wakes it only then).
        self._boundary_waits = 0

    # -- run control (LangGraph's `control=`)

    def _step_started(self, config: dict) -> None:
        step = (config.get("metadata") or {}).get("langgraph_step")
        self.task_configs.step_started(config)
        with self._steps_lock:
            if step not in self._graph_steps:
                self._graph_steps.add(step)
                # Only the core waits here (`core_boundary`), and only when it is ahead.
                if self._boundary_waits:
                    self._steps_seen.notify_all()

    def _graph_closed(self) -> None:
        self.task_configs.over()
        with self._steps_lock:
            self._closed = True
            self._steps_seen.notify_all()

    def task_failed(self, error: BaseException) -> None:
        """A task of the graph failed: LangGraph cancels the step's tasks not yet started
        and, once the running ones are done, ends the run, starting no other step. What the
        core waits for of the graph (a step's checkpoints, a subagent's step) ends now, not
        when the run does: the running tasks may be waiting for the core meanwhile. An
        interrupt is no failure: the step's other tasks all run."""
        from langgraph.errors import GraphBubbleUp

        if not isinstance(error, GraphBubbleUp):
            self._graph_closed()

    def core_boundary(self) -> bool:
        """The core asks before each node after its first (on a blocking thread) whether to
        stop there. The graph decides: LangGraph drains at its own step boundaries, and it
        follows the core a little behind, so the core waits until the graph has started the
        step of that node (go on) or has stopped without starting it (a drain: stop too).
        Otherwise a core ahead of the graph would run a node whose work the graph drops."""
        with self._steps_lock:
            self._boundaries += 1
            while len(self._graph_steps) <= self._boundaries and not self._closed:
                self._boundary_waits += 1
                try:
                    self._steps_seen.wait()
                finally:
                    self._boundary_waits -= 1
            return len(self._graph_steps) <= self._boundaries

    # -- reading the core's stream

    def _accept(self, item: tuple) -> None:
        mode, ns, payload = item
        if mode == "done":
            self._ended = True
        elif mode == "updates":
            node, value, core = payload
            update = _update_of(value, core)
            place = self._places.pop((ns, node), None)
            if place is not None:
                self._place_of[len(self._entries)] = place
            self._untaken.setdefault((ns, node), []).append(len(self._entries))
            if core and not ns and self.message_objects is not None:
                _made_objects(self.message_objects, value, update)
            self._entries.append(("update", ns, node, update))
        elif mode == "routes":
            node, kind, value = payload
            if kind == "subagent":
                call_id, state, nodes, _name = value
                self._starts.setdefault(call_id, collections.deque()).append((ns, state, nodes))
            elif kind == "place":
                # The next write of ``node`` is the task's of that place (a task stopped
                # by an interrupt has none, and the next place replaces this one).
                self._places[(ns, node)] = value
            elif kind == "call":
                call_id, route, value = value
                self._call_routes[(ns, call_id)] = (route, value)
            elif kind == "paused":
                # A subagent stopped for its own interrupt: the graph following it stops with
                # that one (the run's error is the first of its step's).
                self._paused[ns] = value[1]
            else:
                self._routes_at.setdefault((ns, node), []).append(len(self._entries))
                self._entries.append(("route", ns, node, (kind, value)))
        shown = self.namespaces.accept(item)
        if shown is not None and (mode != "routes" or self.forward_routes):
            self._forward(shown)

    def forward(self, item: tuple) -> None:
        """Hands the caller's stream an item of the graph's own (not the core's)."""
        self._forward(self.namespaces.renamed(item))

    def name_subagent(self, call_id: str, config: dict) -> None:
        """The `tools` task following the subagent of ``call_id`` names its namespace
        (`TaskNamespaces`)."""
        held = self.namespaces.name(call_id, config)
        if held:
            # The caller's stream is fed under the lock the core's reads hold.
            with self._held_lock:
                for item in held:
                    self._forward(item)

    def _pull(self) -> bool:
        """Reads the core's next item, the caller holding `_lock`; whether more may come.

        One task reads at a time, and it waits for the core with `_lock` released: what a
        sibling task looks for may have arrived already (its subagent's start, its write),
        and the core's next item may wait for that sibling (a subagent's node asks for its
        step's checkpoint, which its graph's task names only once it has its previous
        write). A task finding another reading waits for that one's item instead."""
        if self._ended:
            return False
        if self._reading:
            self._pull_waits += 1
            try:
                self._lock.wait()
            finally:
                self._pull_waits -= 1
            return True
        # What the core has queued already is read without letting go of `_lock` (see
        # `_queued`, inlined: most reads find their item).
        if (try_next := self._try_next) is not None:
            try:
                item = try_next()
            except Exception as exc:  # noqa: BLE001 - raised again by the node that failed
                return self._took("error", exc)
            if item is not None:
                self._accept(item)
                return True
        self._reading = True
        self._lock.release()
        try:
            try:
                read: tuple[str, Any] = ("item", next(self._events))
            except StopIteration:
                read = ("end", None)
            except Exception as exc:  # noqa: BLE001 - raised again by the node that failed
                read = ("error", exc)
        finally:
            self._lock.acquire()
            self._reading = False
            if self._pull_waits:
                self._lock.notify_all()
        return self._took(*read)

    async def _apull(self) -> bool:
        """`_pull` under `astream`, the caller holding the async `_lock`."""
        if self._ended:
            return False
        lock = self._async_lock()
        if self._areading:
            await lock.wait()
            return True
        if (queued := self._queued()) is not None:
            return self._took(*queued)
        self._areading = True
        lock.release()
        try:
            try:
                read: tuple[str, Any] = ("item", await self._events.__anext__())
            except StopAsyncIteration:
                read = ("end", None)
            except Exception as exc:  # noqa: BLE001 - raised again by the node that failed
                read = ("error", exc)
        finally:
            await lock.acquire()
            self._areading = False
            lock.notify_all()
        return self._took(*read)

    def _queued(self) -> tuple[str, Any] | None:
        """The core's next item if it is queued already (the core runs ahead), read
        without letting go of `_lock`, and under `astream` without an awaitable: a read that
        finds its item costs no more than the call. ``None`` when the read must wait (or
        the stream reads only by waiting)."""
        try_next = self._try_next
        if try_next is None:
            return None
        try:
            item = try_next()
        except Exception as exc:  # noqa: BLE001 - raised again by the node that failed
            return ("error", exc)
        return None if item is None else ("item", item)

    def _took(self, kind: str, value: Any) -> bool:
        """What a read brought: an item, the stream's end or the run's failure."""
        if kind == "item":
            self._accept(value)
            return True
        if kind == "error":
            self._error = value
        self._ended = True
        return False

    # -- what a node asks

    def _find(self, ns: tuple, node: str, call_id: str | None, place: int | None = None) -> int | None:
        for i in self._untaken.get((ns, node), ()):
            if call_id is not None and call_id not in _answered(self._entries[i][3]):
                continue
            if place is not None and self._place_of.get(i, place) != place:
                continue
            return i
        return None

    def _route(self, index: int) -> tuple[bool, Any]:
        """Where the core went after the write at ``index``: ``(known, goto)``. The core
        reports it before it runs the next node. The `tools` tasks of one step (a call
        each) share the tools node's one route: the first to take it sends its ``Send``s,
        the others only go where the edge goes, as LangGraph sends each once."""
        _kind, ns, node, _write = self._entries[index]
        routes = self._routes_at.get((ns, node), [])
        at = bisect.bisect_right(routes, index)
        if at < len(routes):
            route, value = self._entries[routes[at]][3]
            goto = goto_of(route, value)
            if routes[at] in self._sent_routes and isinstance(goto, list):
                goto = [g for g in goto if isinstance(g, str)] or _END
            self._sent_routes.add(routes[at])
            return True, goto
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

    def _taken_write(self, ns: tuple, node: str, call_id: str | None, place: int | None) -> int | None:
        """The index of ``node``'s write, once it has arrived (``call_id``: the call a `tools`
        task answers, `_call_id`; ``place``: see `_task_places`)."""
        index = self._find(ns, node, call_id, place)
        if index is not None:
            self._untaken[(ns, node)].remove(index)
        return index

    def take(self, node: str, arg: Any, config: dict) -> Any:
        """A node of the agent's own graph takes its write (a subagent's `task` call has its
        subgraph followed first)."""
        self._step_started(config)
        try:
            if (call := self._task_call(node, arg, config)) is not None:
                self.subagents.follow(self, call, arg, config)
            return self.take_in((), node, arg, config)
        except BaseException as exc:
            self.task_failed(exc)
            raise

    async def atake(self, node: str, arg: Any, config: dict) -> Any:
        self._step_started(config)
        try:
            if (call := self._task_call(node, arg, config)) is not None:
                await self.subagents.afollow(self, call, arg, config)
            return await self.atake_in((), node, arg, config)
        except BaseException as exc:
            self.task_failed(exc)
            raise

    def _task_call(self, node: str, arg: Any, config: dict) -> dict | None:
        """The `task` call of a subagent this task follows; any other `task` call's task
        config is kept for the compiled subagent the core calls (`TaskConfigs`)."""
        call = self.subagents.followed_call(node, arg) if self.subagents is not None else None
        if call is None and (task_call := _task_call_of(node, arg)) is not None:
            self.task_configs.put(task_call["id"], config)
        return call

    def take_in(self, ns: tuple, node: str, arg: Any, config: dict) -> Any:
        # Each of the agent's tasks of one node in one step takes the write of its place.
        place = place_of(node, arg, config) if ns == () else None
        call_id = _call_id(node, arg)
        with self._held_lock:
            self._begin_once(node, arg, config)
            while (index := self._taken_write(ns, node, call_id, place)) is None:
                if self._stopped(ns) or not self._pull():
                    raise self._missing(node, config, ns)
            route = self._call_route(ns, call_id)
            while not route[0] and not (route := self._route(index))[0] and not self._route_after_awaited(ns, node):
                self._pull()
            if route[0]:
                self._keep_route(config, route[1])
            return _command(self._entries[index][3])

    def _stopped(self, ns: tuple) -> bool:
        """Whether the subagent of ``ns`` stopped for an interrupt: it writes nothing more
        (its pause comes after its writes), so its graph's task stops now, not when the whole
        run ends, giving back its executor thread (a later task of the step may need it)."""
        return ns in self._paused

    def _call_route(self, ns: tuple, call_id: str | None) -> tuple[bool, Any]:
        """Where a `tools` task of one of the model's calls goes, ``(known, goto)``: its own
        route, which the core reports before the call's write, so the task ends once its call
        is answered. The step's route comes only once every call is; a task waiting for it
        would hold its executor thread meanwhile, which a later task of the step (a subagent
        whose calls wait for their graph to start) may need."""
        found = self._call_routes.pop((ns, call_id), None) if call_id is not None else None
        return (False, None) if found is None else (True, goto_of(*found))

    def _route_after_awaited(self, ns: tuple, node: str) -> bool:
        """Whether a `tools` task of a resumed step takes no route from the core: the core
        reports where it goes once every call of the step is answered, and a subagent it
        awaits starts only when this task has finished (see `LateSubagents`). Its edge then
        routes by the state, as the core's own edge would (see `ThreadGraph`)."""
        return bool(ns == () and node == "tools" and self._late is not None and self._late.awaited)

    async def atake_in(self, ns: tuple, node: str, arg: Any, config: dict) -> Any:
        place = place_of(node, arg, config) if ns == () else None
        call_id = _call_id(node, arg)
        async with self._async_lock():
            await self._abegin_once(node, arg, config)
            while (index := self._taken_write(ns, node, call_id, place)) is None:
                if self._stopped(ns) or not await self._apull():
                    raise self._missing(node, config, ns)
            route = self._call_route(ns, call_id)
            while not route[0] and not (route := self._route(index))[0] and not self._route_after_awaited(ns, node):
                await self._apull()
            if route[0]:
                self._keep_route(config, route[1])
            return _command(self._entries[index][3])

    def _async_lock(self) -> asyncio.Condition:
        if self._alock is None:
            # Imported only here, once a run (asyncio is not loaded at start-up): the lock is
            # asked for several times a step.
            import asyncio

            self._alock = asyncio.Condition()
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
        with self._held_lock:
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
        self._begin_once(node, arg, config)

    async def aensure_started(self, node: str, arg: Any, config: dict) -> None:
        await self._abegin_once(node, arg, config)

    def _begin_once(self, node: str, arg: Any, config: dict, subagents: list | None = None) -> bool:
        """Starts the core's run unless a task already has; whether this one did."""
        if self._events is not None:
            return False
        with self._begin_lock:
            if self._events is not None:
                return False
            self._events = self.begin(node, arg, config, subagents)
            self._try_next = getattr(self._events, "try_next", None)
            return True

    async def _abegin_once(self, node: str, arg: Any, config: dict, subagents: list | None = None) -> bool:
        if self._events is not None:
            return False
        if self._abegin_lock is None:
            # Imported here, once a run, not at each step's call (see `_async_lock`).
            import asyncio

            self._abegin_lock = asyncio.Lock()
        async with self._abegin_lock:
            if self._events is not None:
                return False
            events = self.begin(node, arg, config, subagents)
            self._events = await events if inspect.isawaitable(events) else events
            self._try_next = getattr(self._events, "try_next", None)
            return True

    def start_resuming(self, node: str, arg: Any, config: dict, subagent: tuple) -> None:
        """Starts the core's run at ``node`` (the `tools` task of a `task` call), resuming
        the subagent ``(call id, state, node, steps run, task config, finished calls)``
        inside it; or, when a sibling's task of the same step has started the run already,
        hands the run this subagent. LangGraph runs those tasks side by side as its executor
        has room; the core resumes them in one run, where a call whose task has not started
        yet waits for it (the run knows which will come: `_thread_runs`)."""
        if not self._begin_once(node, arg, config, [subagent]):
            self._hand_over(subagent)

    async def astart_resuming(self, node: str, arg: Any, config: dict, subagent: tuple) -> None:
        if not await self._abegin_once(node, arg, config, [subagent]):
            self._hand_over(subagent)

    def _hand_over(self, subagent: tuple) -> None:
        # Without the feed's lock: the task starting the run holds it meanwhile, and the
        # run may wait for this very subagent.
        if self._late is None:
            raise RuntimeError("deepagents_rs: a subagent resumed in a run that cannot take it (a bug)")
        self._late.hand_over(self._events, subagent)

    def _missing(self, node: str, config: dict, ns: tuple = ()) -> BaseException:
        if ns in self._paused:
            self._error_raised = True
            return in_task(self._paused[ns], config)
        if self._error is not None:
            self._error_raised = True
            return in_task(self._error, config)
        return RuntimeError(f"deepagents_rs: the run ended without the thread's node {node!r} (a bug)")

    def error_state(self) -> dict | None:
        """The core's state when its run failed (or stopped for an interrupt)."""
        state = getattr(self._error, "partial_state", None)
        return state if isinstance(state, dict) else None

    def drain(self) -> None:
        """Reads what is left of the core's stream (the run's last items), once the graph's
        run is over."""
        self.task_configs.over()
        if self._events is not None:
            with self._held_lock:
                while self._pull():
                    pass
        self._release()
        self._raise_unraised()

    async def adrain(self) -> None:
        self.task_configs.over()
        if self._events is not None:
            async with self._async_lock():
                while await self._apull():
                    pass
        self._release()
        self._raise_unraised()

    def _release(self) -> None:
        for item in self.namespaces.release():
            self._forward(item)

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


def _made_objects(objects: Any, raw: Any, update: Any) -> None:
    """Hands the run's `MessageObjects` the message objects ``update`` made of the core's
    ``raw`` write (a node's several writes each), those the core's dicts stand for: the
    states reuse them instead of making each message again."""
    if isinstance(raw, list):
        for r, u in zip(raw, update, strict=True):
            _made_objects(objects, r, u)
        return
    if not isinstance(raw, dict) or not raw.get("messages"):
        return
    # `RemoveMessage`s the write carries stand for no dict of the core's.
    made = [m for m in update["messages"] if getattr(m, "type", None) != "remove"]
    if len(made) == len(raw["messages"]):
        objects.seed(made, raw["messages"])


def _task_id(config: dict) -> Any:
    global _TASK_ID_KEY
    if _TASK_ID_KEY is None:
        from deepagents_rs._langgraph_private import CONFIG_KEY_TASK_ID

        _TASK_ID_KEY = CONFIG_KEY_TASK_ID
    return (config.get("configurable") or {}).get(_TASK_ID_KEY)


#: LangGraph's ``CONFIG_KEY_TASK_ID``, imported at the first `_task_id` (this module loads
#: no LangGraph: see `_langgraph_private`), then kept: an import at each call costs more
#: than the look-up.
_TASK_ID_KEY: str | None = None


def _update_of(value: Any, core: bool) -> Any:
    """`_stream._update`, imported at the first call (`_stream` imports this module's
    neighbours), then called directly."""
    global _update_of
    from ._stream import _update

    _update_of = _update
    return _update(value, core)


def _command(update: Any) -> Any:
    """``Command(update=update)``: made by `_frozen_records` (a node's every write is one), by
    a maker made at the first call (this module loads no LangGraph)."""
    global _COMMAND
    if _COMMAND is None:
        from langgraph.types import Command

        from ._frozen_records import Records

        _COMMAND = Records(Command, ("update",)).maker
    if isinstance(update, list):
        # One node's several writes, in order.
        update = [(k, v) for w in update if isinstance(w, dict) for k, v in w.items()]
    return _COMMAND(update)


_COMMAND: Any = None
#: LangGraph's ``Send``, imported at the first `goto_of` of a route that sends (this module
#: loads no LangGraph), then kept: an import at each call costs more than the look-up.
_SEND: Any = None


def goto_of(kind: str, value: Any) -> Any:
    """A route the core reports (`Event::Route`) as LangGraph's edge result."""
    if kind == "node":
        return value
    global _SEND
    if _SEND is None:
        from langgraph.types import Send

        _SEND = Send
    Send = _SEND
    if kind == "calls":
        # LangChain's edge: one `tools` task per pending call.
        return [Send("tools", [call]) for call in value]
    if kind == "send":
        return [Send(value[0], value[1])]
    if kind == "branches":
        # The edge's destination beside a tool command's gotos: all run in the next step.
        branches = [goto_of(k, v) for k, v in value]
        return [b for branch in branches for b in (branch if isinstance(branch, list) else [branch]) if b != _END]
    return _END
