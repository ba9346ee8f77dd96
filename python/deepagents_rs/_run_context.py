"""A run's runtime context (``invoke(..., context=...)``), where LangGraph keeps it: in the
run config's ``Runtime``, which tools, middleware and backends read as ``runtime.context``."""

from __future__ import annotations

from typing import Any

#: LangGraph's config key for a run's `Runtime` (``langgraph._internal._constants``).
RUNTIME_KEY = "__pregel_runtime"


def runtime_with(base: Any, schema: type | None, context: Any) -> Any:
    """A `Runtime` holding ``context``, coerced to ``schema`` as LangGraph coerces it (a dict
    becomes the dataclass or pydantic model), on top of ``base`` (a parent graph's)."""
    from langgraph.runtime import Runtime

    from deepagents_rs._langgraph_private import _coerce_context

    value = _coerce_context(schema, context)
    if base is None:
        return Runtime(context=value)
    return base.override(context=value)


def context_of(config: Any) -> Any:
    """The runtime context of a run config (None when the run has none)."""
    runtime = ((config or {}).get("configurable") or {}).get(RUNTIME_KEY)
    return getattr(runtime, "context", None)
