"""Provider profiles: the `ProviderProfile` API (`provider_profiles`) and the built-in profiles (`_nvidia`, ...)."""

from deepagents_rs.profiles.provider.provider_profiles import (
    ProviderProfile,
    apply_provider_profile,
    get_provider_profile,
    register_provider_profile,
)

__all__ = ["ProviderProfile", "apply_provider_profile", "get_provider_profile", "register_provider_profile"]
