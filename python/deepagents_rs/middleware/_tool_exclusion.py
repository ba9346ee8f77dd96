"""`deepagents.middleware._tool_exclusion`: a harness profile's `excluded_tools` as a
middleware. The model is not offered the excluded tools, and a call naming one anyway is
answered with an error instead of running (the tool stays registered with the executor, so
this keeps what runs in line with what was offered; it is no security boundary).

In a deepagents_rs agent the core's `_ToolExclusionMiddleware` entry does this
(`src/middleware/tool_exclusion.rs`, which holds the refusal's text); this class passed in
`middleware=` becomes that entry, and in LangChain's `create_agent` it runs as written here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import ToolMessage

from .._core import TOOL_NOT_AVAILABLE
from .._tools import _tool_name


class _ToolExclusionMiddleware(AgentMiddleware[Any, Any, Any]):
    """Leaves the `excluded` tools out of every model request, and refuses calls naming them.

    Placed after every entry that adds tools, so that it sees them all.

    Args:
        excluded: Tool names to remove before the model sees them.
    """

    def __init__(self, *, excluded: frozenset[str]) -> None:
        self._excluded = excluded

    def _without_excluded(self, request: Any) -> Any:
        if not self._excluded:
            return request
        return request.override(tools=[t for t in request.tools if _tool_name(t) not in self._excluded])

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """`handler` on the request without the excluded tools."""
        return handler(self._without_excluded(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """`wrap_model_call` with an async `handler`."""
        return await handler(self._without_excluded(request))

    def _rejection(self, request: Any) -> ToolMessage | None:
        """The error result for a call naming an excluded tool; `None` for any other call."""
        call = request.tool_call
        name = call["name"]
        if name not in self._excluded:
            return None
        return ToolMessage(
            content=TOOL_NOT_AVAILABLE.replace("{name}", name),
            tool_call_id=call["id"] or "",
            name=name,
            status="error",
        )

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """The refusal for an excluded tool, else `handler`'s result."""
        return self._rejection(request) or handler(request)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """`wrap_tool_call` with an async `handler`."""
        return self._rejection(request) or await handler(request)

    def _core_config(self, store: Any = None) -> dict[str, Any]:
        """In a deepagents_rs agent: the core's tool exclusion entry, over the same names."""
        return {"kind": "tool_exclusion", "excluded": sorted(self._excluded)}
