"""deepagents_rs' provider-profile registry and model-spec resolution against deepagents 0.7.32 and langchain.

- The public API (`deepagents_rs.ProviderProfile`, `register_provider_profile`, `deepagents_rs.profiles`,
  `deepagents_rs.profiles.provider`) has deepagents' names and signatures.
- `resolve_model_spec` gives the kwargs deepagents' `apply_provider_profile` gives, and the provider and
  model name langchain's `init_chat_model` arrives at (checked by running deepagents' own `resolve_model`
  with langchain's chat-model factory captured), for built-in and registered profiles alike.
- The two registries are independent; third-party plugins load from an entry-point group of our own, so a
  deepagents plugin is neither run twice nor leaked across (checked with a real installed distribution).
- `init_langchain_model` makes deepagents' `init_chat_model` call, and without langchain raises an
  `ImportError` naming the packages to install.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock, patch

import deepagents
import deepagents._models as da_models
import deepagents.profiles as da_profiles
import deepagents.profiles.provider as da_provider_pkg
import deepagents.profiles.provider.provider_profiles as da_pp
import deepagents_rs
import deepagents_rs.profiles as rs_profiles
import deepagents_rs.profiles.provider as rs_provider_pkg
import deepagents_rs.profiles.provider.provider_profiles as rs_pp
import langchain.chat_models.base as lc_base
import pytest
from deepagents_rs._model_spec import init_langchain_model, parse_model_spec, resolve_model_spec
from deepagents_rs.profiles import ProviderProfile, register_provider_profile
from langchain_core.language_models import BaseChatModel

ENV_VARS = ("OPENROUTER_APP_URL", "OPENROUTER_APP_TITLE", "DEEPAGENTS_OPENROUTER_ALLOW_AZURE")


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


def _register_both(key: str, make: Any) -> None:
    """Register the profile `make()` builds under `key` in both registries (a fresh one in each)."""
    register_provider_profile(key, make(ProviderProfile))
    deepagents.register_provider_profile(key, make(deepagents.ProviderProfile))


# --- public API -------------------------------------------------------------------------------------------------


def test_top_level_exports() -> None:
    assert deepagents_rs.ProviderProfile is rs_pp.ProviderProfile
    assert deepagents_rs.register_provider_profile is rs_pp.register_provider_profile
    assert {"ProviderProfile", "register_provider_profile"} <= set(deepagents_rs.__all__)
    assert {"ProviderProfile", "register_provider_profile"} <= set(deepagents.__all__)


def test_profiles_package_exports_deepagents_names() -> None:
    assert rs_profiles.ProviderProfile is rs_pp.ProviderProfile
    assert rs_profiles.register_provider_profile is rs_pp.register_provider_profile
    assert set(rs_profiles.__all__) == set(da_profiles.__all__)
    assert rs_provider_pkg.__all__ == da_provider_pkg.__all__
    for name in rs_provider_pkg.__all__:
        assert getattr(rs_provider_pkg, name) is getattr(rs_pp, name)


def test_module_layout_mirrors_deepagents() -> None:
    root = Path(rs_profiles.__file__).parent
    ported = {p.relative_to(root).as_posix() for p in root.rglob("*.py")}
    assert ported == {
        "__init__.py",
        "_builtin_profiles.py",
        "_keys.py",
        "harness/__init__.py",
        "harness/_anthropic_haiku_4_5.py",
        "harness/_anthropic_opus_4_7.py",
        "harness/_anthropic_sonnet_4_6.py",
        "harness/_nvidia_nemotron_3_ultra.py",
        "harness/_openai_codex.py",
        "harness/harness_profiles.py",
        "provider/__init__.py",
        "provider/_nvidia.py",
        "provider/_openai.py",
        "provider/_openrouter.py",
        "provider/provider_profiles.py",
    }
    reference = Path(da_profiles.__file__).parent
    assert all((reference / rel).is_file() for rel in ported)


@pytest.mark.parametrize(
    "name", ["register_provider_profile", "get_provider_profile", "apply_provider_profile", "_merge_provider_profiles"]
)
def test_function_signatures_match(name: str) -> None:
    assert inspect.signature(getattr(rs_pp, name)) == inspect.signature(getattr(da_pp, name))


def test_provider_profile_dataclass_matches() -> None:
    ours, theirs = dataclasses.fields(rs_pp.ProviderProfile), dataclasses.fields(da_pp.ProviderProfile)
    assert [(f.name, f.type, f.default) for f in ours] == [(f.name, f.type, f.default) for f in theirs]
    assert str(inspect.signature(rs_pp.ProviderProfile)) == str(inspect.signature(da_pp.ProviderProfile))
    assert rs_pp.ProviderProfile.__dataclass_params__.frozen
    profile = ProviderProfile(init_kwargs={"a": 1})
    with pytest.raises(TypeError):
        profile.init_kwargs["a"] = 2  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        profile.init_kwargs = {}  # type: ignore[misc]


def test_ported_constants_match() -> None:
    from deepagents.profiles.provider import _nvidia as da_nvidia
    from deepagents.profiles.provider import _openrouter as da_openrouter
    from deepagents_rs.profiles.provider import _nvidia as rs_nvidia
    from deepagents_rs.profiles.provider import _openrouter as rs_openrouter

    for name in (
        "OPENROUTER_MIN_VERSION",
        "_OPENROUTER_APP_URL",
        "_OPENROUTER_APP_TITLE",
        "_OPENROUTER_ALLOW_AZURE_ENV",
    ):
        assert getattr(rs_openrouter, name) == getattr(da_openrouter, name)
    for name in ("_NVIDIA_BILLING_ORIGIN_HEADER", "_NVIDIA_APP_ORIGIN"):
        assert getattr(rs_nvidia, name) == getattr(da_nvidia, name)


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


def _outcome(fn: Any, *args: Any) -> tuple[str, str]:
    try:
        return ("ok", repr(fn(*args)))
    except Exception as exc:  # noqa: BLE001 - the outcome is compared, whatever it is
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize("key", KEYS)
def test_key_validation_matches(key: str) -> None:
    from deepagents.profiles._keys import validate_profile_key as da_validate
    from deepagents_rs.profiles._keys import validate_profile_key as rs_validate

    assert _outcome(rs_validate, key) == _outcome(da_validate, key)


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


# --- independence ------------------------------------------------------------------------------------------------


def test_registries_are_independent() -> None:
    assert rs_pp._PROVIDER_PROFILES is not da_pp._PROVIDER_PROFILES
    register_provider_profile("only_rs", ProviderProfile(init_kwargs={"a": 1}))
    deepagents.register_provider_profile("only_da", deepagents.ProviderProfile(init_kwargs={"b": 2}))
    assert da_pp.get_provider_profile("only_rs:m") is None
    assert rs_pp.get_provider_profile("only_da:m") is None
    register_provider_profile("openai", ProviderProfile(init_kwargs={"use_responses_api": False}))
    assert da_pp.apply_provider_profile("openai:gpt-5") == {"use_responses_api": True}
    assert rs_pp.apply_provider_profile("openai:gpt-5") == {"use_responses_api": False}


def test_ported_module_does_not_import_deepagents() -> None:
    script = textwrap.dedent(
        """
        import sys
        from deepagents_rs._model_spec import resolve_model_spec
        resolve_model_spec("openai:gpt-5")
        print(sorted(m for m in sys.modules if m == "deepagents" or m.startswith("deepagents.")))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "[]"


