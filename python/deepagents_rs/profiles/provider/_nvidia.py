"""Built-in `"nvidia"` profile: tags NVIDIA NIM requests as coming from Deep Agents."""

from __future__ import annotations

from typing import Any

from deepagents_rs.profiles.provider.provider_profiles import ProviderProfile, _register_without_bootstrap

_NVIDIA_BILLING_ORIGIN_HEADER = "X-BILLING-INVOKE-ORIGIN"
"""The NIM request header naming the calling application."""

_NVIDIA_APP_ORIGIN = "DeepAgents"
"""What that header says."""


def _nvidia_attribution_kwargs() -> dict[str, Any]:
    """`default_headers` carrying the attribution header, which `ChatNVIDIA` sends on every request."""
    # Built afresh on each call, so no two models ever share (and mutate) one headers dict.
    return {"default_headers": {_NVIDIA_BILLING_ORIGIN_HEADER: _NVIDIA_APP_ORIGIN}}


def register() -> None:
    """Add the built-in NVIDIA profile to the registry (called once, by the bootstrap)."""
    _register_without_bootstrap("nvidia", ProviderProfile(init_kwargs_factory=_nvidia_attribution_kwargs))
