"""Model profiles (beta API): per-provider and per-model settings for building chat models.

`ProviderProfile`, registered with `register_provider_profile` under `provider` or
`provider:model`, supplies `init_chat_model` kwargs, a pre-construction hook, and kwargs
computed at build time. Registrations under one key accumulate rather than replace.

deepagents also exports harness profiles from here (`HarnessProfile`, `HarnessProfileConfig`,
`GeneralPurposeSubagentProfile`, `register_harness_profile`); deepagents_rs has none, so those
names are absent. This registry is independent of deepagents': a profile registered in one
library is not seen by the other.

Layout: `provider/` holds the API and the built-in provider profiles, `_builtin_profiles`
the lazy bootstrap that registers them and loads entry-point plugins, `_keys` the check of
registry keys.
"""

from deepagents_rs.profiles.provider.provider_profiles import ProviderProfile, register_provider_profile

# Nothing is registered at import: the built-ins and plugins load on first registry access,
# which keeps `import deepagents_rs` cheap.

__all__ = ["ProviderProfile", "register_provider_profile"]
