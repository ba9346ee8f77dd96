"""Adapter for LangChain chat models called back from the Rust loop."""

from __future__ import annotations

import functools
import json
import logging
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

from . import _compat, _convert
from ._excluded_middleware import class_name

logger = logging.getLogger(__name__)

# At INFO, as deepagents logs them: a model that cannot say its provider silently misses its
# harness profile, which should show without DEBUG on.
_NO_LS_PARAMS = "Could not extract provider from %s.%s via _get_ls_params: %s"
_LS_PARAMS_NOT_MAPPING = "Could not extract provider from %s.%s: _get_ls_params returned %s, not a mapping"


def get_model_identifier(model: Any) -> str | None:
    """The model's identifier (its ``model_name``, else its ``model``), when it has a non-empty one."""
    for attr in ("model_name", "model"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return None


def get_model_provider(model: Any) -> str | None:
    """The provider a model reports for tracing (``_get_ls_params()["ls_provider"]``), if any."""
    where = (type(model).__module__, type(model).__name__)
    try:
        params = model._get_ls_params()
    except (AttributeError, TypeError, NotImplementedError) as exc:
        logger.info(_NO_LS_PARAMS, *where, exc)
        return None
    if not isinstance(params, Mapping):
        logger.info(_LS_PARAMS_NOT_MAPPING, *where, type(params).__name__)
        return None
    provider = params.get("ls_provider")
    return provider if isinstance(provider, str) and provider else None


def __getattr__(name: str) -> Any:
    # `init_chat_model` is langchain's, imported on first use: langchain is optional, and
    # code patching `deepagents._models.init_chat_model` finds it here as in deepagents.
    if name == "init_chat_model":
        from langchain.chat_models import init_chat_model

        return init_chat_model
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def resolve_model(model: Any) -> Any:
    """A chat model as given, or built from a model string with LangChain's
    `init_chat_model`, passing the kwargs of the provider profile registered for it."""
    if _compat.is_lc_chat_model(model):
        return model
    from ._model_spec import init_langchain_model
    from .profiles.provider.provider_profiles import apply_provider_profile

    kwargs = apply_provider_profile(model)
    # A patched `init_chat_model` (module attribute) wins; else the langchain call, whose
    # ImportError names the packages to install.
    patched = globals().get("init_chat_model")
    return init_langchain_model(model, kwargs) if patched is None else patched(model, **kwargs)


#: Spellings of one provider that LangChain model strings and LangSmith's `ls_provider` differ on.
_PROVIDER_ALIASES = {"azure_openai": "azure", "mistralai": "mistral"}

#: Providers (normalized) and langchain-aws classes that reach models through AWS Bedrock.
_BEDROCK_PROVIDERS = frozenset({"amazon_bedrock", "anthropic_bedrock", "aws", "bedrock", "bedrock_converse"})
_BEDROCK_MODEL_CLASSES = frozenset(
    {"ChatAnthropicBedrock", "ChatBedrock", "ChatBedrockConverse", "ChatBedrockNovaSonic"}
)

#: Cross-region inference profile prefixes a Bedrock model id may carry.
_BEDROCK_REGIONAL_PREFIXES = ("apac.", "amer.", "au.", "eu.", "global.", "jp.", "sa.", "us.", "us-gov.")


def _normalize_provider(provider: str) -> str:
    """One spelling per provider: lowercase, underscores, LangChain's name for known aliases."""
    key = provider.lower().replace("-", "_")
    return _PROVIDER_ALIASES.get(key, key)


def is_bedrock_model(model: Any) -> bool:
    """Whether a model string or chat model goes through AWS Bedrock: a Bedrock provider
    prefix, a bare Amazon Nova model id, a Bedrock `ls_provider`, or a langchain-aws class."""
    if not isinstance(model, str):
        provider = get_model_provider(model)
        if provider is not None and _normalize_provider(provider) in _BEDROCK_PROVIDERS:
            return True
        return type(model).__name__ in _BEDROCK_MODEL_CLASSES
    model_id = next((model[len(p) :] for p in _BEDROCK_REGIONAL_PREFIXES if model.startswith(p)), model)
    if model_id.startswith("amazon.nova-"):
        return True
    provider, sep, _ = model.partition(":")
    return sep == ":" and _normalize_provider(provider) in _BEDROCK_PROVIDERS


def model_matches_spec(model: Any, spec: str) -> bool:
    """Whether a chat model already is the model a `provider:model` (or bare) spec names.

    The identifier must equal the spec, or the part after its first colon; then a provider
    the model reports must be the spec's (normalized). A model that reports none matches
    on its identifier alone.
    """
    identifier = get_model_identifier(model)
    if identifier is None:
        return False
    if identifier == spec:
        return True
    spec_provider, sep, name = spec.partition(":")
    if not sep or name != identifier:
        return False
    provider = get_model_provider(model)
    if provider is None:
        logger.debug(
            "Matched spec %r on identifier alone; provider for %s.%s is uninspectable, so the spec's %r provider was not verified",
            spec,
            type(model).__module__,
            type(model).__name__,
            spec_provider,
        )
        return True
    return _normalize_provider(spec_provider) == _normalize_provider(provider)


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


def _bindable(tool: Any, spec: dict) -> Any:
    """What ``bind_tools`` gets for a tool of the request: the agent's tool object (a copy
    without ``defer_loading`` when a read skill disclosed it), else one made from the spec."""
    if tool is None:
        return _spec_tool(spec)
    extras = getattr(tool, "extras", None)
    if isinstance(extras, dict) and extras.get("defer_loading") is True and not spec.get("defer_loading"):
        return tool.model_copy(update={"extras": {k: v for k, v in extras.items() if k != "defer_loading"}})
    return tool


def _is_chat_openai_compatible(model: Any) -> bool:
    module = sys.modules.get("langchain_openai.chat_models.base")
    return module is not None and isinstance(model, module.BaseChatOpenAI)


def _format_key(response_format: dict | None) -> str | None:
    return None if response_format is None else json.dumps(response_format, sort_keys=True)


class ModelAdapter:
    """Calls a LangChain ``BaseChatModel`` as deepagents' agent node does: ``bind_tools`` with
    the agent's tools, then ``invoke``/``ainvoke`` on the system message plus the history."""

    def __init__(self, model: Any, bindables: dict[str, Any], schema_tools: set[str] | None = None) -> None:
        self.model = model
        self._bindables = bindables
        #: The structured output's schema tools, which create_agent adds after the middleware.
        self._schema_tools = schema_tools or set()
        self._bound: dict[tuple, Any] = {}
        #: deepagents' caching middleware acts on ChatAnthropic: the core's caching entry
        #: then tags the system prompt and hands ``cache_control`` in the call's settings,
        #: and the last tool is tagged, with a top-level cache_control bound.
        self.prompt_caching = _is_chat_anthropic(model)
        provider = getattr(model, "_llm_type", type(model).__name__)
        name = getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__
        self.model_id = f"{provider}:{name}"
        #: The model's classes by name (its MRO), for middleware acting on some classes only
        #: (`_excluded_middleware.acts_only_on`).
        self.model_classes = [class_name(c) for c in type(model).__mro__]
        #: LangChain's tracing parameters, reported in streamed message metadata.
        self.ls_params = _ls_params(model)
        #: What `UnsupportedContentMiddleware` reads of the model (see `_input_profile`).
        self.input_profile = _input_profile(model)
        # LangChain streams a call only when the model implements it (async falls back to
        # the sync `_stream`), and only when somebody listens for tokens.
        from langchain_core.language_models import BaseChatModel

        cls = type(model)
        self.streams_sync = getattr(cls, "_stream", None) is not BaseChatModel._stream
        self.streams_async = getattr(cls, "_astream", None) is not BaseChatModel._astream

    def _bind(self, tools: list[dict], tool_choice: str | None, extra: dict | None = None) -> Any:
        # One binding per tool list: a fork with tools of its own shares this adapter, and
        # runs may call it from several threads at once. Middleware's per-call settings
        # are bound afresh.
        extra = dict(extra or {})
        cache_control = extra.pop("cache_control", None)
        # A native response format is the agent's, the same for every call: bound once.
        response_format = extra.pop("response_format", None)
        key = (
            tuple((t["name"], bool(t.get("defer_loading"))) for t in tools),
            tool_choice,
            cache_control is not None,
            _format_key(response_format),
        )
        bound = None if extra else self._bound.get(key)
        if bound is None:
            specs = [_bindable(self._bindables.get(t["name"]), t) for t in tools]
            settings: dict[str, Any] = dict(extra)
            if cache_control is not None:
                from deepagents_rs._langchain_private import _tag_tools

                # The caching middleware tagged the tools it saw: those before the schema tools.
                n = len(specs)
                while n and tools[n - 1]["name"] in self._schema_tools:
                    n -= 1
                specs = [*(_tag_tools(specs[:n], cache_control) or ()), *specs[n:]]
                settings["cache_control"] = cache_control
            # create_agent binds with an explicit tool_choice ("any" while a structured
            # response is expected through a tool, else None), and binds nothing without
            # tools; a native format is bound with the tools, without a tool choice.
            if response_format is not None:
                bound = self.model.bind_tools(specs, **self._format_kwargs(response_format, settings))
            elif specs:
                bound = self.model.bind_tools(specs, tool_choice=tool_choice, **settings)
            else:
                bound = self.model.bind(**settings) if settings else self.model
            if not extra:
                self._bound[key] = bound
        return bound

    def _format_kwargs(self, response_format: dict, settings: dict[str, Any]) -> dict[str, Any]:
        """create_agent's kwargs for a native format: the format, the call's settings over
        it, and ``strict`` for a Chat Completions OpenAI-compatible model."""
        kwargs = {"response_format": response_format, **settings}
        if _is_chat_openai_compatible(self.model) and not getattr(self.model, "use_responses_api", False):
            kwargs["strict"] = True
        return kwargs

    #: A core message dict as a LangChain message; the core caches what this returns.
    to_message = staticmethod(_convert.from_core)

    #: The agent's name, when LangChain's ``create_agent`` would set it on the model's reply
    #: object in place (the plain agent's): what the ``messages`` stream already holds shows it.
    agent_name: str | None = None

    def _reply(self, message: Any) -> dict:
        if self.agent_name and _convert.is_ai_message(message):
            message.name = self.agent_name
        return _convert.to_core(message)

    def invoke(
        self,
        prompt: list[Any],
        tools: list[dict],
        tool_choice: str | None = None,
        on_chunk: Any = None,
        settings: dict | None = None,
        parent: Any = None,
        config: Any = None,
        place: Any = None,
    ) -> dict:
        """One model call; ``prompt`` is a list of LangChain messages made for this call (the
        system message, with the caching entry's tag if any, then the conversation). With
        ``on_chunk``, the model streams and each chunk is handed to it as it arrives;
        ``settings`` are middleware's ``model_settings``, bound for this call. ``config`` and
        ``place``: the run's config and the model node's place (`_task_config.node_task`)."""
        bound = self._bind(tools, tool_choice, settings)
        with _node_context(_model_task(config, place, False)):
            return self._reply(bound.invoke(prompt, _call_config(parent, on_chunk)))

    async def ainvoke(
        self,
        prompt: list[Any],
        tools: list[dict],
        tool_choice: str | None = None,
        on_chunk: Any = None,
        settings: dict | None = None,
        parent: Any = None,
        config: Any = None,
        place: Any = None,
    ) -> dict:
        bound = self._bind(tools, tool_choice, settings)
        known = None
        if place is not None:
            # Where the node is in the graph following the run, waited for off the loop.
            known = await _model_task_names().astep_place((config or {}).get("configurable") or {}, place)
        with _node_context(_model_task(config, place, True, known)):
            return self._reply(await bound.ainvoke(prompt, _call_config(parent, on_chunk)))


def _model_task(config: Any, place: Any, asynchronous: bool, known: Any = None) -> dict | None:
    """The config LangGraph hands the ``model`` node's task at ``place``, which LangChain's
    create_agent calls the model inside (no config of its own: the model takes the task's);
    None where no agent graph runs the call."""
    if place is None:
        return None
    runtime, runtime_key, own_prefix, node_task, _ = _model_task_names()
    task, fields = node_task(config, "model", place, asynchronous, known)
    configurable = task["configurable"]
    # Our own carriers stay out of sight, as in every task's config (deepagents has none).
    for key in [k for k in configurable if k.startswith(own_prefix)]:
        del configurable[key]
    configurable[runtime_key] = runtime(**fields)
    return task


class _TaskNames(NamedTuple):
    runtime: Any
    runtime_key: str
    own_prefix: str
    node_task: Any
    astep_place: Any


@functools.cache
def _model_task_names() -> _TaskNames:
    """LangGraph's ``Runtime`` and the names `_model_task` uses from our modules, imported at
    its first call (this module loads no LangGraph) and kept: it runs at every model call
    (``astep_place`` too, at every async one)."""
    from langgraph.runtime import Runtime

    from ._run_context import RUNTIME_KEY
    from ._task_channels import OWN_PREFIX
    from ._task_config import astep_place, node_task

    return _TaskNames(Runtime, RUNTIME_KEY, OWN_PREFIX, node_task, astep_place)


@functools.cache
def _child_config_var() -> Any:
    """LangChain's ``var_child_runnable_config``, or None without LangChain: imported at the
    first model call and kept, the answer without LangChain too (an import at each call
    costs more than a microsecond)."""
    try:
        from langchain_core.runnables.config import var_child_runnable_config
    except ImportError:
        return None
    return var_child_runnable_config


class _node_context:
    """The model node's task config as the ambient LangChain config while the model is
    called (``get_config()`` inside the model reads it), or none where no agent graph runs
    the call. A checkpointed run calls Python in its first node's task context, whose config
    must not reach the model call (its callbacks would keep that node as the call's parent)."""

    def __init__(self, task: dict | None) -> None:
        self._task = task

    def __enter__(self) -> None:
        var_child_runnable_config = _child_config_var()
        if var_child_runnable_config is None:
            self._reset = None
            return
        token = var_child_runnable_config.set(self._task)
        self._reset = lambda: var_child_runnable_config.reset(token)

    def __exit__(self, *exc: object) -> None:
        if self._reset is not None:
            self._reset()


def _call_config(parent: Any, on_chunk: Any) -> dict | None:
    """The config of one model call: its callbacks are the node's run (when traced) and, when
    tokens are listened for, a streaming handler. As with LangGraph's messages mode, such a
    handler makes ``invoke`` stream from the provider and report each chunk."""
    if parent is None and on_chunk is None:
        return None
    from ._callbacks import child_callbacks

    callbacks: Any = child_callbacks(parent) if parent is not None else []
    if on_chunk is not None:
        from ._stream_protocol import PROTOCOL_EVENTS, protocol_forwarder

        # Under `stream_events(version="v3")` the model reports content-block events, as it
        # does under LangGraph's v3 messages handler.
        forwarder = protocol_forwarder(on_chunk) if PROTOCOL_EVENTS.get() else _chunk_forwarder(on_chunk)
        if parent is not None:
            callbacks.add_handler(forwarder, inherit=False)
        else:
            callbacks = [forwarder]
    if parent is None:
        # The metadata and tags are the node task's (the ambient config's), as the model
        # node's call takes them.
        return {"callbacks": callbacks}
    # The node's run carries the call's tags and metadata (its `checkpoint_ns` the run's
    # outermost task's, as in deepagents); an empty configurable keeps LangChain's
    # `ensure_config` from copying the node task's namespace over it.
    return {"callbacks": callbacks, "metadata": {}, "tags": [], "configurable": {}}


def _chunk_forwarder(on_chunk: Any) -> Any:
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.outputs import ChatGenerationChunk

    from deepagents_rs._langchain_private import _StreamingCallbackHandler

    class ChunkForwarder(BaseCallbackHandler, _StreamingCallbackHandler):
        """Hands each chunk of the call to the core as the model produces it."""

        run_inline = True

        def on_llm_new_token(self, token: str, *, chunk: Any = None, **kwargs: Any) -> None:
            if isinstance(chunk, ChatGenerationChunk):
                on_chunk(chunk.message)

        def tap_output_iter(self, run_id: Any, output: Any) -> Any:
            return output

        def tap_output_aiter(self, run_id: Any, output: Any) -> Any:
            return output

    return ChunkForwarder()


def _ls_params(model: Any) -> dict:
    get = getattr(model, "_get_ls_params", None)
    if get is None:
        return {}
    try:
        params = dict(get())
    except Exception:  # noqa: BLE001 - a model without tracing params reports none
        return {}
    # Only JSON-able values cross into the core.
    return {k: v for k, v in params.items() if v is None or isinstance(v, (str, int, float, bool))}


#: The `ModelProfile` fields gating input blocks, in the order the core takes them.
_INPUT_FIELDS = ("image_inputs", "audio_inputs", "video_inputs", "pdf_inputs", "image_tool_message", "pdf_tool_message")


def _input_profile(model: Any) -> tuple[list[bool | None], list[str]]:
    """The model's profile input fields (``None`` where it does not say), and the MIME types
    of inline documents it takes: OpenAI's file types for a ``ChatOpenAI`` (or Azure's) on
    the Responses API, as deepagents' ``UnsupportedContentMiddleware`` decides; none else."""
    import sys

    profile = getattr(model, "profile", None) or {}
    fields = [v if isinstance(v := profile.get(k), bool) else None for k in _INPUT_FIELDS]
    openai = tuple(
        cls
        for cls in (
            getattr(sys.modules.get("langchain_openai.chat_models.base"), "ChatOpenAI", None),
            getattr(sys.modules.get("langchain_openai.chat_models.azure"), "AzureChatOpenAI", None),
        )
        if cls is not None
    )
    if openai and isinstance(model, openai) and bool(getattr(model, "use_responses_api", False)):
        from .backends.utils import _OPENAI_FILE_MIME_TYPES

        return fields, sorted(_OPENAI_FILE_MIME_TYPES)
    return fields, []
