"""deepagents_rs' provider-profile public API against deepagents 0.7.32: the names and signatures of
`deepagents_rs.ProviderProfile`, `register_provider_profile`, `deepagents_rs.profiles`,
`deepagents_rs.profiles.provider`; and the two registries independent: third-party plugins load
from an entry-point group of our own, so a deepagents plugin is neither run twice nor leaked across
(checked with a real installed distribution).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import deepagents
import deepagents.profiles as da_profiles
import deepagents.profiles.provider as da_provider_pkg
import deepagents.profiles.provider.provider_profiles as da_pp
import deepagents_rs
import deepagents_rs.profiles as rs_profiles
import deepagents_rs.profiles.provider as rs_provider_pkg
import deepagents_rs.profiles.provider.provider_profiles as rs_pp
import pytest
from deepagents_rs.profiles import ProviderProfile, register_provider_profile

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
