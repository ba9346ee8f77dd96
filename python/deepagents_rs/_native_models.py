"""Which resolved model specs the Rust core serves natively, and with what settings.

deepagents turns ``"provider:name"`` into ``init_chat_model(model, **kwargs)``, the kwargs
coming from its provider profiles (for ``openai:`` that is ``use_responses_api=True``). The
core speaks Anthropic's and OpenAI's APIs itself; it takes a spec when it understands every
kwarg. Anything else (another provider, a kwarg the native client does not take) goes through
LangChain's ``init_chat_model`` as in deepagents, so nothing given is ever ignored.
"""

from __future__ import annotations

import os
from typing import Any

# LangChain's names for the connection settings, and their aliases.
_COMMON = {
    "api_key": "api_key",
    "base_url": "base_url",
    "max_retries": "max_retries",
    "timeout": "timeout",
    "max_tokens": "max_tokens",
}
_ALIASES = {
    "anthropic": {
        "anthropic_api_key": "api_key",
        "anthropic_api_url": "base_url",
        "default_request_timeout": "timeout",
        "max_tokens_to_sample": "max_tokens",
    },
    "openai": {
        "openai_api_key": "api_key",
        "openai_api_base": "base_url",
        "request_timeout": "timeout",
        "max_completion_tokens": "max_tokens",
    },
}
# ChatOpenAI fields that go into the request body as they are.
_OPENAI_BODY = frozenset(
    {
        "temperature",
        "top_p",
        "seed",
        "stop",
        "frequency_penalty",
        "presence_penalty",
        "reasoning",
        "reasoning_effort",
        "include",
        "store",
        "service_tier",
        "truncation",
        "verbosity",
        "prompt_cache_key",
        "prompt_cache_retention",
        "prompt_cache_options",
        "context_management",
    }
)


#: Where each native provider's LangChain client finds its key.
_KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def _has_langchain() -> bool:
    import importlib.util

    return importlib.util.find_spec("langchain") is not None


def _secret(value: Any) -> Any:
    # LangChain takes keys as pydantic SecretStr too.
    get = getattr(value, "get_secret_value", None)
    return get() if callable(get) else value


# langchain-openai's `_RESPONSES_API_ONLY_PREFIXES`: models only the Responses API serves.
_RESPONSES_ONLY_PREFIXES = ("gpt-5-pro", "gpt-5.2-pro", "gpt-5.4-pro")
_RESPONSES_ONLY_ARGS = ("context_management", "include", "reasoning", "truncation")


def _openai_uses_responses(name: str, settings: dict[str, Any], body: dict[str, Any]) -> bool:
    """``ChatOpenAI._use_responses_api`` when ``use_responses_api`` is not given (a bare
    ``"gpt-4o"`` has no provider profile): the Responses API only for the settings and models
    that need it, else Chat Completions. deepagents' agents always offer tools."""
    if "use_responses_api" in settings:
        return bool(settings["use_responses_api"])
    return (
        os.environ.get("LC_OUTPUT_VERSION") == "responses/v1"
        or any(k in body for k in _RESPONSES_ONLY_ARGS)
        or name.startswith(_RESPONSES_ONLY_PREFIXES)
        or "codex" in name
        or name.lower().startswith("gpt-6")
    )


def native_settings(provider: str, kwargs: dict[str, Any], model_name: str = "") -> dict[str, Any] | None:
    """The settings dict for the core's native client, or ``None`` when the spec must go
    through LangChain (a provider the core does not speak, a kwarg it does not take, or a
    LangSmith gateway, which LangChain's clients route through)."""
    if provider not in _ALIASES or os.environ.get("LANGSMITH_GATEWAY"):
        return None
    aliases = {**_COMMON, **_ALIASES[provider]}
    settings: dict[str, Any] = {}
    body: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key == "model_provider":
            continue
        name = aliases.get(key)
        numeric = (int | float) if name == "timeout" else int
        if (
            name in ("timeout", "max_retries", "max_tokens")
            and value is not None
            and (isinstance(value, bool) or not isinstance(value, numeric))
        ):
            # An httpx.Timeout, a tuple, ...: LangChain's client handles those.
            return None
        if name in ("api_key", "base_url"):
            value = _secret(value)
            if value is not None and not isinstance(value, str):
                return None  # a key provider (a callable): LangChain's client calls it
            if value is not None:
                settings[name] = value
        elif name is not None:
            if value is not None:
                settings[name] = value
        elif provider == "openai" and key == "use_responses_api":
            if value is not None:
                settings["use_responses_api"] = bool(value)
        elif provider == "openai" and key in _OPENAI_BODY:
            if value is not None:
                body[key] = value
        elif provider == "openai" and key == "model_kwargs" and isinstance(value, dict):
            body.update(value)
        else:
            return None
    if "api_key" not in settings and not os.environ.get(_KEY_VARIABLES[provider]) and _has_langchain():
        # No key: LangChain's client decides what that means (the OpenAI SDK refuses to build,
        # Anthropic's fails when called), as deepagents' model does. Without LangChain the
        # core says which variable to set.
        return None
    if provider == "openai":
        settings["use_responses_api"] = _openai_uses_responses(model_name, settings, body)
    if body:
        settings["model_kwargs"] = body
    return settings
