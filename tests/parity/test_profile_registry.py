"""Parity: the provider-profile registry's semantics, run on deepagents 0.7.32 and deepagents_rs.

Scenarios register profiles built from a small description (``init_kwargs``, a ``pre_init``
that logs or raises, an ``init_kwargs_factory`` that returns or raises) and observe, per
implementation, what lookups return (nothing, the very object registered, or a new merged
profile, whose hooks are then called), what ``apply_provider_profile`` hands back and does
to the caller's dict, and every record the registry logs (breadcrumbs for fallbacks, merge
notices, chained-hook failures). The observations must be equal; each test also asserts a
few of deepagents' answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from .profile_support import Impl, compare, isolated_profiles, outcome  # noqa: F401 - autouse fixture

#: A profile description: ``init_kwargs``, ``pre`` (a tag, or ``"raise"``) and ``factory``
#: (a dict to return, or ``"raise"``).
Desc = dict[str, Any]


def _merged(kwargs: dict, pre: Any = None, factory: Any = None, hooks: list[str] | None = None) -> dict:
    return {"kwargs": kwargs, "pre_init": pre, "factory": factory, "hooks": hooks or []}


class Built:
    """Profiles built for one implementation from descriptions, and the log their hooks write."""

    def __init__(self, impl: Impl) -> None:
        self.impl = impl
        self.log: list[str] = []
        self.objects: list[Any] = []

    def make(self, desc: Desc) -> Any:
        fields: dict[str, Any] = {}
        if "kwargs" in desc:
            fields["init_kwargs"] = desc["kwargs"]
        if "pre" in desc:
            fields["pre_init"] = self._pre(desc["pre"])
        if "factory" in desc:
            fields["init_kwargs_factory"] = self._factory(desc["factory"])
        profile = self.impl.profile(**fields)
        self.objects.append(profile)
        return profile

    def _pre(self, tag: str) -> Callable[[str], None]:
        def pre_init(spec: str) -> None:
            self.log.append(f"{tag}({spec})")
            if tag == "raise":
                raise RuntimeError(f"pre_init refused {spec}")

        return pre_init

    def _factory(self, made: dict | str) -> Callable[[], dict]:
        def factory() -> dict:
            self.log.append(f"factory{made!r}")
            if made == "raise":
                raise RuntimeError("factory refused")
            return dict(made)

        return factory

    def register(self, key: str, desc: Desc) -> None:
        self.impl.register(key, self.make(desc))

    def view(self, profile: Any, spec: str) -> Any:
        """A profile as a test sees it: which registered object, or its contents and hooks' effects."""
        if profile is None:
            return None
        for index, candidate in enumerate(self.objects):
            if profile is candidate:
                return f"registered #{index}"
        start = len(self.log)
        pre = outcome(lambda: profile.pre_init(spec)) if profile.pre_init else None
        made = outcome(profile.init_kwargs_factory) if profile.init_kwargs_factory else None
        return {"kwargs": dict(profile.init_kwargs), "pre_init": pre, "factory": made, "hooks": self.log[start:]}


# --------------------------------------------------------------------------------------------
# Lookups after registrations
# --------------------------------------------------------------------------------------------

LOOKUPS: dict[str, tuple[list[tuple[str, Desc]], list[str]]] = {
    "provider-key": ([("acme", {"kwargs": {"temperature": 0}})], ["acme:model-x", "acme", "acme:", ":model-x"]),
    "model-key-over-provider": (
        [("acme", {"kwargs": {"a": 1, "both": "provider"}}), ("acme:special", {"kwargs": {"b": 2, "both": "model"}})],
        ["acme:special", "acme:other", "acme", "acme:special:v2"],
    ),
    "nothing-registered": ([], ["nonexistent:model", "claude-sonnet-4-6", "", ":", "a:b:c", " openai:gpt-5"]),
    "colons-in-model": ([("host:org/m:tag", {"kwargs": {"t": 1}})], ["host:org/m:tag", "host:org/m", "host:x"]),
    "re-register-adds": ([("acme", {"kwargs": {"a": 1}}), ("acme", {"kwargs": {"b": 2}})], ["acme:m"]),
    "re-register-later-wins": ([("acme", {"kwargs": {"k": "first"}}), ("acme", {"kwargs": {"k": "second"}})], ["acme"]),
    "openai-layered": ([("openai", {"kwargs": {"temperature": 0}})], ["openai:gpt-5"]),
    "openai-overridden": ([("openai", {"kwargs": {"use_responses_api": False}})], ["openai:gpt-5"]),
    "openai-model-key": ([("openai:o3-pro", {"kwargs": {"reasoning_effort": "high"}})], ["openai:o3-pro", "openai:o3"]),
    "pre-init-chain": (
        [("acme", {"pre": "one"}), ("acme", {"pre": "two"}), ("acme:m", {"pre": "three"})],
        ["acme:m", "acme:n"],
    ),
    "factory-chain": (
        [("acme", {"factory": {"x": 1, "y": 1}}), ("acme", {"kwargs": {"z": 0}, "factory": {"y": 2}})],
        ["acme:m"],
    ),
}


