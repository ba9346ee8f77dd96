"""The Python end of skill tools (``SkillsMiddleware(tools=...)``): the tools, or the
resolver the user gave, asked for the tools an include name stands for.

The Rust core (``src/middleware/skills/``) finds the skills the model has read, decides what
they disclose, offers it and gates the calls; it asks ``SkillTools.resolve`` (under
``invoke``) or ``aresolve`` (under ``ainvoke``) for the tools of the names no agent tool
answers to, on each such model call and before a disclosed tool runs, as deepagents calls
its resolver. Tools go back as the core's tool adapters.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any

from .._run_context import context_of
from .._tools import ToolAdapter, to_adapter

logger = logging.getLogger("deepagents_rs.middleware.skills")

#: Adapters kept for tools seen before, so a resolver answering the same objects on every
#: model call does not convert them again; dropped whole past this many.
_ADAPTER_CACHE_SIZE = 256


def _base_tool() -> type:
    from langchain_core.tools import BaseTool

    return BaseTool


def resolver_of(tools: Any) -> Callable[[str, Any], Any]:
    """The resolver ``tools`` stands for, checked as deepagents checks it (one answering
    nothing for ``None``): a callable is the resolver; a sequence is converted as ``create_agent``
    converts tools and answers each name with the tool of that exact name.

    Raises:
        TypeError: For a single tool, something neither a sequence nor callable, or a
            provider-native tool dict in the list.
        ValueError: If two tools of the list share a name.
    """
    if tools is None:
        # No skill tools; a read skill still discloses the agent's deferred tools.
        return lambda name, runtime: []
    base_tool = _base_tool()
    if not isinstance(tools, Sequence):
        if isinstance(tools, base_tool) or not callable(tools):
            raise TypeError(
                f"tools must be a list of tools or a resolver function, got {type(tools).__name__}; "
                "wrap a single tool in a list"
            )
        return tools
    from langchain_core.tools import tool as create_tool

    converted = []
    for entry in tools:
        if isinstance(entry, dict):
            raise TypeError(
                "tools entries must be BaseTool instances or callables; provider-native tool dicts are not supported"
            )
        converted.append(entry if isinstance(entry, base_tool) else create_tool(entry))
    counts: dict[str, int] = {}
    for t in converted:
        counts[t.name] = counts.get(t.name, 0) + 1
    repeated = sorted(name for name, n in counts.items() if n > 1)
    if repeated:
        raise ValueError(f"tools contains duplicate tool name(s): {', '.join(repeated)}")
    by_name = {t.name: t for t in converted}

    def by_exact_name(name: str, runtime: Any) -> list[Any]:
        found = by_name.get(name)
        return [] if found is None else [found]

    return by_exact_name


def _validated(name: str, answer: object) -> list[Any]:
    """A resolver's answer for ``name`` as a list of tools, the first of each name kept.

    Raises:
        TypeError: If the answer is not a sequence of ``BaseTool``.
    """
    if isinstance(answer, list) and not answer:
        return []
    base_tool = _base_tool()
    if isinstance(answer, str) or not isinstance(answer, Sequence):
        raise TypeError(
            f"skill tool resolver must return a sequence of BaseTool for {name!r}, got {type(answer).__name__}"
        )
    kept: dict[str, Any] = {}
    for item in answer:
        if not isinstance(item, base_tool):
            raise TypeError(
                f"skill tool resolver returned a {type(item).__name__} for {name!r}; expected BaseTool instances"
            )
        kept.setdefault(item.name, item)
    return list(kept.values())


#: Root schema keys the Anthropic API refuses.
_ROOT_COMBINATORS = ("oneOf", "anyOf", "allOf")


def _provider(model: Any, model_id: str) -> str | None:
    """``"anthropic"`` or ``"openai"`` for a LangChain Anthropic or OpenAI chat model (one
    the core calls natively by its id), else None."""
    import sys

    if model is None:
        provider = model_id.partition(":")[0]
        return provider if provider in ("anthropic", "openai") else None
    from langchain_core.runnables import RunnableBinding

    if isinstance(model, RunnableBinding):
        model = model.bound
    anthropic = sys.modules.get("langchain_anthropic.chat_models")
    if anthropic is not None and isinstance(model, anthropic.ChatAnthropic):
        return "anthropic"
    openai = sys.modules.get("langchain_openai.chat_models.base")
    if openai is not None and isinstance(model, openai.BaseChatOpenAI):
        return "openai"
    return None


def _anthropic_block(tool: Any) -> dict:
    """Anthropic's ``tool_addition`` block with the tool's whole definition."""
    from langchain_anthropic import convert_to_anthropic_tool

    definition = dict(convert_to_anthropic_tool(tool))
    definition.pop("defer_loading", None)
    definition.pop("cache_control", None)
    return {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": definition}}


def _openai_block(tool: Any) -> dict:
    """OpenAI Responses' ``additional_tools`` item with the tool's function schema."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    function = {"type": "function", **convert_to_openai_tool(tool)["function"]}
    function.pop("defer_loading", None)
    return {"type": "additional_tools", "role": "developer", "tools": [function]}


