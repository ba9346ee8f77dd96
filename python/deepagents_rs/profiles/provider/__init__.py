# Ported from deepagents 0.7.32 (MIT), deepagents/profiles/provider/__init__.py: provider-profile package exports.
"""Provider profile package: `ProviderProfile` API and built-in providers."""

from deepagents_rs.profiles.provider.provider_profiles import (
    ProviderProfile,
    apply_provider_profile,
    get_provider_profile,
    register_provider_profile,
)

__all__ = [
    "ProviderProfile",
    "apply_provider_profile",
    "get_provider_profile",
    "register_provider_profile",
]
