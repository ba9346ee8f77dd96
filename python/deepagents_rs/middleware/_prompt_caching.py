"""`deepagents.middleware._prompt_caching`: the provider prompt-caching middleware deepagents
puts at the tail of its stacks.

In a deepagents_rs agent the core's `AnthropicPromptCachingMiddleware` entry does the
Anthropic part (`src/middleware/builtin.rs`); `_LazyAnthropicPromptCachingMiddleware` passed
in `middleware=` takes that entry's place as the same entry. In LangChain's `create_agent`
(or called directly) it hands Anthropic requests to `langchain_anthropic`'s middleware.

Bedrock's and Fireworks' middleware get the same treatment in deepagents_rs' own stacks
(`provider_caching_middleware`): deepagents imports `langchain_aws` and `langchain_fireworks`
(boto3, openai, the Fireworks SDK: about 1.5 s of CPU and 34 MiB) for every agent, though
their middleware only act on those packages' own models.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Awaitable, Callable
from importlib import import_module
from importlib.machinery import PathFinder
from importlib.util import find_spec
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware, TracePolicy, omit_payload

from ._utils import is_anthropic_chat_model

logger = logging.getLogger(__name__)

_ANTHROPIC_PROMPT_CACHING_MODULE = "langchain_anthropic.middleware.prompt_caching"


class _LazyAnthropicPromptCachingMiddleware(AgentMiddleware[Any, Any, Any]):
    """`AnthropicPromptCachingMiddleware` without importing `langchain_anthropic` (and the
    Anthropic SDK) before a request for a `ChatAnthropic` model needs it; any other model's
    request passes through unchanged, as the real middleware leaves it."""

    trace_policy = TracePolicy(process_inputs=omit_payload)

    def __init__(self) -> None:
        """Nothing is imported until an Anthropic request arrives."""
        super().__init__()
        self._delegate: AgentMiddleware[Any, Any, Any] | None = None

    @property
    def name(self) -> str:
        """The real middleware's name: replacing or excluding by name finds this one."""
        return "AnthropicPromptCachingMiddleware"

    @property
    def excluded_as(self) -> type[AgentMiddleware[Any, Any, Any]]:
        """The class a class-form `excluded_middleware` entry names to drop this one:
        LangChain's when its module is loaded (whoever names that class has loaded it), else
        this class."""
        loaded = sys.modules.get(_ANTHROPIC_PROMPT_CACHING_MODULE)
        return type(self) if loaded is None else loaded.AnthropicPromptCachingMiddleware

    def _resolve(self, request: Any) -> AgentMiddleware[Any, Any, Any] | None:
        """LangChain's middleware for a request to a `ChatAnthropic` model, else `None`."""
        if not is_anthropic_chat_model(request.model):
            return None
        if self._delegate is None:
            # The model's own module has loaded `langchain_anthropic` already.
            from langchain_anthropic.middleware import AnthropicPromptCachingMiddleware

            self._delegate = AnthropicPromptCachingMiddleware(unsupported_model_behavior="ignore")
        return self._delegate

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """`handler` on the request, with Anthropic's cache breakpoints for an Anthropic model."""
        delegate = self._resolve(request)
        return handler(request) if delegate is None else delegate.wrap_model_call(request, handler)

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """`wrap_model_call` with an async `handler`."""
        delegate = self._resolve(request)
        if delegate is None:
            return await handler(request)
        return await delegate.awrap_model_call(request, handler)

    def _core_config(self, store: Any = None) -> dict[str, Any]:
        """In a deepagents_rs agent: the core's Anthropic caching entry."""
        return {"kind": "anthropic_prompt_caching"}


def _optional_caching(package: str, provider: str, class_name: str) -> AgentMiddleware[Any, Any, Any] | None:
    """`package`'s prompt caching middleware `class_name`, ignoring unsupported models;
    `None` when the package (or its middleware module) is not installed. Any other import
    failure is raised."""
    module_name = f"{package}.middleware.prompt_caching"
    try:
        module = import_module(module_name)
    except ImportError as exc:
        if exc.name not in {package, f"{package}.middleware", module_name}:
            raise
        logger.debug("%s prompt caching middleware is unavailable.", provider, exc_info=exc)
        return None
    return getattr(module, class_name)(unsupported_model_behavior="ignore")


def _create_bedrock_prompt_caching_middleware() -> AgentMiddleware[Any, Any, Any] | None:
    """`langchain-aws`' Bedrock prompt caching middleware, when that package is installed."""
    return _optional_caching("langchain_aws", "Bedrock", "BedrockPromptCachingMiddleware")


def _create_fireworks_prompt_caching_middleware() -> AgentMiddleware[Any, Any, Any] | None:
    """`langchain-fireworks`' prompt caching middleware, when that package is installed."""
    return _optional_caching("langchain_fireworks", "Fireworks", "FireworksPromptCachingMiddleware")


