"""A user's own saver (issue 19: ``checkpointer=`` accepts any ``BaseCheckpointSaver``): a
class of the user's with only the methods LangGraph requires of a saver, its delta-channel
history read through the base class's default. Both implementations run the same two turns
on it and must leave the same checkpoints, state and history."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.checkpoint.memory import InMemorySaver
from thread_support import IMPLS, THREAD, _value, dump, first_difference, history, make, snapshot


class UserSaver(BaseCheckpointSaver):
    """Keeps its rows in an ``InMemorySaver`` it owns, reached only through the four
    methods; nothing else of LangGraph's savers (no ``get_delta_channel_history`` of its own,
    no async methods)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows = InMemorySaver()
        self.calls: list[str] = []

    def get_tuple(self, config: dict) -> CheckpointTuple | None:
        self.calls.append("get_tuple")
        return self.rows.get_tuple(config)

    def list(self, config: dict | None, *, filter: Any = None, before: Any = None, limit: Any = None) -> Iterator:
        self.calls.append("list")
        return self.rows.list(config, filter=filter, before=before, limit=limit)

    def put(self, config: dict, checkpoint: Any, metadata: Any, new_versions: Any) -> dict:
        self.calls.append("put")
        return self.rows.put(config, checkpoint, metadata, new_versions)

    def put_writes(self, config: dict, writes: Any, task_id: str, task_path: str = "") -> None:
        self.calls.append("put_writes")
        self.rows.put_writes(config, writes, task_id, task_path)


def _two_turns(impl: Any) -> tuple:
    """Two turns of ``impl`` on a fresh `UserSaver`: what each turn and the saver show."""
    saver = UserSaver()
    agent = make(impl, saver)
    agent.invoke({"messages": [("user", "go")]}, THREAD)
    result = _value(agent.invoke({"messages": [{"role": "user", "content": "again"}]}, THREAD))
    return result, snapshot(agent), history(agent), sorted(set(saver.calls)), dump(saver)


def test_a_users_own_saver_holds_the_thread_deepagents_leaves_in_it() -> None:
    ref, ours = (_two_turns(impl) for impl in IMPLS)
    assert ours[:4] == ref[:4]
    assert {"put", "put_writes", "get_tuple"} <= set(ref[3])
    found = first_difference(ref[4], ours[4])
    assert found is None, found
