"""The settings of the core's ``SummarizationMiddleware`` entry for one stack.

deepagents puts ``create_summarization_middleware(model, backend)`` in every stack, with
defaults that depend on whether the model's profile knows its input limit. The core does
the work; this module only reads what it needs of the model (its profile, the counter's
characters per token, its ``ls_provider`` and output-token settings) and of the backend,
and holds the adapters through which the core calls a user's ``summarizer`` and
``token_counter``.
"""

from __future__ import annotations

import inspect
import numbers
from typing import Any

from . import _core

#: deepagents' ``truncate_args_settings`` defaults that are not per-model.
_MAX_ARG_LENGTH = 2000
_TRUNCATION_TEXT = "...(argument truncated)"
_OUTPUT_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")


def _int(value: Any) -> int | None:
    # `bool` is an `int` to Python; a profile or setting of True is not a token count.
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def model_facts(core_model: Any) -> dict[str, Any]:
    """What summarization reads of a model, from the core's form of it: a native
    ``(provider, name, settings)`` or a LangChain model adapter."""
    if isinstance(core_model, tuple):
        provider, name = core_model[0], core_model[1]
        settings = core_model[2] if len(core_model) > 2 and core_model[2] else {}
        max_input, default_max_tokens = _core.native_limits(provider, name)
        max_tokens = _int(settings.get("max_tokens")) or default_max_tokens
        return {
            "max_input_tokens": max_input,
            # LangChain tunes its counter to Claude's tokenizer for `anthropic-chat` models.
            "chars_per_token": 3.3 if provider == "anthropic" else 4.0,
            "ls_provider": provider,
            "output_attrs": {"max_tokens": max_tokens} if max_tokens is not None else {},
        }
    model = core_model.model
    profile = getattr(model, "profile", None)
    max_input = _int(profile.get("max_input_tokens")) if isinstance(profile, dict) else None
    llm_type = getattr(model, "_llm_type", "") or ""
    attrs = {k: v for k in _OUTPUT_KEYS if (v := _int(getattr(model, k, None))) is not None}
    return {
        "max_input_tokens": max_input,
        "chars_per_token": 3.3 if isinstance(llm_type, str) and llm_type.startswith("anthropic-chat") else 4.0,
        "ls_provider": (core_model.ls_params or {}).get("ls_provider"),
        "output_attrs": attrs,
    }


def default_settings(max_input_tokens: int | None) -> dict[str, Any]:
    """``compute_summarization_defaults``: fractions of the input limit when the profile has
    one, fixed counts otherwise."""
    if max_input_tokens is not None:
        trigger, keep = ("fraction", 0.85), ("fraction", 0.10)
        args_trigger, args_keep = ("fraction", 0.85), ("fraction", 0.10)
    else:
        trigger, keep = ("tokens", 170000), ("messages", 6)
        args_trigger, args_keep = ("messages", 20), ("messages", 20)
    return {
        "trigger": [[trigger]],
        "keep": keep,
        "truncate_args": {
            "trigger": args_trigger,
            "keep": args_keep,
            "max_length": _MAX_ARG_LENGTH,
            "truncation_text": _TRUNCATION_TEXT,
        },
    }


def core_config(core_model: Any, files: dict[str, Any] | None) -> dict[str, Any] | None:
    """The core entry's settings for a stack whose model is ``core_model`` and whose file
    backend is ``files`` (an ``fs_config`` dict); ``None`` for a stack without files."""
    if files is None:
        return None
    facts = model_facts(core_model)
    return {
        **default_settings(facts["max_input_tokens"]),
        **facts,
        "prompt": None,
        "trim_tokens_to_summarize": None,
        "summary_model": None,
        "summarizer": None,
        "token_counter": None,
        "model": None,
        "backend": files["backend"],
        "history_prefix": files["conversation_history_prefix"],
        "large_tool_results_prefix": files["large_tool_results_prefix"],
    }


