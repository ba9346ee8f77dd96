"""A plain tool call's job made from what is the same for every call of its run.

A plain call: a function tool called directly (``_direct_tools``: no config, runtime,
callbacks or injected argument in its signature, no error handler), in a run without a thread
graph, tags, tracing or a stream writer, where nothing listens to tool runs. Its tool sees,
through ``get_config()``, ``get_stream_writer()`` and ``get_runtime()``, exactly what the
general path gives it (``_stream.config_with_writer``'s task config, then ``_direct_tools``'
child config of the tool run); but the general path works that out at every call from the
run's config: the run's metadata merged, its configurable copied and sorted (our carriers
moved out), LangChain's ``ensure_config`` copy, a node callback manager the direct call then
drops, tracing looked up three ways. That was two thirds of the tool job's Python, at every
step, holding the GIL every run's tool calls wait for.

Here the run's part is worked out once (``RunBase``, kept on the run's ``RunConfig`` by
namespace, subagent and mode) and each call adds its own: its step's checkpoint, its task id
and namespace, its metadata's step and path, LangGraph's loop objects (channels, scratchpad,
functional-API caller, runtime) and the tool run's child manager, all made by the core
(`_tool_config`, ``src/python/plain_tool_config.rs``). The core hands the tool job a
``PlainCall`` (what the call needs, nothing built) when the run allows it
(``src/python/plain_calls.rs``: a sync tool's job, and ``_stream.config_with_writer`` for an
async tool's); the adapter then takes this path when its tool is plain and nothing listens,
and otherwise builds the general config from it (``PlainCall.full``) and goes on as before.
"""

from __future__ import annotations

import contextvars
import functools
import os
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from . import _core, _direct_tools, _python_private, _task_channels
from ._direct_args import args_and_kwargs
from ._direct_tools import _formatted
from ._files_context import CURRENT_FILES, LazyFilesContext
from ._frozen_records import Records
from ._pushed_parts import PUSHED_PARTS_KEY
from ._stream import RESUMING_STEP_KEY, RUN_NS_KEY, STORE_KEY, _langgraph_names, _run_metadata
from ._task_channels import (
    CALL_KEY,
    CHECKPOINTER_KEY,
    READ_KEY,
    READ_STATE_KEY,
    REPLAY_STATE_KEY,
    SCRATCHPAD_KEY,
    SEND_KEY,
    _no_resume,
)
from ._task_config import (
    CHECKPOINT_MAP_KEY,
    TASK_ID_KEY,
    TASKS_KEY,
    RunConfig,
    run_control,
    step_checkpoint,
    tool_task_id,
)
from ._task_config import _langgraph as _task_langgraph

#: LangGraph's keys (``langgraph._internal._constants``), spelled out so the module imports
#: without LangGraph.
_RUNTIME_KEY = "__pregel_runtime"
_STREAM_KEY = "__pregel_stream"
#: LangChain's default recursion limit (``ensure_config``'s).
_DEFAULT_LIMIT = 25
#: The keys LangChain's ``ensure_config`` starts a config with; the run's other config keys
#: (``max_concurrency``) follow them.
_ENSURED = ("tags", "metadata", "callbacks", "recursion_limit", "configurable")
#: LangGraph's loop keys a task's configurable gets; a run whose own configurable has one
#: (it runs inside a parent graph's task) keeps the general path, which keeps the parent's.
_LOOP_KEYS = frozenset(
    {
        _task_channels.SEND_KEY,
        _task_channels.READ_KEY,
        _task_channels.CALL_KEY,
        _task_channels.SCRATCHPAD_KEY,
        _task_channels.CHECKPOINTER_KEY,
        _task_channels.READ_STATE_KEY,
        _task_channels.REPLAY_STATE_KEY,
        _STREAM_KEY,
        TASKS_KEY,
    }
)


class RunBase:
    """What every plain tool call of one run (in one namespace, by one subagent, in one mode)
    shares: the config's parts that do not depend on the call, worked out as the general path
    works them out (`_stream.full_config`)."""

    __slots__ = (
        "asynchronous",
        "configurable",
        "context",
        "control",
        "extras",
        "keys",
        "limit",
        "metadata",
        "model",
        "namespace",
        "ns",
        "outer_ns",
        "own",
        "own_run",
        "parents",
        "prefix",
        "quiet",
        "quiet_state",
        "run_ns",
        "step_ids",
        "stop",
        "store",
        "subagent_keys",
        "thread_id",
        "versions",
        "watched",
    )


