"""A superstep's tasks for the thread graph's plain steps, made as LangGraph's
``prepare_next_tasks`` makes them, without re-merging the run's config for every task.

``prepare_single_task`` builds each task's config with ``merge_configs(config, {metadata,
tags})`` then ``patch_config``: the run's config (its metadata copied a level deep, its
callbacks copied) is merged afresh for every task of every step, which is most of what a
step's preparation costs. Here that merge of the run's config is made once per config (the
loop replaces its config, never edits its metadata; its ``configurable``, which it does edit,
is read at each task), and each task gets the same dict LangGraph would give it: the
metadata (the run's, copied a level deep, then the task's), the tags, ``run_name`` and the
``configurable`` keys ``prepare_single_task`` sets. Task ids, scratchpads, inputs, runtimes
and the task objects come from LangGraph's own helpers; the task, its runtime and execution
info (frozen dataclasses) made as their ``__init__`` makes them, by `_frozen_records`.

Only for what the thread graph's steps are: the PUSH tasks of the ``Send``s the previous
step wrote and the PULL tasks of its edges, on a ``v > 1`` checkpoint, with no cache
policy, no node metadata, no callbacks or run manager, no pending writes (a resume's) and no
resume map. ``prepare`` returns ``None`` for anything else, and the caller asks LangGraph.
"""

from __future__ import annotations

import binascii
import dataclasses
from collections import deque
from functools import partial
from typing import Any

from langgraph.channels.topic import Topic
from langgraph.runtime import DEFAULT_RUNTIME, ExecutionInfo
from langgraph.types import PregelExecutableTask, Send
from xxhash import xxh3_128_hexdigest

from deepagents_rs._frozen_records import Records
from deepagents_rs._langgraph_private import (
    CONF,
    CONFIG_KEY_CHECKPOINT_ID,
    CONFIG_KEY_CHECKPOINT_MAP,
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_CHECKPOINTER,
    CONFIG_KEY_READ,
    CONFIG_KEY_READ_STATE,
    CONFIG_KEY_RESUME_MAP,
    CONFIG_KEY_RUNTIME,
    CONFIG_KEY_SCRATCHPAD,
    CONFIG_KEY_SEND,
    CONFIG_KEY_TASK_ID,
    CONFIG_KEY_THREAD_ID,
    MISSING,
    NS_END,
    NS_SEP,
    PREVIOUS,
    PULL,
    PUSH,
    PUSH_TRIGGER,
    TASKS,
    PregelNode,
    PregelTaskWrites,
    _copy_mapping_value,
    _proc_input,
    _scratchpad,
    _triggers,
    local_read,
    merge_configs,
)


