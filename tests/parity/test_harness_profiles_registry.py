"""The harness-profile registry through both implementations: lookups with their log records,
merges, serialization, the built-in profiles, the bootstrap's harness plugins, and the errors
deepagents raises for bad input, by class and message."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any
from unittest.mock import patch

import pytest
from langchain.agents.middleware import AgentMiddleware

from .harness import ScriptedChatModel
from .harness_profiles_support import IMPLS, SCRIPTED, Notes, Stamp, graph_shape, register
from .profile_support import BOTH, Impl, compare, isolated_profiles, outcome  # noqa: F401 - autouse fixture

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


def hp(impl: str) -> Any:
    """An implementation's ``harness_profiles`` module."""
    return importlib.import_module(f"{impl}.profiles.harness.harness_profiles")


# --------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------


def _view(impl: Impl, found: Any, registered: list[Any]) -> Any:
    """A looked-up profile as a test sees it: which registered object, or its fields."""
    if found is None:
        return None
    for index, candidate in enumerate(registered):
        if found is candidate:
            return f"registered #{index}"
    out = {}
    for name in ("base_system_prompt", "system_prompt_suffix", "excluded_tools", "general_purpose_subagent"):
        value = getattr(found, name)
        out[name] = value.to_dict() if hasattr(value, "to_dict") else value
    out["tool_description_overrides"] = dict(found.tool_description_overrides)
    out["excluded_middleware"] = sorted(map(repr, found.excluded_middleware))
    out["extra_middleware"] = [type(m).__name__ for m in found.materialize_extra_middleware()]
    return out


class FakeModel:
    """What `_harness_profile_for_model` reads of a chat model."""

    def __init__(self, identifier: str | None, provider: Any, *, attr: str = "model_name") -> None:
        if identifier is not None:
            setattr(self, attr, identifier)
        self._provider = provider

    def _get_ls_params(self) -> Any:
        if isinstance(self._provider, Exception):
            raise self._provider
        return self._provider if not isinstance(self._provider, str) else {"ls_provider": self._provider}


LOOKUPS: list[tuple[str, Any]] = [
    ("spec", "acme:m1"),
    ("spec", "acme:m2"),
    ("spec", "acme"),
    ("spec", "other:m1"),
    ("spec", ""),
    ("spec", ":m1"),
    ("spec", "acme:"),
    ("spec", "ollama:glm:cloud"),
    ("model", ("m1", "acme")),
    ("model", ("m9", "acme")),
    ("model", ("acme:m1", None)),
    ("model", ("ollama:glm:cloud", "somebody")),
    ("model", ("m1", None)),
    ("model", (None, "acme")),
    ("model", ("m1", AttributeError("no params"))),
    ("model", ("m1", ["not", "a", "mapping"])),
]


def test_lookups_and_merges(caplog: pytest.LogCaptureFixture) -> None:
    def run(impl: Impl) -> Any:
        module = hp(impl.name)
        registered: list[Any] = []

        def add(key: str, **fields: Any) -> None:
            made = module.HarnessProfile(**fields)
            registered.append(made)
            module.register_harness_profile(key, made)

        add("acme", system_prompt_suffix="provider", excluded_tools=frozenset({"a"}), extra_middleware=[Notes()])
        add(
            "acme:m1",
            base_system_prompt="model base",
            tool_description_overrides={"ls": "model ls"},
            excluded_tools=frozenset({"b"}),
            extra_middleware=lambda: [Stamp(), Notes("override")],
            general_purpose_subagent=IMPLS[impl.name].GeneralPurposeSubagentProfile(enabled=False),
        )
        add("ollama:glm:cloud", system_prompt_suffix="colons")
        add("acme:m1", system_prompt_suffix="again", excluded_middleware=frozenset({"Stamp"}))
        seen = []
        for kind, arg in LOOKUPS:
            if kind == "spec":
                found = outcome(lambda arg=arg: module._harness_profile_for_model(None, arg))
            else:
                identifier, provider = arg
                model = FakeModel(identifier, provider)
                found = outcome(lambda model=model: module._harness_profile_for_model(model, None))
            seen.append((kind, repr(arg), found[0], _view(impl, found[1], registered) if found[0] == "ok" else found))
        seen.append(
            (
                "model-attr",
                _view(impl, module._harness_profile_for_model(FakeModel("m1", "acme", attr="model"), None), registered),
            )
        )
        seen.append(("any", module._has_any_harness_profile()))
        return seen

    seen, logs = compare(run, caplog)
    by_arg = {arg: view for _, arg, _, view in seen[: len(LOOKUPS)]}
    assert by_arg[repr("acme:m1")]["system_prompt_suffix"] == "again"
    assert by_arg[repr("acme:m1")]["extra_middleware"] == ["Notes", "Stamp"]
    assert by_arg[repr("acme:m2")] == "registered #0"
    assert any("Merging HarnessProfile under 'acme:m1'" in m for _, _, m, _ in logs)