class SkillTools:
    """What the core calls (see the module docstring)."""

    def __init__(self, resolver: Callable[[str, Any], Any]) -> None:
        self._resolver = resolver
        self._adapters: dict[int, tuple[Any, ToolAdapter]] = {}
        #: The tools answered, by name (first kept), when this is one model call's
        #: (`for_call`): the call's handler gets the tools themselves.
        self.answered: dict[str, Any] = {}
        #: The caller's `Runtime`, handed to the resolver, for one model call's.
        self.call_runtime: Any = None

    def for_call(self, runtime: Any) -> SkillTools:
        """A resolver for one model call outside a deepagents_rs agent, given the request's
        `runtime` as deepagents gives it: the same resolver and converted tools, recording
        the tools it answers (`answered`)."""
        call = SkillTools(self._resolver)
        call._adapters = self._adapters
        call.call_runtime = runtime
        return call

    def answer(self, name: str, runtime: Any) -> list[Any]:
        """The tools ``name`` stands for now, for a tool call (deepagents asks again before a
        disclosed skill tool runs)."""
        return self._sync_answer(name, runtime)

    async def aanswer(self, name: str, runtime: Any) -> list[Any]:
        """``answer`` with an async resolver awaited."""
        return await self._async_answer(name, runtime)

    def _record(self, tools: list[Any]) -> list[Any]:
        for t in tools:
            self.answered.setdefault(t.name, t)
        return tools

    def _runtime(self, config: Any) -> Any:
        if self.call_runtime is not None:
            return self.call_runtime
        try:
            from langgraph.runtime import Runtime
        except ImportError:  # without LangGraph no resolver of the user's can be given
            return None

        return Runtime(context=context_of(config), store=None)

    def _adapter(self, tool: Any) -> ToolAdapter:
        kept = self._adapters.get(id(tool))
        if kept is not None and kept[0] is tool:
            return kept[1]
        if len(self._adapters) >= _ADAPTER_CACHE_SIZE:
            self._adapters.clear()
        adapter = to_adapter(tool)
        self._adapters[id(tool)] = (tool, adapter)
        return adapter

    def _sync_answer(self, name: str, runtime: Any) -> list[Any]:
        answer = self._resolver(name, runtime)
        if inspect.isawaitable(answer):
            # Closed, so dropping it unawaited warns of nothing.
            close = getattr(answer, "close", None)
            if callable(close):
                close()
            raise TypeError(
                f"skill tool resolver returned an awaitable for {name!r}; an async resolver needs "
                "the agent's async entry point (e.g. `ainvoke`)"
            )
        return _validated(name, answer)

    async def _async_answer(self, name: str, runtime: Any) -> list[Any]:
        answer = self._resolver(name, runtime)
        if inspect.isawaitable(answer):
            answer = await answer
        return _validated(name, answer)

    def resolve(self, names: list[str], config: Any) -> list[list[ToolAdapter]]:
        """The tools of each name, in order (a run started by ``invoke``)."""
        runtime = self._runtime(config)
        return [[self._adapter(t) for t in self._record(self._sync_answer(name, runtime))] for name in names]

    async def aresolve(self, names: list[str], config: Any) -> list[list[ToolAdapter]]:
        """The tools of each name, the resolver's calls awaited together (``ainvoke``)."""
        runtime = self._runtime(config)
        import asyncio  # here: an async run has loaded it, `import deepagents_rs` need not

        answers = await asyncio.gather(*(self._async_answer(name, runtime) for name in names))
        return [[self._adapter(t) for t in self._record(tools)] for tools in answers]

    @staticmethod
    def inline_blocks(model: Any, model_id: str, specs: list[dict], native_mid_conversation: bool) -> list[dict] | None:
        """For an Anthropic or OpenAI model whose profile takes tools mid-conversation, the
        provider block giving each tool there (deepagents' Anthropic ``tool_addition``,
        OpenAI Responses ``additional_tools``); None for any other model. A model the core
        calls natively (``model`` None) says it through ``native_mid_conversation``, as
        the LangChain client of the same settings would (an OpenAI one on Chat Completions
        never does)."""
        provider = _provider(model, model_id)
        if provider is None:
            return None
        if model is None:
            if not native_mid_conversation:
                return None
        else:
            from langchain_core.runnables import RunnableBinding

            chat_model = model.bound if isinstance(model, RunnableBinding) else model
            if not (getattr(chat_model, "profile", None) or {}).get("mid_conversation_tools"):
                return None
        from .._models import _spec_tool

        tools = [_spec_tool(spec) for spec in specs]
        if provider == "anthropic":
            return [_anthropic_block(t) for t in tools]
        return [_openai_block(t) for t in tools]

    @staticmethod
    def rejected_schemas(model: Any, model_id: str, specs: list[dict]) -> list[str]:
        """The tools an Anthropic model would refuse, failing the whole request: a schema
        with a top-level ``oneOf``, ``anyOf`` or ``allOf``. Each is reported and withheld."""
        if _provider(model, model_id) != "anthropic":
            return []
        rejected = []
        for spec in specs:
            schema = spec.get("parameters")
            keys = [key for key in _ROOT_COMBINATORS if isinstance(schema, dict) and key in schema]
            if keys:
                logger.warning(
                    "Not disclosing tool '%s': its input_schema has a top-level %s, which the Anthropic API does not support",
                    spec["name"],
                    "/".join(keys),
                )
                rejected.append(spec["name"])
        return rejected

    @staticmethod
    def warn(message: str) -> None:
        logger.warning(message)
