"""The keys LangGraph puts in a task's ``configurable`` and ``Runtime.execution_info``, for the
tasks the core runs itself (a tool call's `tools` task): the task's id and namespace, the
checkpoint it runs from (``checkpoint_map``, by namespace) and ``checkpoint_id`` cleared.

On a checkpointed thread the checkpoint a task runs from is one the thread graph wrote
(``_threads``): each of the graph's tasks records its step's ``checkpoint_map``, and the task
the core runs waits for its step's (the graph follows the core a little behind).
Without a saver LangGraph still numbers its in-memory checkpoints; the core has none, so a
step gets an id of the same form (uuid6, the step as clock sequence), one per run and step.
"""

from __future__ import annotations

import binascii
import copy
import functools
import operator
import sys
import time
import uuid
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from ._runtime import running_loop

#: LangGraph's configurable keys (``langgraph._internal._constants``), spelled out so the
#: module imports without LangGraph.
TASK_ID_KEY = "__pregel_task_id"
CHECKPOINT_MAP_KEY = "checkpoint_map"
#: Where a checkpointed run's config carries its thread graph's `TaskConfigs`.
TASKS_KEY = "__deepagents_rs_task_configs"

#: The graphs following the run always start the step the core asks for (the agent's has
#: the core's previous writes; a subagent's starts once its `task` call's task has an
#: executor thread, which the step's other tasks give back as soon as their own calls are
#: answered), or the graph's run ends first, which ends the wait too. However long it takes
#: under load, ids made up meanwhile would be wrong (calls of one step with two checkpoint
#: ids). Only a bug would wait this long (seconds).
_STEP_BOUND = 120.0


@functools.cache
def _langgraph() -> SimpleNamespace:
    """LangGraph's names every tool call's config uses, imported on the first call (the module
    imports without LangGraph) and then kept: an import statement costs about a microsecond
    each time, and a call made several. ``checkpoint_id``: LangGraph's ``uuid6`` string made
    without its UUID objects (``_checkpoint_ids``: a third of a plain tool call's Python went
    to them, one id a step)."""
    from langgraph.runtime import ExecutionInfo, RunControl
    from xxhash import xxh3_128_hexdigest

    from ._checkpoint_ids import checkpoint_id
    from ._langgraph_private import _xxhash_str, task_path_str

    return SimpleNamespace(
        checkpoint_id=checkpoint_id,
        ExecutionInfo=ExecutionInfo,
        RunControl=RunControl,
        xxh3_128_hexdigest=xxh3_128_hexdigest,
        xxhash_str=_xxhash_str,
        task_path_str=task_path_str,
    )


@functools.cache
def _siblings() -> SimpleNamespace:
    """The names `node_task` and `acall_placed` use from modules that import this one
    (``_stream``), imported at the first call and then kept, as `_langgraph`'s are."""
    from ._run_context import RUNTIME_KEY
    from ._stream import RUN_NS_KEY, STORE_KEY, config_with_writer, node_callbacks, task_metadata

    return SimpleNamespace(
        RUNTIME_KEY=RUNTIME_KEY,
        RUN_NS_KEY=RUN_NS_KEY,
        STORE_KEY=STORE_KEY,
        config_with_writer=config_with_writer,
        node_callbacks=node_callbacks,
        task_metadata=task_metadata,
    )


class RunConfig(dict):
    """A run's config as the core holds it, for its whole run, carrying the ids made for the
    run (``ids``): its checkpoints without a saver, by (namespace, step), and its tool calls'
    task ids, by (namespace, step, call id). Its tool calls of one step share their checkpoint
    id, and a call's `wrap_tool_call` middleware and its tool share their task. The ids live
    and die with the run's config, so a run never loses its own nor sees another's; an
    attribute, not a key, so no config a tool or hook sees shows them. A copy (``dict()``,
    `copy`, pickle) is a plain dict without them."""

    __slots__ = ("control", "ids", "tasks", "tool_bases")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ids: dict[tuple, str] = {}
        #: The channels of the run's tool call tasks a `wrap_tool_call` middleware is running,
        #: by task namespace: the tool (and inner wrappers) share their writes.
        self.tasks: dict[str, Any] = {}
        #: The run's `RunControl` (LangGraph's ``Runtime.control`` in every task): the graph
        #: task's running the core, else one made for the run when first asked for.
        self.control: Any = None
        #: What the run's plain tool calls share (`_plain_tool_calls.RunBase`, or ``None`` where
        #: they keep the general path), by namespace, subagent and mode.
        self.tool_bases: dict[tuple, Any] = {}

    def __reduce__(self) -> tuple:
        return dict, (dict(self),)

    def __copy__(self) -> dict:
        return dict(self)

    def __deepcopy__(self, memo: dict) -> dict:
        return copy.deepcopy(dict(self), memo)


