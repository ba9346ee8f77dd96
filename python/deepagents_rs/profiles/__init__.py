"""Model profiles (beta API): per-provider and per-model settings, in two registries.

- `ProviderProfile`, registered with `register_provider_profile`, shapes how a chat model is
  built from a string spec: `init_chat_model` kwargs, a pre-construction hook, and kwargs
  computed at build time.
- `HarnessProfile` (or its file-friendly part, `HarnessProfileConfig`), registered with
  `register_harness_profile`, shapes the agent `create_deep_agent` builds around the model:
  prompt, tool descriptions and visibility, middleware, and the general-purpose subagent
  (`GeneralPurposeSubagentProfile`).

Both take a `provider` or `provider:model` key, and registrations under one key accumulate
rather than replace. These registries are independent of deepagents': a profile registered
in one library is not seen by the other.

Layout: `provider/` and `harness/` hold each API and its built-in profiles,
`_builtin_profiles` the lazy bootstrap that registers the built-ins and loads entry-point
plugins, `_keys` the check of registry keys.
"""

from deepagents_rs.profiles import harness as _harness
from deepagents_rs.profiles.provider.provider_profiles import ProviderProfile, register_provider_profile

HarnessProfile = _harness.HarnessProfile
HarnessProfileConfig = _harness.HarnessProfileConfig
GeneralPurposeSubagentProfile = _harness.GeneralPurposeSubagentProfile
register_harness_profile = _harness.register_harness_profile

# Nothing is registered at import: the built-ins and plugins load on first registry access,
# which keeps `import deepagents_rs` cheap.

__all__ = ["ProviderProfile", "register_provider_profile"]
__all__ += _harness.__all__
