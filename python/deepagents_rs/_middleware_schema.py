"""What a stack's middleware declare of the graph's state: the keys of their ``state_schema``s, those
left out of the input and output, and the start value of reducer-annotated keys."""

from __future__ import annotations

import typing
from typing import Any


def schema_omissions(middleware: list[Any]) -> tuple[set[str], set[str]]:
    """The state keys the middleware's ``state_schema``s leave out of the graph's input and
    output (LangChain's ``OmitFromSchema``: ``PrivateStateAttr``, ``OmitFromInput``,
    ``OmitFromOutput``)."""
    from langchain.agents.middleware.types import OmitFromSchema

    omit_input: set[str] = set()
    omit_output: set[str] = set()
    for mw in middleware:
        for key, hint in _schema_hints(mw).items():
            for meta in _metadata(hint):
                if isinstance(meta, OmitFromSchema):
                    if meta.input:
                        omit_input.add(key)
                    if meta.output:
                        omit_output.add(key)
    return omit_input, omit_output


def declared_keys(middleware: list[Any]) -> set[str]:
    """Every key the middleware's ``state_schema``s declare."""
    keys: set[str] = set()
    for mw in middleware:
        keys.update(_schema_hints(mw))
    return keys


def reducer_defaults(middleware: list[Any]) -> dict[str, Any]:
    """The value each reducer-annotated key of the middleware's ``state_schema``s starts with
    in LangGraph (its channel is readable before any write: ``pinned_skills`` is ``[]``)."""
    from langgraph.channels import BinaryOperatorAggregate

    out: dict[str, Any] = {}
    for mw in middleware:
        for key, hint in _schema_hints(mw).items():
            meta = _metadata(hint)
            if not meta or not callable(meta[-1]) or isinstance(meta[-1], type):
                continue
            try:
                channel = BinaryOperatorAggregate(_bare(hint), meta[-1])
            except (TypeError, ValueError):
                continue
            if channel.is_available():
                out[key] = channel.get()
    return out


def _bare(hint: Any) -> Any:
    """A hint without its ``Required``/``NotRequired``/``Annotated`` wrappers."""
    while typing.get_origin(hint) in (typing.Annotated, typing.Required, typing.NotRequired):
        hint = typing.get_args(hint)[0]
    return hint


def _schema_hints(mw: Any) -> dict[str, Any]:
    """A middleware's ``state_schema`` annotations (none when it has no resolvable schema)."""
    schema = getattr(mw, "state_schema", None)
    if schema is None:
        return {}
    try:
        return typing.get_type_hints(schema, include_extras=True)
    except (NameError, TypeError):
        return {}


def _metadata(hint: Any) -> list[Any]:
    """``Annotated`` metadata, through ``Required``/``NotRequired`` wrappers."""
    out: list[Any] = []
    while True:
        origin = typing.get_origin(hint)
        if origin is typing.Annotated:
            out.extend(hint.__metadata__)
            hint = typing.get_args(hint)[0]
        elif origin in (typing.Required, typing.NotRequired):
            hint = typing.get_args(hint)[0]
        else:
            return out