PLUGIN = textwrap.dedent(
    """
    CALLS = {"rs": 0, "da": 0}
    PRE = []


    def register_rs():
        from deepagents_rs import ProviderProfile, register_provider_profile

        CALLS["rs"] += 1
        register_provider_profile("rsplug", ProviderProfile(init_kwargs={"origin": "rs-plugin"}))


    def register_da():
        from deepagents import ProviderProfile, register_provider_profile

        CALLS["da"] += 1
        register_provider_profile("daplug", ProviderProfile(init_kwargs={"origin": "da-plugin"}, pre_init=PRE.append))
    """
)

PLUGIN_PROBE = textwrap.dedent(
    """
    import json, sys
    import fake_profile_plugin as plugin
    from deepagents_rs.profiles import _builtin_profiles
    from deepagents_rs.profiles.provider import provider_profiles as rs
    from deepagents.profiles.provider import provider_profiles as da

    if len(sys.argv) > 1:  # what loading deepagents' group here would do
        _builtin_profiles._PROVIDER_PROFILE_GROUP = sys.argv[1]
    out = {"rs_rsplug": rs.apply_provider_profile("rsplug:m")}  # our bootstrap runs first
    out["rs_daplug"] = rs.apply_provider_profile("daplug:m")
    out["da_daplug"] = da.apply_provider_profile("daplug:m")
    out["da_rsplug"] = da.apply_provider_profile("rsplug:m")
    out["calls"] = plugin.CALLS
    out["pre"] = plugin.PRE
    print(json.dumps(out))
    """
)


def _run_with_plugin(tmp_path: Path, *args: str) -> dict:
    (tmp_path / "fake_profile_plugin.py").write_text(PLUGIN)
    dist = tmp_path / "fake_profile_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-profile-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[deepagents_rs.provider_profiles]\nrs = fake_profile_plugin:register_rs\n\n"
        "[deepagents.provider_profiles]\nda = fake_profile_plugin:register_da\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", PLUGIN_PROBE, *args], check=True, capture_output=True, text=True, env=env
    )
    return json.loads(out.stdout)


def test_entry_point_plugins_load_into_their_own_registry(tmp_path: Path) -> None:
    out = _run_with_plugin(tmp_path)
    assert out["rs_rsplug"] == {"origin": "rs-plugin"}
    assert out["da_daplug"] == {"origin": "da-plugin"}
    assert out["rs_daplug"] == {}
    assert out["da_rsplug"] == {}
    # Each plugin ran once, by its own library's bootstrap; deepagents' plugin registered once (its pre_init,
    # chained with itself by a second registration, would otherwise run twice).
    assert out["calls"] == {"rs": 1, "da": 1}
    assert out["pre"] == ["daplug:m"]


