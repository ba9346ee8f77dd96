# Ported from deepagents 0.7.32 (MIT), deepagents/profiles/__init__.py: provider-profile exports only. deepagents also
# exports `GeneralPurposeSubagentProfile`, `HarnessProfile`, `HarnessProfileConfig` and `register_harness_profile`
# here; harness profiles are not ported, so those names are absent.
"""Public beta APIs for model (provider) profiles.

!!! beta

    `deepagents_rs.profiles` exposes beta APIs that may receive minor changes in
    future releases. Refer to the [versioning documentation](https://docs.langchain.com/oss/python/versioning)
    for more details.

Profiles let Deep Agents tailor behavior to a specific provider or model spec.
**Provider profiles** (`ProviderProfile`) control the *model-construction*
phase. They declare how a string model spec is built into a chat model —
`init_chat_model` kwargs, pre-initialization side effects, and kwargs derived
from runtime state (e.g. environment variables).

Profiles live in a keyed registry that accepts a `provider` or
`provider:model` key. The registration helper (`register_provider_profile`)
is additive: re-registering under an existing key merges on top of the prior
registration rather than replacing it.

The registry is deepagents_rs' own: registering here does not affect
`deepagents`' registry, nor the reverse.

Directory layout:

- `provider/` — `ProviderProfile` API (`provider_profiles.py`) plus built-in
    provider modules (e.g. `_openai`, `_openrouter`).
- `_builtin_profiles.py` — bootstrap that registers built-in profiles and loads
    third-party plugins (via `importlib.metadata` entry points) lazily on first
    profile-registry access, so importing this package stays cheap.
- `_keys.py` — validation helper for the `provider` / `provider:model`
    registry keys.
"""

from deepagents_rs.profiles.provider.provider_profiles import (
    ProviderProfile,
    register_provider_profile,
)

# Built-in provider profiles are registered lazily on first profile-registry
# access so importing `deepagents_rs.profiles` stays cheap.

__all__ = [
    "ProviderProfile",
    "register_provider_profile",
]
