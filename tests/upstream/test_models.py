# Vendored from langchain-ai/deepagents libs/deepagents/tests/unit_tests/test_models.py @ 23b83ad50f63 (MIT);
# `deepagents.` imports/patch targets rewritten to `deepagents_rs.`. Only the provider-profile tests are kept:
# harness profiles are not ported, and the `_models` helpers `get_model_identifier`, `get_model_provider`,
# `is_bedrock_model` and `model_matches_spec` have no deepagents_rs counterpart, so their tests are dropped.
# deepagents_rs has no `resolve_model`; the tests that used it call `resolve_model` below, deepagents' own
# two lines over `deepagents_rs._model_spec.init_langchain_model`, with the patch target
# `deepagents._models.init_chat_model` rewritten to `langchain.chat_models.init_chat_model`.
# Plugins load from the `deepagents_rs.provider_profiles` entry-point group (deepagents:
# `deepagents.provider_profiles`), so the loader tests expect that group alone; harness-only loader tests are
# dropped, and the ones that used a harness profile as a stand-in
# (`test_concurrent_user_registration_waits_until_snapshot_taken`, and
# `test_register_harness_profile_triggers_bootstrap`, renamed `test_register_provider_profile_triggers_bootstrap`)
# use a provider profile. Key validation follows deepagents 0.7.32 (this snapshot predates it): a model identifier
# may contain colons, so `test_multiple_colons_rejected_provider` became `test_multiple_colons_accepted_provider`,
# and the harness-key validation tests check `register_provider_profile` (both share `validate_profile_key`).
"""Tests for deepagents._models helpers and internal profile registries (provider profiles only)."""

import logging
import os
import threading
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError
from unittest.mock import MagicMock, patch

import pytest
from deepagents_rs._model_spec import init_langchain_model
from deepagents_rs.profiles import (
    ProviderProfile,
    register_provider_profile,
)
from deepagents_rs.profiles.provider._nvidia import (
    _NVIDIA_APP_ORIGIN,
    _NVIDIA_BILLING_ORIGIN_HEADER,
    _nvidia_attribution_kwargs,
)
from deepagents_rs.profiles.provider._openrouter import (
    _OPENROUTER_ALLOW_AZURE_ENV,
    _OPENROUTER_APP_TITLE,
    _OPENROUTER_APP_URL,
    OPENROUTER_MIN_VERSION,
    _openrouter_attribution_kwargs,
    check_openrouter_version,
)
from deepagents_rs.profiles.provider.provider_profiles import (
    _PROVIDER_PROFILES,
    _merge_provider_profiles,
    apply_provider_profile,
    get_provider_profile,
)
from langchain_core.language_models import BaseChatModel


def resolve_model(model: str | BaseChatModel) -> BaseChatModel:
    """deepagents' `resolve_model` (deepagents/_models.py), over deepagents_rs' registry."""
    if isinstance(model, BaseChatModel):
        return model

    return init_langchain_model(model, apply_provider_profile(model))


_OPENROUTER_AZURE_IGNORE = {"ignore": ["azure"]}
"""Expected default value of `openrouter_provider` injected by the SDK profile."""