def test_loading_deepagents_entry_point_group_would_double_register(tmp_path: Path) -> None:
    """Why the group is our own: running deepagents' plugins from our bootstrap registers them in deepagents'
    registry twice and in ours not at all."""
    out = _run_with_plugin(tmp_path, "deepagents.provider_profiles")
    assert out["rs_daplug"] == {}
    assert out["calls"]["da"] == 2
    assert out["pre"] == ["daplug:m", "daplug:m"]


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


# --- init_langchain_model ----------------------------------------------------------------------------------------


def test_init_langchain_model_forwards_to_init_chat_model() -> None:
    with patch("langchain.chat_models.init_chat_model") as mock:
        mock.return_value = MagicMock(spec=BaseChatModel)
        assert init_langchain_model("openai:gpt-5", {"use_responses_api": True}) is mock.return_value
    mock.assert_called_once_with("openai:gpt-5", use_responses_api=True)


def test_init_langchain_model_builds_real_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    openai = init_langchain_model("openai:gpt-5", resolve_model_spec("openai:gpt-5")[2])
    assert type(openai).__name__ == "ChatOpenAI"
    assert openai.model_name == "gpt-5"
    assert openai.use_responses_api is True
    anthropic = init_langchain_model("claude-sonnet-4-6", {})
    assert type(anthropic).__name__ == "ChatAnthropic"
    assert anthropic.model == "claude-sonnet-4-6"


@pytest.mark.parametrize(
    "spec",
    ["google_vertexai:gemini-2.5-pro", "mistralai:mistral-large-latest", "openrouter:anthropic/claude-sonnet-4-6"],
)
def test_missing_integration_error_is_langchains(spec: str) -> None:
    reference = _outcome(lambda: da_models.resolve_model(spec))
    assert reference[0] == "ImportError"
    assert "Please install it with `pip install langchain-" in reference[1]
    assert _outcome(lambda: init_langchain_model(spec, resolve_model_spec(spec)[2])) == reference


@pytest.mark.parametrize(
    ("spec", "install"),
    [
        ("openai:gpt-5", "langchain"),  # langchain-openai is installed
        ("claude-sonnet-4-6", "langchain"),
        ("mistralai:mistral-large-latest", "langchain langchain-mistralai"),
        ("google_vertexai:gemini-2.5-pro", "langchain langchain-google-vertexai"),
        ("azure_ai:gpt-4o", "langchain langchain-azure-ai"),
        ("my_provider:m", "langchain"),
    ],
)
def test_init_langchain_model_without_langchain(spec: str, install: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain", None)
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)
    with pytest.raises(ImportError) as info:
        init_langchain_model(spec, {})
    assert str(info.value) == (
        f"Initializing a chat model from {spec!r} requires the langchain package. "
        f"Please install it with `pip install {install}`"
    )
    assert isinstance(info.value.__cause__, ImportError)


def test_resolves_without_langchain_or_packaging() -> None:
    """In a process that cannot import langchain*, langgraph* or packaging: specs resolve, profiles apply, and
    building the model raises the ImportError naming langchain."""
    script = textwrap.dedent(
        """
        import importlib.abc, json, sys

        class Refuse(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0].startswith(("langchain", "langgraph", "packaging")):
                    raise ImportError(f"blocked for this test: {name}")
                return None

        sys.meta_path.insert(0, Refuse())
        from deepagents_rs import ProviderProfile, register_provider_profile
        from deepagents_rs._model_spec import init_langchain_model, resolve_model_spec

        register_provider_profile("anthropic:claude-sonnet-4-6", ProviderProfile(init_kwargs={"max_tokens": 64}))
        out = {
            spec: resolve_model_spec(spec)
            for spec in ["openai:gpt-5", "anthropic:claude-sonnet-4-6", "openrouter:x/y", "nvidia:n/m", "gpt-4o"]
        }
        try:
            init_langchain_model("anthropic:claude-sonnet-4-6", {})
        except ImportError as e:
            out["error"] = str(e)
        out["loaded"] = sorted(m for m in sys.modules if m.startswith(("langchain", "langgraph", "packaging")))
        print(json.dumps(out))
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    result = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True, env=env)
    out = json.loads(result.stdout)
    assert out["openai:gpt-5"] == ["openai", "gpt-5", {"use_responses_api": True}]
    assert out["anthropic:claude-sonnet-4-6"] == ["anthropic", "claude-sonnet-4-6", {"max_tokens": 64}]
    assert out["openrouter:x/y"] == [
        "openrouter",
        "x/y",
        {
            "app_url": "https://github.com/langchain-ai/deepagents",
            "app_title": "Deep Agents",
            "openrouter_provider": {"ignore": ["azure"]},
        },
    ]
    assert out["nvidia:n/m"] == ["nvidia", "n/m", {"default_headers": {"X-BILLING-INVOKE-ORIGIN": "DeepAgents"}}]
    assert out["gpt-4o"] == ["openai", "gpt-4o", {}]
    assert out["error"].startswith(
        "Initializing a chat model from 'anthropic:claude-sonnet-4-6' requires the langchain"
    )
    assert out["loaded"] == []
