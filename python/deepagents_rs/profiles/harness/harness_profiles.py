"""Harness profiles: how `create_deep_agent` shapes an agent once its model is known (beta API).

A `HarnessProfile` is registered under a provider (`"openai"`) or one model
(`"openai:gpt-5.4"`). It can replace the base system prompt, add a suffix to it, rewrite tool
descriptions, hide tools from the model, drop middleware, add middleware, and edit the
general-purpose subagent. `HarnessProfileConfig` is the part of it a YAML or JSON file can
hold. Registering twice under one key layers the second profile on the first, and a model's
profile is layered on its provider's at lookup.

The registry belongs to deepagents_rs alone; deepagents keeps its own. Built-in profiles and
entry-point plugins are loaded on first use (see `deepagents_rs.profiles._builtin_profiles`).
How a profile is applied to each stack an agent is built from is `deepagents_rs._harness`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from deepagents_rs.profiles._keys import validate_profile_key

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

logger = logging.getLogger(__name__)

#: The middleware every stack needs: the file tools (and their permission rules) and the `task`
#: tool. A profile may not exclude them, by class or by name.
REQUIRED_MIDDLEWARE_NAMES = frozenset({"FilesystemMiddleware", "SubAgentMiddleware"})

# Log and error texts are deepagents' word for word: callers filter and assert on them.
_MERGING = (
    "Merging HarnessProfile under %r on top of existing registration; set and middleware fields union, "
    "scalar fields prefer the new value."
)
_PROVIDER_FALLBACK = "No exact HarnessProfile for %r; using provider %r profile."
_NO_MATCH = (
    "No harness profile matched %s; using defaults. If you registered a profile for this model, ensure the key "
    "matches the model's resolved provider and identifier."
)
_PREBUILT_EXACT = "Using exact HarnessProfile %r for pre-built model (identifier=%r, provider=%r)."
_PREBUILT_PROVIDER = (
    "No exact HarnessProfile for pre-built model (identifier=%r, provider=%r); using provider defaults."
)
_SCAFFOLDING = (
    "HarnessProfile.excluded_middleware is invalid:\n  - required scaffolding cannot be excluded: {labels} "
    "(back filesystem tools, subagent dispatch, and permission enforcement — use excluded_tools for per-tool "
    "visibility or adjust profile settings instead of stripping scaffolding)"
)
_RUNTIME_ONLY = (
    "HarnessProfileConfig.from_harness_profile() cannot export `extra_middleware`. Middleware instances and "
    "factories are runtime-only; keep them in `HarnessProfile`."
)
_NO_ALIAS = (
    "HarnessProfileConfig.from_harness_profile() cannot serialize `excluded_middleware` class {name!r}: it has "
    "no public `serialized_name` alias, and arbitrary class-path serialization is not currently supported. "
    "Either add a `serialized_name: ClassVar[str]` to the class for stable round-trips, or exclude it by "
    "`.name` instead."
)


def scaffolding_rejection(labels: Sequence[str]) -> str:
    """The error text for exclusions naming required middleware (`labels` as the user wrote them)."""
    return _SCAFFOLDING.format(labels=", ".join(sorted(set(labels))))


def _scaffolding_label(entry: object) -> str | None:
    """How `entry` is named in the scaffolding error, when it names required middleware."""
    if isinstance(entry, str):
        return f"{entry!r} (string)" if entry in REQUIRED_MIDDLEWARE_NAMES else None
    if isinstance(entry, type) and entry.__name__ in REQUIRED_MIDDLEWARE_NAMES:
        return entry.__name__
    return None


def _check_exclusions(entries: Any, *, strings_only: bool) -> None:
    """The construction-time checks of `excluded_middleware`: each string's grammar (every entry's,
    when only strings are allowed), then no required middleware named."""
    labels = []
    for entry in entries:
        if strings_only or isinstance(entry, str):
            _check_middleware_name(entry, "excluded_middleware")
        label = _scaffolding_label(entry)
        if label is not None:
            labels.append(label)
    if labels:
        raise ValueError(scaffolding_rejection(labels))


def _check_middleware_name(entry: object, field_name: str) -> None:
    """A string exclusion must be a plain, public middleware name (no class path, no `_` prefix)."""
    if not isinstance(entry, str):
        raise TypeError(f"`{field_name}` entries must be strings, got {type(entry).__name__} ({entry!r})")
    if entry.strip() == "":
        raise ValueError(f"`{field_name}` entries must be non-empty, non-whitespace strings")
    if ":" in entry:
        raise ValueError(
            f"`{field_name}` entries must be plain middleware names; class-path (`module:Class`) entries "
            f"are not currently supported, got {entry!r}."
        )
    if entry[0] == "_":
        raise ValueError(
            f"`{field_name}` entry {entry!r} cannot start with '_' (underscore-prefixed names refer to "
            "private middleware classes not part of the public exclusion surface)."
        )


def _read_only(mapping: Mapping[str, str]) -> Mapping[str, str]:
    """A read-only copy of `mapping` (kept as is when it already is one)."""
    return mapping if isinstance(mapping, MappingProxyType) else MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class GeneralPurposeSubagentProfile:
    """Edits of the `general-purpose` subagent `create_deep_agent` adds on its own (beta API).

    They apply only when the caller does not supply a subagent of that name.
    """

    enabled: bool | None = None
    """`False` leaves the subagent out (and with no other synchronous subagent, the `task` tool
    too); `True` keeps it even when a provider-wide profile left it out; `None` inherits, and
    defaults to keeping it."""

    description: str | None = None
    """The subagent's description in the `task` tool; `None` keeps the default."""

    system_prompt: str | None = None
    """The subagent's system prompt; `None` keeps the default. It wins over the profile's
    `base_system_prompt` for this subagent; the profile's suffix still follows it."""

    def to_dict(self) -> dict[str, Any]:
        """The fields that are set (not `None`), as a plain dict."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GeneralPurposeSubagentProfile:
        """The sub-profile `data` describes (any of `enabled`, `description`, `system_prompt`).

        Raises:
            TypeError: For an unknown key or a value of the wrong type.
        """
        unknown = set(data) - _GP_KEYS
        if unknown:
            raise TypeError(f"Unknown keys in GeneralPurposeSubagentProfile dict: {sorted(unknown)}")
        for name, kind in (("enabled", bool), ("description", str), ("system_prompt", str)):
            value = data.get(name)
            if value is not None and not isinstance(value, kind):
                raise TypeError(f"`{name}` must be {kind.__name__} or None, got {type(value).__name__}")
        return cls(**{name: data.get(name) for name in ("enabled", "description", "system_prompt")})


@dataclass(frozen=True)
class HarnessProfileConfig:
    """The part of a harness profile a YAML or JSON file can hold (beta API).

    Strings, booleans, lists and nested dicts only: middleware to add, and middleware excluded
    by class, need a runtime `HarnessProfile`. `register_harness_profile` takes either, and
    turns a config into a `HarnessProfile`. `excluded_middleware` holds middleware names
    (`AgentMiddleware.name`), checked when the config is made.
    """

    base_system_prompt: str | None = None
    """Replaces the base prompt of each stack it applies to (see `HarnessProfile`)."""

    system_prompt_suffix: str | None = None
    """Appended last to each stack's prompt, after a blank line (see `HarnessProfile`)."""

    tool_description_overrides: Mapping[str, str] = field(default_factory=dict)
    """New tool descriptions, by tool name."""

    excluded_tools: frozenset[str] = frozenset()
    """Tools hidden from the model, by name."""

    excluded_middleware: frozenset[str] = frozenset()
    """Middleware dropped from every stack the profile applies to, by name."""

    general_purpose_subagent: GeneralPurposeSubagentProfile | None = None
    """Edits of the default general-purpose subagent."""

    def __post_init__(self) -> None:
        """Keep a read-only copy of the overrides and check the exclusions."""
        object.__setattr__(self, "tool_description_overrides", _read_only(self.tool_description_overrides))
        _check_exclusions(self.excluded_middleware, strings_only=True)

    def to_dict(self) -> dict[str, Any]:
        """The fields that are set, as plain values (`json.dumps`/`yaml.safe_dump` take them);
        sets become sorted lists.

        Raises:
            TypeError: If a tool description override's key or value is not a string.
        """
        out: dict[str, Any] = {}
        for name in ("base_system_prompt", "system_prompt_suffix"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.tool_description_overrides:
            out["tool_description_overrides"] = _string_mapping(
                dict(self.tool_description_overrides), "tool_description_overrides"
            )
        for name in ("excluded_tools", "excluded_middleware"):
            if getattr(self, name):
                out[name] = sorted(getattr(self, name))
        if self.general_purpose_subagent is not None:
            # Even an empty sub-profile is written, so a round trip keeps it apart from none.
            out["general_purpose_subagent"] = self.general_purpose_subagent.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HarnessProfileConfig:
        """The config `data` describes (as `to_dict` writes it; lists or sets for the sets).

        Raises:
            TypeError: For an unknown key or a value of the wrong shape.
            ValueError: For an `excluded_middleware` name that is malformed or names required
                middleware.
        """
        unknown = set(data) - _CONFIG_KEYS
        if unknown:
            raise TypeError(f"Unknown keys in HarnessProfileConfig dict: {sorted(unknown)}")
        return cls(
            base_system_prompt=_string_or_none(data.get("base_system_prompt"), "base_system_prompt"),
            system_prompt_suffix=_string_or_none(data.get("system_prompt_suffix"), "system_prompt_suffix"),
            tool_description_overrides=_string_mapping(
                data.get("tool_description_overrides"), "tool_description_overrides"
            ),
            excluded_tools=_string_set(data.get("excluded_tools"), "excluded_tools"),
            excluded_middleware=_string_set(data.get("excluded_middleware"), "excluded_middleware"),
            general_purpose_subagent=_gp_from(data.get("general_purpose_subagent")),
        )

    def to_harness_profile(self) -> HarnessProfile:
        """The runtime profile with these settings (names stay names in `excluded_middleware`)."""
        settings = {f.name: getattr(self, f.name) for f in fields(self)}
        settings["excluded_middleware"] = frozenset(self.excluded_middleware)
        return HarnessProfile(**settings)

    @classmethod
    def from_harness_profile(cls, profile: HarnessProfile) -> HarnessProfileConfig:
        """The config of a runtime profile; a class in `excluded_middleware` is written as its
        `serialized_name`.

        Raises:
            ValueError: If the profile adds middleware (runtime-only), or excludes a class with
                no `serialized_name`.
            TypeError: If a tool description override's key or value is not a string.
        """
        extra = profile.extra_middleware
        if callable(extra) or (isinstance(extra, tuple) and len(extra) > 0):
            raise ValueError(_RUNTIME_ONLY)
        return cls(
            base_system_prompt=profile.base_system_prompt,
            system_prompt_suffix=profile.system_prompt_suffix,
            tool_description_overrides=_string_mapping(
                dict(profile.tool_description_overrides), "tool_description_overrides"
            ),
            excluded_tools=profile.excluded_tools,
            excluded_middleware=frozenset(map(_exclusion_name, profile.excluded_middleware)),
            general_purpose_subagent=profile.general_purpose_subagent,
        )


@dataclass(frozen=True)
class HarnessProfile:
    """How `create_deep_agent` shapes an agent for one provider or model (beta API).

    Applied after the model is built (a `ProviderProfile` shapes how it is built), to the main
    agent, the general-purpose subagent and each declarative subagent whose model the profile
    matches. Register one with `register_harness_profile`; `HarnessProfileConfig` holds the
    part of it a file can.
    """

    base_system_prompt: str | None = None
    """Replaces the base prompt of each stack it applies to: the main agent has none of its
    own (the caller's `system_prompt` comes first, then this), a declarative subagent its
    `system_prompt`, the general-purpose subagent its default prompt. `None` keeps it."""

    system_prompt_suffix: str | None = None
    """Appended last to each stack's prompt, after a blank line. `None` appends nothing."""

    tool_description_overrides: Mapping[str, str] = field(default_factory=dict)
    """New tool descriptions, by tool name: for the file tools, the `task` tool (where
    `{available_agents}` is replaced by the list of subagents), and the caller's LangChain
    tools and dict tools (plain functions keep theirs). Read-only once the profile is made."""

    excluded_tools: frozenset[str] = frozenset()
    """Tools hidden from the model and refused when called anyway, by name, whichever
    middleware or the caller supplied them. Profiles merged union their sets."""

    excluded_middleware: frozenset[type[Any] | str] = frozenset()
    """Middleware dropped from every stack the profile applies to: a class (that exact class)
    or a name (`AgentMiddleware.name`). The file tools' and the `task` tool's middleware may
    not be dropped; an entry matching no middleware of any stack is an error."""

    extra_middleware: Sequence[Any] | Callable[[], Sequence[Any]] = ()
    """Middleware added to each stack the profile applies to, after the caller's middleware
    and before skills, prompt caching, memory and human-in-the-loop: a sequence, or a
    function returning one (called for each stack, so no instance is shared)."""

    general_purpose_subagent: GeneralPurposeSubagentProfile | None = None
    """Edits of the default general-purpose subagent; `None` keeps it as it is."""

    def __post_init__(self) -> None:
        """Keep read-only copies of the overrides and of a middleware sequence, and check the
        exclusions (the grammar of names, no required middleware)."""
        object.__setattr__(self, "tool_description_overrides", _read_only(self.tool_description_overrides))
        if not callable(self.extra_middleware) and not isinstance(self.extra_middleware, tuple):
            object.__setattr__(self, "extra_middleware", tuple(self.extra_middleware))
        _check_exclusions(self.excluded_middleware, strings_only=False)

    def materialize_extra_middleware(self) -> list[Any]:
        """A new list of the middleware to add (the factory's, when it is one)."""
        return list(_middleware_of(self.extra_middleware))


def _middleware_of(extra: Sequence[Any] | Callable[[], Sequence[Any]]) -> Sequence[Any]:
    return extra() if callable(extra) else extra


def _apply_profile_prompt(profile: HarnessProfile, base_prompt: str) -> str:
    """`base_prompt` as `profile` shapes it: replaced by its `base_system_prompt` when set, then
    its suffix after a blank line (or alone, when nothing precedes it)."""
    prompt = base_prompt if profile.base_system_prompt is None else profile.base_system_prompt
    suffix = profile.system_prompt_suffix
    if suffix is None:
        return prompt
    return f"{prompt}\n\n{suffix}" if prompt else suffix


_CONFIG_KEYS = frozenset(f.name for f in fields(HarnessProfileConfig))
_GP_KEYS = frozenset(f.name for f in fields(GeneralPurposeSubagentProfile))


def _string_or_none(value: object, field_name: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"`{field_name}` must be str or None, got {type(value).__name__}")
    return value


def _string_mapping(value: object, field_name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"`{field_name}` must be a mapping, got {type(value).__name__}")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise TypeError(f"`{field_name}` keys and values must be strings")
    return dict(value)


def _string_set(value: object, field_name: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise TypeError(f"`{field_name}` must be a list/set of strings, got {type(value).__name__}")
    for entry in value:
        if not isinstance(entry, str):
            raise TypeError(f"`{field_name}` entries must be strings, got {type(entry).__name__} ({entry!r})")
    return frozenset(value)


def _gp_from(value: object) -> GeneralPurposeSubagentProfile | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"`general_purpose_subagent` must be a mapping, got {type(value).__name__}")
    return GeneralPurposeSubagentProfile.from_dict(value)


def _exclusion_name(entry: type[Any] | str) -> str:
    """A runtime exclusion as a config file names it: a name as is, a class by its `serialized_name`."""
    if isinstance(entry, str):
        return entry
    alias = getattr(entry, "serialized_name", None)
    if not (isinstance(alias, str) and alias):
        raise ValueError(_NO_ALIAS.format(name=entry.__name__))
    return alias


_HARNESS_PROFILES: dict[str, HarnessProfile] = {}
"""The registry, by `provider` or `provider:model` key."""


def _ensure_harness_profiles_loaded() -> None:
    """Run the one-time bootstrap of built-in and plugin profiles, if it has not run yet."""
    # Imported here: the bootstrap module imports this one.
    from deepagents_rs.profiles._builtin_profiles import _ensure_builtin_profiles_loaded

    _ensure_builtin_profiles_loaded()


def _register_harness_profile_impl(key: str, profile: HarnessProfile | HarnessProfileConfig) -> None:
    """Validate `key` and layer `profile` over whatever is registered under it.

    The bootstrap registers the built-ins through this, since it cannot wait on itself.
    """
    validate_profile_key(key)
    if isinstance(profile, HarnessProfileConfig):
        profile = profile.to_harness_profile()
    earlier = _HARNESS_PROFILES.get(key)
    if earlier is not None:
        logger.info(_MERGING, key)
        profile = _merge_profiles(earlier, profile)
    _HARNESS_PROFILES[key] = profile


def register_harness_profile(key: str, profile: HarnessProfile | HarnessProfileConfig) -> None:
    """Register `profile` for a provider (`"openai"`) or a single model (`"openai:gpt-5.4"`) (beta API).

    A `HarnessProfileConfig` is turned into a `HarnessProfile` first. Registering again under
    the same key merges rather than replaces: set fields win, sets and middleware accumulate
    (see `_merge_profiles`). A model key is layered on its provider's key the same way when the
    model is looked up. Only the first colon of `key` is a separator, so
    `"ollama:glm-5.2:cloud"` names the model `glm-5.2:cloud`. Register before calling
    `create_deep_agent`.

    Raises:
        ValueError: If `key` is malformed (see `validate_profile_key`).
    """
    _ensure_harness_profiles_loaded()
    _register_harness_profile_impl(key, profile)


def _has_any_harness_profile() -> bool:
    """Whether the user registered any profile (under a key the bootstrap did not fill)."""
    from deepagents_rs.profiles import _builtin_profiles

    _ensure_harness_profiles_loaded()
    return not set(_HARNESS_PROFILES) <= _builtin_profiles._BOOTSTRAP_HARNESS_KEYS


def _get_harness_profile(spec: str) -> HarnessProfile | None:
    """The profile registered for the model spec `spec`, or `None`.

    An exact registration for `spec` is layered over its provider's registration (the part
    before the first colon) when both exist; either one alone is returned as is.
    """
    if not spec:
        return None
    provider, colon, model = spec.partition(":")
    if colon and not (provider and model):
        return None
    _ensure_harness_profiles_loaded()
    exact = _HARNESS_PROFILES.get(spec)
    provider_wide = _HARNESS_PROFILES.get(provider) if colon else None
    if provider_wide is None:
        return exact
    if exact is None:
        logger.debug(_PROVIDER_FALLBACK, spec, provider)
        return provider_wide
    return _merge_profiles(provider_wide, exact)


def _harness_profile_for_model(model: Any, spec: str | None) -> HarnessProfile:
    """The profile for a model: looked up by `spec` when the model was given as a string, else
    by what the model object reports (`provider:identifier`, then an identifier that is itself
    `provider:model`, then the provider's or the identifier prefix's defaults). An empty
    profile when nothing matches."""
    if spec is not None:
        found = _get_harness_profile(spec)
        if found is None:
            logger.debug(_NO_MATCH, f"spec {spec!r}")
            return HarnessProfile()
        return found
    from deepagents_rs._models import get_model_identifier, get_model_provider

    identifier, provider = get_model_identifier(model), get_model_provider(model)
    exact_keys = [f"{provider}:{identifier}"] if provider and identifier else []
    if identifier is not None and ":" in identifier:
        # An identifier that already names its provider; a bare one would read as a provider key.
        exact_keys.append(identifier)
    _ensure_harness_profiles_loaded()
    for key in exact_keys:
        found = _get_harness_profile(key) if key in _HARNESS_PROFILES else None
        if found is not None:
            logger.debug(_PREBUILT_EXACT, key, identifier, provider)
            return found
    # A provider the model reports is the fallback; otherwise the exact keys' own prefixes.
    for key in [provider] if provider is not None else exact_keys:
        found = _get_harness_profile(key)
        if found is not None:
            logger.debug(_PREBUILT_PROVIDER, identifier, provider)
            return found
    logger.debug(
        _NO_MATCH,
        f"pre-built model {type(model).__name__} (identifier={identifier!r}, provider={provider!r})",
    )
    return HarnessProfile()


def _merge_profiles(base: HarnessProfile, override: HarnessProfile) -> HarnessProfile:
    """`override` layered on `base`: its set prompt fields win, overrides merge by tool (its
    win), excluded sets union, middleware merges by class (`_merge_middleware`), and the
    general-purpose edits merge field by field."""
    return HarnessProfile(
        base_system_prompt=_first_set(override.base_system_prompt, base.base_system_prompt),
        system_prompt_suffix=_first_set(override.system_prompt_suffix, base.system_prompt_suffix),
        tool_description_overrides={**base.tool_description_overrides, **override.tool_description_overrides},
        excluded_tools=base.excluded_tools | override.excluded_tools,
        excluded_middleware=base.excluded_middleware | override.excluded_middleware,
        extra_middleware=_merge_middleware(base.extra_middleware, override.extra_middleware),
        general_purpose_subagent=_merge_general_purpose_subagent_profiles(
            base.general_purpose_subagent, override.general_purpose_subagent
        ),
    )


def _first_set(preferred: Any, fallback: Any) -> Any:
    return fallback if preferred is None else preferred


def _merge_general_purpose_subagent_profiles(
    base: GeneralPurposeSubagentProfile | None, override: GeneralPurposeSubagentProfile | None
) -> GeneralPurposeSubagentProfile | None:
    if base is None or override is None:
        return base if override is None else override
    return GeneralPurposeSubagentProfile(
        **{f.name: _first_set(getattr(override, f.name), getattr(base, f.name)) for f in fields(base)}
    )


def _merge_middleware(base: Any, override: Any) -> Any:
    """Two middleware sequences (or factories) as one, by class: an override instance takes the
    place of the base's first instance of its class (later ones of that class are dropped), and
    classes new to the base follow in the override's order. Merged lazily when either side is a
    factory, so each stack still gets fresh instances."""
    if not base or not override:
        return override or base

    def merged() -> list[Any]:
        lower, upper = _middleware_of(base), _middleware_of(override)
        by_class = {type(m): m for m in upper}
        out: list[Any] = []
        taken: set[type] = set()
        for m in lower:
            kind = type(m)
            if kind not in by_class:
                out.append(m)
            elif kind not in taken:
                out.append(by_class[kind])
                taken.add(kind)
        out.extend(m for m in upper if type(m) not in taken)
        return out

    return merged