def _made(run: Any, key: tuple, make: Callable[[], str]) -> str:
    """The id ``make`` made for ``key`` of ``run`` (made now the first time)."""
    if not isinstance(run, RunConfig):
        # No run's config to tell this run's tasks from another's: an id of the call's own.
        return make()
    ids = run.ids
    found = ids.get(key)
    if found is not None:
        return found
    # When two calls race for one key the first stored wins (`setdefault` is atomic), so
    # both still get the same id.
    return ids.setdefault(key, make())


def run_control(run: Any) -> Any:
    """The `RunControl` of ``run``'s tasks: one per run, as LangGraph's loop hands every task
    of a run the same (a parent graph's, when the run is its subgraph)."""
    if not isinstance(run, RunConfig):
        inherited = getattr(((run or {}).get("configurable") or {}).get("__pregel_runtime"), "control", None)
        return inherited or _langgraph().RunControl()
    if run.control is None:
        inherited = getattr((run.get("configurable") or {}).get("__pregel_runtime"), "control", None)
        run.control = inherited or _langgraph().RunControl()
    return run.control


def made_checkpoint(run: Any, ns: str, step: int) -> str:
    """The id of the checkpoint ``run``'s step ``step`` runs from in the graph whose namespace
    is ``ns`` (joined), made for the run (no graph follows it)."""
    checkpoint_id = _langgraph().checkpoint_id
    return _made(run, (ns, step), lambda: checkpoint_id(max(step, 0)))


def step_checkpoint(run: Any, namespace: list[str] | None, step: int, known: dict | None) -> str | None:
    """The id of the checkpoint the run's step ``step`` runs from, in the graph whose
    namespace is ``namespace``: the graph's following the run (``known``), else the one
    made for the run's step."""
    ns = "|".join(namespace or ())
    if known is not None:
        return known.get(ns)
    return made_checkpoint(run, ns, step)


def tool_task_id(
    run: Any,
    namespace: list[str] | None,
    step: int,
    call_id: str | None,
    index: int | None = None,
    checkpoint: str | None = None,
    prefix: bytes | None = None,
) -> str:
    """The task id of the `tools` task running call ``call_id`` at ``step``: as LangGraph
    derives a `Send`'s task id (``langgraph.pregel._algo``: the step's checkpoint, the node's
    namespace, the step, the node and the send's place, the ``index``-th of the step's
    sends), when the checkpoint is known; otherwise one of its own. ``prefix``: the step's
    `send_prefix`, when the caller keeps it for the step's calls."""
    if call_id is None:
        return str(uuid.uuid4())
    return _made(
        run,
        ("|".join(namespace or ()), step, call_id),
        lambda: _send_task_id(namespace, step, index, checkpoint, prefix),
    )


def send_prefix(namespace: list[str] | None, step: int, checkpoint: str) -> bytes:
    """What LangGraph hashes into the task id of each `tools` send at ``step`` (from
    ``checkpoint``) before the send's index: the checkpoint's bytes, the node's namespace, the
    step, the node and the send's trigger; the same for every call of the step."""
    node_ns = "|".join([*(namespace or ()), "tools"])
    return binascii.unhexlify(checkpoint.replace("-", "")) + f"{node_ns}{step}tools__pregel_push".encode()


def subagent_task_id(run: Any, namespace: list[str], step: int, call_id: str, index: int) -> str | None:
    """The id of the `tools` task running call ``call_id`` of ``run`` (the core's namespace
    and step), for a subagent the call starts to run under (``src/tools/call_task.rs``): the
    id the call's config, callbacks and notes carry. ``None`` on a thread run: the graph
    following it names the call's task later, and renames the subagent's items then
    (`_task_namespaces`); and without a run's config, where no id could be shared."""
    configurable = (run or {}).get("configurable") or {}
    if not isinstance(run, RunConfig) or configurable.get(TASKS_KEY) is not None:
        return None
    checkpoint = step_checkpoint(run, namespace, step, None)
    return tool_task_id(run, namespace, step, call_id, index, checkpoint)


