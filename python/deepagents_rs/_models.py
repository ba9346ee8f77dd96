"""Adapter for LangChain chat models called back from the Rust loop."""

from __future__ import annotations

from typing import Any

from . import _convert


class ModelAdapter:
    """Calls a LangChain ``BaseChatModel`` as deepagents' agent node does: ``bind_tools`` with
    the agent's tools, then ``invoke``/``ainvoke`` on the system message plus the history."""

    def __init__(self, model: Any, bindables: dict[str, Any]) -> None:
        self.model = model
        self._bindables = bindables
        self._bound: Any = None
        self._bound_key: tuple | None = None
        provider = getattr(model, "_llm_type", type(model).__name__)
        name = getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__
        self.model_id = f"{provider}:{name}"

    def _bind(self, tools: list[dict], tool_choice: str | None) -> Any:
        key = (tuple(t["name"] for t in tools), tool_choice)
        if key != self._bound_key:
            specs = [
                self._bindables.get(t["name"])
                or {
                    "type": "function",
                    "function": {"name": t["name"], "description": t["description"], "parameters": t["parameters"]},
                }
                for t in tools
            ]
            # create_agent binds with an explicit tool_choice ("any" while a structured
            # response is expected, else None), and binds nothing without tools.
            self._bound = self.model.bind_tools(specs, tool_choice=tool_choice) if specs else self.model
            self._bound_key = key
        return self._bound

    #: A core message dict as a LangChain message; the core caches what this returns.
    to_message = staticmethod(_convert.from_core)

    @staticmethod
    def _reply(message: Any) -> dict:
        return _convert.to_core(message)

    def invoke(self, system: Any, messages: list[Any], tools: list[dict], tool_choice: str | None = None) -> dict:
        """One model call; ``system`` and ``messages`` are LangChain messages."""
        return self._reply(self._bind(tools, tool_choice).invoke([system, *messages]))

    async def ainvoke(
        self, system: Any, messages: list[Any], tools: list[dict], tool_choice: str | None = None
    ) -> dict:
        return self._reply(await self._bind(tools, tool_choice).ainvoke([system, *messages]))