@pytest.fixture(autouse=True)
def _scrub_openrouter_allow_azure_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pop `DEEPAGENTS_OPENROUTER_ALLOW_AZURE` before each test.

    Otherwise an ambient `DEEPAGENTS_OPENROUTER_ALLOW_AZURE=1` in the
    developer's shell or CI environment would suppress the `openrouter_provider`
    kwarg the SDK profile injects, silently breaking assertions that expect it.
    """
    monkeypatch.delenv(_OPENROUTER_ALLOW_AZURE_ENV, raising=False)


class TestResolveModel:
    """Tests for `resolve_model`."""

    def test_passthrough_when_already_model(self) -> None:
        model = MagicMock(spec=BaseChatModel)
        assert resolve_model(model) is model

    def test_openai_prefix_uses_responses_api(self) -> None:
        with patch("langchain.chat_models.init_chat_model") as mock:
            mock.return_value = MagicMock(spec=BaseChatModel)
            result = resolve_model("openai:gpt-5")

        mock.assert_called_once_with("openai:gpt-5", use_responses_api=True)
        assert result is mock.return_value

    def test_openrouter_prefix_sets_attribution(self) -> None:
        with patch("langchain.chat_models.init_chat_model") as mock:
            mock.return_value = MagicMock(spec=BaseChatModel)
            result = resolve_model("openrouter:anthropic/claude-sonnet-4-6")

        mock.assert_called_once_with(
            "openrouter:anthropic/claude-sonnet-4-6",
            app_url=_OPENROUTER_APP_URL,
            app_title=_OPENROUTER_APP_TITLE,
            openrouter_provider=_OPENROUTER_AZURE_IGNORE,
        )
        assert result is mock.return_value

    def test_nvidia_prefix_sets_billing_origin(self) -> None:
        with patch("langchain.chat_models.init_chat_model") as mock:
            mock.return_value = MagicMock(spec=BaseChatModel)
            result = resolve_model("nvidia:nvidia/nemotron-3-super-120b-a12b")

        mock.assert_called_once_with(
            "nvidia:nvidia/nemotron-3-super-120b-a12b",
            default_headers={
                _NVIDIA_BILLING_ORIGIN_HEADER: _NVIDIA_APP_ORIGIN,
            },
        )
        assert result is mock.return_value

    def test_openrouter_env_var_overrides_app_url(self) -> None:
        env = {"OPENROUTER_APP_URL": "https://custom.app"}
        with (
            patch("langchain.chat_models.init_chat_model") as mock,
            patch.dict("os.environ", env),
        ):
            mock.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("openrouter:anthropic/claude-sonnet-4-6")

        _, kwargs = mock.call_args
        assert "app_url" not in kwargs
        assert kwargs["app_title"] == _OPENROUTER_APP_TITLE
        assert kwargs["openrouter_provider"] == _OPENROUTER_AZURE_IGNORE

    def test_openrouter_env_var_overrides_app_title(self) -> None:
        env = {"OPENROUTER_APP_TITLE": "My Custom App"}
        with (
            patch("langchain.chat_models.init_chat_model") as mock,
            patch.dict("os.environ", env),
        ):
            mock.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("openrouter:anthropic/claude-sonnet-4-6")

        _, kwargs = mock.call_args
        assert kwargs["app_url"] == _OPENROUTER_APP_URL
        assert "app_title" not in kwargs
        assert kwargs["openrouter_provider"] == _OPENROUTER_AZURE_IGNORE

    def test_openrouter_env_vars_override_both(self) -> None:
        env = {
            "OPENROUTER_APP_URL": "https://custom.app",
            "OPENROUTER_APP_TITLE": "My Custom App",
        }
        with (
            patch("langchain.chat_models.init_chat_model") as mock,
            patch.dict("os.environ", env),
        ):
            mock.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("openrouter:anthropic/claude-sonnet-4-6")

        mock.assert_called_once_with(
            "openrouter:anthropic/claude-sonnet-4-6",
            openrouter_provider=_OPENROUTER_AZURE_IGNORE,
        )

    def test_openrouter_allow_azure_env_drops_provider_kwarg(self) -> None:
        env = {
            "OPENROUTER_APP_URL": "https://custom.app",
            "OPENROUTER_APP_TITLE": "My Custom App",
            _OPENROUTER_ALLOW_AZURE_ENV: "1",
        }
        with (
            patch("langchain.chat_models.init_chat_model") as mock,
            patch.dict("os.environ", env),
        ):
            mock.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("openrouter:anthropic/claude-sonnet-4-6")

        mock.assert_called_once_with("openrouter:anthropic/claude-sonnet-4-6")

    def test_unknown_provider_passes_no_extra_kwargs(self) -> None:
        with patch("langchain.chat_models.init_chat_model") as mock:
            mock.return_value = MagicMock(spec=BaseChatModel)
            result = resolve_model("anthropic:claude-sonnet-4-6")

        mock.assert_called_once_with("anthropic:claude-sonnet-4-6")
        assert result is mock.return_value


class TestCheckOpenRouterVersion:
    """Tests for `check_openrouter_version`."""

    def test_passes_when_not_installed(self) -> None:
        with patch(
            "deepagents_rs.profiles.provider._openrouter.pkg_version",
            side_effect=PackageNotFoundError("langchain-openrouter"),
        ):
            check_openrouter_version()

    def test_passes_when_version_sufficient(self) -> None:
        with patch(
            "deepagents_rs.profiles.provider._openrouter.pkg_version",
            return_value=OPENROUTER_MIN_VERSION,
        ):
            check_openrouter_version()

    def test_passes_when_version_above_minimum(self) -> None:
        with patch("deepagents_rs.profiles.provider._openrouter.pkg_version", return_value="99.0.0"):
            check_openrouter_version()

    def test_raises_when_version_too_old(self) -> None:
        with (
            patch("deepagents_rs.profiles.provider._openrouter.pkg_version", return_value="0.0.1"),
            pytest.raises(ImportError, match="langchain-openrouter>="),
        ):
            check_openrouter_version()

    def test_skips_check_for_invalid_version(self) -> None:
        with patch("deepagents_rs.profiles.provider._openrouter.pkg_version", return_value="not-a-version"):
            check_openrouter_version()

    def test_resolve_model_calls_check(self) -> None:
        with (
            patch("deepagents_rs.profiles.provider._openrouter.check_openrouter_version") as mock_check,
            patch("langchain.chat_models.init_chat_model") as mock_init,
        ):
            mock_init.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("openrouter:anthropic/claude-sonnet-4-6")

        mock_check.assert_called_once()

    def test_resolve_model_skips_check_for_non_openrouter(self) -> None:
        with (
            patch("deepagents_rs.profiles.provider._openrouter.check_openrouter_version") as mock_check,
            patch("langchain.chat_models.init_chat_model") as mock_init,
        ):
            mock_init.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("anthropic:claude-sonnet-4-6")

        mock_check.assert_not_called()


class TestOpenRouterAttributionKwargs:
    """Tests for `_openrouter_attribution_kwargs`."""

    def test_defaults_when_no_env(self) -> None:
        with patch.dict("os.environ", {}, clear=False):
            os.environ.pop("OPENROUTER_APP_URL", None)
            os.environ.pop("OPENROUTER_APP_TITLE", None)
            result = _openrouter_attribution_kwargs()

        assert result == {
            "app_url": _OPENROUTER_APP_URL,
            "app_title": _OPENROUTER_APP_TITLE,
            "openrouter_provider": _OPENROUTER_AZURE_IGNORE,
        }

    def test_omits_app_url_when_env_set(self) -> None:
        with patch.dict("os.environ", {"OPENROUTER_APP_URL": "https://example.com"}):
            result = _openrouter_attribution_kwargs()

        assert "app_url" not in result
        assert result["app_title"] == _OPENROUTER_APP_TITLE
        assert result["openrouter_provider"] == _OPENROUTER_AZURE_IGNORE

    def test_omits_app_title_when_env_set(self) -> None:
        with patch.dict("os.environ", {"OPENROUTER_APP_TITLE": "Custom"}):
            result = _openrouter_attribution_kwargs()

        assert result["app_url"] == _OPENROUTER_APP_URL
        assert "app_title" not in result
        assert result["openrouter_provider"] == _OPENROUTER_AZURE_IGNORE

    def test_only_provider_kwarg_when_both_attribution_env_set(self) -> None:
        env = {
            "OPENROUTER_APP_URL": "https://example.com",
            "OPENROUTER_APP_TITLE": "Custom",
        }
        with patch.dict("os.environ", env):
            result = _openrouter_attribution_kwargs()

        assert result == {"openrouter_provider": _OPENROUTER_AZURE_IGNORE}

    @pytest.mark.parametrize("value", ["1", "true", "TRUE", "yes", "YES", "on", "ON", " yes "])
    def test_allow_azure_env_truthy_drops_provider_kwarg(self, value: str) -> None:
        with patch.dict("os.environ", {_OPENROUTER_ALLOW_AZURE_ENV: value}):
            result = _openrouter_attribution_kwargs()

        assert "openrouter_provider" not in result

    @pytest.mark.parametrize("value", ["", "0", "false", "no", "off", "anything-else"])
    def test_allow_azure_env_non_truthy_keeps_provider_kwarg(self, value: str) -> None:
        with patch.dict("os.environ", {_OPENROUTER_ALLOW_AZURE_ENV: value}):
            result = _openrouter_attribution_kwargs()

        assert result["openrouter_provider"] == _OPENROUTER_AZURE_IGNORE

    def test_empty_when_all_env_set_and_azure_allowed(self) -> None:
        env = {
            "OPENROUTER_APP_URL": "https://example.com",
            "OPENROUTER_APP_TITLE": "Custom",
            _OPENROUTER_ALLOW_AZURE_ENV: "1",
        }
        with patch.dict("os.environ", env):
            result = _openrouter_attribution_kwargs()

        assert result == {}

    def test_caller_openrouter_provider_wins_over_default(self) -> None:
        """User-supplied `openrouter_provider` overrides the SDK Azure-ignore default."""
        caller = {"openrouter_provider": {"order": ["fireworks"]}}
        result = apply_provider_profile("openrouter:openai/gpt-5", caller, run_pre_init=False)

        assert result["openrouter_provider"] == {"order": ["fireworks"]}


class TestProviderProfile:
    """Tests for `ProviderProfile`."""

    def test_defaults_are_empty(self) -> None:
        profile = ProviderProfile()
        assert profile.init_kwargs == {}
        assert profile.pre_init is None
        assert profile.init_kwargs_factory is None


class TestProviderProfileRegistry:
    """Tests for provider-profile lookup and registration."""

    def test_register_and_retrieve_by_provider(self) -> None:
        profile = ProviderProfile(init_kwargs={"temperature": 0})
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("test_provider", profile)
            assert get_provider_profile("test_provider:some-model") is profile
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_exact_model_match_merges_with_provider(self) -> None:
        base_profile = ProviderProfile(init_kwargs={"a": 1})
        model_profile = ProviderProfile(init_kwargs={"b": 2})
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("test_prov", base_profile)
            register_provider_profile("test_prov:special-model", model_profile)
            merged = get_provider_profile("test_prov:special-model")
            assert merged.init_kwargs == {"a": 1, "b": 2}
            assert get_provider_profile("test_prov:other-model") is base_profile
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_returns_none_for_unknown(self) -> None:
        assert get_provider_profile("nonexistent:model") is None

    def test_bare_model_name_without_colon_returns_none(self) -> None:
        assert get_provider_profile("claude-sonnet-4-6") is None

    def test_empty_spec_returns_none(self) -> None:
        """Empty spec has no colon and no exact match."""
        assert get_provider_profile("") is None

    def test_exact_miss_falls_back_to_provider(self) -> None:
        """A typo'd model spec should fall back to the provider profile, not None."""
        base = ProviderProfile(init_kwargs={"a": 1})
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("fbprov", base)
            assert get_provider_profile("fbprov:missing-model") is base
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)


