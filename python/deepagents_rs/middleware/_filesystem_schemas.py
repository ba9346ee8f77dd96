"""The file tools' pydantic input schemas (`LsSchema`, `ReadFileSchema`, ...), under
deepagents' names, and the `args_schema` of the tools `FilesystemMiddleware.tools` makes.

Their fields, types, defaults and descriptions are read from the parameter schemas the core
sends the model (`_core.FS_TOOL_PARAMETERS`, held once), so the JSON a LangChain model gets
from these classes is the core's.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from .._core import FS_TOOL_PARAMETERS

_JSON_TYPES: dict[str, type] = {"string": str, "integer": int, "boolean": bool}

# The classes' docstrings, as deepagents writes them (JSON-schema `description`s).
_DOCS = {
    "LsSchema": "Input schema for the `ls` tool.",
    "ReadFileSchema": "Input schema for the `read_file` tool.",
    "ReadVideoFileSchema": (
        "Input schema for `read_file` when the optional video frame extraction is available.\n\n"
        "Identical to `ReadFileSchema`; only the `offset`/`limit` descriptions differ\n"
        "to document their video semantics (interpreted as seconds for video reads)."
    ),
    "WriteFileSchema": "Input schema for the `write_file` tool.",
    "EditFileSchema": "Input schema for the `edit_file` tool.",
    "DeleteSchema": "Input schema for the `delete` tool.",
    "GlobSchema": "Input schema for the `glob` tool.",
    "GrepSchema": "Input schema for the `grep` tool.",
    "ExecuteSchema": "Input schema for the `execute` tool.",
}

# The schema of each tool's arguments, by tool name (`read_file` takes the video one with
# the `[video]` extra).
_TOOL_SCHEMAS = {
    "ls": "LsSchema",
    "read_file": "ReadFileSchema",
    "write_file": "WriteFileSchema",
    "edit_file": "EditFileSchema",
    "delete": "DeleteSchema",
    "glob": "GlobSchema",
    "grep": "GrepSchema",
    "execute": "ExecuteSchema",
}


def _annotation(prop: dict[str, Any]) -> Any:
    """The Python type of one JSON-schema property (with its `gt` bound, if any)."""
    if "enum" in prop:
        return Literal[tuple(prop["enum"])]
    if "anyOf" in prop:
        branches = [_annotation(branch) for branch in prop["anyOf"]]
        union = branches[0]
        for branch in branches[1:]:
            union = union | branch
        return union
    if prop["type"] == "null":
        return type(None)
    return _JSON_TYPES[prop["type"]]


def _bound(prop: dict[str, Any]) -> dict[str, Any]:
    """A property's numeric bound as a `Field` argument (`exclusiveMinimum`: `gt`)."""
    for branch in [prop, *prop.get("anyOf", ())]:
        if "exclusiveMinimum" in branch:
            return {"gt": branch["exclusiveMinimum"]}
    return {}


def _model(name: str, base: type[BaseModel] = BaseModel) -> type[BaseModel]:
    parameters = json.loads(FS_TOOL_PARAMETERS[name])
    required = set(parameters.get("required", ()))
    fields: dict[str, Any] = {}
    for field, prop in parameters["properties"].items():
        default = ... if field in required else prop.get("default")
        fields[field] = (_annotation(prop), Field(default=default, description=prop["description"], **_bound(prop)))
    model = create_model(name, __base__=base, __module__="deepagents_rs.middleware.filesystem", **fields)
    model.__doc__ = _DOCS[name]
    return model


LsSchema = _model("LsSchema")
ReadFileSchema = _model("ReadFileSchema")
ReadVideoFileSchema = _model("ReadVideoFileSchema", ReadFileSchema)
WriteFileSchema = _model("WriteFileSchema")
EditFileSchema = _model("EditFileSchema")
DeleteSchema = _model("DeleteSchema")
GlobSchema = _model("GlobSchema")
GrepSchema = _model("GrepSchema")
ExecuteSchema = _model("ExecuteSchema")


def args_schema(tool: str, video: bool) -> type[BaseModel] | None:
    """The schema class of a file tool's arguments (`None` for a tool that is no file tool)."""
    name = _TOOL_SCHEMAS.get(tool)
    if name is None:
        return None
    if name == "ReadFileSchema" and video:
        name = "ReadVideoFileSchema"
    return globals()[name]
