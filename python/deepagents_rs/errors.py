"""Exceptions raised by deepagents-rs.

``GraphRecursionError`` is LangGraph's own class when LangGraph is installed, so code that
catches it from ``langgraph.errors`` keeps working.
"""

from __future__ import annotations

try:
    from langgraph.errors import GraphRecursionError
except ImportError:

    class GraphRecursionError(RecursionError):  # type: ignore[no-redef]
        """The agent took more steps than ``config["recursion_limit"]`` allows."""


class ModelProviderError(RuntimeError):
    """A model provider answered with an error status."""

    def __init__(
        self,
        message: str,
        provider: str = "",
        status_code: int = 0,
        error_type: str = "",
        provider_message: str = "",
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status_code = status_code
        self.error_type = error_type
        self.provider_message = provider_message
        self.request_id = request_id


class ModelConnectionError(RuntimeError):
    """A model provider could not be reached, or answered something unreadable."""


__all__ = ["GraphRecursionError", "ModelConnectionError", "ModelProviderError"]
