"""Built-in `"openai"` profile: OpenAI models go through the Responses API unless told otherwise."""

from deepagents_rs.profiles.provider.provider_profiles import ProviderProfile, _register_without_bootstrap


def register() -> None:
    """Add the built-in OpenAI profile to the registry (called once, by the bootstrap)."""
    _register_without_bootstrap("openai", ProviderProfile(init_kwargs={"use_responses_api": True}))