def run_base(run: Any, namespace: list[str], subagent: str | None, asynchronous: bool) -> RunBase | None:
    """The run's base for its plain tool calls, or ``None`` when its calls keep the general
    path: a config that is not the run's own (no ids shared), tags or callbacks in it, keys a
    config ``ensure_config`` would move, or a run inside a graph's task (a thread graph, a
    parent graph's loop keys, a resumed step), or no LangGraph."""
    if type(run) is not RunConfig or run.get("tags") or run.get("callbacks") is not None:
        return None
    if _langgraph_names() is None:
        # Without LangGraph the general path gives the tool a config without LangGraph's
        # loop objects; this one is made of them.
        return None
    if any(key not in _ENSURED and key != "max_concurrency" for key in run):
        return None
    configurable = dict(run.get("configurable") or {})
    if not _LOOP_KEYS.isdisjoint(configurable) or RESUMING_STEP_KEY in configurable:
        return None
    if PUSHED_PARTS_KEY in configurable:
        return None
    base = RunBase()
    base.step_ids = None
    # Whether anything listens to its tool runs, looked up at its first call (`_quiet`).
    base.quiet = base.quiet_state = base.watched = None
    base.asynchronous = asynchronous
    base.namespace = list(namespace)
    base.ns = "|".join(namespace)
    base.prefix = base.ns + "|" if namespace else ""
    base.outer_ns = namespace[0] if namespace else None
    base.store = configurable.pop(STORE_KEY, None)
    base.context = getattr(configurable.get(_RUNTIME_KEY), "context", None)
    base.metadata = _run_metadata(run.get("metadata") or {}, configurable, subagent)
    # Its calls' metadata has the run's `lc_versions`, which LangChain's merges copy.
    base.versions = isinstance(base.metadata.get("lc_versions"), Mapping)
    base.own_run = {k: v for k, v in configurable.items() if k.startswith(_task_channels.OWN_PREFIX)}
    base.run_ns = configurable.get("checkpoint_ns")
    base.own = {**base.own_run, RUN_NS_KEY: base.run_ns}
    base.keys = _task_channels._loop_names().graph_keys(configurable, base.metadata)
    base.configurable = {k: v for k, v in configurable.items() if k not in base.own}
    base.subagent_keys = {} if subagent is None else {"ls_agent_type": "subagent"}
    base.thread_id = configurable.get("thread_id")
    # LangChain's `ensure_config` copies a str `model` of the configurable into the metadata.
    model = configurable.get("model")
    base.model = model if isinstance(model, str) and "model" not in base.metadata else None
    limit = run.get("recursion_limit")
    base.limit = _DEFAULT_LIMIT if limit is None else limit
    base.stop = (25 if limit is None else int(limit)) + 1
    base.extras = {k: v for k, v in run.items() if k not in _ENSURED and v is not None}
    base.control = run_control(run)
    # The checkpoints of the graphs around the namespace's (a subagent's parents), the same at
    # every step (`_task_config.task_configurable`).
    base.parents = {
        "|".join(namespace[:depth]): step_checkpoint(run, namespace[:depth], -1, None)
        for depth in range(len(namespace))
    }
    return base


class PlainCall:
    """A tool call's place in a run whose plain calls take this path: its ``full_config``
    arguments, for the general path (`full`), and its run's base. Made by the core
    (``src/python/plain_calls.rs``), its slots set as ``__init__`` sets them."""

    __slots__ = ("args", "base", "config")

    def __init__(self, base: RunBase, args: tuple) -> None:
        self.base = base
        self.args = args
        #: The config its tool runs with, once made (on either path).
        self.config: dict | None = None

    def full(self) -> dict | None:
        """The config the general path gives the call (``full_config``'s), kept as the call's
        (its errors are noted with it)."""
        from ._stream import full_config

        self.config = full_config(*self.args)
        return self.config


#: The call's config, its task's channels and the context its tool runs in (a copy of the
#: current one with the config and the task's files set), made by the core from the call's
#: run base and its own parts (``src/python/plain_tool_config.rs``; made here they were some
#: 500 bytecodes a call on the thread every run's Python calls share).
_tool_config = _core._plain_tool_config


@functools.cache
def _bare_manager(manager_type: type) -> bool:
    """Whether a ``manager_type`` can be made as `_tool_config` makes it, its attributes set in a
    new instance's dict (without the keyword call and its ``__init__``, some 45 bytecodes a
    call): its ``__init__`` is LangChain's ``BaseCallbackManager``'s, which only sets them,
    and its instances keep them in a dict."""
    from langchain_core.callbacks.base import BaseCallbackManager

    return manager_type.__init__ is BaseCallbackManager.__init__ and "__slots__" not in vars(manager_type)


