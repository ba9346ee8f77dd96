"""The reducers of an agent's state: its keys declared with one (``Annotated[list,
operator.add]`` in a state schema, deepagents' ``async_tasks``), run for the core.

LangGraph keeps such a key in a ``BinaryOperatorAggregate`` channel: it starts at its type's
empty value, and each write of a step is folded into it by the reducer, in the order the
step's writes are applied (``Overwrite`` replacing it instead). The core holds the state, so
it hands every write of these keys here (``Reducers.fold``, see ``src/state/reducers.rs``)
and the channels themselves fold them: the same values, the same errors. Without LangGraph
there is no schema with reducers, so nothing here is imported at agent build.
"""

from __future__ import annotations

from typing import Any

#: State keys the core reduces itself.
_CORE_KEYS = frozenset({"messages", "files"})


class Reducers:
    """A graph's reducer channels, by key (LangGraph's, as its state schemas make them)."""

    def __init__(self, channels: dict[str, Any]) -> None:
        self.channels = channels
        self.keys = sorted(channels)

    def fold(self, old: dict, writes: list[tuple[str, Any, bool]]) -> dict:
        """Each written key's value after ``writes`` (``(key, value, overwrite)``, in order)
        folded onto ``old`` (a key missing there starts at its channel's empty value)."""
        from langgraph.types import Overwrite

        from deepagents_rs._langgraph_private import MISSING

        values: dict[str, list] = {}
        for key, value, overwrite in writes:
            values.setdefault(key, []).append(Overwrite(value) if overwrite else value)
        out = {}
        for key, written in values.items():
            channel = self.channels[key].from_checkpoint(old.get(key, MISSING))
            channel.update(written)
            out[key] = channel.get()
        return out

    async def afold(self, old: dict, writes: list[tuple[str, Any, bool]]) -> dict:
        return self.fold(old, writes)

    @staticmethod
    def unchanged(pairs: list[tuple[str, Any, Any]]) -> list[str]:
        """The keys whose two values (``(key, before, after)``) are the same object or equal
        (an ambiguous comparison, such as an array's, counts as a change)."""
        return [key for key, before, after in pairs if after is before or (after == before) is True]

    async def aunchanged(self, pairs: list[tuple[str, Any, Any]]) -> list[str]:
        return self.unchanged(pairs)

    def initial(self, given: dict) -> dict:
        """The keys' values at the start of a run with no thread: each channel's empty value,
        or the input's value folded onto it, as LangGraph writes a run's input."""
        from deepagents_rs._langgraph_private import MISSING

        out = {}
        for key, channel in self.channels.items():
            # A channel of its own: its empty value made anew, as each run's channels are.
            fresh = channel.from_checkpoint(MISSING)
            if key in given:
                fresh.update([given[key]])
            if fresh.is_available():
                out[key] = fresh.get()
        return out


def reducers_of(graph_state: type | None) -> Reducers | None:
    """The reducers of the graph whose resolved state schema is ``graph_state`` (None without
    LangChain, whose resolver makes that schema, or when no key has one)."""
    if graph_state is None:
        return None
    from langgraph.channels.binop import BinaryOperatorAggregate

    from deepagents_rs._langgraph_private import _get_channels

    # `messages` and `files` are the core's own (a user schema may redeclare `messages` with
    # `add_messages`): never folded here.
    channels = {
        k: c
        for k, c in _get_channels(graph_state)[0].items()
        if isinstance(c, BinaryOperatorAggregate) and k not in _CORE_KEYS
    }
    return Reducers(channels) if channels else None
