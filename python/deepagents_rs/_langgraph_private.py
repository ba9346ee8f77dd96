"""Every private LangGraph name deepagents_rs uses, in one place, checked once.

The thread graph, its checkpoint writer and the task configs reproduce what LangGraph's
Pregel loop does, so they take names LangGraph does not export (``langgraph._internal.*``,
``langgraph.pregel._*``, ``_``-prefixed functions). Any LangGraph release may rename one. So
the modules take them from here (``from deepagents_rs._langgraph_private import CONF``:
absolute, as cheap as the LangGraph import it replaces, where a relative import inside a
function costs half a microsecond more at each call), and the first name asked for checks
the installed LangGraph once: its version within the range the project is tested on (``SUPPORTED``, the ranges ``pyproject.toml``'s ``langchain`` extra declares),
every name below present, and every private attribute the package reads on LangGraph's
objects (``PRIVATE_ATTRIBUTES``: its loop's fields, ...) still LangGraph's. Anything else
raises one ``ImportError`` naming the package, the version found and the range supported,
when LangGraph is first used (building an agent reads the graph's channels with them), rather
than an ``AttributeError`` deep inside a run.

Importing this module loads nothing of LangGraph (``import deepagents_rs`` stays free of it):
the names resolve, all at once, on the first one asked for (PEP 562) and are then kept in the
module's namespace, so later imports of them are dictionary lookups. Without LangGraph
installed (or importable), asking for a name raises ``ModuleNotFoundError`` every time,
which the callers that run without LangGraph catch; an unsupported LangGraph raises a plain
``ImportError``, so a caller that falls back only when LangGraph is absent
(``except ModuleNotFoundError``) does not mistake one for the other.
"""

from __future__ import annotations

from typing import Any

from ._private_surface import Surface

#: The distributions whose private names are taken here, each with the range it is tested
#: on: from the version the suite runs (lower bound) to the next minor release (upper bound,
#: excluded), since private names can change in any minor release. ``pyproject.toml``'s
#: ``langchain`` extra declares the same ranges (``tests/test_langgraph_private.py``).
SUPPORTED: dict[str, tuple[str, str]] = {
    "langgraph": ("1.2.24", "1.3"),
    "langgraph-prebuilt": ("1.1.3", "1.2"),
}

#: Each LangGraph module and the private names taken from it (names of a private module, or
#: ``_``-prefixed names of a public one). ``tests/test_langgraph_private.py`` checks that
#: this is exactly what the package's modules import.
PRIVATE_NAMES: dict[str, tuple[str, ...]] = {
    "langgraph._internal._config": ("_copy_mapping_value", "ensure_config", "merge_configs", "recast_checkpoint_ns"),
    "langgraph._internal._constants": (
        "CACHE_NS_WRITES",
        "CONF",
        "CONFIG_KEY_CHECKPOINTER",
        "CONFIG_KEY_CHECKPOINT_ID",
        "CONFIG_KEY_CHECKPOINT_MAP",
        "CONFIG_KEY_CHECKPOINT_NS",
        "CONFIG_KEY_DURABILITY",
        "CONFIG_KEY_READ",
        "CONFIG_KEY_READ_STATE",
        "CONFIG_KEY_RESUME_MAP",
        "CONFIG_KEY_RESUMING",
        "CONFIG_KEY_RUNTIME",
        "CONFIG_KEY_SCRATCHPAD",
        "CONFIG_KEY_SEND",
        "CONFIG_KEY_STREAM",
        "CONFIG_KEY_TASK_ID",
        "CONFIG_KEY_THREAD_ID",
        "INTERRUPT",
        "NO_WRITES",
        "NS_END",
        "NS_SEP",
        "NULL_TASK_ID",
        "PREVIOUS",
        "PULL",
        "PUSH",
        "RESERVED",
        "TASKS",
    ),
    "langgraph._internal._runnable": ("RunnableCallable", "RunnableSeq"),
    "langgraph._internal._scratchpad": ("PregelScratchpad",),
    "langgraph._internal._typing": ("MISSING",),
    "langgraph.channels.delta": ("_get_overwrite",),
    "langgraph.graph._branch": ("BranchSpec",),
    "langgraph.graph.state": ("_CHANNEL_BRANCH_TO", "_get_channels"),
    "langgraph.prebuilt.tool_node": ("_get_all_injected_args",),
    "langgraph.pregel._algo": (
        "LazyAtomicCounter",
        "PUSH_TRIGGER",
        "PregelTaskWrites",
        "_proc_input",
        "_scratchpad",
        "_triggers",
        "_xxhash_str",
        "local_read",
        "sanitize_untracked_values_in_send",
        "task_path_str",
    ),
    "langgraph.pregel._call": ("get_runnable_for_task", "identifier"),
    "langgraph.pregel._checkpoint": (
        "DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT",
        "LATEST_VERSION",
        "copy_checkpoint",
        "create_checkpoint",
    ),
    "langgraph.pregel._io": ("map_output_updates",),
    "langgraph.pregel._loop": ("AsyncPregelLoop", "SyncPregelLoop"),
    "langgraph.pregel._messages": ("StreamMessagesHandler", "StreamMessagesHandlerV2", "ensure_message_ids"),
    "langgraph.pregel._read": ("PregelNode",),
    "langgraph.pregel._retry": (
        "_TimedAttemptScope",
        "_checkpoint_ns_for_parent_command",
        "_is_user_raised_cancelled",
        "_resolve_timeout",
        "_should_retry_on",
        "arun_with_retry",
        "run_with_retry",
    ),
    "langgraph.pregel._runner": ("PregelRunner",),
    "langgraph.pregel._task_status": ("CONTROL_WRITES", "read_task_statuses"),
    "langgraph.pregel._tools": ("StreamToolCallHandler",),
    "langgraph.pregel._utils": ("get_new_channel_versions",),
    "langgraph.pregel._write": ("PASSTHROUGH", "ChannelWrite", "ChannelWriteTupleEntry"),
    "langgraph.pregel.main": ("_build_server_info", "_coerce_context", "_coerce_parent_runtime"),
    "langgraph.types": ("_interrupt_id",),
}

