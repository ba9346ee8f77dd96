"""Subagents checkpointed as deepagents checkpoints them: the subagent a `task` call starts is a
subgraph of that call's task, with its checkpoints under the task's namespace
(``tools:<task id>``) in the parent's thread. A run stopped by an interrupt inside a subagent
resumes it from there: the subagent's finished steps are not run again.

The core runs the subagent, as it runs the agent. Inside the `task` call's `tools` task, a
graph of the subagent's nodes (a ``ThreadGraph`` without a saver of its own: LangGraph hands
it the parent's) follows the subagent's writes in the core's stream, as the agent's thread
graph follows the agent's. When the parent resumes, LangGraph loads that graph's checkpoint
and runs the node the subagent stopped in; that node starts the core's run, asking it to
resume the subagent there (``CoreAgent.stream(subagents=...)``).
"""

from __future__ import annotations

from typing import Any

from ._thread_feed import Feed, _task_call_of


def _runs_to_its_end() -> Any:
    """A run control never drained, for a followed subagent's graph: the subagent runs to
    its end when the run drains, and the run stops at its own next step. LangGraph would
    hand the parent's control down and stop the subgraph midway, but the core runs the
    subagent ahead of the graph following it, so the subagent's steps are not drained."""
    from langgraph.runtime import RunControl

    return RunControl()


#: deepagents compiles subagents with this recursion limit (the core's too); the graph that
#: follows one must not stop before the core does.
_SUBAGENT_RECURSION_LIMIT = 9_999 + 1


