"""Parity: what `FilesystemMiddleware` makes of a model request's tools and system message,
through deepagents' private methods its own tests call
(`_filter_unsupported_tools_and_apply_prompt`, `_with_filtered_grep_description`,
`_with_filtered_execute_description`): the tools a backend cannot serve left out, grep's and
execute's default descriptions fitted to what is left, and the caller's system prompt (with
the routes' host paths when commands run) added. Each case runs on both packages with the
same backend kind, settings and request; the requests that come out must be the same.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
from langchain.agents.middleware.types import ModelRequest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import tool

from .harness import ScriptedChatModel

IMPLS = ("deepagents", "deepagents_rs")


@tool
def search(query: str) -> str:
    """A tool of the caller's."""
    return query


def _backend(impl: str, kind: str, root: Path) -> Any:
    backends = importlib.import_module(f"{impl}.backends")
    protocol = importlib.import_module(f"{impl}.backends.protocol")

    class Sandbox(protocol.SandboxBackendProtocol, backends.StateBackend):
        def execute(self, command: str, *, timeout: int | None = None) -> Any:
            return protocol.ExecuteResponse(output="", exit_code=0)

    class NoDelete(backends.StateBackend):
        delete = protocol.BackendProtocol.delete

    if kind == "state":
        return backends.StateBackend()
    if kind == "sandbox":
        return Sandbox()
    if kind == "no-delete":
        return NoDelete()
    if kind == "local-shell-routes":
        shell = backends.LocalShellBackend(root_dir=str(root), virtual_mode=True)
        disk = backends.FilesystemBackend(root_dir=str(root / "common"), virtual_mode=True)
        return backends.CompositeBackend(default=shell, routes={"/common/": disk, "/mem/": backends.StateBackend()})
    raise AssertionError(kind)


SETTINGS = {
    "default": {},
    "prompt": {"system_prompt": "Use the files."},
    "grep-glob-execute": {"tools": ["read_file", "grep", "glob", "execute"]},
    "grep-execute": {"tools": ["read_file", "grep", "execute"]},
    "glob-execute": {"tools": ["read_file", "glob", "execute"]},
    "execute-only": {"tools": ["read_file", "execute"]},
    "no-execute": {"tools": ["read_file", "ls", "grep", "delete"]},
    "custom-grep-execute": {"custom_tool_descriptions": {"grep": "My grep.", "execute": "My shell."}},
    "empty-custom": {"custom_tool_descriptions": {"grep": "", "execute": ""}, "system_prompt": ""},
}
BACKENDS = ["state", "sandbox", "no-delete", "local-shell-routes"]
#: Which request tools: the middleware's own, plus the caller's; some with grep and glob taken
#: out of the request, as a later entry (a profile's tool exclusion) may have done.
REQUESTS = {
    "own": lambda tools: tools,
    "own-and-user": lambda tools: [*tools, search],
    "without-search": lambda tools: [t for t in tools if t.name not in ("grep", "glob")],
    "without-glob": lambda tools: [t for t in tools if t.name != "glob"],
    "as-dicts": lambda tools: [{"name": t.name, "description": t.description} for t in tools],
}
SYSTEMS = {
    "none": lambda: None,
    "text": lambda: SystemMessage(content="Base."),
    "blocks": lambda: SystemMessage(content=[{"type": "text", "text": "A."}, {"type": "text", "text": "B."}]),
}


def _view(tool: Any) -> Any:
    if isinstance(tool, dict):
        return ("dict", tool["name"], tool.get("description"))
    return (type(tool).__name__, tool.name, tool.description)


def _outcome(impl: str, backend: str, settings: str, request_kind: str, system: str, root: Path) -> Any:
    api = importlib.import_module(impl)
    middleware = api.FilesystemMiddleware(backend=_backend(impl, backend, root), **SETTINGS[settings])
    request = ModelRequest(
        model=ScriptedChatModel([]),
        messages=[HumanMessage(content="hi")],
        system_message=SYSTEMS[system](),
        tools=REQUESTS[request_kind](middleware.tools),
    )
    out = middleware._filter_unsupported_tools_and_apply_prompt(request)
    system_message = out.system_message
    return {
        "tools": [_view(t) for t in out.tools],
        "same_tools_object": out.tools is request.tools,
        "system": None if system_message is None else system_message.content_blocks,
        "own_tools": [_view(t) for t in middleware.tools],
    }


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("request_kind", REQUESTS)
@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_filter_unsupported_tools_and_apply_prompt(
    backend: str, settings: str, request_kind: str, system: str, tmp_path: Path
) -> None:
    (tmp_path / "common").mkdir()
    seen = {impl: _outcome(impl, backend, settings, request_kind, system, tmp_path) for impl in IMPLS}
    assert seen["deepagents_rs"] == seen["deepagents"]


@pytest.mark.parametrize("include_execution", [True, False])
@pytest.mark.parametrize("visible", [("grep", "glob"), ("grep",), ("glob",), ()])
def test_description_swaps_on_given_tools(include_execution: bool, visible: tuple[str, ...]) -> None:
    """The two swaps on their own, over tools and dict specs with default, other default and
    custom descriptions: swapped tools are copies, the input is left as it was, and a list
    with nothing to swap comes back as itself."""
    seen = {}
    for impl in IMPLS:
        fs = importlib.import_module(f"{impl}.middleware.filesystem")
        middleware = fs.FilesystemMiddleware()
        own = {t.name: t for t in middleware.tools}
        variants = [fs.GREP_TOOL_DESCRIPTION, fs._GREP_TOOL_DESCRIPTION_WITHOUT_EXECUTE]
        executes = [
            fs.EXECUTE_TOOL_DESCRIPTION,
            fs._EXECUTE_TOOL_DESCRIPTION_WITH_GREP_ONLY,
            fs._EXECUTE_TOOL_DESCRIPTION_WITH_GLOB_ONLY,
            fs._EXECUTE_TOOL_DESCRIPTION_WITHOUT_SEARCH,
        ]
        tools: list[Any] = [own["grep"], own["execute"], own["ls"], search]
        tools += [{"name": "grep", "description": d} for d in [*variants, "Custom."]]
        tools += [{"name": "execute", "description": d} for d in [*executes, "Custom."]]
        tools.append({"name": "grep"})
        before = [_view(t) for t in tools]
        grep_swapped = middleware._with_filtered_grep_description(tools, include_execution=include_execution)
        both_swapped = middleware._with_filtered_execute_description(grep_swapped, visible_search_tools=set(visible))
        assert [_view(t) for t in tools] == before
        seen[impl] = [
            [(_view(t), t is o) for t, o in zip(result, tools, strict=True)] + [result is tools]
            for result in (grep_swapped, both_swapped)
        ]
        seen[impl].append(
            [
                middleware._grep_tool_description(include_execution=include_execution),
                middleware._execute_tool_description(visible_search_tools=set(visible)),
            ]
        )
    assert seen["deepagents_rs"] == seen["deepagents"]
