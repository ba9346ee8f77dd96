"""The thread graph's own stream parts (``checkpoints``, ``tasks``, ``debug``: what only
LangGraph's loop makes, `_threads`), as the caller gets them. With ``subgraphs=True`` the
graphs following subagents (`_subagent_threads`) stream theirs too, under their `task`
calls' namespaces, as deepagents' subagent graphs do; their ``updates`` are not taken (the
core streams each subagent's own).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def graph_part(ns: tuple, mode: str, chunk: Any, graph_modes: Sequence[str]) -> tuple | None:
    """``("graph", mode, chunk, ns)`` for a part of ``graph_modes``; ``None`` for a followed
    subagent's update."""
    if mode not in graph_modes:
        return None
    if mode == "checkpoints":
        chunk = _without_feed(chunk)
    elif mode == "debug" and isinstance(chunk, dict) and chunk.get("type") == "checkpoint":
        chunk = {**chunk, "payload": _without_feed(chunk.get("payload"))}
    if ns:
        chunk = _as_subagent_streams(mode, chunk)
    return ("graph", mode, chunk, ns)


def _without_feed(checkpoint: Any) -> Any:
    """A checkpoint LangGraph streams, its configs without the run's own keys: LangGraph
    copies the run's `configurable` into them, and the feed is ours, not the caller's."""
    if not isinstance(checkpoint, dict):
        return checkpoint
    out = dict(checkpoint)
    for key in ("config", "parent_config"):
        config = out.get(key)
        if isinstance(config, dict) and isinstance(config.get("configurable"), dict):
            configurable = {k: v for k, v in config["configurable"].items() if not k.startswith("__deepagents_rs")}
            out[key] = {**config, "configurable": configurable}
    return out


def _as_subagent_streams(mode: str, chunk: Any) -> Any:
    """A followed subagent's ``tasks`` / ``debug`` part as deepagents' subagent graph streams
    it: its tasks' metadata without ``ls_agent_type``, which deepagents sets in its tracing
    context (its saved checkpoints show it, `_subagent_threads._sub_config`; its tasks not)."""
    payload = chunk.get("payload") if mode == "debug" and isinstance(chunk, dict) else chunk
    metadata = payload.get("metadata") if mode in ("tasks", "debug") and isinstance(payload, dict) else None
    if not isinstance(metadata, dict) or "ls_agent_type" not in metadata:
        return chunk
    payload = {**payload, "metadata": {k: v for k, v in metadata.items() if k != "ls_agent_type"}}
    return {**chunk, "payload": payload} if mode == "debug" else payload
