"""``_messages_delta_reducer``: the batch reducer of ``DeepAgentState``'s ``messages`` delta
channel, under the name deepagents gives it (code building its own state on deepagents'
channel imports it from here)."""

from ._threads import _messages_reducer as _messages_delta_reducer

__all__ = ["_messages_delta_reducer"]
