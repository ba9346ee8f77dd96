"""Harness profiles: the `HarnessProfile` API (`harness_profiles`) and the built-ins, one module
each: the Anthropic models' suffixes (`_anthropic_*`), NVIDIA Nemotron 3 Ultra
(`_nvidia_nemotron_3_ultra`) and OpenAI Codex (`_openai_codex`). Built-ins register only
through the bootstrap (`deepagents_rs.profiles._builtin_profiles`), never at import, so their
registrations merge like any other."""

from deepagents_rs.profiles.harness import harness_profiles as _api

HarnessProfile = _api.HarnessProfile
HarnessProfileConfig = _api.HarnessProfileConfig
GeneralPurposeSubagentProfile = _api.GeneralPurposeSubagentProfile
register_harness_profile = _api.register_harness_profile

__all__ = ["GeneralPurposeSubagentProfile", "HarnessProfile", "HarnessProfileConfig", "register_harness_profile"]
