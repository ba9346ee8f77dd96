"""Which resolved model specs the Rust core serves natively, and with what settings.

deepagents turns ``"provider:name"`` into ``init_chat_model(model, **kwargs)``, the kwargs
coming from its provider profiles (for ``openai:`` that is ``use_responses_api=True``). The
core speaks Anthropic's and OpenAI's APIs itself; it takes a spec when it understands every
kwarg. Anything else (another provider, a kwarg the native client does not take) goes through
LangChain's ``init_chat_model`` as in deepagents, so nothing given is ever ignored.
"""

from __future__ import annotations

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
        "metadata",
        "context_management",
    }
)


def _secret(value: Any) -> Any:
    # LangChain takes keys as pydantic SecretStr too.
    get = getattr(value, "get_secret_value", None)
    return get() if callable(get) else value


def native_settings(provider: str, kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The settings dict for the core's native client, or ``None`` when the spec must go
    through LangChain (a provider the core does not speak, or a kwarg it does not take)."""
    if provider not in _ALIASES:
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
        if name is not None:
            if value is not None:
                settings[name] = _secret(value)
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
    if body:
        settings["model_kwargs"] = body
    return settings