class TestApplyProviderProfile:
    """Tests for the `apply_provider_profile` convenience helper.

    Verifies the merge contract used by `resolve_model` and any external
    harness building chat models through its own pipeline: caller kwargs win
    on conflict, profile defaults sit beneath them, `pre_init` fires for side
    effects unless suppressed, and unregistered specs no-op cleanly.
    """

    def test_unregistered_spec_returns_kwargs_copy(self) -> None:
        """No registered profile means kwargs flow through unchanged."""
        kwargs = {"temperature": 0.5}
        result = apply_provider_profile("nonexistent:model", kwargs)
        assert result == kwargs
        assert result is not kwargs  # fresh dict

    def test_unregistered_spec_with_no_kwargs_returns_empty_dict(self) -> None:
        """Calling without kwargs on an unregistered spec yields empty dict."""
        assert apply_provider_profile("nonexistent:model") == {}

    def test_profile_defaults_applied_when_no_kwargs(self) -> None:
        """Profile `init_kwargs` flow through when no caller kwargs are given."""
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile(
                "appprov",
                ProviderProfile(init_kwargs={"temperature": 0.7, "stream": True}),
            )
            result = apply_provider_profile("appprov")
            assert result == {"temperature": 0.7, "stream": True}
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_caller_kwargs_win_on_conflict(self) -> None:
        """Caller-supplied kwargs override profile defaults on shared keys."""
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile(
                "winprov",
                ProviderProfile(init_kwargs={"temperature": 0, "shared": "profile"}),
            )
            result = apply_provider_profile("winprov", {"shared": "caller"})
            assert result == {"temperature": 0, "shared": "caller"}
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_factory_output_layered_under_caller(self) -> None:
        """`init_kwargs_factory` runs and merges beneath caller kwargs."""
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile(
                "factprov",
                ProviderProfile(
                    init_kwargs={"a": 1},
                    init_kwargs_factory=lambda: {"b": 2, "shared": "factory"},
                ),
            )
            result = apply_provider_profile("factprov", {"shared": "caller", "c": 3})
            assert result == {"a": 1, "b": 2, "shared": "caller", "c": 3}
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_pre_init_runs_with_spec_by_default(self) -> None:
        """`pre_init` is invoked with the resolved spec by default."""
        seen: list[str] = []
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile(
                "preinitprov",
                ProviderProfile(pre_init=seen.append),
            )
            apply_provider_profile("preinitprov:m")
            assert seen == ["preinitprov:m"]
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_pre_init_suppressed_with_run_pre_init_false(self) -> None:
        """`run_pre_init=False` skips the side-effectful hook."""
        seen: list[str] = []
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile(
                "noinitprov",
                ProviderProfile(
                    init_kwargs={"k": "v"},
                    pre_init=seen.append,
                ),
            )
            result = apply_provider_profile("noinitprov", run_pre_init=False)
            assert seen == []
            assert result == {"k": "v"}
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_caller_kwargs_dict_not_mutated(self) -> None:
        """The caller's `kwargs` mapping is never mutated in place."""
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile(
                "immprov",
                ProviderProfile(init_kwargs={"profile_only": "x"}),
            )
            caller_kwargs = {"caller_only": "y"}
            result = apply_provider_profile("immprov", caller_kwargs)
            assert caller_kwargs == {"caller_only": "y"}  # untouched
            assert result == {"profile_only": "x", "caller_only": "y"}
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)


class TestRegisterProviderProfileAdditive:
    """Tests for additive-merge semantics of `register_provider_profile`.

    Re-registering under an existing key must merge the incoming profile on top
    of the existing one, not replace it. User kwargs are additive with built-in
    defaults; explicit conflicts let the user win.
    """

    def test_layers_onto_existing_registration(self) -> None:
        """Registering twice under the same key merges without clobbering."""
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("layered_prov", ProviderProfile(init_kwargs={"a": 1}))
            register_provider_profile("layered_prov", ProviderProfile(init_kwargs={"b": 2}))
            profile = get_provider_profile("layered_prov")
            assert profile.init_kwargs == {"a": 1, "b": 2}
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_later_registration_wins_on_key_collision(self) -> None:
        """When both registrations set the same key, the later value wins."""
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("coll_prov", ProviderProfile(init_kwargs={"shared": "first"}))
            register_provider_profile("coll_prov", ProviderProfile(init_kwargs={"shared": "second"}))
            profile = get_provider_profile("coll_prov")
            assert profile.init_kwargs == {"shared": "second"}
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_user_layering_preserves_built_in_openai_default(self) -> None:
        """User layering onto `"openai"` keeps the built-in `use_responses_api=True`."""
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("openai", ProviderProfile(init_kwargs={"temperature": 0}))
            profile = get_provider_profile("openai:gpt-5")
            assert profile.init_kwargs == {"use_responses_api": True, "temperature": 0}
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_user_can_override_built_in_openai_default(self) -> None:
        """Explicit user value for a built-in key wins."""
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile(
                "openai",
                ProviderProfile(init_kwargs={"use_responses_api": False}),
            )
            profile = get_provider_profile("openai:gpt-5")
            assert profile.init_kwargs == {"use_responses_api": False}
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_pre_init_chains_on_re_registration(self) -> None:
        """Re-registering a profile with a `pre_init` chains with the existing one."""
        original = dict(_PROVIDER_PROFILES)
        calls: list[str] = []
        try:
            register_provider_profile(
                "chain_prov",
                ProviderProfile(pre_init=lambda spec: calls.append(f"first:{spec}")),
            )
            register_provider_profile(
                "chain_prov",
                ProviderProfile(pre_init=lambda spec: calls.append(f"second:{spec}")),
            )
            profile = get_provider_profile("chain_prov")
            assert profile.pre_init is not None
            profile.pre_init("spec")
            assert calls == ["first:spec", "second:spec"]
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_novel_provider_registers_cleanly(self) -> None:
        """A provider key that has no existing registration is stored as-is."""
        original = dict(_PROVIDER_PROFILES)
        try:
            profile = ProviderProfile(init_kwargs={"unique_key": True})
            register_provider_profile("novelprov", profile)
            assert get_provider_profile("novelprov") is profile
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)


