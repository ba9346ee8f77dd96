"""The classes of ``deepagents_rs.errors`` whose bases are LangGraph's and LangChain's
(when installed): imported on first use of one of them (``errors.__getattr__``), so
``import deepagents_rs`` loads neither. Each keeps ``deepagents_rs.errors`` as its module,
where users import it from and where pickle finds it."""

from __future__ import annotations

from .errors import ModelProviderError

try:
    from langgraph.errors import GraphRecursionError
except ImportError:

    class GraphRecursionError(RecursionError):  # type: ignore[no-redef]
        """The agent took more steps than ``config["recursion_limit"]`` allows."""


def _langchain_class(name: str) -> tuple[type[BaseException], ...]:
    try:
        import langchain_core.exceptions as lc
    except ImportError:
        return ()
    cls = getattr(lc, name, None)
    return (cls,) if isinstance(cls, type) else ()


class ModelConnectionError(RuntimeError, *_langchain_class("ModelConnectionError")):  # type: ignore[misc]
    """A model provider could not be reached, the connection broke, or it answered something
    unreadable."""

    is_retryable = True

    def __init__(self, message: str, provider: str = "", kind: str = "connection") -> None:
        super().__init__(message)
        self.provider = provider
        self.kind = kind


class ModelTimeoutError(RuntimeError, *_langchain_class("ModelTimeoutError")):  # type: ignore[misc]
    """A model provider did not answer within the model's timeout (or answered 408). Not a
    ``ModelConnectionError``: langchain-core keeps the two apart."""

    is_retryable = True

    def __init__(self, message: str, provider: str = "", kind: str = "timeout") -> None:
        super().__init__(message)
        self.provider = provider
        self.kind = kind


class RateLimitError(ModelProviderError, *_langchain_class("ModelRateLimitError")):  # type: ignore[misc]
    """429: too many requests or tokens. Retried before it is raised."""

    is_retryable = True


class QuotaExceededError(ModelProviderError, *_langchain_class("ModelRateLimitError")):  # type: ignore[misc]
    """Out of credit (OpenAI's ``insufficient_quota``, Anthropic's ``billing_error``). Never
    retried."""


class OverloadedError(ModelProviderError, *_langchain_class("ModelAPIError")):  # type: ignore[misc]
    """The provider is overloaded (Anthropic's 529). Retried before it is raised."""

    is_retryable = True


class ServerError(ModelProviderError, *_langchain_class("ModelAPIError")):  # type: ignore[misc]
    """A 5xx from the provider. Retried before it is raised."""

    is_retryable = True


class AuthenticationError(ModelProviderError, *_langchain_class("ModelAuthenticationError")):  # type: ignore[misc]
    """401: the API key is missing or wrong."""


class PermissionDeniedError(ModelProviderError, *_langchain_class("ModelPermissionDeniedError")):  # type: ignore[misc]
    """403: the key may not use this model or feature."""


class NotFoundError(ModelProviderError, *_langchain_class("ModelNotFoundError")):  # type: ignore[misc]
    """404: usually an unknown model name."""


class BadRequestError(ModelProviderError, *_langchain_class("ModelInvalidRequestError")):  # type: ignore[misc]
    """Any other 4xx: the provider refused the request."""


class ContextOverflowError(ModelProviderError, *_langchain_class("ContextOverflowError")):  # type: ignore[misc]
    """The prompt does not fit the model's context window, whatever the provider's wording
    (Anthropic's "prompt is too long", OpenAI's ``context_length_exceeded``, ...).

    Like langchain-core's own class, it is not an invalid-request error: code that retries
    a rejected request with other content (deepagents' file middleware does) leaves it to
    context management."""


# The core's error kinds (src/providers/error.rs, ErrorKind::name) and their classes.
_BY_KIND: dict[str, type[ModelProviderError]] = {
    "rate_limited": RateLimitError,
    "quota_exceeded": QuotaExceededError,
    "overloaded": OverloadedError,
    "server_error": ServerError,
    "authentication": AuthenticationError,
    "permission": PermissionDeniedError,
    "not_found": NotFoundError,
    "context_overflow": ContextOverflowError,
    "bad_request": BadRequestError,
}


def _provider_error(
    kind: str,
    message: str,
    provider: str,
    status: int | None,
    error_type: str | None,
    code: str | None,
    provider_message: str,
    request_id: str | None,
) -> Exception:
    """The exception for a core provider error (called by the binding)."""
    if kind in ("connection", "decode") and status is None:
        return ModelConnectionError(message, provider, kind)
    if kind == "timeout":
        return ModelTimeoutError(message, provider, kind)
    cls = _BY_KIND.get(kind, ServerError if (status or 0) >= 500 else BadRequestError)
    return cls(message, provider, status or 0, error_type or "", provider_message, request_id, code, kind)


for _cls in (
    GraphRecursionError,
    ModelConnectionError,
    ModelTimeoutError,
    *_BY_KIND.values(),
):
    if _cls.__module__ == __name__:
        _cls.__module__ = "deepagents_rs.errors"
