"""Every private LangChain name deepagents_rs uses, in one place, checked once.

deepagents_rs reproduces what LangChain's ``create_agent``, tools, callbacks and models do,
so it takes names LangChain does not export (``_``-prefixed functions and classes, names
of private modules such as ``langchain_core._api``) and reads private attributes of its
classes (a chat model's ``_stream``, a tool's ``_to_args_and_kwargs``). Any LangChain
release may rename one. So the modules take them from here (``from
deepagents_rs._langchain_private import _configure_hooks``, absolute), and the first name
asked for checks its distribution once
(``_private_surface.Surface``): the version within the range the project is tested on
(``SUPPORTED``, the ranges ``pyproject.toml``'s ``langchain`` extra declares), every name of
that distribution present, and every private attribute listed for its classes still there.
Anything else raises one ``ImportError`` naming the distribution, the version found and the
range supported, at first use (building an agent reads its middleware's jumps with
``_get_can_jump_to``, so ``create_deep_agent`` meets the check of ``langchain`` and
``langchain-core``), rather than an ``AttributeError`` deep inside a run.

Each distribution is checked on its own, when one of its names is first asked for:
``langchain-core``'s names serve paths that run without ``langchain`` (a native model's run
reads the context's callback hooks), and ``langchain-anthropic``'s only a request to a
``ChatAnthropic`` model with prompt caching, so an absent ``langchain_anthropic`` changes
nothing elsewhere. A ``langchain`` name checks ``langchain-core`` too (``langchain`` is built
on it).

Importing this module loads nothing of LangChain (``import deepagents_rs`` stays free of it):
the names resolve on the first one asked for (PEP 562) and are then kept in the module's
namespace, so later imports of them are dictionary lookups. Without the distribution
installed (or importable), asking for one of its names raises ``ModuleNotFoundError`` every
time, which the callers that run without LangChain catch; an unsupported release raises a
plain ``ImportError``, so a caller that falls back only when LangChain is absent
(``except ModuleNotFoundError``) does not mistake one for the other.
"""

from __future__ import annotations

from typing import Any

from ._private_surface import Surface

#: The distributions whose private names are taken here, each with the range it is tested
#: on: from the version the suite runs (lower bound) to the next minor release (upper bound,
#: excluded), since private names can change in any minor release. ``pyproject.toml``'s
#: ``langchain`` extra declares the same ranges (``tests/test_langchain_private.py``).
SUPPORTED: dict[str, tuple[str, str]] = {
    "langchain": ("1.5.2", "1.6"),
    "langchain-core": ("1.8.3", "1.9"),
    "langchain-anthropic": ("1.7.10", "1.8"),
}

#: Each LangChain module and the private names taken from it (names of a private module, or
#: ``_``-prefixed names of a public one). ``tests/test_langchain_private.py`` checks that
#: this is exactly what the package's modules import.
PRIVATE_NAMES: dict[str, tuple[str, ...]] = {
    "langchain.agents._subagent_transformer": ("SubagentTransformer",),
    "langchain.agents.factory": (
        "_dedupe_transformers",
        "_get_can_jump_to",
        "_resolve_schemas",
        "_supports_provider_strategy",
    ),
    "langchain.agents.middleware.summarization": ("_summary_config",),
    "langchain.agents.structured_output": ("_SchemaSpec",),
    "langchain_anthropic.middleware.prompt_caching": ("_tag_tools",),
    "langchain_core._api": ("beta",),
    "langchain_core._api.beta_decorator": ("warn_beta",),
    "langchain_core._api.deprecation": ("LangChainDeprecationWarning",),
    "langchain_core.language_models._compat_bridge": ("achunks_to_events",),
    "langchain_core.messages.utils": ("_convert_to_openai_tool_calls",),
    "langchain_core.runnables.config": ("_merge_metadata_dicts",),
    "langchain_core.tools.base": ("_format_output", "_get_runnable_config_param", "_is_injected_arg_type"),
    "langchain_core.tracers._streaming": ("_StreamingCallbackHandler", "_V2StreamingCallbackHandler"),
    "langchain_core.tracers.context": ("_configure_hooks",),
    "langchain_core.tracers.event_stream": ("_AstreamEventsCallbackHandler",),
}

#: The private attributes of LangChain's objects the package reads or calls, by class: a
#: model adapter asks a chat model for its tracing parameters and type and whether it
#: streams, a direct tool call checks its input as ``BaseTool`` does, and the tool adapter
#: tells a tool's own coroutine from ``BaseTool``'s. A renamed one would be an
#: ``AttributeError`` mid-run (or a check that silently stops applying), so they are checked
#: with the names above.
PRIVATE_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "langchain_core.language_models.chat_models.BaseChatModel": ("_astream", "_get_ls_params", "_llm_type", "_stream"),
    "langchain_core.tools.base.BaseTool": ("_arun", "_injected_args_keys", "_to_args_and_kwargs"),
}


def _surface(distribution: str, label: str, probe: str, requires: tuple[Surface, ...] = ()) -> Surface:
    """The surface of one distribution: its modules' names and its classes' attributes."""
    top = distribution.replace("-", "_")
    return Surface(
        label,
        probe,
        {distribution: SUPPORTED[distribution]},
        {module: names for module, names in PRIVATE_NAMES.items() if module.split(".")[0] == top},
        {path: names for path, names in PRIVATE_ATTRIBUTES.items() if path.split(".")[0] == top},
        requires,
    )


_CORE = _surface("langchain-core", "LangChain (langchain-core)", "langchain_core")
SURFACES: dict[str, Surface] = {
    "langchain-core": _CORE,
    "langchain": _surface("langchain", "LangChain (langchain)", "langchain.agents", (_CORE,)),
    "langchain-anthropic": _surface("langchain-anthropic", "langchain-anthropic", "langchain_anthropic"),
}

_SOURCE = {name: surface for surface in SURFACES.values() for names in surface.names.values() for name in names}


def __getattr__(name: str) -> Any:
    surface = _SOURCE.get(name)
    if surface is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals().update(surface.resolve())
    if all(surface.resolved for surface in SURFACES.values()):
        # Every name is in the namespace now. Without the hook, the import system's look-up
        # of ``__path__`` at each ``from`` import of this module fails in C rather than in a
        # Python call. Until then (``langchain-anthropic``'s names are asked for only with an
        # Anthropic model), each such import costs about a microsecond more than LangChain's
        # own: only a LangChain model's call streamed to a listener (which defines a handler
        # class each call) or a run's set-up pays it, not a plain step.
        globals().pop("__getattr__", None)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *_SOURCE})
