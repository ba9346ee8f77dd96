"""One-time loading of the built-in profiles and of third-party profile plugins.

The built-ins (provider profiles, and harness profiles: the Anthropic models' suffixes, the
NVIDIA Nemotron 3 Ultra profile and the OpenAI Codex profile) are registered by direct calls, not through entry points, so that broken
package metadata can never switch them off. Plugins are entry points in the
`deepagents_rs.provider_profiles` and `deepagents_rs.harness_profiles` groups, each a
zero-argument callable that registers profiles; they run after the built-ins, so theirs layer
on top.

The groups are our own rather than deepagents' `deepagents.*_profiles`: a plugin registers
into the library it imports, so running deepagents' plugins here would leave these
registries untouched and register them twice in deepagents' (chaining their `pre_init` hooks
with themselves).
"""

from __future__ import annotations

import logging
import threading
import warnings
from importlib.metadata import EntryPoint, entry_points

from deepagents_rs.profiles.harness import _anthropic_haiku_4_5 as _haiku
from deepagents_rs.profiles.harness import _anthropic_opus_4_7 as _opus
from deepagents_rs.profiles.harness import _anthropic_sonnet_4_6 as _sonnet
from deepagents_rs.profiles.harness import _nvidia_nemotron_3_ultra as _nemotron
from deepagents_rs.profiles.harness import _openai_codex as _codex
from deepagents_rs.profiles.harness.harness_profiles import _HARNESS_PROFILES
from deepagents_rs.profiles.provider import _nvidia, _openai, _openrouter
from deepagents_rs.profiles.provider.provider_profiles import _PROVIDER_PROFILES

logger = logging.getLogger(__name__)

_PROVIDER_PROFILE_GROUP = "deepagents_rs.provider_profiles"
"""The entry-point group searched for provider-profile plugins."""

_HARNESS_PROFILE_GROUP = "deepagents_rs.harness_profiles"
"""The entry-point group searched for harness-profile plugins."""

_BUILTIN_MODULES = (
    _nvidia,
    _openai,
    _openrouter,
    _opus,
    _sonnet,
    _haiku,
    _nemotron,
    _codex,
)
"""Registered in this order (deepagents' own), so the registry lists their keys as it does."""

_BOOTSTRAP_HARNESS_KEYS: frozenset[str] = frozenset()
"""The harness keys registered by the bootstrap (built-ins and plugins alike), so that
`_has_any_harness_profile` can tell the user's own registrations from them."""

_loaded: bool = False
"""Whether the bootstrap has completed; it must run once only, since registrations accumulate."""

_BOOTSTRAP_CONDITION = threading.Condition()
"""Guards `_loaded` and `_loading_thread_id`; other threads wait on it while one bootstraps."""

_loading_thread_id: int | None = None
"""The thread running the bootstrap, if one is."""


def _ensure_builtin_profiles_loaded() -> None:
    """Register the built-ins and run the plugins, once per process.

    Threads arriving during another thread's bootstrap wait for it, so none sees a half-filled
    registry. The bootstrapping thread itself passes straight through: a plugin calling
    `register_provider_profile` comes back here. A failing built-in is a bug of ours and
    propagates, after the registries are put back as they were; a failing plugin is only reported.
    """
    global _BOOTSTRAP_HARNESS_KEYS
    if not _claim_bootstrap():
        return
    before = [(registry, dict(registry)) for registry in (_PROVIDER_PROFILES, _HARNESS_PROFILES)]
    try:
        for module in _BUILTIN_MODULES:
            module.register()
        _run_plugins(_PROVIDER_PROFILE_GROUP)
        _run_plugins(_HARNESS_PROFILE_GROUP)
    except Exception:
        logger.exception("Built-in profile bootstrap failed; restoring pre-bootstrap registry state.")
        # Refilled in place: other modules hold these very dicts.
        for registry, saved in before:
            registry.clear()
            registry.update(saved)
        _release_bootstrap(done=False)
        raise
    _BOOTSTRAP_HARNESS_KEYS = frozenset(_HARNESS_PROFILES)
    _release_bootstrap(done=True)


def _claim_bootstrap() -> bool:
    """Whether the calling thread should run the bootstrap now (waiting out another thread's attempt)."""
    global _loading_thread_id
    me = threading.get_ident()
    with _BOOTSTRAP_CONDITION:
        while not _loaded and _loading_thread_id not in (None, me):
            _BOOTSTRAP_CONDITION.wait()
        if _loaded or _loading_thread_id == me:
            return False
        _loading_thread_id = me
        return True


def _release_bootstrap(*, done: bool) -> None:
    """End this thread's attempt and wake the waiters; after a failure one of them retries."""
    global _loaded, _loading_thread_id
    with _BOOTSTRAP_CONDITION:
        if done:
            _loaded = True
        _loading_thread_id = None
        _BOOTSTRAP_CONDITION.notify_all()


def _run_plugins(group: str) -> None:
    """Run every registration callable of the entry-point `group`; one broken plugin does not stop the rest.

    Problems are logged and also raised as `UserWarning`, so they show without logging set up.
    The order among plugins is whatever `importlib.metadata` gives.
    """
    try:
        found = entry_points(group=group)
    except Exception as exc:
        # Broken environment metadata, not any one plugin: the whole group is skipped.
        problem = (
            f"Failed to enumerate {group} entry points; no third-party plugins in this group will load: {_brief(exc)}"
        )
        logger.warning(problem, exc_info=True)
        warnings.warn(problem, stacklevel=2)
        return
    for entry_point in found:
        problem = _run_plugin(group, entry_point)
        if problem is not None:
            warnings.warn(problem, stacklevel=2)


def _run_plugin(group: str, entry_point: EntryPoint) -> str | None:
    """Load and call one plugin; on failure log the reason (at ERROR: its profiles are missing) and return it."""
    skipping = f"Skipping {group} plugin {_describe(entry_point)}:"
    try:
        register = entry_point.load()
    except Exception as exc:
        problem = f"{skipping} failed to load entry point {entry_point.value!r}: {_brief(exc)}"
        logger.exception(problem)
        return problem
    if not callable(register):
        problem = f"{skipping} entry point {entry_point.value!r} did not resolve to a callable."
        logger.error(problem)
        return problem
    try:
        register()
    except Exception as exc:
        problem = f"{skipping} registration callable {entry_point.value!r} raised: {_brief(exc)}"
        logger.exception(problem)
        return problem
    return None


def _describe(entry_point: EntryPoint) -> str:
    """The entry point's name, plus its distribution's when known (names can clash across packages)."""
    dist_name = getattr(getattr(entry_point, "dist", None), "name", None)
    if isinstance(dist_name, str) and dist_name:
        return f"{entry_point.name!r} (dist={dist_name!r})"
    return repr(entry_point.name)


def _brief(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
