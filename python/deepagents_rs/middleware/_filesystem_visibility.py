"""What a model request shows of `FilesystemMiddleware`'s tools, as deepagents' private
methods give it: the tools the backend cannot serve (`execute` without a shell, `delete`
without deletion) left out, grep's and execute's default descriptions fitted to what is left
(grep points at `execute` only when that runs; execute recommends only the search tools
shown), and the caller's system prompt added, with the routes' host paths when `execute`
runs.

Which description fits is the core's (`_core.files_retargeted_description`, what the core's
own filesystem entry sends); these methods apply it to LangChain's request objects.
"""

from __future__ import annotations

from typing import Any

from .._core import files_retargeted_description
from ..backends.protocol import _supports_delete
from ._filesystem_texts import EXECUTE_TOOL_DESCRIPTION, GREP_TOOL_DESCRIPTION


class ToolVisibility:
    """`FilesystemMiddleware`'s request-time tool filtering (a base of that class, which
    holds `backend`, `_custom_tool_descriptions` and `_custom_system_prompt`)."""

    backend: Any
    _custom_tool_descriptions: Any
    _custom_system_prompt: str | None

    @staticmethod
    def _tool_name(tool: object) -> str | None:
        """A request tool's name: a tool's (or any object's) `name`, a dict's `"name"`."""
        if isinstance(tool, dict):
            return tool.get("name")
        if hasattr(tool, "name"):
            return tool.name  # type: ignore[no-any-return]
        get = getattr(tool, "get", None)
        return get("name") if callable(get) else None

    def _grep_tool_description(self, *, include_execution: bool) -> str:
        """grep's description when `execute` does (or does not) run: the caller's, else the
        default that fits."""
        return self._custom_tool_descriptions.get("grep") or (
            files_retargeted_description("grep", GREP_TOOL_DESCRIPTION, [], include_execution) or GREP_TOOL_DESCRIPTION
        )

    def _execute_tool_description(self, *, visible_search_tools: set[str]) -> str:
        """execute's description when the model sees `visible_search_tools`: the caller's,
        else the default recommending just those."""
        return self._custom_tool_descriptions.get("execute") or (
            files_retargeted_description("execute", EXECUTE_TOOL_DESCRIPTION, sorted(visible_search_tools), True)
            or EXECUTE_TOOL_DESCRIPTION
        )

    def _refitted(self, tools: list[Any], name: str, visible: list[str], execution: bool) -> list[Any]:
        """`tools` with the `name` tools whose default description no longer fits given a
        copy with the one that does; `tools` itself when none needs it (or the caller
        described the tool)."""
        if self._custom_tool_descriptions.get(name):
            return tools
        from langchain_core.tools import BaseTool

        out: list[Any] = []
        for tool in tools:
            described = isinstance(tool, (BaseTool, dict)) and self._tool_name(tool) == name
            current = (
                (tool.description if isinstance(tool, BaseTool) else tool.get("description")) if described else None
            )
            fitted = (
                files_retargeted_description(name, current, visible, execution) if isinstance(current, str) else None
            )
            if fitted is None:
                out.append(tool)
            elif isinstance(tool, BaseTool):
                out.append(tool.model_copy(update={"description": fitted}))
            else:
                out.append({**tool, "description": fitted})
        return out if any(a is not b for a, b in zip(out, tools, strict=True)) else tools

    def _with_filtered_grep_description(self, tools: list[Any], *, include_execution: bool) -> list[Any]:
        """`tools` with a default grep description that does not fit `include_execution`
        swapped, in a copy (`tools` itself when nothing changes)."""
        return self._refitted(tools, "grep", [], include_execution)

    def _with_filtered_execute_description(self, tools: list[Any], *, visible_search_tools: set[str]) -> list[Any]:
        """`tools` with a default execute description that recommends other search tools
        than `visible_search_tools` swapped, in a copy (`tools` itself when nothing changes)."""
        return self._refitted(tools, "execute", sorted(visible_search_tools), True)

    def _unsupported_tools_and_execution_state(self, tool_names: set[str | None]) -> tuple[set[str | None], bool, Any]:
        """Of `tool_names`, the tools the backend cannot serve; whether `execute` runs; and
        the backend (`None` when neither `execute` nor `delete` is among them)."""
        from .filesystem import supports_execution

        if "execute" not in tool_names and "delete" not in tool_names:
            return set(), False, None
        backend = self.backend
        execution = "execute" in tool_names and supports_execution(backend)
        unsupported: set[str | None] = set()
        if "execute" in tool_names and not execution:
            unsupported.add("execute")
        if "delete" in tool_names and not _supports_delete(backend):
            unsupported.add("delete")
        return unsupported, execution, backend

    def _filter_unsupported_tools_and_apply_prompt(self, request: Any) -> Any:
        """The request without the tools the backend cannot serve, with grep's and execute's
        descriptions fitted to what is left, and with the caller's system prompt (and, when
        `execute` runs, the routes' host paths) added to its system message."""
        from ._utils import append_to_system_message
        from .filesystem import _route_host_path_prompt

        names = {self._tool_name(t) for t in request.tools}
        unsupported, execution, backend = self._unsupported_tools_and_execution_state(names)
        visible = [t for t in request.tools if self._tool_name(t) not in unsupported]
        if unsupported:
            request = request.override(tools=visible)
        shown = {n for n in names - unsupported if n is not None}
        fitted = self._with_filtered_grep_description(visible, include_execution=execution)
        fitted = self._with_filtered_execute_description(fitted, visible_search_tools=shown)
        if fitted is not visible:
            request = request.override(tools=fitted)
        parts = [self._custom_system_prompt] if self._custom_system_prompt else []
        routes = _route_host_path_prompt(backend) if execution else ""
        if routes:
            parts.append(routes)
        prompt = "\n\n".join(parts).strip()
        if prompt:
            request = request.override(system_message=append_to_system_message(request.system_message, prompt))
        return request
