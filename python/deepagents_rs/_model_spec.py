# Provider inference ported from langchain 1.5.2 (MIT), langchain/chat_models/base.py: `_BUILTIN_PROVIDERS` (its
# keys and integration modules), `_attempt_infer_model_provider` and `_parse_model`; pure Python, so a model
# string resolves without langchain installed.
"""Resolve a model string the way deepagents' `resolve_model` does.

deepagents builds a chat model from a string with
`init_chat_model(model, **apply_provider_profile(model))`. `resolve_model_spec`
computes the parts of that call, so the spec can be served natively:
the provider and model name `init_chat_model` would infer, and the kwargs the
provider-profile registry (`deepagents_rs.profiles`) contributes.
`init_langchain_model` makes the LangChain call itself.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from typing import Any

from deepagents_rs.profiles.provider.provider_profiles import apply_provider_profile

_BUILTIN_PROVIDERS: dict[str, tuple[str, str]] = {
    "anthropic": ("langchain_anthropic", "ChatAnthropic"),
    "anthropic_bedrock": ("langchain_aws", "ChatAnthropicBedrock"),
    "azure_ai": ("langchain_azure_ai.chat_models", "AzureAIOpenAIApiChatModel"),
    "azure_openai": ("langchain_openai", "AzureChatOpenAI"),
    "baseten": ("langchain_baseten", "ChatBaseten"),
    "bedrock": ("langchain_aws", "ChatBedrock"),
    "bedrock_converse": ("langchain_aws", "ChatBedrockConverse"),
    "bedrock_mantle_anthropic": ("langchain_aws", "ChatAnthropicMantle"),
    "bedrock_mantle_openai": ("langchain_aws", "ChatOpenAIMantle"),
    "cohere": ("langchain_cohere", "ChatCohere"),
    "deepseek": ("langchain_deepseek", "ChatDeepSeek"),
    "fireworks": ("langchain_fireworks", "ChatFireworks"),
    "google_anthropic_vertex": ("langchain_google_vertexai.model_garden", "ChatAnthropicVertex"),
    "google_genai": ("langchain_google_genai", "ChatGoogleGenerativeAI"),
    "google_vertexai": ("langchain_google_vertexai", "ChatVertexAI"),
    "groq": ("langchain_groq", "ChatGroq"),
    "huggingface": ("langchain_huggingface", "ChatHuggingFace"),
    "ibm": ("langchain_ibm", "ChatWatsonx"),
    "langsmith": ("langchain_openai", "ChatOpenAI"),
    "litellm": ("langchain_litellm", "ChatLiteLLM"),
    "meta": ("langchain_meta", "ChatMetaModel"),
    "mistralai": ("langchain_mistralai", "ChatMistralAI"),
    "nvidia": ("langchain_nvidia_ai_endpoints", "ChatNVIDIA"),
    "ollama": ("langchain_ollama", "ChatOllama"),
    "openai": ("langchain_openai", "ChatOpenAI"),
    "openrouter": ("langchain_openrouter", "ChatOpenRouter"),
    "perplexity": ("langchain_perplexity", "ChatPerplexity"),
    "together": ("langchain_together", "ChatTogether"),
    "upstage": ("langchain_upstage", "ChatUpstage"),
    "xai": ("langchain_xai", "ChatXAI"),
}
"""langchain's `_BUILTIN_PROVIDERS`: provider key -> (integration module, chat model class).

Only these providers are recognized as a `provider:` prefix of a model string
(any other provider has to come as an explicit `model_provider` kwarg).
"""


def _attempt_infer_model_provider(model_name: str) -> str | None:
    """langchain's inference of a provider from a bare model name, or `None`."""
    model_lower = model_name.lower()
    if model_lower.startswith(("gpt-", "o1", "o3", "chatgpt", "text-davinci")):
        return "openai"
    if model_lower.startswith("claude"):
        return "anthropic"
    if model_lower.startswith("command"):
        return "cohere"
    if model_lower.startswith("accounts/fireworks"):
        return "fireworks"
    if model_lower.startswith("gemini"):
        # langchain also warns (DeprecationWarning) that this default will become
        # "google_genai"; `init_chat_model` still issues that warning itself.
        return "google_vertexai"
    if model_lower.startswith(("amazon.", "anthropic.", "meta.")):
        return "bedrock"
    if model_lower.startswith(("mistral", "mixtral")):
        return "mistralai"
    if model_lower.startswith("deepseek"):
        return "deepseek"
    if model_lower.startswith("grok"):
        return "xai"
    if model_lower.startswith("sonar"):
        return "perplexity"
    if model_lower.startswith("solar"):
        return "upstage"
    return None


