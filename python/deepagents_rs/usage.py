"""Token usage of a whole run, subagents included.

Every AI message carries its call's ``usage_metadata`` (LangChain's format: ``input_tokens``
counts cached tokens too, with ``input_token_details.cache_read`` / ``cache_creation``). A
subagent's messages stay inside the subagent, so the ``task`` tool result carries the
subagent's summed usage in ``response_metadata["usage_metadata"]``; ``run_usage`` adds both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def _add(total: dict[str, Any], usage: dict[str, Any]) -> None:
    for key, value in usage.items():
        if isinstance(value, dict):
            _add(total.setdefault(key, {}), value)
        elif isinstance(value, int) and not isinstance(value, bool):
            total[key] = total.get(key, 0) + value


def run_usage(result: dict[str, Any] | Iterable[Any]) -> dict[str, Any]:
    """The summed usage of every model call behind ``result`` (an ``invoke`` result or its
    messages): the agent's own calls and, through ``task`` results, its subagents'."""
    messages = result["messages"] if isinstance(result, dict) else result
    total: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    for message in messages:
        if getattr(message, "type", None) == "ai" and getattr(message, "usage_metadata", None):
            _add(total, dict(message.usage_metadata))
        elif getattr(message, "type", None) == "tool":
            sub = (getattr(message, "response_metadata", None) or {}).get("usage_metadata")
            if sub:
                _add(total, sub)
    return total


__all__ = ["run_usage"]