class PlainTasks:
    """Makes one loop's plain steps' tasks (see the module's docstring)."""

    def __init__(self) -> None:
        #: The run's config merged as ``merge_configs(config)`` merges it, for the config
        #: it was made from, and the keys of its metadata whose values each task copies.
        self._merged: tuple[dict, dict, tuple[str, ...]] | None = None
        self._triggers: dict[str, tuple] = {}
        #: The fields' values of the runtime the tasks' runtimes are made from, for that
        #: runtime and the step's ``previous`` and store, and the maker of such a runtime
        #: from them and an execution info (see `runtime_fields`).
        self._runtime_fields: tuple[Any, Any, Any, tuple, Any] | None = None

    def _base(self, config: dict) -> tuple[dict, tuple[str, ...]]:
        if self._merged is None or self._merged[0] is not config:
            merged = merge_configs(config)
            metadata = merged.get("metadata") or {}
            # ``_copy_mapping_value`` copies mappings and lists only: the other values are
            # handed on as they are, without asking each task again.
            copied = tuple(k for k, v in metadata.items() if _copy_mapping_value(v) is not v)
            self._merged = (config, merged, copied)
        return self._merged[1], self._merged[2]

    def runtime_fields(self, runtime: Any, previous: Any, store: Any) -> tuple[tuple, Any]:
        """``runtime``'s fields' values with ``previous`` and ``store`` replaced: what
        ``runtime.override(previous=..., store=..., execution_info=...)`` passes on, less the
        execution info each task has its own of; and ``maker(*values, execution_info)``, the
        runtime ``type(runtime)(**fields, execution_info=...)`` makes."""
        cached = self._runtime_fields
        if cached is None or cached[0] is not runtime or cached[1] is not previous or cached[2] is not store:
            fields = {f.name: getattr(runtime, f.name) for f in dataclasses.fields(runtime) if f.init}
            fields.update(previous=previous, store=store)
            fields.pop("execution_info", None)
            maker = _makers(type(runtime), (*fields, "execution_info"))
            cached = self._runtime_fields = (runtime, previous, store, tuple(fields.values()), maker)
        return cached[3], cached[4]

    def prepare(self, loop: Any) -> dict[str, PregelExecutableTask] | None:
        config = loop.config
        configurable = config[CONF]
        checkpoint = loop.checkpoint
        if (
            checkpoint["v"] <= 1
            or loop.checkpoint_pending_writes
            or loop.manager is not None
            or loop.cache_policy is not None
            or configurable.get(CONFIG_KEY_RESUME_MAP)
            or config.get("callbacks")
            or not loop.updated_channels
            or not loop.trigger_to_nodes
        ):
            return None
        base, copied = self._base(config)
        channels = loop.channels
        processes = loop.nodes
        sends: list[tuple[int, Send, PregelNode]] = []
        tasks_channel = channels.get(TASKS)
        if type(tasks_channel) is Topic:
            # LangGraph's ``Topic``: its ``get()`` is a copy of its values, when it holds any
            # (``is_available``), read here without the two calls.
            packets = tasks_channel.values
        else:
            packets = tasks_channel.get() if tasks_channel is not None and tasks_channel.is_available() else ()
        for idx, packet in enumerate(packets):
            proc = processes.get(packet.node) if isinstance(packet, Send) else None
            # (A node with metadata or a cache policy is for LangGraph to prepare.)
            if proc is None or proc.node is None or proc.metadata or proc.cache_policy is not None:
                return None
            sends.append((idx, packet, proc))
        triggered: set[str] = set()
        for channel in loop.updated_channels:
            if node_ids := loop.trigger_to_nodes.get(channel):
                triggered.update(node_ids)
        pulls = sorted(triggered)
        # (Loops, not comprehensions: a step has a task or two, and each comprehension is a
        # call of its own.)
        for name in pulls:
            if name in processes and ((proc := processes[name]).metadata or proc.cache_policy is not None):
                return None
        step = _Step(loop, base, copied, self, binascii.unhexlify(checkpoint["id"].replace("-", "")))
        tasks: list[PregelExecutableTask] = []
        for idx, packet, proc in sends:
            tasks.append(step.push(idx, packet, proc))
        # ``checkpoint_null_version(checkpoint)``, inlined.
        null_version = None
        for version in checkpoint["channel_versions"].values():
            null_version = type(version)()
            break
        for name in pulls:
            proc = processes.get(name)
            if proc is None or null_version is None:
                continue
            if not _triggers(
                channels, checkpoint["channel_versions"], checkpoint["versions_seen"].get(name), null_version, proc
            ):
                continue
            triggers = self._triggers.get(name)
            if triggers is None:
                triggers = self._triggers[name] = tuple(sorted(proc.triggers))
            if (task := step.pull(name, proc, triggers)) is not None:
                tasks.append(task)
        out = {}
        for task in tasks:
            out[task.id] = task
        return out


def _task_id(checkpoint_id: bytes, parts: str) -> str:
    """A task's id as LangGraph hashes it (``_xxhash_str``): the XXH3-128 of the checkpoint
    id's bytes then the UTF-8 of its parts (one string: UTF-8 of a concatenation is the
    concatenation of the parts' UTF-8), laid out as a UUID."""
    h = xxh3_128_hexdigest(checkpoint_id + parts.encode())
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