def test_serialization_round_trips() -> None:
    def run(impl: Impl) -> Any:
        module = hp(impl.name)
        gp = module.GeneralPurposeSubagentProfile(enabled=False, system_prompt="GP.")
        config = module.HarnessProfileConfig(
            base_system_prompt="Base.",
            tool_description_overrides={"ls": "List."},
            excluded_tools=frozenset({"b", "a"}),
            excluded_middleware=frozenset({"SummarizationMiddleware", "Stamp"}),
            general_purpose_subagent=gp,
        )
        dumped = config.to_dict()
        back = module.HarnessProfileConfig.from_dict(dumped)
        runtime = config.to_harness_profile()
        summarization = importlib.import_module(f"{impl.name}.middleware").SummarizationMiddleware
        exported = module.HarnessProfileConfig.from_harness_profile(
            module.HarnessProfile(excluded_middleware=frozenset({summarization, "Other"}))
        )
        empty = module.HarnessProfileConfig(general_purpose_subagent=module.GeneralPurposeSubagentProfile())
        return {
            "dumped": dumped,
            "round-trip": back == config,
            "runtime": (type(runtime).__name__, sorted(runtime.excluded_middleware), runtime.extra_middleware),
            "exported": exported.to_dict(),
            "empty": (module.HarnessProfileConfig().to_dict(), empty.to_dict()),
            "gp": (gp.to_dict(), module.GeneralPurposeSubagentProfile.from_dict({"description": "D."}).to_dict()),
            "prompts": [
                module._apply_profile_prompt(module.HarnessProfile(**fields), base)
                for fields in (
                    {},
                    {"base_system_prompt": ""},
                    {"system_prompt_suffix": ""},
                    {"system_prompt_suffix": "S"},
                )
                for base in ("", "B")
            ],
            "frozen": outcome(lambda: runtime.tool_description_overrides.__setitem__("ls", "x")),
        }

    seen = compare(run)
    assert seen["dumped"]["excluded_tools"] == ["a", "b"]
    assert seen["exported"]["excluded_middleware"] == ["Other", "SummarizationMiddleware"]


# --------------------------------------------------------------------------------------------
# Built-ins and plugins
# --------------------------------------------------------------------------------------------


NEMOTRON_SPECS = importlib.import_module(
    "deepagents.profiles.harness._nvidia_nemotron_3_ultra"
)._NEMOTRON_ULTRA_MODEL_SPECS


def test_built_in_profiles() -> None:
    def run(impl: Impl) -> Any:
        module = hp(impl.name)
        module._ensure_harness_profiles_loaded()
        keys = list(module._HARNESS_PROFILES)
        return {
            "keys": keys,
            "bootstrap": sorted(impl.builtin._BOOTSTRAP_HARNESS_KEYS),
            "profiles": {k: _view(impl, module._HARNESS_PROFILES[k], []) for k in keys},
            "any": module._has_any_harness_profile(),
        }

    seen = compare(run)
    assert seen["keys"] == [
        "anthropic:claude-opus-4-7",
        "anthropic:claude-sonnet-4-6",
        "anthropic:claude-haiku-4-5",
        # The Nemotron 3 Ultra profile, under each provider serving it.
        *NEMOTRON_SPECS,
        "openai:gpt-5.1-codex",
        "openai:gpt-5.2-codex",
        "openai:gpt-5.3-codex",
    ]
    assert seen["profiles"]["openai:gpt-5.2-codex"]["extra_middleware"] == ["TodoListMiddleware"]
    nemotron = seen["profiles"]["together:nvidia/nemotron-3-ultra-550b-a55b"]
    assert nemotron["extra_middleware"][4] == "ToolRetryMiddleware"
    assert list(nemotron["tool_description_overrides"]) == ["read_file"]
    assert not seen["any"]