def call_plain(adapter: Any, call: PlainCall, args: dict, tool_call_id: str) -> Any:
    """The adapter's result for the call made on this path and the call's task channels (its
    writes, for the adapter to add), or ``FALLBACK`` (nothing run) when its tool is not plain or
    something listens to its run."""
    tool = adapter.tool
    lc = _direct_tools._langchain()
    if not _plain_tool(tool, lc, call.base):
        return _direct_tools.FALLBACK
    manager = lc.CallbackManager
    config, channels, context = _tool_config(call, manager, _bare_manager(manager), lc.uuid7)
    # For the notes of its errors (`task_config_of`).
    call.config = config
    func, plan = adapter._direct
    try:
        positional, keywords = args_and_kwargs(tool, plan, args, tool_call_id)
        response = context.run(func, *positional, **keywords)
        if type(response) is str:
            # What `_formatted` and the adapter's `_message` make of a plain str, without
            # their two calls.
            return (response, "success", None, None), channels
        return adapter._message(_formatted(lc, response, tool_call_id, tool.name), tool_call_id, config), channels
    except Exception as exc:
        invalid = _invalid(adapter, args, exc)
        if invalid is None:
            raise
        return invalid, channels


async def acall_plain(adapter: Any, call: PlainCall, args: dict, tool_call_id: str) -> Any:
    """`call_plain` for a coroutine function tool (the adapter's ``acall_in_run``): the input
    validated, then the coroutine awaited as a task in a context holding the config and the
    task's files, as the general path's ``acall_direct`` runs it, its tool run's child
    manager an ``AsyncCallbackManager``."""
    tool = adapter.tool
    lc = _direct_tools._langchain()
    if not _plain_tool(tool, lc, call.base):
        return _direct_tools.FALLBACK
    manager = lc.AsyncCallbackManager
    config, channels, context = _tool_config(call, manager, _bare_manager(manager), lc.uuid7)
    call.config = config
    func, plan = adapter._adirect
    try:
        positional, keywords = args_and_kwargs(tool, plan, args, tool_call_id)
        # `context`: `set_config_context(config)` with no handler, as
        # `_direct_tools.call_direct` has it.
        response = await lc.coro_with_context(func(*positional, **keywords), context)
        return adapter._message(_formatted(lc, response, tool_call_id, tool.name), tool_call_id, config), channels
    except Exception as exc:
        invalid = _invalid(adapter, args, exc)
        if invalid is None:
            raise
        return invalid, channels


def _plain_tool(tool: Any, lc: Any, base: RunBase) -> bool:
    """Nothing listens to the tool's run: no callbacks, tags or metadata of its own, no
    verbose output, nothing in the context or the environment (`_quiet`)."""
    return not (tool.callbacks or tool.verbose or tool.tags or tool.metadata) and _quiet(lc, base)


def _quiet(lc: Any, base: RunBase) -> bool:
    """`_direct_tools.quiet_context` (nothing in the context or the process would give a tool
    run a handler), looked up in full once a run, then only what can change within it.

    LangChain's ``CallbackManager.configure`` reads all of it at every tool run, but a run's
    calls all run in copies of one context, the run's (``host.rs``' ``call_in_context``), so
    what comes from context variables (a ``tracing_v2_callback_var`` handler, a configure
    hook's variable, LangSmith's ``tracing_context`` and parent run tree) is the run's, the
    same at each call; and LangSmith's tracing variables it reads through ``get_env_var``,
    cached for the process. What it reads anew each time and a call could change is checked
    again at each call: the debug flag (``set_debug``), LangSmith's global switch
    (``langsmith.configure``), the configure hooks registered, and the environment variables
    it reads itself (the hooks' and the v1 tracing ones, absent from ``os.environ``'s dict:
    one set operation). Any of them changed, or such a variable set, and the full look-up
    runs again. Saves some 190 bytecodes a call."""
    state = (lc.get_debug(), len(lc._configure_hooks), (_LANGSMITH or _langsmith()).switch())
    if state == base.quiet_state and _LANGSMITH.environ.isdisjoint(base.watched):
        return base.quiet
    quiet = _direct_tools.quiet_context(lc)
    base.watched = _watched(lc)
    base.quiet, base.quiet_state = quiet, state
    return quiet


def _watched(lc: Any) -> frozenset:
    """The encoded names (``os.environ``'s dict's keys) of the environment variables LangChain's
    ``configure`` reads itself at each call: its hooks' and the v1 tracing variables."""
    names = [env_var for _var, _inheritable, cls, env_var in lc._configure_hooks if cls is not None and env_var]
    return frozenset(os.environ.encodekey(name) for name in (*names, "LANGCHAIN_TRACING", "LANGCHAIN_HANDLER"))