class TestMergeProviderProfiles:
    """Tests for `_merge_provider_profiles`."""

    def test_init_kwargs_merged(self) -> None:
        base = ProviderProfile(init_kwargs={"a": 1, "shared": "base"})
        override = ProviderProfile(init_kwargs={"b": 2, "shared": "override"})
        merged = _merge_provider_profiles(base, override)
        assert merged.init_kwargs == {"a": 1, "b": 2, "shared": "override"}

    def test_pre_init_chained(self) -> None:
        calls: list[str] = []
        base = ProviderProfile(pre_init=lambda s: calls.append(f"base:{s}"))
        override = ProviderProfile(pre_init=lambda s: calls.append(f"override:{s}"))
        merged = _merge_provider_profiles(base, override)
        assert merged.pre_init is not None
        merged.pre_init("spec")
        assert calls == ["base:spec", "override:spec"]

    def test_pre_init_base_only(self) -> None:
        called = False

        def base_fn(_spec: str) -> None:
            nonlocal called
            called = True

        merged = _merge_provider_profiles(ProviderProfile(pre_init=base_fn), ProviderProfile())
        assert merged.pre_init is not None
        merged.pre_init("x")
        assert called

    def test_pre_init_override_only(self) -> None:
        called = False

        def override_fn(_spec: str) -> None:
            nonlocal called
            called = True

        merged = _merge_provider_profiles(ProviderProfile(), ProviderProfile(pre_init=override_fn))
        assert merged.pre_init is not None
        merged.pre_init("x")
        assert called

    def test_init_kwargs_factory_chained(self) -> None:
        base = ProviderProfile(init_kwargs_factory=lambda: {"a": 1, "shared": "base"})
        override = ProviderProfile(init_kwargs_factory=lambda: {"b": 2, "shared": "override"})
        merged = _merge_provider_profiles(base, override)
        assert merged.init_kwargs_factory is not None
        assert merged.init_kwargs_factory() == {
            "a": 1,
            "b": 2,
            "shared": "override",
        }


class TestProfileMergingEndToEnd:
    """End-to-end tests for the split registries."""

    def test_openai_exact_model_inherits_provider_defaults(self) -> None:
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile(
                "openai:o3-pro",
                ProviderProfile(init_kwargs={"reasoning_effort": "high"}),
            )
            profile = get_provider_profile("openai:o3-pro")
            assert profile.init_kwargs == {
                "use_responses_api": True,
                "reasoning_effort": "high",
            }
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)


class TestBuiltInProfiles:
    """Tests for built-in provider registrations."""

    def test_openai_provider_profile_sets_responses_api(self) -> None:
        profile = get_provider_profile("openai:gpt-5")
        assert profile.init_kwargs == {"use_responses_api": True}

    def test_openrouter_provider_profile_has_pre_init_and_factory(self) -> None:
        profile = get_provider_profile("openrouter:anthropic/claude-sonnet-4-6")
        assert profile.pre_init is not None
        assert profile.init_kwargs_factory is not None

    def test_nvidia_provider_profile_has_attribution_factory(self) -> None:
        profile = get_provider_profile("nvidia:nvidia/nemotron-3-super-120b-a12b")
        assert profile.init_kwargs_factory is _nvidia_attribution_kwargs


