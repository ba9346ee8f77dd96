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

LangChain dumps the validated model (``model_dump``) only to walk its keys: for a schema whose
dump can only be its fields in order (no serializer of its own, computed or excluded field,
extra key or alias naming the keys), the plan walks the fields instead: the dump runs a
serializer over every value, about 1.2 us of a hot direct call's 22.6 (an ``echo`` tool).

The schema's ``model_validate`` and ``model_fields_set``, where they are pydantic's own, are
what they wrap: its validator's ``validate_python`` with no options, and the instance's
``__pydantic_fields_set__`` (two Python frames and some 25 bytecodes a call less).
"""

from __future__ import annotations

from typing import Any


class ArgsPlan:
    """What ``_to_args_and_kwargs`` needs of one tool's schema."""

    __slots__ = ("defaulted", "dumped", "no_fields", "own_validation", "schema")

    def __init__(
        self, schema: type, no_fields: bool, defaulted: frozenset[str], dumped: tuple[str, ...] | None = None
    ) -> None:
        self.schema = schema
        # Whether the schema has a `model_validate` / `model_fields_set` of its own (then
        # called, as LangChain calls them; otherwise pydantic's validator is read directly).
        self.own_validation = _own_validation(schema)
        self.no_fields = no_fields
        # The fields passed when not given: an explicit default, not the synthetic
        # ``args``/``kwargs`` of a variadic function.
        self.defaulted = defaulted
        # The keys of every ``model_dump()`` of the schema, when known without dumping
        # (`_dumped_keys`); ``None``: dumped at each call.
        self.dumped = dumped

    def args_and_kwargs(self, args: dict) -> tuple[tuple, dict]:
        """``tool._to_args_and_kwargs(dict(args), tool_call_id)`` for this tool."""
        if self.no_fields:
            return (), {}
        schema = self.schema
        if self.own_validation:
            result = schema.model_validate(args)
            provided = result.model_fields_set
        else:
            # What pydantic's `model_validate(args)` and `model_fields_set` return.
            result = schema.__pydantic_validator__.validate_python(args)
            provided = result.__pydantic_fields_set__
        defaulted = self.defaulted
        validated = {}
        dumped = self.dumped
        for key in result.model_dump() if dumped is None else dumped:
            if key in args or key in provided or key in defaulted:
                validated[key] = getattr(result, key)
        return (), validated


def _own_validation(schema: type) -> bool:
    """Whether ``schema`` has a ``model_validate`` or ``model_fields_set`` of its own (not
    pydantic's ``BaseModel``'s)."""
    from pydantic import BaseModel

    validate = getattr(schema.model_validate, "__func__", None)
    return validate is not BaseModel.model_validate.__func__ or (
        getattr(schema, "model_fields_set", None) is not BaseModel.model_fields_set
    )


def args_plan(tool: Any) -> ArgsPlan | None:
    """The tool's plan, or ``None`` when its arguments need LangChain's own method."""
    from langchain_core.tools.base import InjectedToolCallId, get_all_basemodel_annotations
    from langchain_core.utils.pydantic import get_fields
    from pydantic import BaseModel

    from deepagents_rs._langchain_private import _is_injected_arg_type

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
    return ArgsPlan(schema, False, defaulted, _dumped_keys(schema))


def _dumped_keys(schema: type) -> tuple[str, ...] | None:
    """The keys ``model_dump()`` gives for every instance of ``schema`` (its fields, in
    order), when nothing can change them or make the dump raise: no serializer of the
    model's or a field's (decorated or annotated), no computed or excluded field, no extra
    keys kept, no dump by alias. ``None`` otherwise (LangChain's dump at each call)."""
    from pydantic.functional_serializers import PlainSerializer, WrapSerializer

    config = schema.model_config
    decorators = schema.__pydantic_decorators__
    if (
        config.get("extra") == "allow"
        or config.get("serialize_by_alias")
        or decorators.field_serializers
        or decorators.model_serializers
        or schema.model_computed_fields
    ):
        return None
    fields = schema.model_fields
    for info in fields.values():
        if (
            info.exclude
            or getattr(info, "exclude_if", None) is not None
            or any(isinstance(m, (PlainSerializer, WrapSerializer)) for m in info.metadata)
        ):
            return None
    return tuple(fields)


def args_and_kwargs(tool: Any, plan: ArgsPlan | None, args: dict, tool_call_id: str) -> tuple[tuple, dict]:
    """The call's positional and keyword arguments: through the plan while the tool still has
    the schema it was made for, else LangChain's method."""
    if plan is not None and tool.args_schema is plan.schema:
        return plan.args_and_kwargs(args)
    return tool._to_args_and_kwargs(dict(args), tool_call_id)