def test_harness_profile_plugins(caplog: pytest.LogCaptureFixture) -> None:
    from .test_profile_plugins import FakeEntryPoint

    def run(impl: Impl) -> Any:
        module = hp(impl.name)
        module._HARNESS_PROFILES.clear()
        impl.builtin._loaded = False
        calls: list[str] = []

        def good() -> None:
            calls.append("good")
            IMPLS[impl.name].register_harness_profile("plugged", module.HarnessProfile(system_prompt_suffix="P."))

        def bad() -> None:
            calls.append("bad")
            raise RuntimeError("refused")

        group = impl.builtin._HARNESS_PROFILE_GROUP
        plugins = [FakeEntryPoint("bad", "bad_mod:register", bad), FakeEntryPoint("good", "good_mod:register", good)]

        def entry_points(*, group: str, harness_group: str = group) -> list[Any]:
            return plugins if group == harness_group else []

        with patch.object(impl.builtin, "entry_points", entry_points), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            impl.builtin._ensure_builtin_profiles_loaded()
        return {
            "calls": calls,
            "warnings": [impl.normalize(str(w.message)) for w in caught],
            "plugged": "plugged" in impl.builtin._BOOTSTRAP_HARNESS_KEYS,
            "any": module._has_any_harness_profile(),
        }

    seen, _ = compare(run, caplog)
    assert seen["calls"] == ["bad", "good"] and seen["plugged"] and not seen["any"]
    assert any("refused" in w for w in seen["warnings"])


# --------------------------------------------------------------------------------------------
# Errors deepagents raises for bad input
# --------------------------------------------------------------------------------------------

CONSTRUCTION_ERRORS: dict[str, Callable[[Any], Any]] = {
    "required-by-name": lambda m: m.HarnessProfile(excluded_middleware=frozenset({"FilesystemMiddleware"})),
    "required-both": lambda m: m.HarnessProfile(
        excluded_middleware=frozenset({"SubAgentMiddleware", "FilesystemMiddleware"})
    ),
    "required-by-class": lambda m: m.HarnessProfile(
        excluded_middleware=frozenset({importlib.import_module(m.__name__.split(".")[0]).FilesystemMiddleware})
    ),
    "private-name": lambda m: m.HarnessProfile(excluded_middleware=frozenset({"_Private"})),
    "class-path": lambda m: m.HarnessProfile(excluded_middleware=frozenset({"pkg.mod:Class"})),
    "blank-name": lambda m: m.HarnessProfile(excluded_middleware=frozenset({"  "})),
    "empty-name": lambda m: m.HarnessProfileConfig(excluded_middleware=frozenset({""})),
    "config-non-string": lambda m: m.HarnessProfileConfig(excluded_middleware=frozenset({Stamp})),
    "config-required": lambda m: m.HarnessProfileConfig(excluded_middleware=frozenset({"SubAgentMiddleware"})),
    "overrides-frozen": lambda m: m.HarnessProfile(
        tool_description_overrides={"a": "b"}
    ).tool_description_overrides.__setitem__("a", "c"),
    "from-dict-unknown": lambda m: m.HarnessProfileConfig.from_dict({"extra_middleware": [], "zz": 1}),
    "from-dict-suffix": lambda m: m.HarnessProfileConfig.from_dict({"system_prompt_suffix": 3}),
    "from-dict-overrides": lambda m: m.HarnessProfileConfig.from_dict({"tool_description_overrides": ["ls"]}),
    "from-dict-override-value": lambda m: m.HarnessProfileConfig.from_dict({"tool_description_overrides": {"ls": 1}}),
    "from-dict-tools": lambda m: m.HarnessProfileConfig.from_dict({"excluded_tools": "ls"}),
    "from-dict-tool-entry": lambda m: m.HarnessProfileConfig.from_dict({"excluded_tools": ["ls", 2]}),
    "from-dict-gp": lambda m: m.HarnessProfileConfig.from_dict({"general_purpose_subagent": "off"}),
    "from-dict-gp-key": lambda m: m.HarnessProfileConfig.from_dict({"general_purpose_subagent": {"enable": False}}),
    "gp-enabled": lambda m: m.GeneralPurposeSubagentProfile.from_dict({"enabled": "no"}),
    "gp-description": lambda m: m.GeneralPurposeSubagentProfile.from_dict({"description": 1}),
    "gp-prompt": lambda m: m.GeneralPurposeSubagentProfile.from_dict({"system_prompt": []}),
    "to-dict-override": lambda m: m.HarnessProfileConfig(tool_description_overrides={"ls": 1}).to_dict(),
    "export-extra": lambda m: m.HarnessProfileConfig.from_harness_profile(m.HarnessProfile(extra_middleware=[Notes()])),
    "export-factory": lambda m: m.HarnessProfileConfig.from_harness_profile(m.HarnessProfile(extra_middleware=list)),
    "export-class": lambda m: m.HarnessProfileConfig.from_harness_profile(
        m.HarnessProfile(excluded_middleware=frozenset({Stamp}))
    ),
    "key-empty": lambda m: m.register_harness_profile("", m.HarnessProfile()),
    "key-space": lambda m: m.register_harness_profile(" acme", m.HarnessProfile()),
    "key-half": lambda m: m.register_harness_profile("acme:", m.HarnessProfile()),
    "key-colon-space": lambda m: m.register_harness_profile("acme :m", m.HarnessProfile()),
}