def parse_model_spec(model: str, model_provider: str | None = None) -> tuple[str, str]:
    """`(provider, model_name)` as `init_chat_model(model, model_provider=...)` infers them.

    A `provider:` prefix counts only when no `model_provider` is given and the
    prefix is one of langchain's built-in providers (exactly: case and `-`
    matter); the model name is then everything after the first colon.
    Otherwise the provider is `model_provider`, or is inferred from the whole
    string. The provider is normalized as langchain does: `-` becomes `_`,
    lower-cased.

    Raises:
        TypeError: If `model` is not a string.
        ValueError: If no provider can be determined (langchain's message).
    """
    if not isinstance(model, str):
        msg = (
            f"`model` must be a string (e.g., 'openai:gpt-5.5'), got "
            f"{type(model).__name__}. If you've already constructed a chat model "
            f"object, use it directly instead of passing it to init_chat_model()."
        )
        raise TypeError(msg)
    prefix, sep, rest = model.partition(":")
    if not model_provider and sep and prefix in _BUILTIN_PROVIDERS:
        model_provider, model = prefix, rest
    if not model_provider:
        model_provider = _attempt_infer_model_provider(model)
    if not model_provider:
        supported_list = ", ".join(sorted(_BUILTIN_PROVIDERS))
        msg = (
            f"Unable to infer model provider for {model=}. "
            f"Please specify 'model_provider' directly.\n\n"
            f"Supported providers: {supported_list}\n\n"
            f"For help with specific providers, see: "
            f"https://docs.langchain.com/oss/python/integrations/providers"
        )
        raise ValueError(msg)
    return model_provider.replace("-", "_").lower(), model


def resolve_model_spec(model: str) -> tuple[str, str, dict[str, Any]]:
    """Resolve a model string as deepagents' `resolve_model` would, without building a model.

    Returns `(provider, model_name, kwargs)`: `kwargs` is
    `apply_provider_profile(model)` (the registered profile's kwargs; its
    `pre_init` hook runs, as in deepagents), and `provider` / `model_name` are
    what `init_chat_model(model, **kwargs)` infers, honoring a `model_provider`
    the profile supplies. `kwargs` still holds that `model_provider`, so
    `init_langchain_model(model, kwargs)` makes deepagents' exact call.

    Raises:
        TypeError: If `model` is not a string.
        ValueError: If no provider can be determined.
    """
    if not isinstance(model, str):
        parse_model_spec(model)  # raises langchain's TypeError
    kwargs = apply_provider_profile(model)
    provider, model_name = parse_model_spec(model, kwargs.get("model_provider"))
    return provider, model_name, kwargs


def _integration_package(model: str, kwargs: Mapping[str, Any]) -> str | None:
    """The pip name of the integration package `model` needs when it is not installed."""
    try:
        provider, _ = parse_model_spec(model, kwargs.get("model_provider"))
    except (TypeError, ValueError):
        return None
    module = _BUILTIN_PROVIDERS.get(provider, (None,))[0]
    if module is None:
        return None
    top = module.split(".", maxsplit=1)[0]
    try:
        if importlib.util.find_spec(top) is not None:
            return None
    except (ImportError, ValueError):
        pass  # unimportable: name it
    return top.replace("_", "-")


def init_langchain_model(model: str, kwargs: Mapping[str, Any]) -> Any:
    """`langchain.chat_models.init_chat_model(model, **kwargs)`: deepagents' `resolve_model` call.

    With langchain installed, its errors pass through unchanged (a missing
    integration package raises langchain's `ImportError`, e.g. "Initializing
    ChatGoogleGenerativeAI requires the langchain-google-genai package. Please
    install it with `pip install langchain-google-genai`").

    Raises:
        ImportError: If `langchain` is not installed; the message names it (and
            the provider's integration package when that is missing too), in
            the form langchain uses for a missing integration package.
    """
    try:
        from langchain.chat_models import init_chat_model
    except ImportError as e:
        # Usually `langchain` itself; if it is installed but one of its own
        # dependencies is missing, name that one.
        missing = (getattr(e, "name", None) or "langchain").split(".", maxsplit=1)[0].replace("_", "-")
        packages = [missing]
        integration = _integration_package(model, kwargs)
        if integration is not None:
            packages.append(integration)
        msg = (
            f"Initializing a chat model from {model!r} requires the {missing} package. "
            f"Please install it with `pip install {' '.join(packages)}`"
        )
        raise ImportError(msg) from e
    return init_chat_model(model, **kwargs)