def node_task_id(run: Any, namespace: list[str] | None, step: int, node: str, checkpoint: str | None) -> str:
    """The task id of ``node`` at ``step`` (a hook's node, or ``model``), run by its edge: as
    LangGraph derives a node's task id (the step's checkpoint, the node's namespace, the
    step, the node and its trigger, its ``branch:to:<node>`` channel), when the checkpoint
    is known; otherwise one of its own. Every call inside the node (a model call's wrapper
    and the model) shares it."""
    return _made(
        run,
        ("|".join(namespace or ()), step, "node", node),
        lambda: _derived_task_id(namespace, step, node, checkpoint, "__pregel_pull", f"branch:to:{node}"),
    )


def _send_task_id(
    namespace: list[str] | None, step: int, index: int | None, checkpoint: str | None, prefix: bytes | None
) -> str:
    if index is None or checkpoint is None:
        return str(uuid.uuid4())
    return send_task_id(send_prefix(namespace, step, checkpoint) if prefix is None else prefix, index)


def send_task_id(prefix: bytes, index: int) -> str:
    """The task id of the ``index``-th `tools` send of the step whose `send_prefix` is
    ``prefix``: LangGraph's ``_xxhash_str`` of the send's path, its XXH3-128 in a UUID's
    groups."""
    return "-".join(_UUID_GROUPS(_langgraph().xxh3_128_hexdigest(prefix + str(index).encode())))


#: A 32-digit hex text's five UUID groups (one C call; the f-string of five slices was some
#: 36 bytecodes a tool call).
_UUID_GROUPS = operator.itemgetter(slice(0, 8), slice(8, 12), slice(12, 16), slice(16, 20), slice(20, 32))


def call_task_id(configurable: dict, metadata: dict, name: str, counter: int) -> str | None:
    """The id LangGraph gives the task of the ``counter``-th functional-API call (``@task``)
    named ``name`` made inside the task ``configurable`` and ``metadata`` describe: pushed
    by that task, at its step, from its checkpoint; ``None`` where the task has none."""
    ns = str(configurable.get("checkpoint_ns") or "")
    if not ns:
        return None
    parent = ns.rpartition("|")[0]
    checkpoint = (configurable.get(CHECKPOINT_MAP_KEY) or {}).get(parent)
    step, path = metadata.get("langgraph_step"), metadata.get("langgraph_path")
    if checkpoint is None or step is None or path is None:
        return None
    # The call's task runs under the calling task's namespace, from its graph's checkpoint.
    return _derived_task_id(
        ns.split("|"), step, name, checkpoint, "__pregel_push", _langgraph().task_path_str(path), str(counter)
    )


def _derived_task_id(namespace: list[str] | None, step: int, node: str, checkpoint: str | None, *path: str) -> str:
    """LangGraph's task id (``langgraph.pregel._algo``) of ``node``'s task at ``step`` of the
    graph whose namespace is ``namespace``, run from ``checkpoint`` and reached by ``path``;
    a random one without a checkpoint."""
    if checkpoint is None:
        return str(uuid.uuid4())
    node_ns = "|".join([*(namespace or ()), node])
    return _langgraph().xxhash_str(binascii.unhexlify(checkpoint.replace("-", "")), node_ns, str(step), node, *path)


def step_place(
    configurable: dict, namespace: list[str], step: int, waits: bool | None = None
) -> tuple[list[str], dict | None]:
    """The namespace of a run's tasks at ``step`` and the checkpoint map they run from, as the
    thread graph following the run has them (see ``_graph_task_configs.TaskConfigs``): a
    subagent's namespace is its `task` call's task's there, not the core's. ``(namespace,
    None)`` when no graph follows the run, or its run ended (or one of its tasks failed)
    first, or (not ``waits``) it has not started the step yet."""
    tasks = configurable.get(TASKS_KEY)
    if tasks is None or step is None:
        return list(namespace), None
    if waits is None:
        # The graph starts the step once it has the core's previous node: nothing it waits
        # for is this call, so waiting for it cannot deadlock, except on a thread running an
        # event loop (an async tool's, maybe the graph's own): there only what is known is
        # read.
        waits = not _on_loop_thread()
    if not namespace:
        # The run's own tasks; inside a parent graph's task (the thread graph a subgraph
        # there, started from its task whose namespace the run's config has) they continue
        # the parent task's namespace, as a LangGraph subgraph's do.
        parent_ns = (configurable.get("checkpoint_ns") or "").rpartition("|")[0]
        return parent_ns.split("|") if parent_ns else [], tasks.step_checkpoints(step, _STEP_BOUND if waits else 0.0)
    found = tasks.subgraph_step(tuple(namespace), step, _STEP_BOUND if waits else 0.0)
    return (list(namespace), None) if found is None else (list(found[0]), found[1])