@pytest.mark.parametrize("case", CONSTRUCTION_ERRORS)
def test_construction_errors(case: str) -> None:
    seen = compare(lambda impl: outcome(lambda: CONSTRUCTION_ERRORS[case](hp(impl.name))))
    assert seen[0] in ("ValueError", "TypeError", "AttributeError")


BUILD_ERRORS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # (profile fields, create_deep_agent kwargs)
    "unmatched-name": ({"excluded_middleware": frozenset({"NoSuchMiddleware"})}, {}),
    "unmatched-class": ({"excluded_middleware": frozenset({Stamp})}, {}),
    "unmatched-skills": ({"excluded_middleware": frozenset({"SkillsMiddleware", "MemoryMiddleware"})}, {}),
    # A declarative subagent's stack has no content filter when exclusions are checked.
    "subagent-content-filter": (
        {"excluded_middleware": frozenset({"UnsupportedContentMiddleware"})},
        {"subagents": [{"name": "a", "description": "A."}]},
    ),
    "name-collision": (
        {"excluded_middleware": frozenset({"Dup"}), "extra_middleware": "dup-pair"},
        {},
    ),
    "duplicate-profile-middleware": ({"extra_middleware": "dup-pair"}, {}),
    "task-format": ({"tool_description_overrides": {"task": "{available_agents} and {oops}"}}, {}),
    "task-format-index": ({"tool_description_overrides": {"task": "{available_agents} {0}"}}, {}),
}


class DupA(AgentMiddleware):
    name = "Dup"


class DupB(AgentMiddleware):
    name = "Dup"


@pytest.mark.parametrize("case", BUILD_ERRORS)
def test_create_deep_agent_errors(case: str) -> None:
    fields, kwargs = BUILD_ERRORS[case]

    def run(impl: Impl) -> Any:
        made = dict(fields)
        if made.get("extra_middleware") == "dup-pair":
            made["extra_middleware"] = [DupA(), DupB()]
        register(impl.name, SCRIPTED, **made)
        return outcome(lambda: IMPLS[impl.name].create_deep_agent(model=ScriptedChatModel([]), **kwargs))

    seen = compare(run)
    assert seen[0] != "ok"


def test_excluding_what_is_present_builds() -> None:
    def run(impl: Impl) -> Any:
        register(impl.name, SCRIPTED, excluded_middleware=frozenset({"SkillsMiddleware", "MemoryMiddleware"}))
        return graph_shape(impl.name, model=ScriptedChatModel([]), skills=["/skills/"], memory=["/AGENTS.md"])

    nodes, _ = compare(run)
    assert not any(n.startswith(("SkillsMiddleware", "MemoryMiddleware")) for n in nodes)
