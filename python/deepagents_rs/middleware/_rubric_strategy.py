"""What the rubric's traces and error texts say about the grader: the model it was given and
the structured-output strategy its answer comes through (LangChain's choice), as observed in
a result or an error, else as predicted from the model the grader runs on."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Strategy = Literal["ProviderStrategy", "ToolStrategy"]

#: The name of the grader's output schema (its tool, under ToolStrategy).
_SCHEMA_NAME = "GraderResponse"


def model_identifier(model: object) -> str | None:
    """The model id a chat model carries, under the attributes LangChain reads, in its order."""
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return None


def model_label(model: Any) -> str:
    """A model string as given; a model object as its class and, when it has one, its id."""
    if isinstance(model, str):
        return model
    ident = model_identifier(model)
    return f"{type(model).__name__}:{ident}" if ident else type(model).__name__


@dataclass(frozen=True)
class NativeModel:
    """The model an OpenAI or Anthropic model string names. The core runs such a string with
    its own client (or LangChain's, as the provider profile asks), so there is no LangChain
    object to read: its id, and the profile LangChain's model of that id reports, as far as
    the strategy reads it."""

    provider: str
    model_name: str
    profile: Mapping[str, Any] = field(default_factory=dict)


def native_model(spec: str) -> NativeModel | None:
    """The model ``spec`` names when its provider is one the core speaks, else None (LangChain
    resolves it). Parsed only: the provider profile's hooks run once, when the grader is built."""
    from .._model_spec import parse_model_spec
    from .._structured_models import STRUCTURED_OUTPUT_MODELS

    try:
        provider, name = parse_model_spec(spec)
    except (TypeError, ValueError):
        return None
    if provider not in STRUCTURED_OUTPUT_MODELS:
        return None
    return NativeModel(provider, name, {"structured_output": name in STRUCTURED_OUTPUT_MODELS[provider]})


def calls_grader_response(message: Any) -> bool:
    """Whether an AI message calls the grader's output tool."""
    return any(call.get("name") == _SCHEMA_NAME for call in getattr(message, "tool_calls", None) or ())


def strategy_of_result(result: Mapping[str, Any]) -> Strategy | None:
    """The strategy a grader's answer came through: its last AI message called the output
    tool (ToolStrategy) or answered in its text (ProviderStrategy)."""
    from langchain_core.messages import AIMessage

    messages = result.get("messages")
    if result.get("structured_response") is None or not isinstance(messages, list):
        return None
    last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    if last is None:
        return None
    return "ToolStrategy" if calls_grader_response(last) else "ProviderStrategy"


def strategy_of_error(exc: BaseException) -> Strategy | None:
    """The strategy of a structured-output error anywhere in ``exc``'s chain (causes, else
    contexts; a group's members)."""
    try:
        from langchain.agents.structured_output import (
            MultipleStructuredOutputsError,
            StructuredOutputValidationError,
        )
    except ImportError:
        return None
    for err in _linked(exc):
        if isinstance(err, (MultipleStructuredOutputsError, StructuredOutputValidationError)):
            # Several output tools called at once is a tool answer; a reply that failed to
            # parse was one if it called the output tool, else native text.
            tool = isinstance(err, MultipleStructuredOutputsError) or calls_grader_response(err.ai_message)
            return "ToolStrategy" if tool else "ProviderStrategy"
    return None


def _linked(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions linked to it (its cause, else its context; a group's
    members), each once, depth first."""
    stack, visited = [exc], set()
    while stack:
        err = stack.pop()
        if id(err) in visited:
            continue
        visited.add(id(err))
        yield err
        if isinstance(err, BaseExceptionGroup):
            stack.extend(err.exceptions)
        nxt = err.__cause__ if err.__cause__ is not None else err.__context__
        if nxt is not None:
            stack.append(nxt)


def strategy_of_model(
    model: object, *, has_tools: bool, patterns: Callable[[], Sequence[str] | None]
) -> Strategy | None:
    """The strategy LangChain's ``AutoStrategy`` picks for the model the grader runs on: its
    profile, else LangChain's table of model names (``patterns``, loaded only then; None
    when unavailable). A model string not resolved yet has none."""
    if isinstance(model, str):
        return None
    ident = model_identifier(model)
    lowered = ident.lower() if ident is not None else None
    profile = getattr(model, "profile", None)
    if isinstance(profile, Mapping) and profile.get("structured_output"):
        # Gemini before 3 cannot answer natively while it has tools.
        gemini_before_3 = lowered is not None and "gemini" in lowered and "gemini-3" not in lowered
        return "ToolStrategy" if has_tools and gemini_before_3 else "ProviderStrategy"
    table = patterns()
    if table is None:
        return None
    known = lowered is not None and any(re.search(p, lowered) for p in table)
    return "ProviderStrategy" if known else "ToolStrategy"
