"""Shared pieces of the profile parity tests (``test_model_resolution.py``,
``test_profile_plugins.py``, ``test_harness_profiles.py``): each implementation's profile
modules under one namespace, a fixture keeping both implementations' registries, provider and
harness (and their bootstrap state), as they were, and the log and outcome views the tests
compare.

Each implementation runs a scenario against its own modules; what a scenario observes
(results, which registered object a lookup returns, hook calls, log records, warnings,
exceptions) must come out the same. Only the package name is normalized: log and warning
texts name the implementation's own modules and entry-point group.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

IMPLS = ("deepagents", "deepagents_rs")
OPENROUTER_ENV = ("OPENROUTER_APP_URL", "OPENROUTER_APP_TITLE", "DEEPAGENTS_OPENROUTER_ALLOW_AZURE")


@dataclass(frozen=True)
class Impl:
    """One implementation's profile modules."""

    name: str

    def module(self, rel: str) -> ModuleType:
        return importlib.import_module(f"{self.name}.{rel}")

    @property
    def pp(self) -> ModuleType:
        return self.module("profiles.provider.provider_profiles")

    @property
    def builtin(self) -> ModuleType:
        return self.module("profiles._builtin_profiles")

    @property
    def openrouter(self) -> ModuleType:
        return self.module("profiles.provider._openrouter")

    @property
    def nvidia(self) -> ModuleType:
        return self.module("profiles.provider._nvidia")

    @property
    def openai(self) -> ModuleType:
        return self.module("profiles.provider._openai")

    @property
    def group(self) -> str:
        return self.builtin._PROVIDER_PROFILE_GROUP

    def profile(self, **fields: Any) -> Any:
        return self.pp.ProviderProfile(**fields)

    def register(self, key: str, profile: Any) -> None:
        importlib.import_module(self.name).register_provider_profile(key, profile)

    def normalize(self, text: str) -> str:
        """``text`` with this implementation's entry-point group and package name neutral."""
        return text.replace(self.group, "<group>").replace(f"{self.name}.", "<pkg>.")


BOTH = tuple(Impl(name) for name in IMPLS)


def harness_registry(impl: Impl) -> dict:
    return impl.module("profiles.harness.harness_profiles")._HARNESS_PROFILES


@pytest.fixture(autouse=True)
def isolated_profiles(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Both registries bootstrapped, then put back (with their loader state) after the test;
    the OpenRouter variables cleared."""
    for var in OPENROUTER_ENV:
        monkeypatch.delenv(var, raising=False)
    saved = []
    for impl in BOTH:
        impl.pp.get_provider_profile("openai:gpt-5")
        saved.append(
            (
                impl,
                dict(impl.pp._PROVIDER_PROFILES),
                dict(harness_registry(impl)),
                {k: getattr(impl.builtin, k) for k in ("_loaded", "_loading_thread_id")},
                impl.builtin._BOOTSTRAP_HARNESS_KEYS,
            )
        )
    try:
        yield
    finally:
        for impl, providers, harness, loader, harness_keys in saved:
            impl.pp._PROVIDER_PROFILES.clear()
            impl.pp._PROVIDER_PROFILES.update(providers)
            live = harness_registry(impl)
            live.clear()
            live.update(harness)
            impl.builtin._BOOTSTRAP_HARNESS_KEYS = harness_keys
            for key, value in loader.items():
                setattr(impl.builtin, key, value)
            with impl.builtin._BOOTSTRAP_CONDITION:
                impl.builtin._BOOTSTRAP_CONDITION.notify_all()


def outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    """``("ok", result)`` or ``(exception class name, message)``."""
    try:
        return ("ok", fn())
    except Exception as exc:  # noqa: BLE001 - compared across implementations
        return (type(exc).__name__, str(exc))


def log_view(impl: Impl, caplog: pytest.LogCaptureFixture) -> list[tuple[str, int, str, bool]]:
    """This implementation's log records: (logger, level, message, has traceback), normalized."""
    prefix = f"{impl.name}."
    return [
        (impl.normalize(r.name + "."), r.levelno, impl.normalize(r.getMessage()), bool(r.exc_info))
        for r in caplog.records
        if r.name.startswith(prefix)
    ]


def compare(run: Callable[[Impl], Any], caplog: pytest.LogCaptureFixture | None = None) -> Any:
    """``run`` each implementation; the observations must be equal. Returns deepagents'.

    With ``caplog``, each observation is ``(run's result, log_view)`` of that run's records.
    """
    observed = []
    for impl in BOTH:
        if caplog is None:
            observed.append(run(impl))
            continue
        caplog.clear()
        with caplog.at_level("DEBUG"):
            result = run(impl)
        observed.append((result, log_view(impl, caplog)))
    ref, ours = observed
    assert ours == ref
    return ref
