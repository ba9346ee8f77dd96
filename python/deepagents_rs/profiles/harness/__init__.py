"""Harness profiles: the `HarnessProfile` API (`harness_profiles`) and the built-in OpenAI Codex
profile (`_openai_codex`); the Anthropic models' built-ins are plain suffixes, registered by
`deepagents_rs.profiles._builtin_profiles`. Built-ins register only through the bootstrap, never
at import, so their registrations merge like any other."""

from deepagents_rs.profiles.harness import harness_profiles as _api

HarnessProfile = _api.HarnessProfile
HarnessProfileConfig = _api.HarnessProfileConfig
GeneralPurposeSubagentProfile = _api.GeneralPurposeSubagentProfile
register_harness_profile = _api.register_harness_profile

__all__ = ["GeneralPurposeSubagentProfile", "HarnessProfile", "HarnessProfileConfig", "register_harness_profile"]