class SummarizerAdapter:
    """A `summarizer` function or runnable as the core calls it: handed the messages to
    summarize (as the core's dicts), it answers the summary text, checked and stripped as
    LangChain's `SummarizationMiddleware` does."""

    def __init__(self, summarizer: Any) -> None:
        from langchain_core.runnables.base import coerce_to_runnable

        self.runnable = coerce_to_runnable(summarizer)

    @staticmethod
    def _config(config: Any, parent: Any = None) -> dict[str, Any]:
        # The call is tagged as LangChain tags its own summary calls (kept out of streams);
        # in a traced run it reports itself inside the run that asked for the summary.
        from ._callbacks import callbacks_inside, summary_call_config

        own = summary_call_config()
        merged = dict(config or {})
        merged["metadata"] = {**(merged.get("metadata") or {}), **own["metadata"]}
        merged["tags"] = own["tags"]
        if parent is not None:
            merged["callbacks"] = callbacks_inside(parent)
        return merged

    @staticmethod
    def _text(summary: Any) -> str:
        if not isinstance(summary, str):
            raise TypeError(f"`summarizer` must return a str, got {type(summary).__name__}.")
        return summary.strip()

    def invoke(self, messages: list[dict], config: Any = None, parent: Any = None) -> str:
        from . import _convert

        msgs = [_convert.from_core(m) for m in messages]
        return self._text(self.runnable.invoke(msgs, config=self._config(config, parent)))

    async def ainvoke(self, messages: list[dict], config: Any = None, parent: Any = None) -> str:
        from . import _convert

        msgs = [_convert.from_core(m) for m in messages]
        return self._text(await self.runnable.ainvoke(msgs, config=self._config(config, parent)))


def _takes_tools(counter: Any) -> bool | None:
    """Whether ``counter`` is handed the request's tools (``tools=``), read from its signature:
    a ``tools`` parameter that can be passed by name, or ``**kwargs``. ``None`` when it has no
    signature to read: the count then tries ``tools=`` and, on ``TypeError``, goes without."""
    try:
        parameters = inspect.signature(counter).parameters.values()
    except (TypeError, ValueError):
        return None
    by_name = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return any(p.kind is inspect.Parameter.VAR_KEYWORD or (p.name == "tools" and p.kind in by_name) for p in parameters)


class TokenCounterAdapter:
    """A user's ``token_counter`` as the core calls it: handed LangChain messages (the system
    message first when the whole request is counted) and, for a whole request, the tools when
    it takes them, as deepagents hands them."""

    def __init__(self, counter: Any) -> None:
        self.counter = counter
        self._takes_tools = _takes_tools(counter)

    @staticmethod
    def tools(specs: list[list]) -> list[Any]:
        """The request's tools as objects: LangChain tools (never run: the core runs them),
        a provider's own tool as its definition."""
        from ._models import _spec_tool

        return [definition if kind == "provider" else _spec_tool(definition) for kind, definition in specs]

    def count(self, messages: list[Any], system: Any = None, tools: list[Any] | None = None) -> Any:
        """The counter's answer for ``messages``; ``tools`` is None for a count of the
        messages alone, a list (maybe empty) for a whole request."""
        if tools is None:
            return self._number(self.counter(messages))
        return self._number(self.count_request(messages, system, tools))

    def count_request(self, messages: list[Any], system: Any, tools: Any) -> Any:
        """deepagents' ``_count_tokens``: the system message first, and ``tools`` handed over
        when the counter takes them (tried, when its signature cannot be read)."""
        counted = [system, *messages] if system is not None else messages
        if self._takes_tools is None:
            try:
                return self.counter(counted, tools=tools)
            except TypeError:
                return self.counter(counted)
        if self._takes_tools:
            return self.counter(counted, tools=tools)
        return self.counter(counted)

    async def acount(self, messages: list[Any], system: Any = None, tools: list[Any] | None = None) -> Any:
        # deepagents counts on the event loop's thread under `ainvoke` too.
        return self.count(messages, system, tools)

    @staticmethod
    def _number(count: Any) -> Any:
        if not isinstance(count, numbers.Real):
            raise TypeError(f"token_counter must return a number of tokens, got {type(count).__name__}")
        return count
