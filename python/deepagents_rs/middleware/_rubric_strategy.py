"""What the rubric's error texts and traces say about the grader: the model it was given and
the structured-output strategy its answer comes through (LangChain's choice)."""

from __future__ import annotations

from typing import Any


def model_label(model: Any) -> str:
    """A model string as given; a model object as its class and, when it has one, its id."""
    if isinstance(model, str):
        return model
    ident = next(
        (v for v in (getattr(model, a, None) for a in ("model_name", "model", "model_id")) if isinstance(v, str) and v),
        None,
    )
    return f"{type(model).__name__}:{ident}" if ident else type(model).__name__


def strategy_of_model(model: Any, *, tools: list) -> str:
    """The strategy LangChain's ``AutoStrategy`` picks for ``model``."""
    from .._structured import _provider_strategy_expected

    return "ProviderStrategy" if _provider_strategy_expected(model, tools) else "ToolStrategy"


def strategy_of_error(exc: BaseException) -> str | None:
    """The strategy a structured-output error in ``exc``'s chain (causes, contexts, groups)
    came from: deepagents_rs parses through a tool, so a parse error is ``ToolStrategy``'s."""
    try:
        from langchain.agents.structured_output import (
            MultipleStructuredOutputsError,
            StructuredOutputValidationError,
        )
    except ImportError:
        return None
    pending, seen = [exc], set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, (MultipleStructuredOutputsError, StructuredOutputValidationError)):
            return "ToolStrategy"
        pending.extend(getattr(current, "exceptions", ()) if isinstance(current, BaseExceptionGroup) else ())
        linked = current.__cause__ or current.__context__
        if linked is not None:
            pending.append(linked)
    return None
