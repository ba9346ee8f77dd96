"""Parity: ``deepagents._tools``' helpers, side by side: the name of a tool in each form
``create_deep_agent`` takes (``_tool_name``), and the copy of a tool list with a harness
profile's description overrides (``_apply_tool_description_overrides``), the caller's tools
left as they were.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from langchain_core.tools import StructuredTool, tool


def tools_module(impl: str) -> Any:
    return importlib.import_module(f"{impl}._tools")


@tool
def search(query: str) -> str:
    """Search for something."""
    return query


def plain(x: int) -> int:
    """A plain function."""
    return x


class Named:
    name = "named_object"


class BadName:
    name = 12


STRUCTURED = StructuredTool.from_function(func=plain, name="structured", description="orig")

TOOLS: list[Any] = [
    search,
    STRUCTURED,
    plain,
    Named(),
    BadName(),
    {"name": "dict_tool", "description": "d", "parameters": {}},
    {"description": "nameless"},
    {"name": 5},
    {"name": None, "description": "none"},
    lambda: None,
]


@pytest.mark.parametrize("index", range(len(TOOLS)))
def test_tool_name(index: int) -> None:
    ref, ours = (tools_module(impl)._tool_name(TOOLS[index]) for impl in ("deepagents", "deepagents_rs"))
    assert ours == ref


def _view(tools: list[Any] | None) -> Any:
    if tools is None:
        return None
    out = []
    for t in tools:
        if isinstance(t, dict):
            out.append(("dict", dict(t)))
        elif hasattr(t, "description") and hasattr(t, "args_schema"):
            out.append(("tool", t.name, t.description, type(t).__name__))
        else:
            out.append(("object", t))
    return out


OVERRIDES = [
    {},
    {"search": "new search"},
    {"structured": "S", "dict_tool": "D", "plain": "P", "named_object": "N"},
    {"missing": "nothing"},
]


@pytest.mark.parametrize("overrides", OVERRIDES)
@pytest.mark.parametrize("given", [None, [], TOOLS])
def test_description_overrides(given: Any, overrides: dict) -> None:
    before = _view(given)
    ref, ours = (
        tools_module(impl)._apply_tool_description_overrides(given, overrides)
        for impl in ("deepagents", "deepagents_rs")
    )
    assert _view(ours) == _view(ref)
    assert _view(given) == before
    if given:
        # A list of its own: changing it leaves the caller's alone.
        assert ours is not given
        # The same entries are kept as they are (not copied) in both.
        assert [m is g for m, g in zip(ours, given, strict=True)] == [r is g for r, g in zip(ref, given, strict=True)]