@pytest.mark.parametrize("name", LOOKUPS)
def test_lookups(name: str, caplog: pytest.LogCaptureFixture) -> None:
    registrations, specs = LOOKUPS[name]

    def run(impl: Impl) -> Any:
        built = Built(impl)
        for key, desc in registrations:
            built.register(key, desc)
        return {spec: built.view(impl.pp.get_provider_profile(spec), spec) for spec in specs}

    views, logs = compare(run, caplog)
    expected = EXPECTED_LOOKUPS[name]
    assert {spec: views[spec] for spec in expected} == expected
    merged_keys = [re.search(r"under '(.*?)'", m)[1] for _, _, m, _ in logs if m.startswith("Merging ProviderProfile")]
    seen, again = {"openai", "openrouter", "nvidia"}, []
    for key, _ in registrations:
        again += [key] if key in seen else []
        seen.add(key)
    assert merged_keys == again


EXPECTED_LOOKUPS: dict[str, dict[str, Any]] = {
    "provider-key": {"acme:model-x": "registered #0", "acme": "registered #0", "acme:": None, ":model-x": None},
    "model-key-over-provider": {
        "acme:special": _merged({"a": 1, "b": 2, "both": "model"}),
        "acme:other": "registered #0",
        "acme:special:v2": "registered #0",
    },
    "nothing-registered": {"nonexistent:model": None, "claude-sonnet-4-6": None, "": None, "a:b:c": None},
    "colons-in-model": {"host:org/m:tag": "registered #0", "host:org/m": None},
    "re-register-adds": {"acme:m": _merged({"a": 1, "b": 2})},
    "re-register-later-wins": {"acme": _merged({"k": "second"})},
    "openai-layered": {"openai:gpt-5": _merged({"use_responses_api": True, "temperature": 0})},
    "openai-overridden": {"openai:gpt-5": _merged({"use_responses_api": False})},
    "openai-model-key": {"openai:o3-pro": _merged({"use_responses_api": True, "reasoning_effort": "high"})},
    "pre-init-chain": {"acme:m": _merged({}, ("ok", None), hooks=["one(acme:m)", "two(acme:m)", "three(acme:m)"])},
    "factory-chain": {
        "acme:m": _merged(
            {"z": 0}, factory=("ok", {"x": 1, "y": 2}), hooks=["factory{'x': 1, 'y': 1}", "factory{'y': 2}"]
        )
    },
}


def test_fallback_breadcrumbs(caplog: pytest.LogCaptureFixture) -> None:
    def run(impl: Impl) -> Any:
        impl.register("crumbs", impl.profile(init_kwargs={"a": 1}))
        return [impl.pp.get_provider_profile(s) is not None for s in ("crumbs:typo", "crumbs:", "", "crumbs")]

    found, logs = compare(run, caplog)
    assert found == [True, False, False, True]
    messages = [m for _, _, m, _ in logs]
    assert any("No exact ProviderProfile" in m and "crumbs:typo" in m for m in messages)


# --------------------------------------------------------------------------------------------
# apply_provider_profile
# --------------------------------------------------------------------------------------------