class TestProfilePluginLoader:
    """Tests for the `importlib.metadata` entry-point loader."""

    @pytest.fixture(autouse=True)
    def _isolate_loader_state(self) -> Iterator[None]:
        """Snapshot and restore loader globals plus the registry around every test.

        The real bootstrap runs once per process on first profile-registry
        access. Tests here reset loader state to re-exercise bootstrap with
        patched entry points; without this fixture they would leak mutated
        registry state into sibling tests.
        """
        from deepagents_rs.profiles import _builtin_profiles

        saved_loaded = _builtin_profiles._loaded
        saved_loading_thread_id = _builtin_profiles._loading_thread_id
        saved_provider = dict(_PROVIDER_PROFILES)
        try:
            _builtin_profiles._loaded = False
            _builtin_profiles._loading_thread_id = None
            yield
        finally:
            _builtin_profiles._loaded = saved_loaded
            _builtin_profiles._loading_thread_id = saved_loading_thread_id
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(saved_provider)
            with _builtin_profiles._BOOTSTRAP_CONDITION:
                _builtin_profiles._BOOTSTRAP_CONDITION.notify_all()

    def test_iterates_both_entry_point_groups(self) -> None:
        """Loader must query the provider entry-point group (the only one: harness profiles are not ported)."""
        from deepagents_rs.profiles._builtin_profiles import (
            _PROVIDER_PROFILE_GROUP,
            _ensure_builtin_profiles_loaded,
        )

        with patch(
            "deepagents_rs.profiles._builtin_profiles.entry_points",
            return_value=[],
        ) as mock:
            _ensure_builtin_profiles_loaded()

        groups = {call.kwargs["group"] for call in mock.call_args_list}
        assert groups == {_PROVIDER_PROFILE_GROUP}

    def test_broken_plugin_logged_and_skipped(self, caplog: pytest.LogCaptureFixture) -> None:
        """A plugin whose `load()` raises must not prevent sibling plugins from running.

        Plugin-level breakage is logged at `ERROR` (rather than `WARNING`) so a
        broken plugin's missing registrations don't slip past users without
        debug logging enabled. The dist name is included when available so the
        offending package is identifiable from the message alone.
        """
        from deepagents_rs.profiles._builtin_profiles import (
            _ensure_builtin_profiles_loaded,
        )

        good_called = MagicMock()
        broken = MagicMock()
        broken.name = "broken"
        broken.value = "nope:nope"
        broken.dist = MagicMock(name="brokendist")
        broken.dist.name = "broken-dist"
        broken.load.side_effect = ImportError("boom")
        good = MagicMock()
        good.name = "good"
        good.value = "mod:register"
        good.load.return_value = good_called

        def fake_entry_points(*, group: str) -> list[MagicMock]:
            if group == "deepagents_rs.provider_profiles":
                return [broken, good]
            return []

        with (
            caplog.at_level(logging.ERROR, logger="deepagents_rs.profiles._builtin_profiles"),
            pytest.warns(UserWarning, match="failed to load entry point"),
            patch(
                "deepagents_rs.profiles._builtin_profiles.entry_points",
                side_effect=fake_entry_points,
            ),
        ):
            _ensure_builtin_profiles_loaded()

        good_called.assert_called_once_with()
        error_records = [rec for rec in caplog.records if rec.levelno == logging.ERROR]
        assert any("broken" in rec.message and "nope:nope" in rec.message for rec in error_records)
        assert any("broken-dist" in rec.message for rec in error_records)

    def test_non_callable_entry_point_logged_and_skipped(self, caplog: pytest.LogCaptureFixture) -> None:
        """An entry point resolving to a non-callable must be skipped, not invoked.

        Surfaced at `ERROR` because declaring a non-callable as a registration
        hook is a structural plugin bug — the plugin's registrations will be
        absent without a clear signal.
        """
        from deepagents_rs.profiles._builtin_profiles import (
            _ensure_builtin_profiles_loaded,
        )

        ep = MagicMock()
        ep.name = "weird"
        ep.value = "mod:CONST"
        ep.load.return_value = "not callable"

        with (
            caplog.at_level(logging.ERROR, logger="deepagents_rs.profiles._builtin_profiles"),
            pytest.warns(UserWarning, match="did not resolve to a callable"),
            patch(
                "deepagents_rs.profiles._builtin_profiles.entry_points",
                return_value=[ep],
            ),
        ):
            _ensure_builtin_profiles_loaded()

        error_records = [rec for rec in caplog.records if rec.levelno == logging.ERROR]
        assert any("did not resolve to a callable" in rec.message for rec in error_records)

    def test_registration_raises_logged_and_skipped(self, caplog: pytest.LogCaptureFixture) -> None:
        """A registration callable that raises must be isolated to itself.

        Surfaced at `ERROR` so a structural plugin bug (e.g. calling
        `register_*_profile("", ...)` and getting a `ValueError` back) is
        visible at default log levels instead of being silently dropped.
        """
        from deepagents_rs.profiles._builtin_profiles import (
            _ensure_builtin_profiles_loaded,
        )

        ep = MagicMock()
        ep.name = "angry"
        ep.value = "mod:register"
        ep.load.return_value = MagicMock(side_effect=RuntimeError("bad"))

        with (
            caplog.at_level(logging.ERROR, logger="deepagents_rs.profiles._builtin_profiles"),
            pytest.warns(UserWarning, match="registration callable .* raised"),
            patch(
                "deepagents_rs.profiles._builtin_profiles.entry_points",
                return_value=[ep],
            ),
        ):
            _ensure_builtin_profiles_loaded()

        error_records = [rec for rec in caplog.records if rec.levelno == logging.ERROR]
        assert any("registration callable" in rec.message and "raised" in rec.message for rec in error_records)

    def test_entry_points_call_itself_raises(self, caplog: pytest.LogCaptureFixture) -> None:
        """If `entry_points(group=...)` raises, the loader must log and continue."""
        from deepagents_rs.profiles._builtin_profiles import (
            _ensure_builtin_profiles_loaded,
        )

        with (
            caplog.at_level(logging.WARNING, logger="deepagents_rs.profiles._builtin_profiles"),
            pytest.warns(UserWarning, match="Failed to enumerate"),
            patch(
                "deepagents_rs.profiles._builtin_profiles.entry_points",
                side_effect=RuntimeError("malformed dist-info"),
            ),
        ):
            _ensure_builtin_profiles_loaded()  # must not raise

        assert any("Failed to enumerate" in rec.message for rec in caplog.records)

    def test_loader_is_idempotent(self) -> None:
        """A second call must be a no-op; plugin callables must not fire twice."""
        from deepagents_rs.profiles._builtin_profiles import (
            _ensure_builtin_profiles_loaded,
        )

        plugin = MagicMock()
        ep = MagicMock()
        ep.name = "idem"
        ep.value = "mod:register"
        ep.load.return_value = plugin

        def fake_entry_points(*, group: str) -> list[MagicMock]:
            if group == "deepagents_rs.provider_profiles":
                return [ep]
            return []

        with patch(
            "deepagents_rs.profiles._builtin_profiles.entry_points",
            side_effect=fake_entry_points,
        ):
            _ensure_builtin_profiles_loaded()
            _ensure_builtin_profiles_loaded()

        plugin.assert_called_once_with()

    def test_two_plugins_on_same_key_merge(self) -> None:
        """Additive merge semantics must hold across entry-point plugins."""
        from deepagents_rs.profiles._builtin_profiles import (
            _ensure_builtin_profiles_loaded,
        )

        def plugin_a() -> None:
            register_provider_profile(
                "collidetest",
                ProviderProfile(init_kwargs={"first": 1}),
            )

        def plugin_b() -> None:
            register_provider_profile(
                "collidetest",
                ProviderProfile(init_kwargs={"second": 2}),
            )

        ep_a = MagicMock()
        ep_a.name = "a"
        ep_a.value = "mod:a"
        ep_a.load.return_value = plugin_a
        ep_b = MagicMock()
        ep_b.name = "b"
        ep_b.value = "mod:b"
        ep_b.load.return_value = plugin_b

        def fake_entry_points(*, group: str) -> list[MagicMock]:
            if group == "deepagents_rs.provider_profiles":
                return [ep_a, ep_b]
            return []

        with patch(
            "deepagents_rs.profiles._builtin_profiles.entry_points",
            side_effect=fake_entry_points,
        ):
            _ensure_builtin_profiles_loaded()

        merged = _PROVIDER_PROFILES["collidetest"]
        assert dict(merged.init_kwargs) == {"first": 1, "second": 2}

    def test_bootstrap_failure_rolls_back_and_waiter_retries(
        self,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        """A failing bootstrap must restore registry state before a retry."""
        from deepagents_rs.profiles import _builtin_profiles
        from deepagents_rs.profiles.provider import _openrouter

        bootstrap_started = threading.Event()
        waiter_waiting = threading.Event()
        allow_failure = threading.Event()
        results: dict[str, ProviderProfile | None | RuntimeError] = {}
        original_register = _openrouter.register
        original_wait = _builtin_profiles._BOOTSTRAP_CONDITION.wait
        call_count = 0

        def flaky_register() -> None:
            nonlocal call_count
            call_count += 1
            if call_count == 1:
                bootstrap_started.set()
                assert allow_failure.wait(timeout=5)
                msg = "boom"
                raise RuntimeError(msg)
            original_register()

        def wait_wrapper(timeout: float | None = None) -> bool:
            waiter_waiting.set()
            return original_wait(timeout)

        def first_reader() -> None:
            try:
                get_provider_profile("openai:gpt-5")
            except RuntimeError as exc:
                results["first_exc"] = exc

        def second_reader() -> None:
            results["second"] = get_provider_profile("openai:gpt-5")

        with (
            caplog.at_level(logging.INFO, logger="deepagents_rs.profiles.provider.provider_profiles"),
            caplog.at_level(logging.ERROR, logger="deepagents_rs.profiles._builtin_profiles"),
            patch("deepagents_rs.profiles._builtin_profiles.entry_points", return_value=[]),
            patch.object(_openrouter, "register", side_effect=flaky_register),
            patch.object(_builtin_profiles._BOOTSTRAP_CONDITION, "wait", side_effect=wait_wrapper),
        ):
            first = threading.Thread(target=first_reader)
            second = threading.Thread(target=second_reader)
            try:
                first.start()
                assert bootstrap_started.wait(timeout=5)
                second.start()
                assert waiter_waiting.wait(timeout=5)
            finally:
                allow_failure.set()
            first.join(timeout=5)
            second.join(timeout=5)

        assert not first.is_alive()
        assert not second.is_alive()
        assert isinstance(results["first_exc"], RuntimeError)
        assert results["second"] is not None
        assert dict(results["second"].init_kwargs) == {"use_responses_api": True}
        assert _builtin_profiles._loaded is True
        assert not any("Merging ProviderProfile under 'openai'" in rec.message for rec in caplog.records)
        assert any("Built-in profile bootstrap failed" in rec.message for rec in caplog.records)

    def test_concurrent_first_read_waits_for_bootstrap(self) -> None:
        """Concurrent first reads must all wait for bootstrap completion."""
        from deepagents_rs.profiles import _builtin_profiles
        from deepagents_rs.profiles.provider import _openai

        started = threading.Event()
        release = threading.Event()
        waiters_waiting = threading.Event()
        waiters_waiting_lock = threading.Lock()
        waiter_count = 0
        results: dict[str, ProviderProfile | None] = {}
        original_register = _openai.register
        original_wait = _builtin_profiles._BOOTSTRAP_CONDITION.wait

        def slow_register() -> None:
            started.set()
            assert release.wait(timeout=5)
            original_register()

        def first_reader() -> None:
            results["first"] = get_provider_profile("openai:gpt-5")

        def waiter_reader(key: str) -> None:
            results[key] = get_provider_profile("openai:gpt-5")

        def wait_wrapper(timeout: float | None = None) -> bool:
            nonlocal waiter_count
            with waiters_waiting_lock:
                waiter_count += 1
                if waiter_count == 2:
                    waiters_waiting.set()
            return original_wait(timeout)

        with (
            patch("deepagents_rs.profiles._builtin_profiles.entry_points", return_value=[]),
            patch.object(_openai, "register", side_effect=slow_register),
            patch.object(_builtin_profiles._BOOTSTRAP_CONDITION, "wait", side_effect=wait_wrapper),
        ):
            first = threading.Thread(target=first_reader)
            second = threading.Thread(target=waiter_reader, args=("second",))
            third = threading.Thread(target=waiter_reader, args=("third",))
            first.start()
            assert started.wait(timeout=5)
            second.start()
            third.start()
            assert waiters_waiting.wait(timeout=5)
            release.set()
            first.join(timeout=5)
            second.join(timeout=5)
            third.join(timeout=5)

        assert not first.is_alive()
        assert not second.is_alive()
        assert not third.is_alive()
        assert _builtin_profiles._loaded is True
        assert results["first"] is not None
        assert results["second"] is not None
        assert results["third"] is not None
        assert dict(results["second"].init_kwargs) == {"use_responses_api": True}
        assert dict(results["third"].init_kwargs) == {"use_responses_api": True}

    def test_concurrent_user_registration_waits_until_snapshot_taken(self) -> None:
        """Concurrent user registration must wait for the bootstrap to finish."""
        from deepagents_rs.profiles import _builtin_profiles
        from deepagents_rs.profiles.provider import _openai

        started = threading.Event()
        release = threading.Event()
        waiter_waiting = threading.Event()
        original_register = _openai.register
        original_wait = _builtin_profiles._BOOTSTRAP_CONDITION.wait

        def slow_register() -> None:
            started.set()
            assert release.wait(timeout=5)
            original_register()

        def user_register() -> None:
            register_provider_profile("custom:model", ProviderProfile(init_kwargs={"x": 1}))

        def wait_wrapper(timeout: float | None = None) -> bool:
            waiter_waiting.set()
            return original_wait(timeout)

        with (
            patch("deepagents_rs.profiles._builtin_profiles.entry_points", return_value=[]),
            patch.object(_openai, "register", side_effect=slow_register),
            patch.object(_builtin_profiles._BOOTSTRAP_CONDITION, "wait", side_effect=wait_wrapper),
        ):
            bootstrap = threading.Thread(target=_builtin_profiles._ensure_builtin_profiles_loaded)
            second = threading.Thread(target=user_register)
            bootstrap.start()
            assert started.wait(timeout=5)
            second.start()
            assert waiter_waiting.wait(timeout=5)
            assert "custom:model" not in _PROVIDER_PROFILES
            release.set()
            bootstrap.join(timeout=5)
            second.join(timeout=5)

        assert not bootstrap.is_alive()
        assert not second.is_alive()
        assert dict(_PROVIDER_PROFILES["custom:model"].init_kwargs) == {"x": 1}
        assert dict(_PROVIDER_PROFILES["openai"].init_kwargs) == {"use_responses_api": True}
        assert _builtin_profiles._loaded is True


class TestLazyBootstrap:
    """Tests for lazy `_ensure_builtin_profiles_loaded` invocation.

    The bootstrap runs on first registry access rather than at
    `deepagents_rs.profiles` import to keep cold-importing
    `deepagents_rs` (and `deepagents_rs._model_spec`) cheap
    when the caller never reads the registry. Each test here spawns a
    subprocess to get a clean interpreter — once the in-process bootstrap
    has run for any earlier test, `_loaded` cannot be observed as `False`
    in this process.
    """

    def _run(self, body: str) -> str:
        """Run `body` in a fresh subprocess and return its stdout."""
        import subprocess
        import sys

        result = subprocess.run(  # body is a hardcoded test literal
            [sys.executable, "-c", body],
            check=True,
            capture_output=True,
            text=True,
        )
        return result.stdout.strip()

    def test_importing_models_does_not_bootstrap(self) -> None:
        """Cold-importing `deepagents_rs` and `deepagents_rs._model_spec` must not trigger bootstrap."""
        out = self._run(
            "import deepagents_rs, deepagents_rs._model_spec\n"
            "from deepagents_rs.profiles import _builtin_profiles\n"
            "from deepagents_rs.profiles.provider.provider_profiles import _PROVIDER_PROFILES\n"
            "print(_builtin_profiles._loaded, len(_PROVIDER_PROFILES))\n"
        )
        assert out == "False 0"

    def test_get_provider_profile_triggers_bootstrap(self) -> None:
        """First registry read flips `_loaded` to `True`."""
        out = self._run(
            "from deepagents_rs.profiles.provider.provider_profiles import get_provider_profile\n"
            "from deepagents_rs.profiles import _builtin_profiles\n"
            "before = _builtin_profiles._loaded\n"
            "get_provider_profile('openai:gpt-5')\n"
            "print(before, _builtin_profiles._loaded)\n"
        )
        assert out == "False True"

    def test_register_provider_profile_triggers_bootstrap(self) -> None:
        """First registration call flips `_loaded` to `True` before registering."""
        out = self._run(
            "from deepagents_rs.profiles.provider.provider_profiles import register_provider_profile\n"
            "from deepagents_rs import ProviderProfile\n"
            "from deepagents_rs.profiles import _builtin_profiles\n"
            "before = _builtin_profiles._loaded\n"
            "register_provider_profile('custom:model', ProviderProfile())\n"
            "print(before, _builtin_profiles._loaded)\n"
        )
        assert out == "False True"


class TestResolveModelWithProviderProfiles:
    """Tests for `resolve_model` using provider profiles."""

    def test_openai_uses_provider_profile_init_kwargs(self) -> None:
        with patch("langchain.chat_models.init_chat_model") as mock:
            mock.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("openai:gpt-5")

        mock.assert_called_once_with("openai:gpt-5", use_responses_api=True)

    def test_openrouter_runs_pre_init_and_factory(self) -> None:
        with (
            patch("langchain.chat_models.init_chat_model") as mock,
            patch("deepagents_rs.profiles.provider._openrouter.check_openrouter_version") as mock_check,
        ):
            mock.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("openrouter:anthropic/claude-sonnet-4-6")

        mock_check.assert_called_once()
        _, kwargs = mock.call_args
        assert "app_url" in kwargs or "app_title" in kwargs

    def test_nvidia_runs_attribution_factory(self) -> None:
        with patch("langchain.chat_models.init_chat_model") as mock:
            mock.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("nvidia:nvidia/nemotron-3-super-120b-a12b")

        _, kwargs = mock.call_args
        assert kwargs["default_headers"] == {
            _NVIDIA_BILLING_ORIGIN_HEADER: _NVIDIA_APP_ORIGIN,
        }

    def test_nvidia_caller_headers_override_attribution_default(self) -> None:
        custom_headers = {_NVIDIA_BILLING_ORIGIN_HEADER: "CustomHarness"}

        kwargs = apply_provider_profile(
            "nvidia:nvidia/nemotron-3-super-120b-a12b",
            {"default_headers": custom_headers},
        )

        assert kwargs["default_headers"] is custom_headers

    def test_unknown_provider_passes_no_extra_kwargs(self) -> None:
        with patch("langchain.chat_models.init_chat_model") as mock:
            mock.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("some_provider:some-model")

        mock.assert_called_once_with("some_provider:some-model")

    def test_custom_provider_profile_kwargs_forwarded(self) -> None:
        profile = ProviderProfile(init_kwargs={"custom_key": "custom_val"})
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("customprov", profile)
            with patch("langchain.chat_models.init_chat_model") as mock:
                mock.return_value = MagicMock(spec=BaseChatModel)
                resolve_model("customprov:my-model")

            mock.assert_called_once_with("customprov:my-model", custom_key="custom_val")
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_factory_overrides_static_init_kwargs_on_collision(self) -> None:
        """Factory output wins over static `init_kwargs` on key collision.

        When a single profile sets both fields, overlapping keys resolve to
        the factory's value.
        """
        profile = ProviderProfile(
            init_kwargs={"shared": "static", "static_only": "s"},
            init_kwargs_factory=lambda: {"shared": "factory", "factory_only": "f"},
        )
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("mixedprov", profile)
            with patch("langchain.chat_models.init_chat_model") as mock:
                mock.return_value = MagicMock(spec=BaseChatModel)
                resolve_model("mixedprov:my-model")

            mock.assert_called_once_with(
                "mixedprov:my-model",
                shared="factory",
                static_only="s",
                factory_only="f",
            )
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)


