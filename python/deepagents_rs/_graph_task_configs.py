"""What the core asks of the thread graph following it (``_thread_feed``): the config of a
`tools` task that runs a compiled subagent's `task` call, and the checkpoint map each step's
tasks run from, in the agent's graph and in the graphs following its subagents. The core runs
ahead of the graph, so each question waits for the graph's task to get there."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable


class TaskConfigs:
    """The configs of the `tools` tasks that run `task` calls of compiled subagents, by call:
    the core calls a compiled subagent (a LangGraph graph, usually) ahead of the thread graph,
    and waits here for its task, so the subagent runs as a subgraph of that task (its
    checkpoints under the task's namespace, its interrupts resumed from them), as in
    deepagents, where the `task` tool hands the subagent its task's config."""

    def __init__(self) -> None:
        self._configs: dict[str, dict] = {}
        #: Entered as ``with self._ready_lock`` (the condition's own lock): a ``Condition``'s
        #: ``with`` is two Python calls around the lock's, and every task's start takes it.
        self._ready_lock = threading.RLock()
        self._ready = threading.Condition(self._ready_lock)
        self._waiting: dict[str, asyncio.Event] = {}
        #: The checkpoint map of each step's tasks (the checkpoint the step runs from), for
        #: the tasks the core runs itself (`_task_config`).
        self._steps: dict[int, dict] = {}
        #: The same for the graphs following subagents, by the core's namespace of the
        #: subagent and its step, with the subagent's namespace in the agent's graph.
        self._subgraph_steps: dict[tuple, tuple[list[str], dict]] = {}
        #: Whether the graph's run is over: it starts no step any more.
        self._over = False
        #: How many callers wait on `_ready`: a step's start (every task of every step)
        #: wakes nobody when none does (`_notify`).
        self._waiters = 0

    def _wait_for(self, ready: Callable[[], bool], timeout: float | None) -> None:
        """``self._ready.wait_for(ready, timeout)``, counted in `_waiters`; the caller holds
        `_ready`."""
        self._waiters += 1
        try:
            self._ready.wait_for(ready, timeout)
        finally:
            self._waiters -= 1

    def _notify(self) -> None:
        # The caller holds `_ready`.
        if self._waiters:
            self._ready.notify_all()

    def over(self) -> None:
        """The graph's run is over (ended, failed or stopped): whoever waits for a step of
        it stops waiting."""
        with self._ready_lock:
            self._over = True
            self._notify()

    def step_started(self, config: dict) -> None:
        step = (config.get("metadata") or {}).get("langgraph_step")
        checkpoints = (config.get("configurable") or {}).get("checkpoint_map")
        if isinstance(step, int) and checkpoints is not None:
            with self._ready_lock:
                # The task's own map (made for it by the loop, changed by nobody): kept as it is.
                self._steps[step] = checkpoints
                self._notify()

    def subgraph_step_started(self, core_ns: tuple, config: dict) -> None:
        """A task of the graph following the subagent the core runs under ``core_ns`` (its
        own namespace segments) started: its step's checkpoint map, and the namespace the
        subagent has as that graph's (its `task` call's task's, not the core's)."""
        step = (config.get("metadata") or {}).get("langgraph_step")
        configurable = config.get("configurable") or {}
        checkpoints = configurable.get("checkpoint_map")
        task_ns = str(configurable.get("checkpoint_ns") or "")
        if isinstance(step, int) and checkpoints is not None and "|" in task_ns:
            with self._ready_lock:
                self._subgraph_steps[(tuple(core_ns), step)] = (task_ns.split("|")[:-1], dict(checkpoints))
                self._notify()

    def subgraph_step(self, core_ns: tuple, step: int, timeout: float) -> tuple[list[str], dict] | None:
        """``(namespace, checkpoint map)`` of the followed subagent's ``step`` (see
        ``subgraph_step_started``), waiting up to ``timeout`` seconds for its graph to start
        that step: it follows the core a little behind, and starts only once the agent's
        graph has started the `task` call's task."""
        key = (tuple(core_ns), step)
        with self._ready_lock:
            self._wait_for(lambda: key in self._subgraph_steps or self._over, timeout)
            return self._subgraph_steps.get(key)

    def step_checkpoints(self, step: int, timeout: float) -> dict | None:
        """The checkpoint map of ``step``'s tasks, once the graph has started that step (it
        follows the core a little behind), or ``None`` if its run is over first or
        ``timeout`` seconds pass."""
        # A dict's look-up is atomic, and a step found here is what the wait below would find
        # at once: a step the graph has started already (about half the steps of a native
        # run; the others wait for it) is answered without taking the condition.
        found = self._steps.get(step)
        if found is not None:
            return found
        with self._ready_lock:
            self._wait_for(lambda: step in self._steps or self._over, timeout)
            return self._steps.get(step)

    def put(self, call_id: str, config: dict) -> None:
        with self._ready_lock:
            self._configs[call_id] = config
            self._notify()
        event = self._waiting.pop(call_id, None)
        if event is not None:
            event.set()

    def wait(self, call_id: str, timeout: float = 60.0) -> dict | None:
        """The task's config once its task runs (``None`` if it never does)."""
        with self._ready_lock:
            self._wait_for(lambda: call_id in self._configs, timeout)
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