#: ``(registrations, spec, caller kwargs or None, run_pre_init)``
APPLY: dict[str, tuple[list[tuple[str, Desc]], str, dict | None, bool]] = {
    "unregistered": ([], "nonexistent:model", {"temperature": 0.5}, True),
    "unregistered-no-kwargs": ([], "nonexistent:model", None, True),
    "defaults-only": ([("p", {"kwargs": {"temperature": 0.7, "stream": True}})], "p", None, True),
    "caller-wins": ([("p", {"kwargs": {"temperature": 0, "shared": "profile"}})], "p", {"shared": "caller"}, True),
    "factory-under-caller": (
        [("p", {"kwargs": {"a": 1}, "factory": {"b": 2, "shared": "factory"}})],
        "p",
        {"shared": "caller", "c": 3},
        True,
    ),
    "factory-over-static": (
        [("p", {"kwargs": {"s": "static", "t": 1}, "factory": {"s": "factory"}})],
        "p:m",
        None,
        True,
    ),
    "pre-init-runs": ([("p", {"pre": "hook", "kwargs": {"k": "v"}})], "p:m", {"x": 1}, True),
    "pre-init-suppressed": ([("p", {"pre": "hook", "kwargs": {"k": "v"}})], "p", None, False),
    "pre-init-raises": ([("p", {"pre": "raise", "kwargs": {"k": "v"}})], "p:m", {}, True),
    "factory-raises": ([("p", {"factory": "raise"})], "p:m", {}, True),
}


@pytest.mark.parametrize("name", APPLY)
def test_apply_provider_profile(name: str, caplog: pytest.LogCaptureFixture) -> None:
    registrations, spec, caller, run_pre_init = APPLY[name]

    def run(impl: Impl) -> Any:
        built = Built(impl)
        for key, desc in registrations:
            built.register(key, desc)
        given = None if caller is None else dict(caller)
        args = () if given is None else (given,)
        result = outcome(lambda: impl.pp.apply_provider_profile(spec, *args, run_pre_init=run_pre_init))
        fresh = result[0] != "ok" or given is None or result[1] is not given
        return result, fresh, given, built.log

    (result, fresh, given, hooks), _ = compare(run, caplog)
    assert fresh and given == caller
    assert result == EXPECTED_APPLY[name][0] and hooks == EXPECTED_APPLY[name][1]


EXPECTED_APPLY: dict[str, tuple[tuple[str, Any], list[str]]] = {
    "unregistered": (("ok", {"temperature": 0.5}), []),
    "unregistered-no-kwargs": (("ok", {}), []),
    "defaults-only": (("ok", {"temperature": 0.7, "stream": True}), []),
    "caller-wins": (("ok", {"temperature": 0, "shared": "caller"}), []),
    "factory-under-caller": (
        ("ok", {"a": 1, "b": 2, "shared": "caller", "c": 3}),
        ["factory{'b': 2, 'shared': 'factory'}"],
    ),
    "factory-over-static": (("ok", {"s": "factory", "t": 1}), ["factory{'s': 'factory'}"]),
    "pre-init-runs": (("ok", {"k": "v", "x": 1}), ["hook(p:m)"]),
    "pre-init-suppressed": (("ok", {"k": "v"}), []),
    "pre-init-raises": (("RuntimeError", "pre_init refused p:m"), ["raise(p:m)"]),
    "factory-raises": (("RuntimeError", "factory refused"), ["factory'raise'"]),
}


# --------------------------------------------------------------------------------------------
# _merge_provider_profiles
# --------------------------------------------------------------------------------------------

MERGES: dict[str, tuple[Desc, Desc]] = {
    "kwargs": ({"kwargs": {"a": 1, "shared": "base"}}, {"kwargs": {"b": 2, "shared": "override"}}),
    "empty": ({}, {}),
    "pre-both": ({"pre": "base"}, {"pre": "over"}),
    "pre-base-only": ({"pre": "base"}, {}),
    "pre-override-only": ({}, {"pre": "over"}),
    "pre-base-raises": ({"pre": "raise"}, {"pre": "over"}),
    "pre-override-raises": ({"pre": "base"}, {"pre": "raise"}),
    "factory-both": ({"factory": {"a": 1, "shared": "base"}}, {"factory": {"b": 2, "shared": "override"}}),
    "factory-base-only": ({"factory": {"a": 1}}, {"kwargs": {"b": 2}}),
    "factory-override-only": ({}, {"factory": {"b": 2}}),
    "factory-base-raises": ({"factory": "raise"}, {"factory": {"b": 2}}),
    "factory-override-raises": ({"factory": {"a": 1}}, {"factory": "raise"}),
}


