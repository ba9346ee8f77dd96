"""Parity: how a model string becomes a chat model, and the provider-profile registry behind it.

Each test runs one scenario against deepagents 0.7.32 and against deepagents_rs
(``profile_support.compare``) and asserts a few of deepagents' own answers, so a scenario that
stopped exercising its behaviour fails:

* the ``init_chat_model`` call a model string turns into (deepagents' ``resolve_model``; ours
  ``init_langchain_model`` over ``resolve_model_spec``) for built-in, registered and unknown
  providers, under every OpenRouter attribution setting;
* OpenRouter's attribution defaults, its Azure opt-out and its ``langchain-openrouter`` floor;
* registry lookups (exact key, provider fallback, malformed specs), additive re-registration,
  ``apply_provider_profile``'s layering, ``_merge_provider_profiles`` with failing hooks, key
  validation; with every log record each of them writes.

The registry's bootstrap and entry-point plugins are in ``test_profile_plugins.py``;
``tests/provider_profiles/`` covers the module layout, provider inference and model
construction.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from typing import Any
from unittest.mock import MagicMock, patch

import pytest
from langchain_core.language_models import BaseChatModel

from .harness import MODES, assert_parity, run_both
from .profile_support import Impl, compare, isolated_profiles, outcome  # noqa: F401 - autouse fixture

OPENROUTER = "openrouter:anthropic/claude-sonnet-4-6"
NVIDIA = "nvidia:nvidia/nemotron-3-super-120b-a12b"
NO_AZURE = {"ignore": ["azure"]}


def _custom_registrations(impl: Impl) -> None:
    impl.register("customprov", impl.profile(init_kwargs={"custom_key": "custom_val"}))
    impl.register(
        "mixedprov",
        impl.profile(
            init_kwargs={"shared": "static", "static_only": 1},
            init_kwargs_factory=lambda: {"shared": "dynamic", "dynamic_only": 2},
        ),
    )
    impl.register("fallprov", impl.profile(init_kwargs={"temperature": 0.5}))


def _init_call(impl: Impl, spec: str) -> tuple[tuple, dict, bool]:
    """The ``init_chat_model`` call (args, kwargs) resolving ``spec`` makes, and whether the
    resolved model is what it returned."""
    if impl.name == "deepagents":
        from deepagents._models import resolve_model

        target, resolve = "deepagents._models.init_chat_model", resolve_model
    else:
        from deepagents_rs._model_spec import init_langchain_model

        target = "langchain.chat_models.init_chat_model"

        def resolve(s: str) -> Any:
            return init_langchain_model(s, impl.pp.apply_provider_profile(s))

    with patch(target) as init:
        init.return_value = MagicMock(spec=BaseChatModel)
        model = resolve(spec)
    init.assert_called_once()
    return init.call_args.args, init.call_args.kwargs, model is init.return_value


ENVS = {
    "unset": {},
    "url": {"OPENROUTER_APP_URL": "https://example.test"},
    "title": {"OPENROUTER_APP_TITLE": "Tenant"},
    "url-and-title": {"OPENROUTER_APP_URL": "https://example.test", "OPENROUTER_APP_TITLE": "Tenant"},
    "empty-url": {"OPENROUTER_APP_URL": ""},
    "empty-title": {"OPENROUTER_APP_TITLE": ""},
    "all-and-azure": {
        "OPENROUTER_APP_URL": "https://example.test",
        "OPENROUTER_APP_TITLE": "Tenant",
        "DEEPAGENTS_OPENROUTER_ALLOW_AZURE": "1",
    },
}

#: The kwargs deepagents gives an OpenRouter model per environment (by key).
OPENROUTER_KEYS = {
    "unset": {"app_url", "app_title", "openrouter_provider"},
    "url": {"app_title", "openrouter_provider"},
    "title": {"app_url", "openrouter_provider"},
    "url-and-title": {"openrouter_provider"},
    "empty-url": {"app_title", "openrouter_provider"},
    "empty-title": {"app_url", "openrouter_provider"},
    "all-and-azure": set(),
}

RESOLVED = {
    "openai:gpt-5": {"use_responses_api": True},
    "openai:gpt-5.4": {"use_responses_api": True},
    NVIDIA: {"default_headers": {"X-BILLING-INVOKE-ORIGIN": "DeepAgents"}},
    "anthropic:claude-sonnet-4-6": {},
    "some_provider:some-model": {},
    "customprov:my-model": {"custom_key": "custom_val"},
    "mixedprov:my-model": {"shared": "dynamic", "static_only": 1, "dynamic_only": 2},
    "fallprov:typo-model-name": {"temperature": 0.5},
    OPENROUTER: None,  # depends on the environment, see OPENROUTER_KEYS
}


@pytest.mark.parametrize("env", ENVS, ids=ENVS.keys())
@pytest.mark.parametrize("spec", RESOLVED)
def test_model_string_becomes_init_chat_model_call(spec: str, env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for var, value in ENVS[env].items():
        monkeypatch.setenv(var, value)

    def run(impl: Impl) -> Any:
        _custom_registrations(impl)
        return _init_call(impl, spec)

    args, kwargs, passed_through = compare(run)
    assert args == (spec,) and passed_through
    # What create_deep_agent resolves a string with: the same kwargs, or langchain's own error
    # for a provider it cannot infer (the mocked init_chat_model above never got to raise it).
    from deepagents_rs._model_spec import resolve_model_spec

    resolved = outcome(lambda: resolve_model_spec(spec)[2])
    assert resolved == ("ok", kwargs) or resolved[1].startswith("Unable to infer model provider")
    if spec == OPENROUTER:
        assert set(kwargs) == OPENROUTER_KEYS[env]
    else:
        assert kwargs == RESOLVED[spec]


@pytest.mark.parametrize("mode", MODES)
def test_model_instance_is_used_as_given(mode: str) -> None:
    """A chat model object is not resolved again: no ``init_chat_model``, no profile hooks."""
    refuse = MagicMock(side_effect=AssertionError("a model instance was resolved"))
    with (
        patch("deepagents._models.init_chat_model", refuse),
        patch("deepagents._models.apply_provider_profile", refuse),
        patch("deepagents_rs._assembly.init_langchain_model", refuse),
        patch("deepagents_rs._assembly.resolve_model_spec", refuse),
    ):
        both = run_both(["as given"], None, {"messages": [{"role": "user", "content": "hi"}]}, mode=mode)
    ref = assert_parity(both)
    assert ref["messages"][-1].content == "as given"
    assert len(both.ref.calls) == len(both.rs.calls) == 1 and not refuse.called


# --------------------------------------------------------------------------------------------
# OpenRouter and NVIDIA built-ins
# --------------------------------------------------------------------------------------------

TRUTHY = ["1", "true", "TRUE", "yes", "YES", "on", "On", " yes ", "true\n"]
NOT_TRUTHY = ["", "0", "false", "no", "off", "enabled", "y", "2"]


@pytest.mark.parametrize("value", TRUTHY + NOT_TRUTHY)
def test_openrouter_azure_opt_out(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPAGENTS_OPENROUTER_ALLOW_AZURE", value)
    out = compare(lambda impl: impl.openrouter._openrouter_attribution_kwargs())
    assert ("openrouter_provider" not in out) is (value in TRUTHY)
    assert out.get("openrouter_provider", NO_AZURE) == NO_AZURE


@pytest.mark.parametrize("env", ENVS, ids=ENVS.keys())
def test_openrouter_attribution_defaults(env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for var, value in ENVS[env].items():
        monkeypatch.setenv(var, value)
    out = compare(lambda impl: impl.openrouter._openrouter_attribution_kwargs())
    assert set(out) == OPENROUTER_KEYS[env]
    assert out.get("app_title", "Deep Agents") == "Deep Agents"
    assert (
        out.get("app_url", "https://github.com/langchain-ai/deepagents") == "https://github.com/langchain-ai/deepagents"
    )


def test_callers_kwargs_beat_built_in_defaults() -> None:
    headers = {"X-BILLING-INVOKE-ORIGIN": "SomeoneElse"}
    route = {"order": ["fireworks"]}

    def run(impl: Impl) -> Any:
        nvidia = impl.pp.apply_provider_profile(NVIDIA, {"default_headers": headers})
        openrouter = impl.pp.apply_provider_profile(OPENROUTER, {"openrouter_provider": route}, run_pre_init=False)
        return nvidia["default_headers"] is headers, openrouter["openrouter_provider"] is route, sorted(openrouter)

    assert compare(run) == (True, True, ["app_title", "app_url", "openrouter_provider"])


def test_built_in_profiles() -> None:
    def run(impl: Impl) -> Any:
        get = impl.pp.get_provider_profile
        openai, openrouter, nvidia = get("openai:gpt-5"), get(OPENROUTER), get(NVIDIA)
        return (
            dict(openai.init_kwargs),
            (openai.pre_init, openai.init_kwargs_factory),
            (openrouter.pre_init is not None, openrouter.init_kwargs_factory is not None, dict(openrouter.init_kwargs)),
            (nvidia.pre_init, nvidia.init_kwargs_factory is impl.nvidia._nvidia_attribution_kwargs),
        )

    assert compare(run) == ({"use_responses_api": True}, (None, None), (True, True, {}), (None, True))


VERSIONS = {
    "missing": PackageNotFoundError("langchain-openrouter"),
    "minimum": "0.2.0",
    "newer": "99.0.0",
    "older": "0.0.1",
    "pre-release-of-minimum": "0.2.0rc1",
    "unparsable": "not-a-version",
}


@pytest.mark.parametrize("installed", VERSIONS.values(), ids=VERSIONS.keys())
def test_openrouter_version_floor(installed: Any, caplog: pytest.LogCaptureFixture) -> None:
    def run(impl: Impl) -> Any:
        kwargs = {"side_effect": installed} if isinstance(installed, Exception) else {"return_value": installed}
        with patch.object(impl.openrouter, "pkg_version", **kwargs):
            return outcome(impl.openrouter.check_openrouter_version), outcome(
                lambda: impl.pp.apply_provider_profile(OPENROUTER)
            )

    (direct, via_profile), logs = compare(run, caplog)
    assert via_profile[0] == direct[0]
    if installed in ("0.0.1", "0.2.0rc1"):
        assert direct[0] == "ImportError" and "langchain-openrouter>=0.2.0" in direct[1]
    else:
        assert direct == ("ok", None)
    assert any("not-a-version" in message for _, _, message, _ in logs) is (installed == "not-a-version")


@pytest.mark.parametrize(
    ("spec", "run_pre_init", "checks"),
    [(OPENROUTER, True, 1), (OPENROUTER, False, 0), ("anthropic:claude-sonnet-4-6", True, 0), ("openrouter", True, 1)],
)
def test_version_check_runs_only_for_openrouter(spec: str, run_pre_init: bool, checks: int) -> None:
    def run(impl: Impl) -> Any:
        with patch.object(impl.openrouter, "check_openrouter_version") as check:
            impl.pp.apply_provider_profile(spec, run_pre_init=run_pre_init)
            if run_pre_init:
                _init_call(impl, spec if ":" in spec else f"{spec}:x/y")
        return check.call_count

    assert compare(run) == checks * (2 if run_pre_init else 1)
