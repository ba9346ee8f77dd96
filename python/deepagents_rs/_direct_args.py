"""A direct tool call's arguments checked as ``BaseTool._to_args_and_kwargs`` checks them,
with the tool's introspection done once.

``_to_args_and_kwargs`` works out, at every call, facts that never change for a tool: the
schema's fields and which have defaults (``get_fields``), which annotations are an
``InjectedToolCallId`` (``get_all_basemodel_annotations``, a walk over the schema's classes)
and which of the function's parameters are injected (``inspect.signature``). That was about
a third of a direct call's Python in the 1,000-thread run. ``ArgsPlan`` keeps those facts and
does the rest of each call as LangChain does: the schema's ``model_validate`` (same
``ValidationError``), then the fields given, set through an alias, or with a default of their
own. A tool whose schema is not a pydantic v2 model, or which injects anything, has no plan
and keeps LangChain's method.
"""

from __future__ import annotations

from typing import Any


class ArgsPlan:
    """What ``_to_args_and_kwargs`` needs of one tool's schema."""

    __slots__ = ("defaulted", "no_fields", "schema")

    def __init__(self, schema: type, no_fields: bool, defaulted: frozenset[str]) -> None:
        self.schema = schema
        self.no_fields = no_fields
        # The fields passed when not given: an explicit default, not the synthetic
        # ``args``/``kwargs`` of a variadic function.
        self.defaulted = defaulted

    def args_and_kwargs(self, args: dict) -> tuple[tuple, dict]:
        """``tool._to_args_and_kwargs(dict(args), tool_call_id)`` for this tool."""
        if self.no_fields:
            return (), {}
        result = self.schema.model_validate(args)
        provided = result.model_fields_set
        defaulted = self.defaulted
        validated = {}
        for key in result.model_dump():
            if key in args or key in provided or key in defaulted:
                validated[key] = getattr(result, key)
        return (), validated


def args_plan(tool: Any) -> ArgsPlan | None:
    """The tool's plan, or ``None`` when its arguments need LangChain's own method."""
    from langchain_core.tools.base import (
        InjectedToolCallId,
        _is_injected_arg_type,
        get_all_basemodel_annotations,
    )
    from langchain_core.utils.pydantic import get_fields
    from pydantic import BaseModel

    schema = tool.args_schema
    if not isinstance(schema, type) or not issubclass(schema, BaseModel):
        return None
    if tool._injected_args_keys:
        return None
    fields = get_fields(schema)
    if not fields:
        return ArgsPlan(schema, True, frozenset())
    annotations = get_all_basemodel_annotations(schema)
    if any(_is_injected_arg_type(a, injected_type=InjectedToolCallId) for a in annotations.values()):
        return None
    defaulted = frozenset(k for k, info in fields.items() if k not in {"args", "kwargs"} and not info.is_required())
    return ArgsPlan(schema, False, defaulted)


def args_and_kwargs(tool: Any, plan: ArgsPlan | None, args: dict, tool_call_id: str) -> tuple[tuple, dict]:
    """The call's positional and keyword arguments: through the plan while the tool still has
    the schema it was made for, else LangChain's method."""
    if plan is not None and tool.args_schema is plan.schema:
        return plan.args_and_kwargs(args)
    return tool._to_args_and_kwargs(dict(args), tool_call_id)
