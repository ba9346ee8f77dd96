"""Provider profiles: what goes into `init_chat_model` when a model is named by a string spec (beta API).

A `ProviderProfile` is registered under a provider (`"openai"`) or one model (`"openai:gpt-5.4"`).
Registering twice under one key layers the second profile on the first instead of replacing it, and
a model's profile is layered on its provider's at lookup. The registry belongs to deepagents_rs
alone; deepagents keeps its own. Built-in profiles and entry-point plugins are loaded on first use
(see `deepagents_rs.profiles._builtin_profiles`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from deepagents_rs.profiles._keys import validate_profile_key

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

logger = logging.getLogger(__name__)

# Log texts are deepagents' word for word: callers filter and assert on them.
_MERGING = (
    "Merging ProviderProfile under %r on top of existing registration; init_kwargs and factory outputs "
    "merge with the new profile winning on shared keys, and pre_init callables chain."
)
_EMPTY_SPEC = "Empty model spec; no ProviderProfile lookup performed."
_HALF_EMPTY_SPEC = "Model spec %r has an empty provider or model half; no ProviderProfile lookup performed."
_PROVIDER_FALLBACK = "No exact ProviderProfile for %r; using provider %r profile."
_NO_MATCH = (
    "No provider profile matched spec %r; building the model with caller kwargs only. "
    "Registry keys are matched exactly, so check the provider and model identifier."
)
_BASE_PRE_INIT_FAILED = "Base pre_init in chained ProviderProfile raised for spec %r; override pre_init will not run."
_OVERRIDE_PRE_INIT_FAILED = "Override pre_init in chained ProviderProfile raised for spec %r."
_BASE_FACTORY_FAILED = "Base init_kwargs_factory in chained ProviderProfile raised; override factory will not run."
_OVERRIDE_FACTORY_FAILED = "Override init_kwargs_factory in chained ProviderProfile raised."


@dataclass(frozen=True)
class ProviderProfile:
    """How to build a chat model for one provider or model spec (beta API).

    Holds construction concerns only: constructor kwargs (`temperature`, `base_url`,
    `use_responses_api`, ...), checks to run before construction, and kwargs read from
    the environment at build time. Register one with `register_provider_profile`.
    """

    init_kwargs: Mapping[str, Any] = field(default_factory=dict)
    """Fixed kwargs for `init_chat_model`, stored as a read-only copy of what was passed."""

    pre_init: Callable[[str], None] | None = None
    """Called with the model spec before anything else; raising aborts the construction."""

    init_kwargs_factory: Callable[[], dict[str, Any]] | None = None
    """Called at each build for kwargs that depend on runtime state; beats `init_kwargs` on shared keys."""

    def __post_init__(self) -> None:
        """Take a private, read-only copy of `init_kwargs`.

        A frozen dataclass only stops rebinding the field; without the copy, the caller's
        dict (or the field itself) could still be edited after registration.
        """
        if not isinstance(self.init_kwargs, MappingProxyType):
            object.__setattr__(self, "init_kwargs", MappingProxyType(dict(self.init_kwargs)))


_PROVIDER_PROFILES: dict[str, ProviderProfile] = {}
"""The registry, by `provider` or `provider:model` key."""


def _ensure_provider_profiles_loaded() -> None:
    """Run the one-time bootstrap of built-in and plugin profiles, if it has not run yet."""
    # Imported here: the bootstrap module imports this one.
    from deepagents_rs.profiles._builtin_profiles import _ensure_builtin_profiles_loaded

    _ensure_builtin_profiles_loaded()


def _register_without_bootstrap(key: str, profile: ProviderProfile) -> None:
    """Validate `key` and layer `profile` over whatever is registered under it.

    The bootstrap registers the built-ins through this, since it cannot wait on itself.
    """
    validate_profile_key(key)
    earlier = _PROVIDER_PROFILES.get(key)
    if earlier is not None:
        logger.info(_MERGING, key)
        profile = _merge_provider_profiles(earlier, profile)
    _PROVIDER_PROFILES[key] = profile


def register_provider_profile(key: str, profile: ProviderProfile) -> None:
    """Register `profile` for a provider (`"openai"`) or a single model (`"openai:gpt-5.4"`) (beta API).

    Registering again under the same key merges rather than replaces: new `init_kwargs` win
    on shared keys, and `pre_init` hooks and kwargs factories run earlier-registered first.
    A model key is layered on its provider's key the same way when the model is looked up.
    Only the first colon of `key` is a separator, so `"ollama:glm-5.2:cloud"` names the
    model `glm-5.2:cloud`.

    Raises:
        ValueError: If `key` is malformed (see `validate_profile_key`).
    """
    _ensure_provider_profiles_loaded()
    _register_without_bootstrap(key, profile)


def _split_spec(spec: str) -> tuple[str, bool] | None:
    """`(provider, has_model)` for a lookup, or `None` when the spec cannot match any key."""
    if not spec:
        logger.debug(_EMPTY_SPEC)
        return None
    provider, colon, model = spec.partition(":")
    if colon and not (provider and model):
        logger.debug(_HALF_EMPTY_SPEC, spec)
        return None
    return provider, bool(colon)


def get_provider_profile(spec: str) -> ProviderProfile | None:
    """The profile that applies to `spec`, or `None` (beta API).

    An exact registration for `spec` is layered over its provider's registration when both
    exist; either one alone is returned as is. To build a model, `apply_provider_profile`
    also runs the `pre_init` hook and composes the kwargs.
    """
    parts = _split_spec(spec)
    if parts is None:
        return None
    provider, has_model = parts
    _ensure_provider_profiles_loaded()
    exact = _PROVIDER_PROFILES.get(spec)
    provider_wide = _PROVIDER_PROFILES.get(provider) if has_model else None
    if provider_wide is None:
        return exact
    if exact is None:
        # Worth a trace: a mistyped model key silently falls back to the provider's profile.
        logger.debug(_PROVIDER_FALLBACK, spec, provider)
        return provider_wide
    return _merge_provider_profiles(provider_wide, exact)


def apply_provider_profile(
    spec: str, kwargs: Mapping[str, Any] | None = None, *, run_pre_init: bool = True
) -> dict[str, Any]:
    """The `init_chat_model` kwargs for `spec`: the profile's defaults under the caller's `kwargs` (beta API).

    Runs the profile's `pre_init` hook first unless `run_pre_init` is false. The result is a
    new dict: static `init_kwargs`, then the factory's output, then `kwargs`, later winning.
    """
    from_caller: dict[str, Any] = dict(kwargs) if kwargs else {}
    profile = get_provider_profile(spec)
    if profile is None:
        logger.debug(_NO_MATCH, spec)
        return from_caller
    if run_pre_init and profile.pre_init is not None:
        profile.pre_init(spec)
    composed = dict(profile.init_kwargs)
    if profile.init_kwargs_factory is not None:
        composed.update(profile.init_kwargs_factory())
    composed.update(from_caller)
    return composed


def _merge_provider_profiles(base: ProviderProfile, override: ProviderProfile) -> ProviderProfile:
    """`override` layered on `base`: its kwargs win, and hooks set on both sides run base first."""
    return ProviderProfile(
        init_kwargs={**base.init_kwargs, **override.init_kwargs},
        pre_init=_either_or_both(base.pre_init, override.pre_init, _chain_pre_inits),
        init_kwargs_factory=_either_or_both(base.init_kwargs_factory, override.init_kwargs_factory, _chain_factories),
    )


def _either_or_both(lower: Any, upper: Any, chain: Callable[[Any, Any], Any]) -> Any:
    """`chain(lower, upper)` when both hooks are set, otherwise whichever one is."""
    if lower is not None and upper is not None:
        return chain(lower, upper)
    return upper or lower


def _logged(step: Callable[[], Any], failure: str, *args: Any) -> Any:
    """Run `step`; if it raises, log which half of a chain failed before letting the error through."""
    try:
        return step()
    except Exception:
        logger.exception(failure, *args)
        raise


def _chain_pre_inits(first: Callable[[str], None], second: Callable[[str], None]) -> Callable[[str], None]:
    """A hook running `first` then `second`; a failure of `first` skips `second`."""

    def run_both(spec: str) -> None:
        _logged(lambda: first(spec), _BASE_PRE_INIT_FAILED, spec)
        _logged(lambda: second(spec), _OVERRIDE_PRE_INIT_FAILED, spec)

    return run_both


def _chain_factories(
    first: Callable[[], dict[str, Any]], second: Callable[[], dict[str, Any]]
) -> Callable[[], dict[str, Any]]:
    """A factory merging the outputs of `first` and then `second`, the latter winning on shared keys."""

    def run_both() -> dict[str, Any]:
        combined: dict[str, Any] = _logged(lambda: {**first()}, _BASE_FACTORY_FAILED)
        _logged(lambda: combined.update(second()), _OVERRIDE_FACTORY_FAILED)
        return combined

    return run_both