@pytest.mark.parametrize("name", MERGES)
def test_merge_provider_profiles(name: str, caplog: pytest.LogCaptureFixture) -> None:
    base, override = MERGES[name]

    def run(impl: Impl) -> Any:
        built = Built(impl)
        merged = impl.pp._merge_provider_profiles(built.make(base), built.make(override))
        return built.view(merged, "prov:model")

    view, logs = compare(run, caplog)
    assert view == EXPECTED_MERGES[name][0]
    assert [(level, m.split(" in chained")[0]) for _, level, m, _ in logs] == EXPECTED_MERGES[name][1]
    assert all(traceback for *_, traceback in logs)


OK = ("ok", None)
ERROR = 40
EXPECTED_MERGES: dict[str, tuple[Any, list[tuple[int, str]]]] = {
    "kwargs": (_merged({"a": 1, "b": 2, "shared": "override"}), []),
    "empty": (_merged({}), []),
    "pre-both": (_merged({}, OK, hooks=["base(prov:model)", "over(prov:model)"]), []),
    "pre-base-only": (_merged({}, OK, hooks=["base(prov:model)"]), []),
    "pre-override-only": (_merged({}, OK, hooks=["over(prov:model)"]), []),
    "pre-base-raises": (
        _merged({}, ("RuntimeError", "pre_init refused prov:model"), hooks=["raise(prov:model)"]),
        [(ERROR, "Base pre_init")],
    ),
    "pre-override-raises": (
        _merged({}, ("RuntimeError", "pre_init refused prov:model"), hooks=["base(prov:model)", "raise(prov:model)"]),
        [(ERROR, "Override pre_init")],
    ),
    "factory-both": (
        _merged(
            {},
            factory=("ok", {"a": 1, "b": 2, "shared": "override"}),
            hooks=["factory{'a': 1, 'shared': 'base'}", "factory{'b': 2, 'shared': 'override'}"],
        ),
        [],
    ),
    "factory-base-only": (_merged({"b": 2}, factory=("ok", {"a": 1}), hooks=["factory{'a': 1}"]), []),
    "factory-override-only": (_merged({}, factory=("ok", {"b": 2}), hooks=["factory{'b': 2}"]), []),
    "factory-base-raises": (
        _merged({}, factory=("RuntimeError", "factory refused"), hooks=["factory'raise'"]),
        [(ERROR, "Base init_kwargs_factory")],
    ),
    "factory-override-raises": (
        _merged({}, factory=("RuntimeError", "factory refused"), hooks=["factory{'a': 1}", "factory'raise'"]),
        [(ERROR, "Override init_kwargs_factory")],
    ),
}


# --------------------------------------------------------------------------------------------
# Key validation, through register_provider_profile
# --------------------------------------------------------------------------------------------

KEYS = {
    "": "non-empty",
    "   ": "whitespace",
    "\tacme": "whitespace",
    "acme ": "whitespace",
    "acme : m": "whitespace",
    "acme :m": "whitespace",
    "acme: m": "whitespace",
    " acme:m": "whitespace",
    "acme:m ": "whitespace",
    ":m": "empty provider",
    "acme:": "empty provider",
    "acme::": None,
    "a:b:c": None,
    "acme": None,
    "acme:m-1.2": None,
    "acme:m with space": None,
}


@pytest.mark.parametrize("key", KEYS)
def test_register_validates_keys(key: str) -> None:
    def run(impl: Impl) -> Any:
        profile = impl.profile(init_kwargs={"k": 1})
        result = outcome(lambda: impl.register(key, profile))
        return result, key in impl.pp._PROVIDER_PROFILES and impl.pp._PROVIDER_PROFILES[key] is profile

    (result, stored) = compare(run)
    if KEYS[key] is None:
        assert result == ("ok", None) and stored
    else:
        assert result[0] == "ValueError" and KEYS[key] in result[1] and not stored


def test_profile_defaults() -> None:
    def run(impl: Impl) -> Any:
        profile = impl.profile()
        return dict(profile.init_kwargs), profile.pre_init, profile.init_kwargs_factory

    assert compare(run) == ({}, None, None)
