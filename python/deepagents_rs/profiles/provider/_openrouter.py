"""Built-in `"openrouter"` profile: a `langchain-openrouter` version floor and Deep Agents app attribution."""

from __future__ import annotations

import logging
import os
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as pkg_version
from typing import Any

from deepagents_rs.profiles.provider.provider_profiles import ProviderProfile, _register_without_bootstrap

logger = logging.getLogger(__name__)

OPENROUTER_MIN_VERSION = "0.2.0"
"""Oldest `langchain-openrouter` accepted: the first with app-attribution support."""

_OPENROUTER_APP_URL = "https://github.com/langchain-ai/deepagents"
"""Default `app_url` (sent as `HTTP-Referer`); see https://openrouter.ai/docs/app-attribution."""

_OPENROUTER_APP_TITLE = "Deep Agents"
"""Default `app_title` (sent as `X-Title`)."""

_OPENROUTER_ALLOW_AZURE_ENV = "DEEPAGENTS_OPENROUTER_ALLOW_AZURE"
"""Set to `1`, `true`, `yes` or `on` to let OpenRouter route to Azure again.

Azure is excluded by default because OpenRouter's `/responses` beta keeps no server-side
state: a reasoning item (`rs_...`) replayed on the next turn is unknown upstream, and the
request fails with "Item with id 'rs_...' not found".
"""

_UNPARSABLE_VERSION = (
    "Skipping langchain-openrouter version check: installed version %r is not PEP 440. Minimum required is %s."
)

_TRUTHY = frozenset({"1", "true", "yes", "on"})

# kwarg -> (env var ChatOpenRouter reads it from, default we supply when that var is absent)
_ATTRIBUTION_DEFAULTS = {
    "app_url": ("OPENROUTER_APP_URL", _OPENROUTER_APP_URL),
    "app_title": ("OPENROUTER_APP_TITLE", _OPENROUTER_APP_TITLE),
}


def _openrouter_attribution_kwargs() -> dict[str, Any]:
    """The default OpenRouter kwargs for this moment's environment.

    An explicit kwarg would beat the user's `OPENROUTER_APP_*` variable, so a default is only
    given while its variable is unset (set but empty counts as set: that is how to opt out).
    Azure is excluded as an upstream unless `DEEPAGENTS_OPENROUTER_ALLOW_AZURE` says otherwise.
    """
    kwargs: dict[str, Any] = {
        kwarg: default for kwarg, (env_var, default) in _ATTRIBUTION_DEFAULTS.items() if env_var not in os.environ
    }
    if not _azure_allowed():
        kwargs["openrouter_provider"] = {"ignore": ["azure"]}
    return kwargs


def _azure_allowed() -> bool:
    return os.environ.get(_OPENROUTER_ALLOW_AZURE_ENV, "").strip().lower() in _TRUTHY


def check_openrouter_version() -> None:
    """Raise `ImportError` if the installed `langchain-openrouter` is older than `OPENROUTER_MIN_VERSION`.

    Nothing is checked when the package is missing (`init_chat_model` reports that itself) or
    when its version does not parse (a warning is logged instead).
    """
    installed = _installed_openrouter_version()
    if installed is not None and _older_than_minimum(installed):
        requirement = f"langchain-openrouter>={OPENROUTER_MIN_VERSION}"
        msg = f"deepagents requires {requirement}, but {installed} is installed. Run: pip install '{requirement}'"
        raise ImportError(msg)


def _installed_openrouter_version() -> str | None:
    try:
        return pkg_version("langchain-openrouter")
    except PackageNotFoundError:
        return None


def _older_than_minimum(installed: str) -> bool:
    """Compare with the floor; an unparsable version (a dev build, a fork) passes, with a warning."""
    # Imported late: `packaging` comes with langchain-core, which langchain-openrouter needs,
    # but deepagents_rs itself does not depend on it.
    from packaging.version import InvalidVersion, Version

    try:
        return Version(installed) < Version(OPENROUTER_MIN_VERSION)
    except InvalidVersion:
        logger.warning(_UNPARSABLE_VERSION, installed, OPENROUTER_MIN_VERSION)
        return False


def _require_supported_version(_spec: str) -> None:
    # Looked up at call time, so patching `check_openrouter_version` takes effect.
    check_openrouter_version()


def register() -> None:
    """Add the built-in OpenRouter profile to the registry (called once, by the bootstrap)."""
    _register_without_bootstrap(
        "openrouter",
        ProviderProfile(pre_init=_require_supported_version, init_kwargs_factory=_openrouter_attribution_kwargs),
    )
