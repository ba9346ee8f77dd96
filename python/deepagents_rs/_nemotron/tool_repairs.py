"""The Nemotron 3 Ultra profile's repairs around file tool calls: arguments the model names
its own way (`path` for `file_path`), a `read_file` with no `limit`, empty results, and pages of
`read_file` that stop at the limit without saying the file goes on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import ToolMessage

from deepagents_rs._nemotron import patterns as pat
from deepagents_rs._nemotron import texts
from deepagents_rs.profiles.harness._nvidia_nemotron_3_ultra import _DEFAULT_READ_LIMIT as DEFAULT_READ_LIMIT

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langchain.agents.middleware.types import ToolCallRequest
    from langgraph.types import Command

#: The file tools whose path argument is `file_path`.
_PATH_TOOLS = frozenset(("read_file", "write_file", "edit_file", "delete"))
#: How many lines `read_file` may put above its status header (a truncation and an offset note).
_NOTE_LINES = 2


def _empty(content: Any) -> bool:
    """No content at all: `None`, `""`, or only text parts that are all empty."""
    if content is None or content == "":
        return True
    if isinstance(content, list):
        return all(isinstance(part, dict) and part.get("type") == "text" and not part.get("text") for part in content)
    return False


class NemotronToolCallShim(AgentMiddleware):
    """Renames the model's `path` argument of file tools to `file_path`, gives `read_file` a
    default `limit`, and gives an empty tool result a placeholder text."""

    name = "NemotronToolCallShim"

    @staticmethod
    def _fix_args(request: ToolCallRequest) -> ToolCallRequest:
        call = request.tool_call
        tool = call.get("name")
        if tool not in _PATH_TOOLS:
            return request
        args = dict(call.get("args") or {})
        renamed = "path" in args and "file_path" not in args
        if renamed:
            args["file_path"] = args.pop("path")
        limited = tool == "read_file" and "limit" not in args
        if limited:
            args["limit"] = DEFAULT_READ_LIMIT
        if not (renamed or limited):
            return request
        return request.override(tool_call={**call, "args": args})

    @staticmethod
    def _normalize(result: ToolMessage | Command[Any]) -> ToolMessage | Command[Any]:
        if isinstance(result, ToolMessage) and _empty(result.content):
            return result.model_copy(update={"content": texts.EMPTY_TOOL_RESULT})
        return result

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]]
    ) -> ToolMessage | Command[Any]:
        """The tool's result for the repaired call, a placeholder if it is empty."""
        return self._normalize(handler(self._fix_args(request)))

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]]
    ) -> ToolMessage | Command[Any]:
        """`wrap_tool_call` under `ainvoke`."""
        return self._normalize(await handler(self._fix_args(request)))


def _int_arg(args: dict[str, Any], key: str, default: int) -> int:
    """An integer argument as `read_file` reads it; a missing, zero or unreadable one is `default`."""
    try:
        return int(args.get(key) or default)
    except (TypeError, ValueError):
        return default


class ReadFileContinuationNoticeMiddleware(AgentMiddleware):
    """Tells the model, under a `read_file` page that reached its limit, that the file likely
    goes on and where the next page starts."""

    name = "ReadFileContinuationNoticeMiddleware"

    @staticmethod
    def _is_numbered_read_file_row(row: str) -> bool:
        """Whether `row` is a numbered source line of a `read_file` result (a wrapped line's
        continuation, `N.M`, is not: it does not count toward the limit)."""
        return pat.NUMBERED_ROW.match(row) is not None

    @staticmethod
    def _lines_shown(content: str) -> int:
        """How many source lines a result holds: from its status header when it has one (only
        the first rows can hold it, as file content can look the same), else by counting rows."""
        for row in content.split("\n", _NOTE_LINES + 1)[: _NOTE_LINES + 1]:
            header = pat.READ_STATUS_HEADER.match(row)
            if header:
                return int(header.group(2)) - int(header.group(1)) + 1
        is_row = ReadFileContinuationNoticeMiddleware._is_numbered_read_file_row
        return sum(map(is_row, content.split("\n")))

    @staticmethod
    def _annotate(request: ToolCallRequest, result: ToolMessage | Command[Any]) -> ToolMessage | Command[Any]:
        if not isinstance(result, ToolMessage) or request.tool_call.get("name") != "read_file":
            return result
        content = result.text
        if not content or content.startswith("Error"):
            return result
        args = request.tool_call.get("args", {}) or {}
        offset = _int_arg(args, "offset", 0)
        limit = _int_arg(args, "limit", DEFAULT_READ_LIMIT)
        if ReadFileContinuationNoticeMiddleware._lines_shown(content) < limit:
            return result
        notice = texts.READ_CONTINUES.format(limit=limit, offset=offset, next_offset=offset + limit)
        return result.model_copy(update={"content": content + notice})

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]]
    ) -> ToolMessage | Command[Any]:
        """The tool's result, with the notice when it is a full `read_file` page."""
        return self._annotate(request, handler(request))

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]]
    ) -> ToolMessage | Command[Any]:
        """`wrap_tool_call` under `ainvoke`."""
        return self._annotate(request, await handler(request))
