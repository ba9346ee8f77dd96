"""Every provider-profile test runs with both registries bootstrapped and restored afterwards, and
the OpenRouter environment variables cleared."""

from __future__ import annotations

from collections.abc import Iterator

import deepagents.profiles.provider.provider_profiles as da_pp
import deepagents_rs.profiles.provider.provider_profiles as rs_pp
import pytest

from .support import ENV_VARS


@pytest.fixture(autouse=True)
def _isolated_registries(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Both registries bootstrapped, then restored after the test; OpenRouter env vars cleared."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    rs_pp.get_provider_profile("openai:gpt-5")
    da_pp.get_provider_profile("openai:gpt-5")
    saved_rs, saved_da = dict(rs_pp._PROVIDER_PROFILES), dict(da_pp._PROVIDER_PROFILES)
    try:
        yield
    finally:
        rs_pp._PROVIDER_PROFILES.clear()
        rs_pp._PROVIDER_PROFILES.update(saved_rs)
        da_pp._PROVIDER_PROFILES.clear()
        da_pp._PROVIDER_PROFILES.update(saved_da)
