"""Provider-profile keys, the registry and model-spec resolution against deepagents 0.7.32 and
langchain: `resolve_model_spec` gives the kwargs deepagents' `apply_provider_profile` gives, and
the provider and model name langchain's `init_chat_model` arrives at (checked by running
deepagents' own `resolve_model` with langchain's chat-model factory captured), for built-in and
registered profiles alike.
"""

from __future__ import annotations

import warnings
from typing import Any
from unittest.mock import patch

import deepagents
import deepagents._models as da_models
import deepagents.profiles.provider.provider_profiles as da_pp
import deepagents_rs.profiles.provider.provider_profiles as rs_pp
import langchain.chat_models.base as lc_base
import pytest
from deepagents_rs._model_spec import init_langchain_model, parse_model_spec, resolve_model_spec
from deepagents_rs.profiles import ProviderProfile, register_provider_profile

from .support import _outcome

# --- key validation parity ---------------------------------------------------------------------------------------

KEYS = [
    "",
    " ",
    "openai",
    " openai",
    "openai ",
    "openai:gpt-5",
    "openai :gpt-5",
    "openai: gpt-5",
    ":gpt-5",
    "openai:",
    ":",
    "ollama:glm-5.2:cloud",
    "bedrock:arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude",
    "a:b:c",
    "a::",
    "openai:gpt 5",
]


@pytest.mark.parametrize("key", KEYS)
def test_key_validation_matches(key: str) -> None:
    from deepagents.profiles._keys import validate_profile_key as da_validate
    from deepagents_rs.profiles._keys import validate_profile_key as rs_validate

    assert _outcome(rs_validate, key) == _outcome(da_validate, key)


def _register_both(key: str, make: Any) -> None:
    """Register the profile `make()` builds under `key` in both registries (a fresh one in each)."""
    register_provider_profile(key, make(ProviderProfile))
    deepagents.register_provider_profile(key, make(deepagents.ProviderProfile))


# --- registry parity ---------------------------------------------------------------------------------------------

BUILTIN_SPECS = [
    "openai:gpt-5",
    "openai:gpt-5.4",
    "openai:o3-pro",
    "openai",
    "openrouter:anthropic/claude-sonnet-4-6",
    "openrouter:openai/gpt-5",
    "nvidia:nvidia/nemotron-3-super-120b-a12b",
    "anthropic:claude-sonnet-4-6",
    "claude-sonnet-4-6",
    "gpt-4o",
    "google_genai:gemini-2.5-pro",
    "ollama:glm-5.2:cloud",
    "",
    ":gpt-5",
    "openai:",
    "some_provider:some-model",
]