class SubagentThreads:
    """The subagents the core runs (declarative ones and forks), followed as subgraphs of
    their `task` calls' tasks. Compiled subagents are the host's own graphs, left to it."""

    def __init__(
        self, nodes: dict[str, list[str]], schemas: dict[str, list[type]], forks: set[str], files: bool = True
    ) -> None:
        self._nodes = nodes
        self._schemas = schemas
        self._forks = forks
        #: Whether their states have a `files` channel: as the agent's (the same backend).
        self._files = files
        self._graphs: dict[str, Any] = {}

    def names(self) -> set[str]:
        return set(self._nodes)

    def followed_call(self, node: str, arg: Any) -> dict | None:
        """The `task` call a `tools` task runs, when the core runs its subagent."""
        call = _task_call_of(node, arg)
        args = call.get("args") if call is not None else None
        if not isinstance(args, dict):
            return None
        return call if args.get("subagent_type") in self._nodes else None

    def _graph(self, name: str) -> Any:
        graph = self._graphs.get(name)
        if graph is None:
            from langchain.agents.middleware.types import AgentState

            from ._threads import StateSchemas, ThreadGraph

            # deepagents' subagent is LangChain's `create_agent` graph: its `messages` a
            # plain `add_messages` channel (its metadata is the task's: `_sub_config`).
            schemas = [*self._schemas.get(name, []), *([_forked_context_state()] if name in self._forks else [])]
            thread = ThreadGraph(
                self._nodes[name], StateSchemas(schemas, AgentState, self._files), None, name, {}, _no_route
            )
            graph = self._graphs[name] = thread.graph
        return graph

    def follow(self, feed: Feed, call: dict, arg: Any, config: dict) -> None:
        """Follows the subagent of ``call`` as a subgraph of this task, until it ends (or
        stops: its interrupt is raised here, as LangGraph raises a subgraph's)."""
        name = call["args"]["subagent_type"]
        feed.name_subagent(call["id"], config)
        view = _SubagentView(feed, call["id"], arg, config, self._graph(name))
        graph_input = None
        if not _resumable(config, _saved(config)):
            child = self._fresh_child(feed, call, arg, config)
            if child is None:
                return
            view.ns, graph_input = child[0], _graph_input(child[1], name in self._forks)
        with _streams_interrupt(feed, view):
            for _ in view.graph.stream(graph_input, _sub_config(config, view, name), control=_runs_to_its_end()):
                pass

    async def afollow(self, feed: Feed, call: dict, arg: Any, config: dict) -> None:
        name = call["args"]["subagent_type"]
        feed.name_subagent(call["id"], config)
        view = _SubagentView(feed, call["id"], arg, config, self._graph(name))
        graph_input = None
        if not _resumable(config, await _asaved(config)):
            child = await self._afresh_child(feed, call, arg, config)
            if child is None:
                return
            view.ns, graph_input = child[0], _graph_input(child[1], name in self._forks)
        with _streams_interrupt(feed, view):
            async for _ in view.graph.astream(graph_input, _sub_config(config, view, name), control=_runs_to_its_end()):
                pass

    def stopped_calls(self, snapshot: Any, task_config: dict) -> list[str]:
        """The `task` calls of the step ``snapshot`` stopped in whose subagents (the ones
        followed here) stopped inside: each resumes from its own checkpoint, all in the one
        run of the core, whichever of their tasks starts it."""
        found = _parent_at(task_config)
        if found is None:
            return []
        saver, parent_at, prefix = found
        calls = self._followed_calls(_interrupted_calls(saver.get_tuple(snapshot.config), snapshot))
        return [c for t, c in calls if _stopped_inside(saver.get_tuple(_at(parent_at, f"{prefix}tools:{t}")))]

    async def astopped_calls(self, snapshot: Any, task_config: dict) -> list[str]:
        found = _parent_at(task_config)
        if found is None:
            return []
        saver, parent_at, prefix = found
        calls = self._followed_calls(_interrupted_calls(await saver.aget_tuple(snapshot.config), snapshot))
        return [c for t, c in calls if _stopped_inside(await saver.aget_tuple(_at(parent_at, f"{prefix}tools:{t}")))]

    def _followed_calls(self, tasks: dict[str, tuple[str, Any]]) -> list[tuple[str, str]]:
        """``(task id, call id)`` of the tasks that run a followed subagent's `task` call."""
        out = []
        for task_id, (node, arg) in tasks.items():
            call = self.followed_call(node, arg)
            if call is not None:
                out.append((task_id, call["id"]))
        return out

    @staticmethod
    def _fresh_child(feed: Feed, call: dict, arg: Any, config: dict) -> tuple | None:
        """The subagent the core starts for ``call`` (the core started here if no task has
        yet); ``None`` when the call was answered without one."""
        if not feed.started:
            feed.ensure_started("tools", arg, config)
        return feed.child(call["id"], answered_first=True)

    @staticmethod
    async def _afresh_child(feed: Feed, call: dict, arg: Any, config: dict) -> tuple | None:
        if not feed.started:
            await feed.aensure_started("tools", arg, config)
        return await feed.achild(call["id"], answered_first=True)


