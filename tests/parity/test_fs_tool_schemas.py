"""Parity: the file tools' pydantic input schemas and module constants of
``deepagents.middleware.filesystem``, side by side.

Each ``*Schema`` class gives the same JSON schema and validates the same inputs the same
way; the tools ``FilesystemMiddleware.tools`` makes carry those classes as ``args_schema``
and LangChain turns them into the same tool definition, byte for byte, with and without the
``[video]`` extra; the texts and numbers deepagents exports are equal; and the module's
``GLOB_TIMEOUT`` is read at each ``glob`` call, as deepagents reads it.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import time
from typing import Any

import pytest
from langchain.tools import ToolRuntime
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ValidationError

IMPLS = ("deepagents", "deepagents_rs")

# The input schema classes deepagents' module defines.
SCHEMAS = sorted(
    name
    for name, value in vars(importlib.import_module("deepagents.middleware.filesystem")).items()
    if isinstance(value, type) and issubclass(value, BaseModel) and name.endswith("Schema")
)

CONSTANTS = [
    "EMPTY_CONTENT_WARNING",
    "NO_LINES_REQUESTED_WARNING",
    "GREP_TRUNCATION_NOTE",
    "GLOB_TRUNCATION_NOTE",
    "GLOB_UNREADABLE_NOTE",
    "GLOB_PATHLESS_DENIED_HINT",
    "READ_FILE_TRUNCATION_MSG",
    "GREP_GLOB_DESCRIPTION",
    "GREP_OUTPUT_MODE_DESCRIPTION",
    "DEFAULT_READ_OFFSET",
    "DEFAULT_READ_LIMIT",
    "GLOB_TIMEOUT",
    "NUM_CHARS_PER_TOKEN",
]


def fs(impl: str) -> Any:
    return importlib.import_module(f"{impl}.middleware.filesystem")


@pytest.mark.parametrize("name", CONSTANTS)
def test_constants(name: str) -> None:
    ref, ours = (getattr(fs(impl), name) for impl in IMPLS)
    assert type(ours) is type(ref)
    assert ours == ref


@pytest.mark.parametrize("name", SCHEMAS)
def test_schema_json(name: str) -> None:
    ref, ours = (getattr(fs(impl), name) for impl in IMPLS)
    assert ours.__name__ == ref.__name__
    assert json.dumps(ours.model_json_schema()) == json.dumps(ref.model_json_schema())
    assert list(ours.model_fields) == list(ref.model_fields)


def test_every_schema_is_there() -> None:
    assert len(SCHEMAS) == 9
    for name in SCHEMAS:
        assert issubclass(getattr(fs("deepagents_rs"), name), BaseModel)


def test_video_schema_extends_the_text_one() -> None:
    for impl in IMPLS:
        assert issubclass(fs(impl).ReadVideoFileSchema, fs(impl).ReadFileSchema)


INPUTS = [
    ("LsSchema", {"path": "/a"}),
    ("LsSchema", {}),
    ("LsSchema", {"path": 3}),
    ("ReadFileSchema", {"file_path": "/a", "offset": "4", "limit": 2.0}),
    ("ReadFileSchema", {"file_path": "/a", "offset": 1.5}),
    ("ReadFileSchema", {"file_path": "/a", "limit": None}),
    ("ReadVideoFileSchema", {"file_path": "/v.mp4", "offset": 3}),
    ("WriteFileSchema", {"file_path": "/a"}),
    ("EditFileSchema", {"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": "yes"}),
    ("EditFileSchema", {"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": "maybe"}),
    ("DeleteSchema", {"file_path": None}),
    ("GlobSchema", {"pattern": "*.py"}),
    ("GlobSchema", {"pattern": "*.py", "path": None}),
    ("GrepSchema", {"pattern": "x", "output_mode": "content", "max_count": 3}),
    ("GrepSchema", {"pattern": "x", "output_mode": "lines"}),
    ("GrepSchema", {"pattern": "x", "max_count": 0}),
    ("GrepSchema", {"pattern": "x", "max_count": -2, "glob": 5}),
    ("ExecuteSchema", {"command": "ls", "timeout": "30"}),
    ("ExecuteSchema", {"command": "ls", "timeout": "soon"}),
]


@pytest.mark.parametrize(("name", "data"), INPUTS)
def test_schema_validation(name: str, data: dict) -> None:
    def outcome(impl: str) -> Any:
        try:
            return ("ok", getattr(fs(impl), name).model_validate(data).model_dump())
        except ValidationError as e:
            return ("invalid", [(err["type"], err["loc"], err["msg"]) for err in e.errors()])

    assert outcome("deepagents_rs") == outcome("deepagents")


def tools_of(impl: str, *, video: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    module = fs(impl)
    monkeypatch.setattr(module, "video_dependencies_available", lambda: video)
    backends = importlib.import_module(f"{impl}.backends")
    middleware = module.FilesystemMiddleware(backend=backends.StateBackend())
    return {tool.name: tool for tool in middleware.tools}


@pytest.mark.parametrize("video", [False, True])
def test_tool_definitions(video: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    ref = tools_of("deepagents", video=video, monkeypatch=monkeypatch)
    ours = tools_of("deepagents_rs", video=video, monkeypatch=monkeypatch)
    assert list(ours) == list(ref)
    for name, tool in ref.items():
        mine = ours[name]
        assert json.dumps(convert_to_openai_tool(mine)) == json.dumps(convert_to_openai_tool(tool))
        assert mine.args_schema.__name__ == tool.args_schema.__name__
        assert mine.args_schema is getattr(fs("deepagents_rs"), tool.args_schema.__name__)
        assert json.dumps(mine.tool_call_schema.model_json_schema()) == json.dumps(
            tool.tool_call_schema.model_json_schema()
        )
    expected = "ReadVideoFileSchema" if video else "ReadFileSchema"
    assert ours["read_file"].args_schema.__name__ == expected


def _runtime() -> ToolRuntime:
    return ToolRuntime(state={}, context=None, tool_call_id="c1", store=None, stream_writer=lambda _: None, config={})


def _slow_backend(impl: str) -> Any:
    backends = importlib.import_module(f"{impl}.backends")

    class Slow(backends.StateBackend):
        def glob(self, pattern: str, path: str | None = None) -> Any:
            time.sleep(1.0)
            return super().glob(pattern, path)

        async def aglob(self, pattern: str, path: str | None = None) -> Any:
            await asyncio.sleep(1.0)
            return await super().aglob(pattern, path)

    return Slow()


@pytest.mark.parametrize("value", [0.2, 0.25])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_glob_timeout_read_at_call_time(value: float, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tools made first, the module's `GLOB_TIMEOUT` changed after: the call waits that
    long and says so."""

    def answer(impl: str) -> Any:
        module = fs(impl)
        tool = next(t for t in module.FilesystemMiddleware(backend=_slow_backend(impl)).tools if t.name == "glob")
        monkeypatch.setattr(module, "GLOB_TIMEOUT", value)
        args = {"pattern": "**/*", "runtime": _runtime()}
        result = tool.invoke(args) if mode == "sync" else asyncio.run(tool.ainvoke(args))
        return getattr(result, "content", result), getattr(result, "status", None)

    ref = answer("deepagents")
    assert answer("deepagents_rs") == ref
    assert ref[0] == f"Error: glob timed out after {value}s. Try a more specific pattern or a narrower path."
