"""Exceptions raised by deepagents-rs.

``GraphRecursionError`` is LangGraph's own class when LangGraph is installed, so code that
catches it from ``langgraph.errors`` keeps working.

A native provider's failure is one class per kind, each also a subclass of the class
langchain-core (>= 1.8) gives that kind (``ModelRateLimitError``, ``ContextOverflowError``,
...) when langchain-core is installed, so code written against LangChain's classified model
errors, and deepagents' summarization that catches ``ContextOverflowError``, catch ours.

Those classes are defined in ``_langchain_errors`` when one is first asked for (their bases
are LangChain's and LangGraph's, which ``import deepagents_rs`` does not load);
``ModelProviderError``, the base of the provider classes, needs neither and is defined here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._lazy import lazy_names

if TYPE_CHECKING:
    from ._langchain_errors import (
        AuthenticationError,
        BadRequestError,
        ContextOverflowError,
        GraphRecursionError,
        ModelConnectionError,
        ModelTimeoutError,
        NotFoundError,
        OverloadedError,
        PermissionDeniedError,
        QuotaExceededError,
        RateLimitError,
        ServerError,
    )


class ModelProviderError(RuntimeError):
    """A model provider answered with an error (an error status, or an error in its stream).

    Attributes: ``provider`` (``"anthropic"``, ``"openai"``), ``status_code``, ``error_type``
    (the provider's own type, e.g. ``"overloaded_error"``), ``code`` (e.g.
    ``"context_length_exceeded"``), ``provider_message`` and ``request_id``. Never the key.
    """

    is_retryable = False

    def __init__(
        self,
        message: str,
        provider: str = "",
        status_code: int = 0,
        error_type: str = "",
        provider_message: str = "",
        request_id: str | None = None,
        code: str | None = None,
        kind: str = "",
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status_code = status_code
        self.error_type = error_type
        self.provider_message = provider_message
        self.request_id = request_id
        self.code = code
        self.kind = kind

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (
                self.args[0] if self.args else "",
                self.provider,
                self.status_code,
                self.error_type,
                self.provider_message,
                self.request_id,
                self.code,
                self.kind,
            ),
        )


__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "ContextOverflowError",
    "GraphRecursionError",
    "ModelConnectionError",
    "ModelProviderError",
    "ModelTimeoutError",
    "NotFoundError",
    "OverloadedError",
    "PermissionDeniedError",
    "QuotaExceededError",
    "RateLimitError",
    "ServerError",
]

# Every class but `ModelProviderError` is defined in `_langchain_errors`, resolved on first
# use, as is `_provider_error`, which the binding calls for a provider's error.
__getattr__, __dir__ = lazy_names(
    globals(),
    dict.fromkeys([*(n for n in __all__ if n != "ModelProviderError"), "_provider_error"], "._langchain_errors"),
)