class _SubagentView:
    """What the nodes of a subagent's graph read: the core's stream under the subagent's
    namespace. The first node of a resumed subagent starts the core's run there."""

    def __init__(self, feed: Feed, call_id: str, root_arg: Any, root_config: dict, graph: Any) -> None:
        self.feed = feed
        self.call_id = call_id
        #: The subagent's graph, and where its checkpoints are.
        self.graph = graph
        #: The `tools` task of the `task` call: where the core's run starts when it resumes.
        self._root = (root_arg, root_config)
        #: The core's namespace of the subagent, once it has started.
        self.ns: tuple | None = None

    def _resumed(self, node: str, arg: Any, config: dict, snapshot: Any = None) -> tuple:
        """The subagent to resume at ``node``: its state is the node's input, or for one of
        its `tools` tasks (a single call) its checkpoint's, with the step's finished calls."""
        step = (config.get("metadata") or {}).get("langgraph_step", 1)
        answered: list[str] = []
        if snapshot is not None:
            from ._threads import finished_calls

            arg, (answered, _writes) = dict(snapshot.values), finished_calls(snapshot)
        return (self.call_id, arg, node, max(step - 1, 0), config, answered)

    def _checkpoint(self) -> dict:
        """The config that reads the subagent's checkpoint (with the saver LangGraph hands it)."""
        from deepagents_rs._langgraph_private import CONFIG_KEY_CHECKPOINTER

        saver, at = _saved_at(self._root[1]) or (None, {"configurable": {}})
        return {"configurable": {**at["configurable"], CONFIG_KEY_CHECKPOINTER: saver}}

    def take(self, node: str, arg: Any, config: dict) -> Any:
        if self.ns is None:
            snapshot = None if isinstance(arg, dict) else self.graph.get_state(self._checkpoint())
            self.feed.start_resuming("tools", *self._root, self._resumed(node, arg, config, snapshot))
            child = self.feed.child(self.call_id)
            if child is None:
                raise self.feed._missing(node, config)
            self.ns = child[0]
        self.feed.task_configs.subgraph_step_started(self.ns, config)
        return self.feed.take_in(self.ns, node, arg, config)

    async def atake(self, node: str, arg: Any, config: dict) -> Any:
        if self.ns is None:
            snapshot = None if isinstance(arg, dict) else await self.graph.aget_state(self._checkpoint())
            await self.feed.astart_resuming("tools", *self._root, self._resumed(node, arg, config, snapshot))
            child = await self.feed.achild(self.call_id)
            if child is None:
                raise self.feed._missing(node, config)
            self.ns = child[0]
        self.feed.task_configs.subgraph_step_started(self.ns, config)
        return await self.feed.atake_in(self.ns, node, arg, config)

    def take_route(self, config: dict) -> tuple[bool, Any]:
        return self.feed.take_route(config)


class _streams_interrupt:
    """A subagent stopped by an interrupt: LangGraph streams its ``__interrupt__`` update under
    the subagent's namespace (seen with ``subgraphs=True``) before its parent's."""

    def __init__(self, feed: Feed, view: _SubagentView) -> None:
        self._feed, self._view = feed, view

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        from langgraph.errors import GraphInterrupt

        if isinstance(exc, GraphInterrupt) and exc.args and self._view.ns is not None:
            self._feed.forward(("updates", self._view.ns, ("__interrupt__", tuple(exc.args[0]), False)))


def _parent_at(task_config: dict) -> tuple[Any, dict, str] | None:
    """The saver, the parent's checkpoint config and the prefix of its tasks' namespaces, for
    the `tools` task ``task_config`` is of."""
    found = _saved_at(task_config)
    if found is None:
        return None
    saver, at = found
    own = at["configurable"]["checkpoint_ns"]
    parent = own.rsplit("|", 1)[0] if "|" in own else ""
    parent_at = {"configurable": {**at["configurable"], "checkpoint_ns": parent}}
    return saver, parent_at, f"{parent}|" if parent else ""


def _interrupted_calls(saved: Any, snapshot: Any) -> dict[str, tuple[str, Any]]:
    """The `tools` tasks of the step ``snapshot`` stopped in that an interrupt stopped, by
    task id: what each ran (``(node, arg)`` of its `Send`, which the checkpoint keeps in
    ``__pregel_tasks``, in the order of the tasks' paths)."""
    if saved is None:
        return {}
    stopped = {w[0] for w in (saved.pending_writes or []) if w[1] == "__interrupt__"}
    sends = saved.checkpoint.get("channel_values", {}).get("__pregel_tasks") or []
    out: dict[str, tuple[str, Any]] = {}
    for task in snapshot.tasks:
        path = task.path
        if task.id in stopped and len(path) > 1 and path[0] == "__pregel_push" and isinstance(path[1], int):
            send = sends[path[1]] if path[1] < len(sends) else None
            if send is not None:
                out[task.id] = (send.node, send.arg)
    return out


def _at(config: dict, ns: str) -> dict:
    return {"configurable": {**config["configurable"], "checkpoint_ns": ns}}


