"""Adapter for LangChain chat models called back from the Rust loop."""

from __future__ import annotations

import sys
from typing import Any

from . import _convert

#: deepagents' prompt caching for Anthropic models (its caching middleware's settings).
ANTHROPIC_CACHE_CONTROL = {"type": "ephemeral", "ttl": "5m"}


def _is_chat_anthropic(model: Any) -> bool:
    # Looked up in sys.modules, as deepagents does, so langchain-anthropic is never imported
    # for other models.
    module = sys.modules.get("langchain_anthropic")
    return module is not None and isinstance(model, module.ChatAnthropic)


def _spec_tool(spec: dict) -> Any:
    """A core tool spec as a LangChain tool object (it is never run: the core runs it), so
    model-specific handling that applies to tool objects applies to it too."""
    from langchain_core.tools import StructuredTool

    def _run_in_core(**_: Any) -> Any:
        raise RuntimeError(f"tool {spec['name']!r} runs in the deepagents_rs core")

    return StructuredTool(
        name=spec["name"], description=spec["description"], args_schema=spec["parameters"], func=_run_in_core
    )


class ModelAdapter:
    """Calls a LangChain ``BaseChatModel`` as deepagents' agent node does: ``bind_tools`` with
    the agent's tools, then ``invoke``/``ainvoke`` on the system message plus the history."""

    def __init__(self, model: Any, bindables: dict[str, Any]) -> None:
        self.model = model
        self._bindables = bindables
        self._bound: dict[tuple, Any] = {}
        # deepagents' caching middleware acts on ChatAnthropic: tag the last tool and the
        # system prompt, and send a top-level cache_control.
        self._anthropic_cache = _is_chat_anthropic(model)
        provider = getattr(model, "_llm_type", type(model).__name__)
        name = getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__
        self.model_id = f"{provider}:{name}"

    def _bind(self, tools: list[dict], tool_choice: str | None) -> Any:
        # One binding per tool list: a fork with tools of its own shares this adapter, and
        # runs may call it from several threads at once.
        key = (tuple(t["name"] for t in tools), tool_choice)
        bound = self._bound.get(key)
        if bound is None:
            specs = [self._bindables.get(t["name"]) or _spec_tool(t) for t in tools]
            settings: dict[str, Any] = {}
            if self._anthropic_cache:
                from langchain_anthropic.middleware.prompt_caching import _tag_tools

                specs = _tag_tools(specs, ANTHROPIC_CACHE_CONTROL)
                settings["cache_control"] = ANTHROPIC_CACHE_CONTROL
            # create_agent binds with an explicit tool_choice ("any" while a structured
            # response is expected, else None), and binds nothing without tools.
            if specs:
                bound = self.model.bind_tools(specs, tool_choice=tool_choice, **settings)
            else:
                bound = self.model.bind(**settings) if settings else self.model
            self._bound[key] = bound
        return bound

    #: A core message dict as a LangChain message; the core caches what this returns.
    to_message = staticmethod(_convert.from_core)

    @staticmethod
    def _reply(message: Any) -> dict:
        return _convert.to_core(message)

    def _system(self, system: Any) -> Any:
        if not self._anthropic_cache:
            return system
        from langchain_anthropic.middleware.prompt_caching import _tag_system_message

        return _tag_system_message(system, ANTHROPIC_CACHE_CONTROL)

    def invoke(self, system: Any, messages: list[Any], tools: list[dict], tool_choice: str | None = None) -> dict:
        """One model call; ``system`` and ``messages`` are LangChain messages."""
        return self._reply(self._bind(tools, tool_choice).invoke([self._system(system), *messages]))

    async def ainvoke(
        self, system: Any, messages: list[Any], tools: list[dict], tool_choice: str | None = None
    ) -> dict:
        return self._reply(await self._bind(tools, tool_choice).ainvoke([self._system(system), *messages]))