class _Step:
    """What every task of one step shares."""

    def __init__(
        self, loop: Any, base: dict, copied: tuple[str, ...], tasks: PlainTasks, checkpoint_id_bytes: bytes
    ) -> None:
        self.loop = loop
        self.base = base
        self.base_metadata = base.get("metadata") or {}
        self.copied = copied
        self.tasks = tasks
        self.configurable = loop.config[CONF]
        self.parent_ns = self.configurable.get(CONFIG_KEY_CHECKPOINT_NS, "")
        self.id_bytes = checkpoint_id_bytes
        self.step = loop.step
        self.step_str = str(loop.step)
        self.input_cache: dict = {}

    def _ids(self, name: str, *parts: str) -> tuple[str, str, Any]:
        checkpoint_ns = f"{self.parent_ns}{NS_SEP}{name}" if self.parent_ns else name
        task_id = _task_id(self.id_bytes, "".join((checkpoint_ns, self.step_str, name, *parts)))
        task_ns = f"{checkpoint_ns}{NS_END}{task_id}"
        loop = self.loop
        scratchpad = _scratchpad(
            self.configurable.get(CONFIG_KEY_SCRATCHPAD),
            loop.checkpoint_pending_writes,
            task_id,
            task_ns,
            self.configurable.get(CONFIG_KEY_RESUME_MAP),
            self.step,
            loop.stop,
        )
        return task_id, task_ns, scratchpad

    def push(self, idx: int, packet: Send, proc: PregelNode) -> PregelExecutableTask:
        """``prepare_push_task_send`` for the step's ``idx``-th ``Send``."""
        loop = self.loop
        task_id, task_ns, scratchpad = self._ids(packet.node, PUSH, str(idx))
        path = (PUSH, idx, False)
        writes: deque = deque()
        read_state = partial(
            _proc_input,
            proc,
            loop.managed,
            loop.channels,
            for_execution=True,
            scratchpad=scratchpad,
            input_cache=None,
        )
        config = self._config(packet.node, path, PUSH_TRIGGER, task_id, task_ns, scratchpad, writes, proc, read_state)
        timeout = packet.timeout if packet.timeout is not None else proc.timeout
        return self._task(packet.node, packet.arg, proc, writes, config, PUSH_TRIGGER, task_id, path, timeout)

    def pull(self, name: str, proc: PregelNode, triggers: tuple) -> PregelExecutableTask | None:
        """``prepare_single_task`` for the PULL task of ``name``, triggered."""
        loop = self.loop
        task_id, task_ns, scratchpad = self._ids(name, PULL, *triggers)
        try:
            val = _proc_input(
                proc,
                loop.managed,
                loop.channels,
                for_execution=True,
                input_cache=self.input_cache,
                scratchpad=scratchpad,
            )
            if val is MISSING:
                return None
        except Exception as exc:
            exc.add_note(f"Before task with name '{name}' and path '{(PULL, name)}'")
            raise
        if proc.node is None:
            return None
        path = (PULL, name)
        writes: deque = deque()
        config = self._config(name, path, triggers, task_id, task_ns, scratchpad, writes, proc, None)
        return self._task(name, val, proc, writes, config, triggers, task_id, path, proc.timeout)

    def _task(
        self,
        name: str,
        val: Any,
        proc: PregelNode,
        writes: deque,
        config: dict,
        triggers: Any,
        task_id: str,
        path: tuple,
        timeout: Any,
    ) -> PregelExecutableTask:
        return _makers(PregelExecutableTask, _TASK_FIELDS)(
            name,
            val,
            proc.node,
            writes,
            config,
            triggers,
            proc.retry_policy or self.loop.retry_policy,
            None,
            task_id,
            path,
            proc.flat_writers,
            proc.subgraphs,
            timeout,
        )

    def _config(
        self,
        name: str,
        path: tuple,
        triggers: Any,
        task_id: str,
        task_ns: str,
        scratchpad: Any,
        writes: deque,
        proc: PregelNode,
        read_state: Any,
    ) -> dict:
        """``patch_config(merge_configs(config, {"metadata": ..., "tags": proc.tags}),
        run_name=name, configurable={...})`` as ``prepare_single_task`` makes it."""
        loop = self.loop
        checkpoint = loop.checkpoint
        configurable = self.configurable
        base = self.base
        metadata = dict(self.base_metadata)
        for k in self.copied:
            metadata[k] = _copy_mapping_value(metadata[k])
        metadata.update(
            langgraph_step=self.step,
            langgraph_node=name,
            langgraph_triggers=triggers,
            langgraph_path=path,
            langgraph_checkpoint_ns=task_ns,
        )
        config = dict(base)
        config["metadata"] = metadata
        if proc.tags:
            tags = base.get("tags")
            config["tags"] = [*tags, *proc.tags] if tags else proc.tags
        config["run_name"] = name
        # ``runtime.override(previous=..., store=..., execution_info=...)`` is
        # ``dataclasses.replace``, which reads the class's field definitions at every call:
        # the fields are read once per runtime and step (`PlainTasks.runtime_fields`).
        base_runtime = configurable.get(CONFIG_KEY_RUNTIME, DEFAULT_RUNTIME)
        values, runtime_of = self.tasks.runtime_fields(
            base_runtime, checkpoint["channel_values"].get(PREVIOUS, None), loop.store
        )
        runtime = runtime_of(
            *values,
            _makers(ExecutionInfo, _INFO_FIELDS)(
                checkpoint["id"],
                task_ns,
                task_id,
                configurable.get(CONFIG_KEY_THREAD_ID),
                str(rid) if (rid := loop.config.get("run_id")) else None,
            ),
        )
        config[CONF] = {
            **configurable,
            CONFIG_KEY_TASK_ID: task_id,
            # deque.extend is thread-safe
            CONFIG_KEY_SEND: writes.extend,
            CONFIG_KEY_READ: partial(
                local_read, scratchpad, loop.channels, loop.managed, PregelTaskWrites(path, name, writes, triggers)
            ),
            CONFIG_KEY_READ_STATE: read_state,
            CONFIG_KEY_CHECKPOINTER: loop.checkpointer or configurable.get(CONFIG_KEY_CHECKPOINTER),
            CONFIG_KEY_CHECKPOINT_MAP: {
                **configurable.get(CONFIG_KEY_CHECKPOINT_MAP, {}),
                self.parent_ns: checkpoint["id"],
            },
            CONFIG_KEY_CHECKPOINT_ID: None,
            CONFIG_KEY_CHECKPOINT_NS: task_ns,
            CONFIG_KEY_SCRATCHPAD: scratchpad,
            CONFIG_KEY_RUNTIME: runtime,
        }
        return config


#: The fields a task and its execution info are given, in the order `_Step` gives them.
_TASK_FIELDS = (
    "name",
    "input",
    "proc",
    "writes",
    "config",
    "triggers",
    "retry_policy",
    "cache_key",
    "id",
    "path",
    "writers",
    "subgraphs",
    "timeout",
)
_INFO_FIELDS = ("checkpoint_id", "checkpoint_ns", "task_id", "thread_id", "run_id")

#: Makers of LangGraph's frozen records (`Records`), by class and the fields given.
_MAKERS: dict[tuple[type, tuple[str, ...]], Any] = {}


def _makers(cls: type, given: tuple[str, ...]) -> Any:
    """``cls(**dict(zip(given, values)))`` as ``maker(*values)`` (`_frozen_records`: the
    instance made without its ``__init__``'s Python where the class allows it)."""
    try:
        return _MAKERS[cls, given]
    except KeyError:
        maker = _MAKERS[cls, given] = Records(cls, given).maker
        return maker