def _stopped_inside(saved: Any) -> bool:
    return saved is not None and any(w[1] == "__interrupt__" for w in saved.pending_writes or [])


def _no_route(node: str, state: dict) -> Any:
    """A subagent's graph routes only as the core went (it is never updated on its own)."""
    return "__end__"


def _sub_config(config: dict, view: _SubagentView, name: str) -> dict:
    """The subgraph's config: the `tools` task's own (its saver, namespace, scratchpad and
    resuming flag, as LangGraph hands a subgraph called in a task), reading ``view``, with a
    subagent's metadata as deepagents' subagent graph and its tracing context set them (in
    every checkpoint it writes)."""
    from ._threads import _FEED

    metadata = {
        **(config.get("metadata") or {}),
        "ls_integration": "langchain_create_agent",
        "lc_agent_name": name,
        "ls_agent_type": "subagent",
    }
    return {
        **config,
        "metadata": metadata,
        "configurable": {**(config.get("configurable") or {}), _FEED: view},
        "recursion_limit": _SUBAGENT_RECURSION_LIMIT,
    }


def _saved_at(config: dict) -> tuple[Any, dict] | None:
    """The saver and the checkpoint config of the subgraph this task would run."""
    from deepagents_rs._langgraph_private import CONFIG_KEY_CHECKPOINT_NS, CONFIG_KEY_CHECKPOINTER

    configurable = config.get("configurable") or {}
    saver = configurable.get(CONFIG_KEY_CHECKPOINTER)
    if saver is None or "thread_id" not in configurable:
        return None
    return saver, {
        "configurable": {
            "thread_id": configurable["thread_id"],
            "checkpoint_ns": configurable.get(CONFIG_KEY_CHECKPOINT_NS, ""),
        }
    }


def _saved(config: dict) -> Any:
    found = _saved_at(config)
    return found[0].get_tuple(found[1]) if found is not None else None


async def _asaved(config: dict) -> Any:
    found = _saved_at(config)
    return await found[0].aget_tuple(found[1]) if found is not None else None


def _resumable(config: dict, saved: Any) -> bool:
    """Whether LangGraph resumes the subgraph from its checkpoint (as it decides: the parent
    resumes, and the subgraph has checkpointed something) rather than starting it afresh."""
    from deepagents_rs._langgraph_private import CONFIG_KEY_RESUMING

    resuming = (config.get("configurable") or {}).get(CONFIG_KEY_RESUMING)
    return bool(resuming) and saved is not None and bool(saved.checkpoint.get("channel_versions"))


#: deepagents marks a fork's state with this key (a channel of the fork's graph).
_FORKED_CONTEXT_KEY = "_deepagents_forked_context"


def _forked_context_state() -> type:
    """The state schema that declares the fork marker, as deepagents' fork graph has it: in
    its input, not its output."""
    from typing import Annotated, NotRequired

    from langchain.agents.middleware.types import OmitFromSchema
    from typing_extensions import TypedDict

    return TypedDict(
        "ForkedContextState",
        {_FORKED_CONTEXT_KEY: NotRequired[Annotated[bool, OmitFromSchema(input=False, output=True)]]},
    )


def _graph_input(state: dict, fork: bool) -> dict:
    """The subagent's input as its graph takes it: the state the core started it from, in
    deepagents' order: an isolated subagent's the caller's keys it passes on, then the
    task's `messages`; a fork's its conversation first and its marker last."""
    from ._convert import from_core

    others = [k for k in state if k not in ("files", "messages")]
    keys = ["messages", "files", *others] if fork else ["files", *others, "messages"]
    out = {k: state[k] for k in keys if state.get(k) is not None}
    if fork:
        out[_FORKED_CONTEXT_KEY] = True
    messages = [from_core(m) if isinstance(m, dict) else m for m in out.get("messages") or []]
    out["messages"] = messages
    return out
