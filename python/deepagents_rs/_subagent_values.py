"""A subagent's ``values`` chunks under ``subgraphs=True``: its own graph's keys only.

The core runs a subagent on the state its `task` call hands it, keys of the parent's that
the subagent's graph lacks included (a key only the parent's middleware declares). In
deepagents the subagent is a graph of its own: its ``values`` are its channels, so such a
key does not show there. The core reports each subagent's start with the subagent's name (a
``routes`` item, asked for when ``values`` stream under ``subgraphs``); the name gives the
keys of its graph (`DeepAgent._state_keys`), which its ``values`` chunks keep.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class SubagentKeys:
    """The state keys of each subagent streaming under a namespace, learned from its start."""

    def __init__(self, keys_of: Callable[[str], frozenset[str] | None]) -> None:
        #: A subagent's graph keys by its name (None: not known, its values are kept whole).
        self._keys_of = keys_of
        self._by_ns: dict[tuple, frozenset[str] | None] = {}

    def observe(self, ns: tuple, payload: Any) -> None:
        """Takes note of a subagent's start (``("__start__", "subagent", (call id, state,
        nodes, name))``), reported under its own namespace."""
        _node, kind, value = payload
        if kind == "subagent":
            self._by_ns[tuple(ns)] = self._keys_of(value[3])

    def values(self, ns: tuple, value: Any) -> Any:
        """A subagent's ``values`` chunk with the keys of its graph only."""
        keys = self._by_ns.get(tuple(ns))
        if keys is None or not isinstance(value, dict):
            return value
        return {k: v for k, v in value.items() if k in keys}


def subagent_keys(agent: Any, modes: list[str], subgraphs: bool) -> SubagentKeys | None:
    """What a stream of ``modes`` filters its subagents' ``values`` with: only when it shows
    them (``values`` under ``subgraphs``) and ``agent`` runs subagents the core runs."""
    if not subgraphs or "values" not in modes or not agent._subagent_schemas:
        return None
    from ._stream import _SUBAGENT_INTEGRATION

    def keys_of(name: str) -> frozenset[str] | None:
        return agent._state_keys().get((_SUBAGENT_INTEGRATION, name))

    return SubagentKeys(keys_of)
