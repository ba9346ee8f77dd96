"""JSON schemas for plain Python functions when LangChain is not installed.

Follows LangChain's ``@tool`` rules: the description is the docstring as written, the
parameters come from a pydantic model of the signature with pydantic's ``title`` keys
removed, and a function without a docstring is refused.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, create_model


def _rm_titles(schema: Any, parent_is_properties: bool = False) -> Any:
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "title" and not parent_is_properties and isinstance(value, str):
                continue
            out[key] = _rm_titles(value, parent_is_properties=(key == "properties"))
        return out
    if isinstance(schema, list):
        return [_rm_titles(v) for v in schema]
    return schema


def _inline_refs(schema: dict) -> dict:
    """Replace ``$ref`` pointers into ``$defs`` by the definitions, as LangChain does."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = dict(defs[ref.split("/")[-1]])
                rest = {k: v for k, v in node.items() if k != "$ref"}
                return resolve({**target, **rest})
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    return resolve(schema)


def function_schema(func: Callable[..., Any]) -> tuple[str, str, type[BaseModel], dict]:
    name = func.__name__
    doc = func.__doc__
    if not doc:
        raise ValueError("Function must have a docstring if description not provided.")
    sig = inspect.signature(func)
    try:
        hints = get_type_hints(func)
    except Exception:  # noqa: BLE001 - unresolvable annotations fall back to Any, as pydantic would
        hints = {}
    fields: dict[str, Any] = {}
    for pname, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(pname, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (annotation, default)
    model = create_model(name, __config__=ConfigDict(arbitrary_types_allowed=True), **fields)
    schema = _rm_titles(_inline_refs(model.model_json_schema()))
    schema.pop("description", None)
    parameters = {"properties": schema.get("properties", {})}
    if schema.get("required"):
        parameters["required"] = schema["required"]
    parameters["type"] = "object"
    return name, doc.strip(), model, parameters