#: LangSmith's global tracing switch and the environment's names, as `_quiet` reads them
#: (`_langsmith`).
_LANGSMITH: Any = None


def _langsmith() -> SimpleNamespace:
    """`_quiet`'s reads, found once: LangSmith's global switch (its module's attribute, read
    at each call; none in a LangSmith without it) and the names of the environment, a live
    view of ``os.environ``'s own dict (`_python_private`, checked by
    `_direct_tools._langchain` before any call gets here)."""
    global _LANGSMITH
    import langsmith._internal._context as context

    _LANGSMITH = SimpleNamespace(
        switch=functools.partial(getattr, context, "_GLOBAL_TRACING_ENABLED", None),
        environ=_python_private.environ_data().keys(),
    )
    return _LANGSMITH


def _invalid(adapter: Any, args: dict, exc: Exception) -> tuple | None:
    """The call's result for ``exc`` when it is the input's validation error (LangChain's
    message, as the tool's error); ``None`` for anything else (raised again)."""
    from ._tools import _is_validation_error, _validation_message

    if not _is_validation_error(exc):
        return None
    return _validation_message(adapter.name, args, exc), "error", None, None


def task_config_of(config: Any) -> Any:
    """The config a call's errors are noted with (`_task_notes`): a `PlainCall`'s own, once
    made (none before: nothing ran)."""
    return config.config if type(config) is PlainCall else config


@functools.cache
def _langgraph() -> SimpleNamespace:
    """The classes a call's task is made of (LangGraph's runtime and loop objects, ours that
    import LangGraph's), imported on the first call (the module imports without LangGraph)
    and then kept."""
    from langgraph.runtime import ExecutionInfo, Runtime

    # `_task_channels`' (its scratchpad, counters and functional-API caller) with LangGraph's.
    loop = _task_channels._loop_names()
    uuid7 = _direct_tools._langchain().uuid7
    ids = _task_langgraph()
    names = {
        **vars(loop),
        "TaskChannels": _task_channels.TaskChannels,
        "LazyFilesContext": LazyFilesContext,
        "no_resume": _no_resume,
        "checkpoint_id": ids.checkpoint_id,
        "xxh3_128_hexdigest": ids.xxh3_128_hexdigest,
        "tool_task_id": tool_task_id,
        # A tool run's id as LangChain makes it (``uuid7()``, a ``uuid.UUID``), made by the
        # core (`_core._run_id`: the same version-7 layout, monotonic in the process, one C
        # call for some 40 bytecodes) where LangChain's run ids are its ``uuid7``'s; its
        # ``uuid4`` on a LangChain before them.
        "run_id": _core._run_id if uuid7.__name__ == "uuid7" else uuid7,
        # What the call's context is made with: a copy with the config and files set.
        "copy_context": contextvars.copy_context,
        "config_var": _direct_tools._langchain().var_child_runnable_config,
        "files_var": CURRENT_FILES,
    }
    # Makers of LangGraph's frozen records, from their given fields' values in this order.
    records = {
        "execution_info": Records(
            ExecutionInfo,
            ("checkpoint_id", "checkpoint_ns", "task_id", "thread_id", "run_id", "node_first_attempt_time"),
        ).maker,
        "runtime": Records(Runtime, ("context", "store", "execution_info", "control")).maker,
        "runtime_writing": Records(Runtime, ("context", "store", "execution_info", "control", "stream_writer")).maker,
        "scratchpad": Records(
            loop.PregelScratchpad,
            ("step", "stop", "call_counter", "interrupt_counter", "get_null_resume", "resume", "subgraph_counter"),
        ).maker,
    }
    # The keys of the config the core sets (spelled once, in the modules that own them).
    keys = {
        "TASK_ID_KEY": TASK_ID_KEY,
        "CHECKPOINT_MAP_KEY": CHECKPOINT_MAP_KEY,
        "RUNTIME_KEY": _RUNTIME_KEY,
        "SEND_KEY": SEND_KEY,
        "READ_KEY": READ_KEY,
        "CHECKPOINTER_KEY": CHECKPOINTER_KEY,
        "READ_STATE_KEY": READ_STATE_KEY,
        "REPLAY_STATE_KEY": REPLAY_STATE_KEY,
        "SCRATCHPAD_KEY": SCRATCHPAD_KEY,
        "CALL_KEY": CALL_KEY,
        "PUSHED_PARTS_KEY": PUSHED_PARTS_KEY,
        "RUN_NS_KEY": RUN_NS_KEY,
    }
    return SimpleNamespace(**names, **records, **keys)