def append_prompt_caching_middleware(middleware: list[AgentMiddleware[Any, Any, Any]]) -> None:
    """Add the provider prompt caching middleware to `middleware`: Anthropic's (imported on
    first use), then Bedrock's and Fireworks' where their packages are installed."""
    middleware.append(_LazyAnthropicPromptCachingMiddleware())
    for create in (_create_bedrock_prompt_caching_middleware, _create_fireworks_prompt_caching_middleware):
        made = create()
        if made is not None:
            middleware.append(made)


#: Bedrock's and Fireworks' prompt caching middleware by class name: the package holding it,
#: and the model classes (qualified names) its `_should_apply_caching` checks the request's
#: model against. `tests/test_provider_caching_skip.py` checks these names against the
#: installed packages.
PROVIDER_CACHING = {
    "BedrockPromptCachingMiddleware": (
        "langchain_aws",
        (
            "langchain_aws.chat_models.bedrock.ChatBedrock",
            "langchain_aws.chat_models.bedrock_converse.ChatBedrockConverse",
        ),
    ),
    "FireworksPromptCachingMiddleware": ("langchain_fireworks", ("langchain_fireworks.chat_models.ChatFireworks",)),
}


class _LazyProviderPromptCachingMiddleware(AgentMiddleware[Any, Any, Any]):
    """Bedrock's or Fireworks' prompt caching middleware (`unsupported_model_behavior=
    "ignore"`, as deepagents makes them) without importing its package before a request to
    one of that package's models needs it. A request's model can be one only once the
    package is loaded; for any other model the real middleware calls the handler unchanged,
    as this one does."""

    trace_policy = TracePolicy(process_inputs=omit_payload)

    def __init__(self, class_name: str) -> None:
        """Nothing is imported until a request to one of the package's models arrives."""
        super().__init__()
        self._class_name = class_name
        self._package, self.targets = PROVIDER_CACHING[class_name]
        self._module = f"{self._package}.middleware.prompt_caching"
        self._delegate: AgentMiddleware[Any, Any, Any] | None = None

    @property
    def name(self) -> str:
        """The real middleware's name: replacing or excluding by name finds this one."""
        return self._class_name

    @property
    def excluded_as(self) -> type[AgentMiddleware[Any, Any, Any]]:
        """The class a class-form `excluded_middleware` entry names to drop this one: the
        real class when its module is loaded (whoever names that class has loaded it), else
        this class."""
        loaded = sys.modules.get(self._module)
        return type(self) if loaded is None else getattr(loaded, self._class_name)

    def real_class(self) -> type | None:
        """The real middleware class when its module is loaded, else `None`."""
        return getattr(sys.modules.get(self._module), self._class_name, None)

    def _resolve(self) -> AgentMiddleware[Any, Any, Any] | None:
        if self._delegate is None:
            if self._package not in sys.modules:
                return None
            self._delegate = getattr(import_module(self._module), self._class_name)(unsupported_model_behavior="ignore")
        return self._delegate

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """`handler` on the request, through the real middleware once its package is loaded."""
        delegate = self._resolve()
        return handler(request) if delegate is None else delegate.wrap_model_call(request, handler)

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """`wrap_model_call` with an async `handler`."""
        delegate = self._resolve()
        if delegate is None:
            return await handler(request)
        return await delegate.awrap_model_call(request, handler)


def _caching_module_installed(package: str) -> bool:
    """Whether `package.middleware.prompt_caching` can be imported, found without importing
    `package` (what `find_spec` of a submodule does): importing `langchain_aws` alone loads
    boto3 and botocore."""
    loaded = sys.modules.get(package)
    spec = loaded.__spec__ if loaded is not None else find_spec(package)
    locations = spec.submodule_search_locations if spec is not None else None
    if not locations:
        return False
    middleware = PathFinder.find_spec(f"{package}.middleware", list(locations))
    if middleware is None or not middleware.submodule_search_locations:
        return False
    found = PathFinder.find_spec(f"{package}.middleware.prompt_caching", list(middleware.submodule_search_locations))
    return found is not None


def provider_caching_middleware() -> list[AgentMiddleware[Any, Any, Any]]:
    """What deepagents' `append_prompt_caching_middleware` adds after Anthropic's: Bedrock's
    and Fireworks' middleware where their packages are installed, as stand-ins that import
    the package on first use (a package installed but failing to import raises then, where
    deepagents raises when the agent is made)."""
    return [
        _LazyProviderPromptCachingMiddleware(name)
        for name, (package, _) in PROVIDER_CACHING.items()
        if _caching_module_installed(package)
    ]
