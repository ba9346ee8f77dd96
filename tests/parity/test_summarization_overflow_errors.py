"""Parity: a LangChain model's error read as a context overflow as deepagents reads it.

deepagents takes LangChain's ``ContextOverflowError`` as an overflow, and also any error
whose ``status_code`` is 400, 413 or 422 and whose text names the context limit in one of
the providers' wordings; it then summarizes and retries at once. Any other error fails the
run as it is. Each case runs both implementations on a model that raises the error once the
request is over 40,000 characters, and compares every request, the result and the files.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.outputs import ChatResult

from .test_summarization import SummarizingModel, calls_then, compare, run_both, summary_calls


class ProviderError(Exception):
    """An integration's own error, with the HTTP status it carries."""

    def __init__(self, message: str, status_code: int | None) -> None:
        super().__init__(message)
        self.status_code = status_code


class RefusingModel(SummarizingModel):
    """Raises ``ProviderError(text, status)`` for any request over 40,000 characters."""

    text: str = ""
    status: int | None = None

    def _next(self, messages: Any, stop: Any, kwargs: dict[str, Any]) -> ChatResult:
        if sum(len(str(m.content)) for m in messages) > 40_000:
            raise ProviderError(self.text, self.status)
        return super()._next(messages, stop, kwargs)


def refusing(text: str, status: int | None) -> Any:
    def make(script: list[Any], **kwargs: Any) -> RefusingModel:
        return RefusingModel(script, text=text, status=status, **kwargs)

    return make


@pytest.mark.parametrize(
    ("text", "status", "recovers"),
    [
        ("Error: This model's maximum context length is 128000 tokens", 400, True),
        ("Request too large: input tokens exceed the configured limit", 413, True),
        ("CONTEXT_LENGTH_EXCEEDED for this request", 422, True),
        ("prompt is too long", 400, True),
        ("maximum context length exceeded", 500, False),
        ("maximum context length exceeded", None, False),
        ("invalid request: bad tool schema", 400, False),
    ],
)
@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_an_integrations_overflow_error_is_recognised_as_deepagents_does(
    text: str, status: int | None, recovers: bool, mode: str
) -> None:
    runs = run_both(calls_then(12, "done"), ["go"], model_factory=refusing(text, status), mode=mode)
    compare(runs)
    ref, rs = runs
    assert bool(summary_calls(rs)) is recovers
    failed = isinstance(rs.results[0], Exception)
    assert failed is not recovers and isinstance(ref.results[0], Exception) is failed
