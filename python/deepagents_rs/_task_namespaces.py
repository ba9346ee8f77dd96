"""A followed subagent's stream namespace as its task's, in a thread run.

In a thread run the core names a subagent's namespace ``tools:<id>`` with an id of its own,
a new one each run (the graph names the `task` call's task only later; without a thread
graph the core takes the task's id from `_task_config.subagent_task_id`). In LangGraph a
subgraph's namespace is its task's checkpoint namespace, and a resumed subagent runs in the
same task again (LangGraph's task ids come from the checkpoint), so it streams under the
namespace it had before it stopped. In a thread run the `tools` task that follows a subagent
(`_subagent_threads`) names its call here, and the core's items of that subagent reach the
caller under the task's namespace, metadata included: the first run's and the resumed run's
are one namespace, as in deepagents.

A subagent the core started before its task named it (another task's read went past its
start) holds its items until it is named, so none of them reaches the caller under the
core's id.
"""

from __future__ import annotations

import threading
from typing import Any

#: The metadata keys of a ``messages`` part that hold a checkpoint namespace.
_NS_KEYS = ("checkpoint_ns", "langgraph_checkpoint_ns")


class TaskNamespaces:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: The task's namespace segment for each followed `task` call.
        self._named: dict[str, str] = {}
        #: The core's segment -> the task's.
        self._aliases: dict[str, str] = {}
        #: The core's segments started before their task named them: their call and items.
        self._held: dict[str, tuple[str, list[tuple]]] = {}

    def name(self, call_id: str, config: dict) -> list[tuple]:
        """The task running ``call_id`` names its subagent's namespace (its own checkpoint
        namespace's last segment); the items held for it, renamed, to hand on now."""
        ns = ((config.get("configurable") or {}).get("checkpoint_ns") or "").rpartition("|")[2]
        if not ns:
            return []
        with self._lock:
            self._named[call_id] = ns
            for segment, (held_call, items) in list(self._held.items()):
                if held_call == call_id:
                    del self._held[segment]
                    self._aliases[segment] = ns
                    return [self._renamed(item) for item in items]
        return []

    def accept(self, item: tuple) -> tuple | None:
        """``item`` as the caller gets it, or ``None`` while its subagent waits for a name."""
        mode, ns, payload = item
        if not ns:
            return item
        with self._lock:
            segment = ns[-1] if len(ns) else None
            if mode == "routes" and payload[1] == "subagent" and segment not in self._aliases:
                call_id = payload[2][0]
                named = self._named.get(call_id)
                if named is None:
                    self._held[segment] = (call_id, [item])
                    return None
                self._aliases[segment] = named
            for held in ns:
                if held in self._held:
                    self._held[held][1].append(item)
                    return None
            return self._renamed(item)

    def release(self) -> list[tuple]:
        """The items still held (their task never named them), as the core named them."""
        with self._lock:
            items = [item for _call, held in self._held.values() for item in held]
            self._held.clear()
        return items

    def _renamed(self, item: tuple) -> tuple:
        mode, ns, payload = item
        if not any(s in self._aliases for s in ns):
            return item
        new_ns = tuple(self._aliases.get(s, s) for s in ns)
        if mode == "messages" and isinstance(payload, tuple) and len(payload) == 3 and isinstance(payload[1], dict):
            meta = dict(payload[1])
            for key in _NS_KEYS:
                if isinstance(meta.get(key), str):
                    meta[key] = self._renamed_path(meta[key])
            payload = (payload[0], meta, payload[2])
        return (mode, type(ns)(new_ns) if isinstance(ns, tuple) else list(new_ns), payload)

    def _renamed_path(self, path: str) -> str:
        return "|".join(self._aliases.get(s, s) for s in path.split("|"))

    def renamed(self, item: tuple) -> Any:
        """``item`` with the names known so far (an item of the graph's own)."""
        with self._lock:
            return self._renamed(item)