class TestRegisterProfileKeyValidation:
    """Tests for key-shape validation in `register_provider_profile`."""

    def test_empty_key_rejected_provider(self) -> None:
        with pytest.raises(ValueError, match="non-empty"):
            register_provider_profile("", ProviderProfile())

    def test_multiple_colons_accepted_provider(self) -> None:
        """deepagents 0.7.32: only the first colon is structural; the model identifier may contain colons."""
        original = dict(_PROVIDER_PROFILES)
        try:
            profile = ProviderProfile(init_kwargs={"a": 1})
            register_provider_profile("a:b:c", profile)
            assert get_provider_profile("a:b:c") is profile
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_empty_provider_half_rejected(self) -> None:
        with pytest.raises(ValueError, match="empty provider"):
            register_provider_profile(":model", ProviderProfile())

    def test_empty_model_half_rejected(self) -> None:
        with pytest.raises(ValueError, match="empty provider"):
            register_provider_profile("openai:", ProviderProfile())

    @pytest.mark.parametrize(
        "key",
        [
            "   ",  # whitespace-only
            " openai",  # leading whitespace
            "openai ",  # trailing whitespace
        ],
    )
    def test_whitespace_keys_rejected(self, key: str) -> None:
        """Whitespace-only and whitespace-padded keys are rejected as malformed.

        Without the strip-equality guard, a typo like `"openai "` would
        register under a key no normal lookup ever reproduces, leaving the
        registration silently inert.
        """
        with pytest.raises(ValueError, match="whitespace"):
            register_provider_profile(key, ProviderProfile())

    @pytest.mark.parametrize(
        "key",
        [
            "openai : gpt-5",
            "openai :gpt-5",
            "openai: gpt-5",
            " openai:gpt-5",
            "openai:gpt-5 ",
        ],
    )
    def test_whitespace_around_colon_rejected(self, key: str) -> None:
        """Whitespace adjacent to `:` or wrapping the whole key is rejected.

        This is symmetric with the bare-provider whitespace check — the
        registry should never accept a key that the lookup helper would not
        produce when normalizing a model spec.
        """
        with pytest.raises(ValueError, match="whitespace"):
            register_provider_profile(key, ProviderProfile())

    def test_valid_provider_key_accepted(self) -> None:
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("validprov", ProviderProfile())
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_valid_provider_model_key_accepted(self) -> None:
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("validprov:model-name", ProviderProfile())
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)