def _on_loop_thread() -> bool:
    return running_loop() is not None


def task_configurable(run: Any, configurable: dict, task_ns: str, step: int | None, known: dict | None = None) -> dict:
    """``configurable`` with the keys of the task whose namespace is ``task_ns`` (its own
    segment last, ``<node>:<task id>``), at ``step`` of the agent's graph; ``known``: the
    step's checkpoint map from the graph following the run (`step_place`), if it has one."""
    task_id = task_ns.rsplit(":", 1)[-1]
    parents = task_ns.split("|")[:-1]
    checkpoints: dict[str, str] = {}
    if step is not None:
        if known is not None:
            checkpoints.update(known)
        else:
            # The agent's graph, then each parent task's graph (a subagent's), deepest last:
            # only the deepest is numbered by this step.
            for depth in range(len(parents) + 1):
                ns = "|".join(parents[:depth])
                checkpoints[ns] = made_checkpoint(run, ns, step if depth == len(parents) else -1)
    return {
        **configurable,
        TASK_ID_KEY: task_id,
        "checkpoint_id": None,
        CHECKPOINT_MAP_KEY: checkpoints,
        "checkpoint_ns": task_ns,
    }


def execution_info(configurable: dict) -> Any:
    """LangGraph's ``ExecutionInfo`` for the task ``configurable`` describes."""
    ns = configurable.get("checkpoint_ns") or ""
    parent = ns.rsplit("|", 1)[0] if "|" in ns else ""
    return _langgraph().ExecutionInfo(
        checkpoint_id=(configurable.get(CHECKPOINT_MAP_KEY) or {}).get(parent, ""),
        checkpoint_ns=ns,
        task_id=configurable.get(TASK_ID_KEY, ""),
        thread_id=configurable.get("thread_id"),
        run_id=None,
        node_first_attempt_time=time.time(),
    )


async def astep_place(configurable: dict, place: dict) -> tuple[list[str], dict | None]:
    """`step_place` for the task at ``place``, waited for off the event loop (the graph
    following the run may run on it)."""
    if configurable.get(TASKS_KEY) is None:
        return list(place["namespace"]), None
    # Running on asyncio's loop, asyncio is loaded: taken from `sys.modules` rather than by
    # an import statement at each model call (the module loads no asyncio at start-up).
    return await sys.modules["asyncio"].to_thread(
        step_place, configurable, list(place["namespace"]), place["step"], True
    )


def wait_for_graph(config: dict | None, step: int, namespace: list[str]) -> None:
    """Waits until the graph following the subagent whose core namespace is ``namespace``
    has started ``step`` (or its run is over), on a blocking thread holding no worker of the
    run's executor (see ``src/python/tools.rs``); the call's config then finds it at once."""
    configurable = (config or {}).get("configurable") or {}
    if TASKS_KEY in configurable:
        step_place(configurable, list(namespace), step, True)


async def acall_placed(adapter: Any, args: Any, call_id: str, config_args: tuple, *state: Any) -> Any:
    """An async tool's call (``adapter.acall_in_run``) with the config `config_with_writer`
    makes of ``config_args``, once the graph following the run has started the call's step:
    the core calls the tool on the event loop, where `step_place` cannot wait (the graph may
    run on that loop), so the config is made here, after waiting off the loop. Without it
    the call's checkpoint and task ids would be made up, and a resumed run would not find
    its `@task` calls' results under them."""
    config, step, namespace = config_args[0], config_args[4], config_args[7]
    configurable = (config or {}).get("configurable") or {}
    place = None
    if step is not None and TASKS_KEY in configurable:
        place = step_place(configurable, list(namespace or ()), step, False)
        if place[1] is None:
            place = await astep_place(configurable, {"namespace": namespace or (), "step": step})
    return await adapter.acall_in_run(args, call_id, _siblings().config_with_writer(*config_args, place=place), *state)


