"""The shape of a profile registry key: `provider` or `provider:model`."""

from __future__ import annotations


def validate_profile_key(key: str) -> None:
    """Raise `ValueError` unless `key` is a usable `provider` or `provider:model` key.

    Only the first colon separates the two halves, so a model identifier may hold
    colons of its own (`ollama:glm-5.2:cloud`, or a Bedrock ARN with `::`).
    """
    problem = _key_problem(key)
    if problem is not None:
        raise ValueError(problem)


def _key_problem(key: str) -> str | None:
    """Why `key` cannot name a registry entry, or `None` when it can."""
    if not key:
        return "Profile key must be a non-empty string."
    if key.strip() != key:
        return f"Profile key {key!r} has leading or trailing whitespace; expected 'provider' or 'provider:model'."
    provider, colon, model = key.partition(":")
    if not colon:
        return None
    if not provider or not model:
        return f"Profile key {key!r} has an empty provider or model half; expected 'provider:model'."
    # The key as a whole is already stripped, so only the sides facing the colon can carry whitespace.
    if provider.rstrip() != provider or model.lstrip() != model:
        return (
            f"Profile key {key!r} has whitespace adjacent to ':'; "
            "expected 'provider:model' with no spaces around the first ':'."
        )
    return None