class TestResolveModelFullPath:
    """Tests that exercise the full string-spec path through `resolve_model` → profile lookup → `init_chat_model`."""

    def test_openai_responses_api_end_to_end(self) -> None:
        """String spec for OpenAI should reach init_chat_model with the built-in kwarg."""
        with patch("langchain.chat_models.init_chat_model") as mock:
            mock.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("openai:gpt-5.4")
        mock.assert_called_once_with("openai:gpt-5.4", use_responses_api=True)

    def test_no_profile_registered_calls_init_chat_model_without_kwargs(self) -> None:
        """If no profile matches, init_chat_model is called with just the spec."""
        with patch("langchain.chat_models.init_chat_model") as mock:
            mock.return_value = MagicMock(spec=BaseChatModel)
            resolve_model("noprofile:some-model")
        mock.assert_called_once_with("noprofile:some-model")

    def test_exact_miss_falls_back_to_provider_profile_kwargs(self) -> None:
        """A typo'd model spec should still get the provider-level init kwargs."""
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile(
                "fallprov",
                ProviderProfile(init_kwargs={"temperature": 0.5}),
            )
            with patch("langchain.chat_models.init_chat_model") as mock:
                mock.return_value = MagicMock(spec=BaseChatModel)
                resolve_model("fallprov:typo-model-name")
            mock.assert_called_once_with("fallprov:typo-model-name", temperature=0.5)
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)