@pytest.mark.parametrize("spec", BUILTIN_SPECS)
@pytest.mark.parametrize(
    "env",
    [
        {},
        {"OPENROUTER_APP_URL": "https://example.com"},
        {"OPENROUTER_APP_TITLE": ""},
        {"DEEPAGENTS_OPENROUTER_ALLOW_AZURE": "yes"},
    ],
    ids=["no-env", "app-url", "empty-title", "allow-azure"],
)
def test_builtin_profiles_apply_like_deepagents(spec: str, env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    assert rs_pp.apply_provider_profile(spec) == da_pp.apply_provider_profile(spec)
    caller = {"temperature": 0.1, "default_headers": {"X": "y"}}
    assert rs_pp.apply_provider_profile(spec, caller) == da_pp.apply_provider_profile(spec, caller)
    assert rs_pp.apply_provider_profile(spec, run_pre_init=False) == da_pp.apply_provider_profile(
        spec, run_pre_init=False
    )
    ours, theirs = rs_pp.get_provider_profile(spec), da_pp.get_provider_profile(spec)
    assert (ours is None) == (theirs is None)
    if ours is not None:
        assert dict(ours.init_kwargs) == dict(theirs.init_kwargs)
        assert (ours.pre_init is None) == (theirs.pre_init is None)
        assert (ours.init_kwargs_factory is None) == (theirs.init_kwargs_factory is None)


def _registrations() -> None:
    """The same layered registrations in both registries."""
    _register_both("acme", lambda P: P(init_kwargs={"temperature": 0.7, "timeout": 30}))
    _register_both("acme:my-model:tag", lambda P: P(init_kwargs={"temperature": 0}))
    _register_both("acme:my-model:tag", lambda P: P(init_kwargs={"timeout": 60}))
    _register_both(
        "acme:dyn", lambda P: P(init_kwargs={"shared": "static", "s": 1}, init_kwargs_factory=lambda: {"shared": "f"})
    )
    _register_both("openai", lambda P: P(init_kwargs={"temperature": 0}))
    _register_both("openai:gpt-5.4", lambda P: P(init_kwargs={"reasoning_effort": "high", "use_responses_api": False}))
    _register_both("nvidia", lambda P: P(init_kwargs_factory=lambda: {"default_headers": {"X-Extra": "1"}}))
    _register_both("openrouter", lambda P: P(init_kwargs_factory=lambda: {"app_title": "Tenant"}))
    _register_both("gateway", lambda P: P(init_kwargs={"model_provider": "openai", "base_url": "http://gw"}))
    _register_both("gpt-4o", lambda P: P(init_kwargs={"max_tokens": 5}))


REGISTERED_SPECS = [
    "acme",
    "acme:other",
    "acme:my-model:tag",
    "acme:my-model",
    "acme:dyn",
    "openai:gpt-5",
    "openai:gpt-5.4",
    "nvidia:nvidia/nemotron-3-super-120b-a12b",
    "openrouter:anthropic/claude-sonnet-4-6",
    "gateway:some-model",
    "gpt-4o",
    "gpt-4o-mini",
]


@pytest.mark.parametrize("spec", REGISTERED_SPECS)
def test_registered_profiles_apply_like_deepagents(spec: str) -> None:
    _registrations()
    expected = da_pp.apply_provider_profile(spec)
    assert rs_pp.apply_provider_profile(spec) == expected
    try:
        kwargs = resolve_model_spec(spec)[2]
    except ValueError:  # a provider langchain cannot infer (see the end-to-end tests)
        return
    assert kwargs == expected


def test_registered_profile_values() -> None:
    _registrations()
    assert rs_pp.apply_provider_profile("acme:my-model:tag") == {"temperature": 0, "timeout": 60}
    assert rs_pp.apply_provider_profile("acme:other") == {"temperature": 0.7, "timeout": 30}
    assert rs_pp.apply_provider_profile("acme:dyn") == {"temperature": 0.7, "timeout": 30, "shared": "f", "s": 1}
    assert resolve_model_spec("openai:gpt-5") == ("openai", "gpt-5", {"use_responses_api": True, "temperature": 0})
    assert resolve_model_spec("openai:gpt-5.4")[2] == {
        "use_responses_api": False,
        "temperature": 0,
        "reasoning_effort": "high",
    }
    assert resolve_model_spec("openrouter:x/y")[2]["app_title"] == "Tenant"
    assert resolve_model_spec("nvidia:m")[2] == {"default_headers": {"X-Extra": "1"}}  # factories chain; override wins
    assert resolve_model_spec("gpt-4o") == ("openai", "gpt-4o", {"max_tokens": 5})  # a bare key matches as written
    assert resolve_model_spec("gpt-4o-mini") == ("openai", "gpt-4o-mini", {})


def test_pre_init_order_and_spec_match_deepagents() -> None:
    calls: dict[str, list[str]] = {"rs": [], "da": []}
    for side, reg, P in (
        ("rs", register_provider_profile, ProviderProfile),
        ("da", deepagents.register_provider_profile, deepagents.ProviderProfile),
    ):
        log = calls[side]
        reg("ollama", P(pre_init=lambda spec, log=log: log.append(f"provider:{spec}")))
        reg("ollama:m", P(pre_init=lambda spec, log=log: log.append(f"model:{spec}")))
        reg("ollama", P(pre_init=lambda spec, log=log: log.append(f"provider2:{spec}")))
    assert resolve_model_spec("ollama:m") == ("ollama", "m", {})
    da_pp.apply_provider_profile("ollama:m")
    assert calls["rs"] == calls["da"] == ["provider:ollama:m", "provider2:ollama:m", "model:ollama:m"]


def test_pre_init_failure_propagates_before_parsing() -> None:
    def refuse(spec: str) -> None:
        raise ImportError(f"no {spec}")

    register_provider_profile("strict", ProviderProfile(pre_init=refuse))
    # The hook runs first (as in deepagents' resolve_model), even for a spec langchain could not parse.
    with pytest.raises(ImportError, match="no strict:m"):
        resolve_model_spec("strict:m")


def test_openrouter_version_check_runs_in_resolve_model_spec() -> None:
    with (
        patch("deepagents_rs.profiles.provider._openrouter.pkg_version", return_value="0.0.1"),
        pytest.raises(ImportError, match=r"langchain-openrouter>=0\.2\.0"),
    ):
        resolve_model_spec("openrouter:anthropic/claude-sonnet-4-6")


def test_logging_matches_deepagents(caplog: pytest.LogCaptureFixture) -> None:
    def messages(prefix: str, register: Any, P: Any, get: Any) -> list[tuple[str, int, str]]:
        caplog.clear()
        with caplog.at_level("DEBUG"):
            register("logprov", P(init_kwargs={"a": 1}))
            register("logprov", P(init_kwargs={"b": 1}))
            get("logprov:typo")
            get("partprov:")
        return [
            (r.name.removeprefix(prefix), r.levelno, r.getMessage())
            for r in caplog.records
            if r.name.startswith(prefix)
        ]

    ours = messages("deepagents_rs.", register_provider_profile, ProviderProfile, rs_pp.get_provider_profile)
    theirs = messages(
        "deepagents.", deepagents.register_provider_profile, deepagents.ProviderProfile, da_pp.get_provider_profile
    )
    assert ours == theirs
    assert len(ours) == 3


# --- provider inference vs langchain -----------------------------------------------------------------------------

INFERENCE_CASES: list[tuple[str, str | None]] = [
    (model, None)
    for model in [
        "openai:gpt-5",
        "openai:gpt-5.4",
        "gpt-4o",
        "GPT-4o",
        "gpt-5:latest",
        "o1-mini",
        "o3",
        "o3-pro",
        "o4-mini",
        "chatgpt-4o-latest",
        "text-davinci-003",
        "claude-sonnet-4-6",
        "Claude-3-opus",
        "claude:foo",
        "command-r-plus",
        "accounts/fireworks/models/llama-v3",
        "gemini-2.5-pro",
        "Gemini-Pro",
        "amazon.nova-pro-v1:0",
        "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "meta.llama3-70b-instruct-v1:0",
        "us.anthropic.claude-sonnet-4-20250514-v1:0",
        "mistral-large-latest",
        "mixtral-8x7b",
        "deepseek-chat",
        "grok-4",
        "sonar-pro",
        "solar-pro",
        "llama3",
        "",
        ":gpt-5",
        "anthropic:claude-opus-4-7",
        "anthropic:claude:with:colons",
        "anthropic:",
        "google_genai:gemini-2.5-flash",
        "google_vertexai:gemini-2.5-pro",
        "google_anthropic_vertex:claude-sonnet-4-6",
        "azure_openai:gpt-4o",
        "azure_ai:gpt-4o",
        "bedrock:anthropic.claude-3",
        "bedrock_converse:us.anthropic.claude-sonnet-4-20250514-v1:0",
        "anthropic_bedrock:claude",
        "bedrock_mantle_openai:gpt-oss",
        "ollama:glm-5.2:cloud",
        "openrouter:anthropic/claude-sonnet-4-6",
        "nvidia:nvidia/nemotron-3-super-120b-a12b",
        "langsmith:openai/gpt-5",
        "huggingface:meta-llama/Llama-3",
        "ibm:granite",
        "xai:grok-4",
        "fireworks:accounts/fireworks/models/x",
        "together:meta-llama/x",
        "OpenAI:gpt-5",
        "google-genai:gemini-2.5-pro",
        "azure-openai:gpt-4o",
        "my_provider:my-model",
        "gateway:gpt-4o",
    ]
] + [
    ("my-model", "OpenAI"),
    ("my-model", "azure-openai"),
    ("openai:gpt-5", "openai"),
    ("gateway:some-model", "openai"),
    ("gemini-2.5-pro", "google_genai"),
    ("claude-sonnet-4-6", "Google-GenAI"),
    ("llama3", "ollama"),
    ("x", "not-a-builtin"),
    ("gpt-4o", ""),
    ("llama3", ""),
]


def _langchain_parse(model: str, model_provider: str | None) -> tuple[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # langchain's gemini -> google_vertexai notice
        return _outcome(lambda: lc_base._parse_model(model, model_provider)[::-1])


@pytest.mark.parametrize(("model", "model_provider"), INFERENCE_CASES)
def test_parse_model_spec_matches_langchain(model: str, model_provider: str | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ours never warns
        ours = _outcome(lambda: parse_model_spec(model, model_provider))
    assert ours == _langchain_parse(model, model_provider)


def test_builtin_provider_table_matches_langchain() -> None:
    from deepagents_rs import _model_spec

    assert list(_model_spec._BUILTIN_PROVIDERS) == list(lc_base._BUILTIN_PROVIDERS)
    for provider, (module, class_name, _creator) in lc_base._BUILTIN_PROVIDERS.items():
        assert _model_spec._BUILTIN_PROVIDERS[provider] == (module, class_name)


def test_inference_examples() -> None:
    assert resolve_model_spec("openai:gpt-5") == ("openai", "gpt-5", {"use_responses_api": True})
    assert resolve_model_spec("gpt-4o") == ("openai", "gpt-4o", {})
    assert resolve_model_spec("claude-sonnet-4-6") == ("anthropic", "claude-sonnet-4-6", {})
    assert resolve_model_spec("gemini-2.5-pro") == ("google_vertexai", "gemini-2.5-pro", {})
    assert resolve_model_spec("ollama:glm-5.2:cloud") == ("ollama", "glm-5.2:cloud", {})
    assert resolve_model_spec("amazon.nova-pro-v1:0")[:2] == ("bedrock", "amazon.nova-pro-v1:0")
    assert parse_model_spec("m", "Azure-OpenAI") == ("azure_openai", "m")
    with pytest.raises(ValueError, match="Unable to infer model provider for model='my_provider:m'"):
        resolve_model_spec("my_provider:m")
    with pytest.raises(TypeError, match="must be a string"):
        resolve_model_spec(None)  # type: ignore[arg-type]


def test_profile_model_provider_is_honored() -> None:
    register_provider_profile("gateway", ProviderProfile(init_kwargs={"model_provider": "OpenAI", "base_url": "u"}))
    # As in init_chat_model: with an explicit model_provider the spec is not split.
    assert resolve_model_spec("gateway:gpt-4o") == (
        "openai",
        "gateway:gpt-4o",
        {"model_provider": "OpenAI", "base_url": "u"},
    )


# --- end to end: what init_chat_model receives -------------------------------------------------------------------


class _Captured(Exception):
    pass


def _capture_creator(provider: str) -> Any:
    def create(**kwargs: Any) -> Any:
        raise _Captured(provider, kwargs)

    return create


def _through_langchain(call: Any) -> tuple[str, Any]:
    """What langchain's chat-model factory receives from `call()`: (provider, kwargs), or the error."""
    with (
        patch.object(lc_base, "_get_chat_model_creator", _capture_creator),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            call()
        except _Captured as captured:
            return ("ok", captured.args)
        except Exception as exc:  # noqa: BLE001 - the outcome is compared, whatever it is
            return (type(exc).__name__, str(exc))
    raise AssertionError("no model was created")


E2E_SPECS = sorted({model for model, _ in INFERENCE_CASES if model} | set(BUILTIN_SPECS) - {""} | set(REGISTERED_SPECS))


@pytest.mark.parametrize("spec", E2E_SPECS)
def test_resolve_model_spec_matches_deepagents_resolve_model(spec: str) -> None:
    _registrations()
    reference = _through_langchain(lambda: da_models.resolve_model(spec))
    ours = _through_langchain(lambda: init_langchain_model(spec, resolve_model_spec(spec)[2]))
    assert ours == reference
    if reference[0] == "ok":
        provider, kwargs = reference[1]
        model_name = kwargs.pop("model")
        spec_provider, spec_model, spec_kwargs = resolve_model_spec(spec)
        assert (spec_provider, spec_model) == (provider, model_name)
        spec_kwargs.pop("model_provider", None)  # consumed by init_chat_model
        assert spec_kwargs == kwargs
    else:
        assert _outcome(resolve_model_spec, spec) == reference
