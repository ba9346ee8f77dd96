"""LangGraph's ``output_keys`` and ``invoke``'s ``stream_mode``: what a run reports of its
channels when the caller names them, and ``invoke`` as LangGraph builds it on its stream.

A values chunk is the named channels (one channel: its bare value), reported only after a
step that wrote one of them (the input counts as a step); an update is a node's writes to
the named channels. ``invoke`` keeps the last values chunk, or, for any other stream mode,
returns the list of chunks.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

#: LangGraph's key for a run's interrupts in a chunk.
INTERRUPT = "__interrupt__"


def output_keys_of(kwargs: dict, channels: Any, output_channels: Any) -> str | list[str] | None:
    """The run's ``output_keys`` (taken out of ``kwargs``), checked against the graph's
    channels with LangGraph's error; ``None`` when they are the graph's own output."""
    keys = kwargs.pop("output_keys", None)
    if keys is None:
        return None
    names = [keys] if isinstance(keys, str) else list(keys)
    for name in names:
        if channels is not None and name not in channels:
            raise ValueError(f"Key {name} not in channels")
    if not isinstance(keys, str) and output_channels is not None and set(names) == set(output_channels):
        return None
    return keys if isinstance(keys, str) else names


def channel_order(graph_state: type | None) -> dict[str, int]:
    """Each state key's place among the channels of the graph whose resolved state schema is
    ``graph_state`` (its field order, which LangGraph's output and ``values`` dicts follow);
    empty without LangChain (no such schema: None)."""
    from typing import get_type_hints

    if graph_state is None:
        return {}
    return {key: i for i, key in enumerate(get_type_hints(graph_state))}


def in_channel_order(state: dict, order: dict[str, int], known: dict[tuple[str, ...], tuple[str, ...] | None]) -> dict:
    """``state``'s keys in the graph's channel order (``order``: `channel_order`, never
    changed once made); keys it does not list keep their order after those it does. ``state``
    itself when its keys are in that order. ``known``, kept beside ``order``, holds each key
    sequence's order once worked out (``None``: in order already): every result and ``values``
    chunk of an agent has one of a few key sequences, and a sort a call (a Python key function
    call per key) was a tenth of a sync invoke's own entry and exit."""
    if not order:
        return state
    keys = tuple(state)
    if keys in known:
        ordered = known[keys]
    else:
        last = len(order)
        ordered = tuple(sorted(keys, key=lambda k: order.get(k, last)))
        known[keys] = None if ordered == keys else ordered
        ordered = known[keys]
    return state if ordered is None else {key: state[key] for key in ordered}


class OutputFilter:
    """A run's chunks narrowed to ``keys`` (see the module docstring)."""

    def __init__(self, keys: str | list[str], input: Any) -> None:
        self.keys = keys
        self._wanted = {keys} if isinstance(keys, str) else set(keys)
        # The input is the first step's write.
        self._written = set(input) if isinstance(input, dict) else set()

    def update(self, value: Any) -> Any:
        """A node's update narrowed, as LangGraph's ``map_output_updates`` narrows a task's
        writes; notes what was written for the next values chunk."""
        writes = [w for w in (value if isinstance(value, list) else [value]) if isinstance(w, dict)]
        pairs = [(k, v) for w in writes for k, v in w.items()]
        self._written.update(k for k, _ in pairs)
        if isinstance(self.keys, str):
            picked = [v for k, v in pairs if k == self.keys]
        elif not any(k in self._wanted for k, _ in pairs):
            picked = []
        elif any(n > 1 for k, n in Counter(k for k, _ in pairs).items() if k in self._wanted):
            picked = [{k: v} for k, v in pairs if k in self._wanted]
        else:
            picked = [{k: v for k, v in pairs if k in self._wanted}]
        if not picked:
            return None
        return picked[0] if len(picked) == 1 else picked

    def values(self, state: dict) -> tuple[bool, Any]:
        """``(report, chunk)`` for the state after a step."""
        report = bool(self._written & self._wanted)
        self._written = set()
        if not report:
            return False, None
        if isinstance(self.keys, str):
            return True, state.get(self.keys)
        return True, {k: state[k] for k in self.keys if k in state}


class InvokeResult:
    """``invoke`` over the stream, as LangGraph's ``Pregel.invoke`` builds it: the modes it
    streams, and its result from the chunks."""

    def __init__(self, stream_mode: Any, version: str) -> None:
        self.stream_mode = stream_mode
        self.version = version
        self.latest: Any = None
        self.chunks: list[Any] = []
        self.interrupts: list[Any] = []

    @property
    def modes(self) -> Any:
        if self.stream_mode == "values" and self.version != "v2":
            # v1 finds the interrupts in the updates.
            return ["updates", "values"]
        return self.stream_mode

    def add(self, chunk: Any) -> None:
        if self.stream_mode != "values":
            self.chunks.append(chunk)
        elif self.version == "v2":
            self.latest = chunk["data"]
            self.interrupts.extend(chunk.get("interrupts", ()))
        else:
            mode, payload = chunk[-2], chunk[-1]
            if mode == "updates" and isinstance(payload, dict) and payload.get(INTERRUPT) is not None:
                self.interrupts.extend(payload[INTERRUPT])
            elif mode == "values":
                self.latest = payload

    def result(self) -> Any:
        if self.stream_mode != "values":
            return self.chunks
        if self.version == "v2":
            from langgraph.types import GraphOutput

            return GraphOutput(value=self.latest, interrupts=tuple(self.interrupts))
        if self.interrupts:
            latest = self.latest
            return {**latest, INTERRUPT: self.interrupts} if isinstance(latest, dict) else {INTERRUPT: self.interrupts}
        return self.latest