class TestProfileLookupBreadcrumb:
    """Tests that exact-miss profile fallback emits a debug breadcrumb."""

    def test_provider_exact_miss_logs_breadcrumb(self, caplog: pytest.LogCaptureFixture) -> None:
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("crumbprov", ProviderProfile(init_kwargs={"a": 1}))
            with caplog.at_level(logging.DEBUG, logger="deepagents_rs.profiles.provider.provider_profiles"):
                get_provider_profile("crumbprov:typo-model")
            messages = [r.getMessage() for r in caplog.records]
            assert any("No exact ProviderProfile" in m and "crumbprov" in m for m in messages)
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)


class TestProfileLookupKeyValidation:
    """Tests that malformed lookup specs return `None` without matching bare-provider entries."""

    def test_provider_lookup_rejects_empty_model_half(self) -> None:
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("partprov", ProviderProfile(init_kwargs={"a": 1}))
            assert get_provider_profile("partprov:") is None
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_provider_lookup_rejects_empty_provider_half(self) -> None:
        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("partprov", ProviderProfile(init_kwargs={"a": 1}))
            assert get_provider_profile(":some-model") is None
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_provider_lookup_rejects_double_colon(self) -> None:
        # Under deepagents 0.7.32 "a:b:c" is a well-formed spec (model "b:c"); nothing is registered for it.
        assert get_provider_profile("a:b:c") is None


class TestOpenRouterEmptyEnvVar:
    """Tests that explicitly empty OpenRouter env vars suppress the SDK default."""

    def test_empty_app_url_suppresses_default(self) -> None:
        with patch.dict("os.environ", {"OPENROUTER_APP_URL": ""}):
            result = _openrouter_attribution_kwargs()
        assert "app_url" not in result
        assert result["app_title"] == _OPENROUTER_APP_TITLE

    def test_empty_app_title_suppresses_default(self) -> None:
        with patch.dict("os.environ", {"OPENROUTER_APP_TITLE": ""}):
            result = _openrouter_attribution_kwargs()
        assert result["app_url"] == _OPENROUTER_APP_URL
        assert "app_title" not in result


class TestChainedPreInitAndFactoryErrorLogging:
    """Tests that chained `pre_init` and `init_kwargs_factory` log context on failure."""

    def test_chained_pre_init_logs_base_failure(self, caplog: pytest.LogCaptureFixture) -> None:
        def base_pre(_spec: str) -> None:
            msg = "base boom"
            raise RuntimeError(msg)

        over_called: list[str] = []

        def over_pre(spec: str) -> None:
            over_called.append(spec)

        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("chainprov", ProviderProfile(pre_init=base_pre))
            register_provider_profile("chainprov", ProviderProfile(pre_init=over_pre))
            merged = get_provider_profile("chainprov")
            assert merged is not None
            assert merged.pre_init is not None
            with (
                caplog.at_level(logging.ERROR, logger="deepagents_rs.profiles.provider.provider_profiles"),
                pytest.raises(RuntimeError, match="base boom"),
            ):
                merged.pre_init("chainprov:some-model")
            assert over_called == [], "Override pre_init must not run after base raised"
            messages = [r.getMessage() for r in caplog.records]
            assert any("Base pre_init" in m and "chainprov:some-model" in m for m in messages)
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_chained_pre_init_logs_override_failure(self, caplog: pytest.LogCaptureFixture) -> None:
        base_called: list[str] = []

        def base_pre(spec: str) -> None:
            base_called.append(spec)

        def over_pre(_spec: str) -> None:
            msg = "over boom"
            raise RuntimeError(msg)

        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("chainprov2", ProviderProfile(pre_init=base_pre))
            register_provider_profile("chainprov2", ProviderProfile(pre_init=over_pre))
            merged = get_provider_profile("chainprov2")
            assert merged is not None
            assert merged.pre_init is not None
            with (
                caplog.at_level(logging.ERROR, logger="deepagents_rs.profiles.provider.provider_profiles"),
                pytest.raises(RuntimeError, match="over boom"),
            ):
                merged.pre_init("chainprov2:some-model")
            assert base_called == ["chainprov2:some-model"]
            messages = [r.getMessage() for r in caplog.records]
            assert any("Override pre_init" in m and "chainprov2:some-model" in m for m in messages)
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)

    def test_chained_factory_logs_base_failure(self, caplog: pytest.LogCaptureFixture) -> None:
        def base_factory() -> dict:
            msg = "base factory boom"
            raise RuntimeError(msg)

        override_called: list[int] = []

        def override_factory() -> dict:
            override_called.append(1)
            return {"x": 1}

        original = dict(_PROVIDER_PROFILES)
        try:
            register_provider_profile("factprov", ProviderProfile(init_kwargs_factory=base_factory))
            register_provider_profile("factprov", ProviderProfile(init_kwargs_factory=override_factory))
            merged = get_provider_profile("factprov")
            assert merged is not None
            assert merged.init_kwargs_factory is not None
            with (
                caplog.at_level(logging.ERROR, logger="deepagents_rs.profiles.provider.provider_profiles"),
                pytest.raises(RuntimeError, match="base factory boom"),
            ):
                merged.init_kwargs_factory()
            assert override_called == [], "Override factory must not run after base raised"
            messages = [r.getMessage() for r in caplog.records]
            assert any("Base init_kwargs_factory" in m for m in messages)
        finally:
            _PROVIDER_PROFILES.clear()
            _PROVIDER_PROFILES.update(original)
