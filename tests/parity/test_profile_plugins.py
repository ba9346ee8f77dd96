"""Parity: the provider-profile registry's one-time bootstrap (built-ins, then entry-point
plugins), on deepagents 0.7.32 and deepagents_rs.

Each implementation's registry is emptied and its bootstrap re-armed, then driven the same
way: fake entry points (one that fails to load, one that is no callable, one whose
registration raises, two that register the same key), an ``entry_points`` that itself fails,
a built-in that fails (the registry is rolled back and a waiting thread retries), threads
racing the first read or a user registration, and, in fresh interpreters, which first access
triggers the bootstrap. The warnings, log records, plugin calls and registry contents each
leaves must be the same; entry-point groups and package names are normalized (ours are the
``deepagents_rs.provider_profiles`` and ``deepagents_rs.harness_profiles`` groups; the
harness-profile group gets no entry points here, and its plugins are run in
``test_harness_profiles.py``).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any
from unittest.mock import patch

import pytest

from .profile_support import (  # noqa: F401 - autouse fixture
    BOTH,
    Impl,
    compare,
    harness_registry,
    isolated_profiles,
    log_view,
)

WAIT = 5
WARNING, ERROR = logging.WARNING, logging.ERROR


@pytest.fixture
def fresh() -> Iterator[None]:
    """Both registries empty and their bootstraps not run yet (``isolated_profiles`` restores them)."""
    for impl in BOTH:
        impl.pp._PROVIDER_PROFILES.clear()
        harness_registry(impl).clear()
        impl.builtin._loaded = False
        impl.builtin._loading_thread_id = None
    yield


@dataclass
class FakeEntryPoint:
    name: str
    value: str
    target: Any = None
    load_error: Exception | None = None
    dist: Any = None

    def load(self) -> Any:
        if self.load_error is not None:
            raise self.load_error
        return self.target


def _plugins(impl: Impl, calls: list[str]) -> dict[str, list[FakeEntryPoint] | Exception]:
    def registering(tag: str, key: str, kwargs: dict) -> Callable[[], None]:
        def register() -> None:
            calls.append(tag)
            impl.register(key, impl.profile(init_kwargs=kwargs))

        return register

    def refusing() -> None:
        calls.append("refusing")
        raise RuntimeError("bad registration")

    good = FakeEntryPoint("good", "good_mod:register", registering("good", "goodprov", {"from": "plugin"}))
    return {
        "none": [],
        "load-fails-then-good": [
            FakeEntryPoint(
                "broken", "nope:nope", load_error=ImportError("boom"), dist=SimpleNamespace(name="broken-dist")
            ),
            good,
        ],
        "not-callable": [FakeEntryPoint("weird", "weird_mod:CONST", "not callable"), good],
        "registration-raises": [FakeEntryPoint("angry", "angry_mod:register", refusing), good],
        "same-key-twice": [
            FakeEntryPoint("a", "a_mod:register", registering("a", "collide", {"first": 1, "shared": "a"})),
            FakeEntryPoint("b", "b_mod:register", registering("b", "collide", {"second": 2, "shared": "b"})),
        ],
        "layer-on-built-in": [FakeEntryPoint("o", "o_mod:register", registering("o", "openai", {"temperature": 0}))],
        "enumeration-fails": RuntimeError("malformed dist-info"),
    }


PLUGIN_CASES = (
    "none",
    "load-fails-then-good",
    "not-callable",
    "registration-raises",
    "same-key-twice",
    "layer-on-built-in",
    "enumeration-fails",
)


@pytest.mark.parametrize("case", PLUGIN_CASES)
def test_plugins(case: str, fresh: None, caplog: pytest.LogCaptureFixture) -> None:
    def run(impl: Impl) -> Any:
        calls: list[str] = []
        found = _plugins(impl, calls)[case]
        groups: list[str] = []

        def entry_points(*, group: str) -> list[FakeEntryPoint]:
            groups.append(group)
            if group != impl.group:
                return []
            if isinstance(found, Exception):
                raise found
            return found

        with (
            patch.object(impl.builtin, "entry_points", entry_points),
            warnings.catch_warnings(record=True) as caught,
        ):
            warnings.simplefilter("always")
            impl.builtin._ensure_builtin_profiles_loaded()
            impl.builtin._ensure_builtin_profiles_loaded()  # a second call does nothing
        registry = {key: dict(p.init_kwargs) for key, p in impl.pp._PROVIDER_PROFILES.items()}
        return {
            "groups": [impl.normalize(g) for g in groups if g == impl.group],
            "calls": calls,
            "warnings": [(w.category.__name__, impl.normalize(str(w.message))) for w in caught],
            "registry": registry,
            "loaded": impl.builtin._loaded,
        }

    seen, logs = compare(run, caplog)
    assert seen["groups"] == ["<group>"] and seen["loaded"]
    assert seen["registry"]["openai"] == {"use_responses_api": True} or case == "layer-on-built-in"
    expected = EXPECTED_PLUGINS[case]
    assert seen["calls"] == expected["calls"]
    assert {k: seen["registry"][k] for k in expected["registry"]} == expected["registry"]
    assert len(seen["warnings"]) == len(expected["problems"])
    for (category, message), (level, problem) in zip(seen["warnings"], expected["problems"], strict=True):
        assert category == "UserWarning" and problem in message
        assert [lvl for _, lvl, m, _ in logs if problem in m] == [level]


EXPECTED_PLUGINS: dict[str, dict[str, Any]] = {
    "none": {"calls": [], "registry": {}, "problems": []},
    "load-fails-then-good": {
        "calls": ["good"],
        "registry": {"goodprov": {"from": "plugin"}},
        "problems": [
            (ERROR, "plugin 'broken' (dist='broken-dist'): failed to load entry point 'nope:nope': ImportError: boom")
        ],
    },
    "not-callable": {
        "calls": ["good"],
        "registry": {"goodprov": {"from": "plugin"}},
        "problems": [(ERROR, "plugin 'weird': entry point 'weird_mod:CONST' did not resolve to a callable.")],
    },
    "registration-raises": {
        "calls": ["refusing", "good"],
        "registry": {"goodprov": {"from": "plugin"}},
        "problems": [(ERROR, "registration callable 'angry_mod:register' raised: RuntimeError: bad registration")],
    },
    "same-key-twice": {
        "calls": ["a", "b"],
        "registry": {"collide": {"first": 1, "second": 2, "shared": "b"}},
        "problems": [],
    },
    "layer-on-built-in": {
        "calls": ["o"],
        "registry": {"openai": {"use_responses_api": True, "temperature": 0}},
        "problems": [],
    },
    "enumeration-fails": {
        "calls": [],
        "registry": {},
        "problems": [
            (WARNING, "Failed to enumerate <group> entry points; no third-party plugins in this group will load")
        ],
    },
}


# --------------------------------------------------------------------------------------------
# Threads
# --------------------------------------------------------------------------------------------


def _counting_waits(impl: Impl, seen: threading.Event, needed: int = 1) -> Any:
    """A stand-in for the bootstrap condition's ``wait`` that sets ``seen`` once ``needed``
    threads are waiting."""
    original = impl.builtin._BOOTSTRAP_CONDITION.wait
    lock, count = threading.Lock(), [0]

    def wait(timeout: float | None = None) -> bool:
        with lock:
            count[0] += 1
            if count[0] >= needed:
                seen.set()
        return original(timeout)

    return patch.object(impl.builtin._BOOTSTRAP_CONDITION, "wait", side_effect=wait)


def _join(*threads: threading.Thread) -> list[bool]:
    for t in threads:
        t.join(timeout=WAIT)
    return [t.is_alive() for t in threads]


def test_failed_bootstrap_rolls_back_and_a_waiter_retries(fresh: None, caplog: pytest.LogCaptureFixture) -> None:
    def run(impl: Impl) -> Any:
        started, waiting, fail_now = threading.Event(), threading.Event(), threading.Event()
        original, attempts, out = impl.openrouter.register, [], {}

        def flaky() -> None:
            attempts.append(threading.current_thread().name)
            if len(attempts) == 1:
                started.set()
                assert fail_now.wait(WAIT)
                raise RuntimeError("built-in broke")
            original()

        def first() -> None:
            try:
                impl.pp.get_provider_profile("openai:gpt-5")
            except RuntimeError as exc:
                out["first"] = str(exc)

        def second() -> None:
            profile = impl.pp.get_provider_profile("openai:gpt-5")
            out["second"] = dict(profile.init_kwargs)

        with (
            patch.object(impl.builtin, "entry_points", return_value=[]),
            patch.object(impl.openrouter, "register", side_effect=flaky),
            _counting_waits(impl, waiting),
        ):
            one, two = threading.Thread(target=first, name="one"), threading.Thread(target=second, name="two")
            one.start()
            assert started.wait(WAIT)
            two.start()
            assert waiting.wait(WAIT)
            fail_now.set()
            alive = _join(one, two)
        return out, attempts, alive, impl.builtin._loaded, sorted(impl.pp._PROVIDER_PROFILES)

    (out, attempts, alive, loaded, keys), logs = compare(run, caplog)
    assert out == {"first": "built-in broke", "second": {"use_responses_api": True}}
    assert attempts == ["one", "two"] and alive == [False, False] and loaded
    assert keys == ["nvidia", "openai", "openrouter"]
    messages = [m for _, _, m, _ in logs]
    assert any(m.startswith("Built-in profile bootstrap failed") for m in messages)
    assert not any(m.startswith("Merging ProviderProfile") for m in messages)  # the retry started from empty


def test_first_reads_wait_for_the_bootstrap(fresh: None) -> None:
    def run(impl: Impl) -> Any:
        started, waiting, release = threading.Event(), threading.Event(), threading.Event()
        original, out = impl.openai.register, {}

        def slow() -> None:
            started.set()
            assert release.wait(WAIT)
            original()

        def read(key: str) -> None:
            profile = impl.pp.get_provider_profile("openai:gpt-5")
            out[key] = None if profile is None else dict(profile.init_kwargs)

        with (
            patch.object(impl.builtin, "entry_points", return_value=[]),
            patch.object(impl.openai, "register", side_effect=slow),
            _counting_waits(impl, waiting, needed=2),
        ):
            readers = [threading.Thread(target=read, args=(k,)) for k in ("a", "b", "c")]
            readers[0].start()
            assert started.wait(WAIT)
            readers[1].start()
            readers[2].start()
            assert waiting.wait(WAIT)
            during = dict(out)
            release.set()
            alive = _join(*readers)
        return during, out, alive, impl.builtin._loaded

    assert compare(run) == ({}, {key: {"use_responses_api": True} for key in "abc"}, [False] * 3, True)


def test_user_registration_waits_for_the_bootstrap(fresh: None) -> None:
    def run(impl: Impl) -> Any:
        started, waiting, release = threading.Event(), threading.Event(), threading.Event()
        original = impl.openai.register

        def slow() -> None:
            started.set()
            assert release.wait(WAIT)
            original()

        with (
            patch.object(impl.builtin, "entry_points", return_value=[]),
            patch.object(impl.openai, "register", side_effect=slow),
            _counting_waits(impl, waiting),
        ):
            boot = threading.Thread(target=impl.builtin._ensure_builtin_profiles_loaded)
            user = threading.Thread(target=impl.register, args=("tenant:model", impl.profile(init_kwargs={"x": 1})))
            boot.start()
            assert started.wait(WAIT)
            user.start()
            assert waiting.wait(WAIT)
            during = "tenant:model" in impl.pp._PROVIDER_PROFILES
            release.set()
            alive = _join(boot, user)
        registry = impl.pp._PROVIDER_PROFILES
        return during, alive, dict(registry["tenant:model"].init_kwargs), dict(registry["openai"].init_kwargs)

    assert compare(run) == (False, [False, False], {"x": 1}, {"use_responses_api": True})


# --------------------------------------------------------------------------------------------
# Lazy bootstrap, in fresh interpreters
# --------------------------------------------------------------------------------------------

PROBES = {
    "import-only": "import {pkg}, {pkg}.profiles",
    "first-lookup": "from {pkg}.profiles.provider.provider_profiles import get_provider_profile as f\nf('openai:gpt-5')",
    "first-registration": "from {pkg} import ProviderProfile, register_provider_profile as r\nr('x:y', ProviderProfile())",
}

PROBE = """
import sys
from {pkg}.profiles import _builtin_profiles as b
from {pkg}.profiles.provider.provider_profiles import _PROVIDER_PROFILES as reg
before = (b._loaded, len(reg))
{body}
print(__import__("json").dumps([before, [b._loaded, sorted(reg)]]))
"""


@pytest.mark.parametrize("probe", PROBES)
def test_bootstrap_runs_on_first_access_only(probe: str) -> None:
    def run(impl: Impl) -> Any:
        body = PROBES[probe].format(pkg=impl.name)
        script = PROBE.format(pkg=impl.name, body=body)
        out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
        return json.loads(out.stdout)

    before, after = compare(run)
    assert before == [False, 0]
    builtins = ["nvidia", "openai", "openrouter"]
    assert (
        after
        == {
            "import-only": [False, []],
            "first-lookup": [True, builtins],
            "first-registration": [True, [*builtins, "x:y"]],
        }[probe]
    )