def node_task(
    config: Any, node: str, place: dict, asynchronous: bool, known: tuple[list[str], dict | None] | None = None
) -> tuple[dict, dict]:
    """The config LangGraph hands the task of ``node`` (``get_config()`` inside it) and the
    fields of its `Runtime` (beside ``stream_writer``), for the node at ``place`` (see
    ``src/python/middleware.rs``'s ``place_arg``): a hook's ``<Middleware>.<hook>``, the
    ``model`` node, or a tool call's ``tools`` task (``place`` has its ``index`` and
    ``call_id``); ``known``: its `step_place`, when the caller waited for it already."""
    names = _siblings()
    out = dict(config or {})
    step = place["step"]
    namespace, checkpoints = known or step_place((out.get("configurable") or {}), list(place["namespace"]), step)
    out["callbacks"] = names.node_callbacks(out.get("callbacks"), place["parent"], True, asynchronous)
    configurable = dict(out.get("configurable") or {})
    metadata = dict(out.get("metadata") or {})
    run_ns = configurable.get("checkpoint_ns")
    if TASKS_KEY in configurable:
        # A thread run's config is the config of the thread graph's task that started the
        # core: its namespace (copied into the metadata by LangChain's `ensure_config`) is
        # that task's, not the run's.
        if metadata.get("checkpoint_ns") == run_ns:
            del metadata["checkpoint_ns"]
        if parent_ns := (run_ns or "").rpartition("|")[0]:
            configurable["checkpoint_ns"] = parent_ns
        else:
            configurable.pop("checkpoint_ns", None)
    if namespace:
        # A subagent's run inherits the metadata of its `task` tool, where LangChain's
        # `ensure_config` put the outermost task's namespace.
        metadata.setdefault("checkpoint_ns", namespace[0])
    store = configurable.pop(names.STORE_KEY, None)
    context = getattr(configurable.get(names.RUNTIME_KEY), "context", None)
    index = place.get("index")
    task_ns = task_namespace(config, namespace, step, checkpoints, node, place.get("call_id"), index)
    out["metadata"] = names.task_metadata(metadata, configurable, step, node, task_ns, place.get("subagent"), index)
    configurable = task_configurable(config, configurable, task_ns, step, checkpoints)
    configurable[names.RUN_NS_KEY] = run_ns
    if place.get("subagent") is not None:
        # deepagents' `task` tool marks a subagent's runs for tracing, in the configurable
        # its tasks inherit.
        configurable["ls_agent_type"] = "subagent"
    out["configurable"] = configurable
    fields = {"context": context, "store": store, "execution_info": execution_info(configurable)}
    return out, {**fields, "control": run_control(config)}


def task_namespace(
    run: Any,
    namespace: list[str],
    step: int | None,
    checkpoints: dict | None,
    node: str,
    call_id: str | None = None,
    index: int | None = None,
) -> str:
    """The namespace of ``node``'s task at ``step`` of the graph whose namespace is
    ``namespace`` (its step's ``checkpoints`` from `step_place`): a `tools` task's when
    ``index`` (the call's place among the step's sends) is given, else a node's its edge
    runs."""
    checkpoint = None if step is None else step_checkpoint(run, namespace, step, checkpoints)
    if index is None:
        own = f"{node}:{node_task_id(run, namespace, step, node, checkpoint)}"
    else:
        own = f"tools:{tool_task_id(run, namespace, step, call_id, index, checkpoint)}"
    return "|".join([*namespace, own])


def traced_namespace(run: Any, core_ns: list[str], step: int, node: str, call_id: str | None, index: int) -> str:
    """The namespace a node's callback run carries: its task's, as `node_task` names it for
    the code the node runs (``core_ns``: the core's namespace of the node's graph)."""
    namespace, checkpoints = step_place((run or {}).get("configurable") or {}, list(core_ns), step)
    if node != "tools":
        return task_namespace(run, namespace, step, checkpoints, node)
    return task_namespace(run, namespace, step, checkpoints, node, call_id, index)


def tool_view(task_config: dict) -> dict:
    """A `tools` task's config as its tool sees it (a ``ToolRuntime``'s ``config``): through
    LangChain's ``ensure_config``, which adds ``tags`` and copies the task's namespace into
    ``metadata`` unless the run's outermost task put its own there."""
    out = dict(task_config)
    out.setdefault("tags", [])
    metadata = dict(out.get("metadata") or {})
    metadata.setdefault("checkpoint_ns", metadata.get("langgraph_checkpoint_ns", "").split("|")[0])
    out["metadata"] = metadata
    return out