_LOOP_FIELDS = (
    "_checkpointer_put_after_previous",
    "_delta_channel_names",
    "_delta_channels_forced_snapshot",
    "_delta_write_futs",
    "_exit_delta_writes",
    "_has_untracked_channels",
    "_prepare_tasks_and_emit_checkpoint",
    "_put_checkpoint_fut",
    "_resume_loaded_writes",
    "_written_task_ids",
)

#: The private attributes of LangGraph's objects the package reads, sets or overrides, by
#: class: the checkpoint writer drives LangGraph's loops, the thread graph takes Pregel's
#: defaults, the graph face fills a ``ToolNode``'s tool table and a LangChain tool's call has
#: its arguments injected by one. A renamed one would be an ``AttributeError`` mid-run (or an
#: override that silently stops applying), so they are checked with the names above.
PRIVATE_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "langgraph.pregel._loop.SyncPregelLoop": _LOOP_FIELDS,
    "langgraph.pregel._loop.AsyncPregelLoop": _LOOP_FIELDS,
    "langgraph.pregel.main.Pregel": ("_defaults", "_migrate_checkpoint", "_own_checkpoint_config"),
    "langgraph.prebuilt.tool_node.ToolNode": ("_inject_tool_args", "_tools_by_name"),
    # A tool's ``Command`` update as LangGraph's own writers read it (`_tool_commands`).
    "langgraph.types.Command": ("_update_as_tuples",),
    # The memory store's items, read directly by the store backend's fast path (which falls
    # back to the store's public ``search``/``get`` without it: `backends/_memory_store_reads`).
    "langgraph.store.memory.InMemoryStore": ("_data",),
}

_SOURCE = {name: module for module, names in PRIVATE_NAMES.items() for name in names}

_SURFACE = Surface("LangGraph", "langgraph.pregel", SUPPORTED, PRIVATE_NAMES, PRIVATE_ATTRIBUTES)


def _resolve() -> None:
    """Checks the installed LangGraph and puts every name of ``PRIVATE_NAMES`` in this
    module's namespace, or raises the ``ImportError`` that says why it cannot."""
    globals().update(_SURFACE.resolve())
    # Every name is in the namespace now. Without the hook, the import system's look-up of
    # ``__path__`` at each ``from`` import of this module fails in C rather than in a Python
    # call (about a microsecond per import statement, several per step).
    globals().pop("__getattr__", None)


def __getattr__(name: str) -> Any:
    if name not in _SOURCE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _resolve()
    return globals()[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *_SOURCE})
