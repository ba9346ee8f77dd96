"""A middleware's own structured output for one model call (``wrap_model_call`` handing on
``request.override(response_format=...)``), decided as LangChain's ``create_agent`` decides it
when it binds the model: a bare schema is an ``AutoStrategy``, which becomes provider-native
output where the model supports it and a tool strategy elsewhere; a tool strategy may only
use schema tools the agent declared with its own format."""

from __future__ import annotations

from typing import Any

from ._structured import _provider_strategy_expected, make_response_format


def override_format(request: Any, initial: Any) -> Any:
    """The core's adapter for ``request.response_format`` (``None``: no structured output for
    this call); ``initial`` is the agent's own strategy (``None`` without one)."""
    from langchain.agents.structured_output import AutoStrategy, ProviderStrategy, ToolStrategy

    chosen = request.response_format
    if chosen is None:
        return None
    if not isinstance(chosen, (AutoStrategy, ToolStrategy, ProviderStrategy)):
        chosen = AutoStrategy(schema=chosen)
    if isinstance(chosen, AutoStrategy):
        if _provider_strategy_expected(request.model, list(request.tools)):
            chosen = ProviderStrategy(schema=chosen.schema)
        else:
            chosen = ToolStrategy(schema=chosen.schema)
    if isinstance(chosen, ToolStrategy):
        declared = _declared_schema_tools(initial)
        for spec in chosen.schema_specs:
            if spec.name not in declared:
                # LangChain's words.
                raise ValueError(
                    f"ToolStrategy specifies tool '{spec.name}' which wasn't declared in the original "
                    "response format when creating the agent."
                )
    return make_response_format(chosen, model=request.model, tools=list(request.tools))


def _declared_schema_tools(initial: Any) -> set[str]:
    """The schema tools ``create_agent`` sets up for the agent's own format: a tool
    strategy's, or an ``AutoStrategy``'s as a tool strategy; none for provider output."""
    from langchain.agents.structured_output import AutoStrategy, ToolStrategy

    if isinstance(initial, AutoStrategy):
        initial = ToolStrategy(schema=initial.schema)
    if isinstance(initial, ToolStrategy):
        return {spec.name for spec in initial.schema_specs}
    return set()
