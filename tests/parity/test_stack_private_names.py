"""Parity: deepagents' private stack helpers, side by side with deepagents: the tool
exclusion middleware (`_tool_exclusion._ToolExclusionMiddleware`) and Anthropic's deferred
prompt caching (`_prompt_caching._LazyAnthropicPromptCachingMiddleware`) in an agent's
`middleware=` and in LangChain's `create_agent`, the optional Bedrock and Fireworks caching
factories, and the graph module's merge of a caller's middleware into a stack
(`graph._apply_custom_middleware`) with the scaffolding it may not lose.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
import types
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from .harness import MODES, Both, ScriptedChatModel, _run_one, ai_tool_calls, assert_parity, call_view, norm

IMPLS = ("deepagents", "deepagents_rs")


def mod(impl: str, name: str) -> Any:
    return importlib.import_module(f"{impl}.{name}")


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


@tool
def other(key: str) -> str:
    """Another tool."""
    return f"other {key}"


def _run(script: list[Any], mode: str, make_kwargs: Any, tools: list[Any] | None = None) -> Both:
    """The scenario through both packages, each with the keyword arguments `make_kwargs(impl)`."""
    inp = {"messages": [HumanMessage(content="go")]}
    runs = {impl: _run_one(impl, script, tools, inp, mode, None, make_kwargs(impl)) for impl in IMPLS}
    return Both(ref=runs["deepagents"], rs=runs["deepagents_rs"])


# --------------------------------------------------------------------------------------------
# _ToolExclusionMiddleware
# --------------------------------------------------------------------------------------------


def _exclusion(impl: str, excluded: frozenset[str]) -> Any:
    return mod(impl, "middleware._tool_exclusion")._ToolExclusionMiddleware(excluded=excluded)


EXCLUSIONS = {
    "user-and-file-tools": frozenset({"lookup", "grep", "write_file"}),
    "task-tool": frozenset({"task"}),
    "nothing": frozenset(),
    "unknown-name": frozenset({"nope"}),
}


@pytest.mark.parametrize("excluded", EXCLUSIONS)
@pytest.mark.parametrize("mode", MODES)
def test_tool_exclusion_in_a_deep_agent(excluded: str, mode: str) -> None:
    names = EXCLUSIONS[excluded]
    script = [
        # Excluded tools called anyway are refused; the others run.
        ai_tool_calls(("lookup", {"key": "a"}, "c1"), ("other", {"key": "b"}, "c2"), ("grep", {"pattern": "x"}, "c3")),
        ai_tool_calls(("write_file", {"file_path": "/a.md", "content": "x"}, "c4")),
        "done",
    ]
    both = _run(script, mode, lambda impl: {"middleware": [_exclusion(impl, names)]}, tools=[lookup, other])
    assert_parity(both)
    offered = both.ref.calls[0].tool_names
    assert not names & set(offered)
    results = {m.tool_call_id: m.content for m in both.ref.unwrap()["messages"] if m.type == "tool"}
    for call_id, name in (("c1", "lookup"), ("c3", "grep"), ("c4", "write_file")):
        assert (results[call_id] == f"Error: {name} is not available.") == (name in names)


def test_tool_exclusion_in_langchain_create_agent() -> None:
    script = [ai_tool_calls(("lookup", {"key": "a"}, "c1"), ("other", {"key": "b"}, "c2")), "done"]
    seen = {}
    for impl in IMPLS:
        model = ScriptedChatModel(list(script))
        agent = create_agent(model, tools=[lookup, other], middleware=[_exclusion(impl, frozenset({"lookup"}))])
        out = asyncio.run(agent.ainvoke({"messages": [HumanMessage(content="go")]}))
        seen[impl] = (norm(out["messages"]), [call_view(c) for c in model.calls])
    assert seen["deepagents_rs"] == seen["deepagents"]
    assert [t["function"]["name"] for t in seen["deepagents"][1][0]["tools"]] == ["other"]


# --------------------------------------------------------------------------------------------
# _LazyAnthropicPromptCachingMiddleware and the optional caching factories
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_lazy_anthropic_caching_in_a_deep_agent_leaves_other_models_alone(mode: str) -> None:
    script = [ai_tool_calls(("lookup", {"key": "a"}, "c1")), "done"]

    def kwargs(impl: str) -> dict[str, Any]:
        return {"middleware": [mod(impl, "middleware._prompt_caching")._LazyAnthropicPromptCachingMiddleware()]}

    assert_parity(_run(script, mode, kwargs, tools=[lookup]))


def test_lazy_anthropic_caching_names_and_exclusion_class(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = "langchain_anthropic.middleware.prompt_caching"
    real = importlib.import_module(loaded)
    for impl in IMPLS:
        lazy = mod(impl, "middleware._prompt_caching")._LazyAnthropicPromptCachingMiddleware()
        assert lazy.name == "AnthropicPromptCachingMiddleware"
        assert lazy.excluded_as is real.AnthropicPromptCachingMiddleware
        with monkeypatch.context() as patched:
            patched.delitem(sys.modules, loaded)
            assert lazy.excluded_as is type(lazy)
        assert lazy._delegate is None


def test_lazy_anthropic_caching_passes_other_models_through_in_create_agent() -> None:
    seen = {}
    for impl in IMPLS:
        model = ScriptedChatModel(["done"])
        lazy = mod(impl, "middleware._prompt_caching")._LazyAnthropicPromptCachingMiddleware()
        agent = create_agent(model, tools=[lookup], middleware=[lazy])
        out = agent.invoke({"messages": [HumanMessage(content="go")]})
        seen[impl] = (norm(out["messages"]), [call_view(c) for c in model.calls], lazy._delegate)
    assert seen["deepagents_rs"] == seen["deepagents"]


def _fake_caching_module(class_name: str) -> types.ModuleType:
    module = types.ModuleType("fake_caching")

    class Made:
        def __init__(self, **kwargs: Any) -> None:
            self.kwargs = kwargs

    setattr(module, class_name, Made)
    return module


FACTORIES = {
    "_create_bedrock_prompt_caching_middleware": ("langchain_aws", "BedrockPromptCachingMiddleware"),
    "_create_fireworks_prompt_caching_middleware": ("langchain_fireworks", "FireworksPromptCachingMiddleware"),
}


def _importer(outcome: str, package: str, class_name: str) -> Any:
    def import_module(name: str) -> Any:
        if outcome == "installed":
            return _fake_caching_module(class_name)
        missing = {
            "package": package,
            "middleware": f"{package}.middleware",
            "module": name,
            "transitive": "missing_transitive",
        }[outcome]
        raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)

    return import_module


@pytest.mark.parametrize("factory", FACTORIES)
@pytest.mark.parametrize("outcome", ["installed", "package", "middleware", "module", "transitive"])
def test_optional_caching_factories(factory: str, outcome: str, monkeypatch: pytest.MonkeyPatch) -> None:
    package, class_name = FACTORIES[factory]
    seen = {}
    for impl in IMPLS:
        module = mod(impl, "middleware._prompt_caching")
        monkeypatch.setattr(module, "import_module", _importer(outcome, package, class_name))
        try:
            made = getattr(module, factory)()
            seen[impl] = ("made", type(made).__name__, made.kwargs) if made is not None else ("none",)
        except ImportError as e:
            seen[impl] = ("raised", type(e).__name__, e.name)
    assert seen["deepagents_rs"] == seen["deepagents"]
    expected = {"installed": "made", "transitive": "raised"}.get(outcome, "none")
    assert seen["deepagents"][0] == expected


def test_append_prompt_caching_middleware() -> None:
    seen = {}
    for impl in IMPLS:
        stack: list[Any] = []
        mod(impl, "middleware._prompt_caching").append_prompt_caching_middleware(stack)
        seen[impl] = [(type(m).__name__, m.name) for m in stack]
    assert seen["deepagents_rs"] == seen["deepagents"]
    assert seen["deepagents"][0] == ("_LazyAnthropicPromptCachingMiddleware", "AnthropicPromptCachingMiddleware")


# --------------------------------------------------------------------------------------------
# graph._apply_custom_middleware and the required middleware
# --------------------------------------------------------------------------------------------


def _named(label: str, name: str) -> AgentMiddleware:
    """A middleware called `name`, told apart from others of that name by `label`."""
    made = type(f"M_{label}", (AgentMiddleware,), {"label": label})()
    type(made).name = property(lambda self, name=name: name)  # type: ignore[assignment]
    return made


BASE = [
    ("fs", "FilesystemMiddleware"),
    ("sub", "SubAgentMiddleware"),
    ("patch", "PatchToolCallsMiddleware"),
    ("cache", "Cache"),
    ("mem", "Memory"),
]
CUSTOM = {
    "none": [],
    "new-ones": [("n1", "First"), ("n2", "Second")],
    "replace-core": [("p2", "PatchToolCallsMiddleware")],
    "replace-tail-and-new": [("c2", "Cache"), ("n1", "First")],
    "replace-twice": [("c2", "Cache"), ("c3", "Cache")],
    "mixed": [("n1", "First"), ("s2", "SubAgentMiddleware"), ("n2", "Second"), ("m2", "Memory")],
    "duplicate-new": [("n1", "First"), ("n2", "First")],
}
CORE_NAMES = {
    "none": None,
    "core": {"FilesystemMiddleware", "SubAgentMiddleware", "PatchToolCallsMiddleware"},
    "first-only": {"FilesystemMiddleware"},
    "absent": {"Nothing"},
    "empty": set(),
}


@pytest.mark.parametrize("custom", CUSTOM)
@pytest.mark.parametrize("core", CORE_NAMES)
def test_apply_custom_middleware(custom: str, core: str) -> None:
    base = [_named(*e) for e in BASE]
    extra = [_named(*e) for e in CUSTOM[custom]]
    seen = {}
    for impl in IMPLS:
        merged = mod(impl, "graph")._apply_custom_middleware(base, extra, core_names=CORE_NAMES[core])
        assert merged is not base
        seen[impl] = [m.label for m in merged]
    assert seen["deepagents_rs"] == seen["deepagents"]


def _fs(impl: str, rules: list[tuple] | None) -> Any:
    api = importlib.import_module(impl)
    permissions = [api.FilesystemPermission(operations=list(o), paths=list(p), mode=m) for o, p, m in rules or ()]
    return api.FilesystemMiddleware(permissions=permissions or None)


RULES = {
    "none": None,
    "deny-vault": [(["read"], ["/vault/**"], "deny")],
    "deny-other": [(["write"], ["/other/**"], "deny")],
}


@pytest.mark.parametrize("base_rules", RULES)
@pytest.mark.parametrize("custom_rules", RULES)
def test_apply_custom_middleware_filesystem_permissions(base_rules: str, custom_rules: str) -> None:
    seen = {}
    for impl in IMPLS:
        base, custom = _fs(impl, RULES[base_rules]), _fs(impl, RULES[custom_rules])
        try:
            merged = mod(impl, "graph")._apply_custom_middleware([base], [custom])
        except ValueError as e:
            seen[impl] = ("raised", str(e))
            continue
        (only,) = merged
        rules = [(list(r.operations), list(r.paths), r.mode) for r in only._permissions]
        seen[impl] = ("merged", only is custom, isinstance(only, type(custom)), rules)
    assert seen["deepagents_rs"] == seen["deepagents"]


def test_required_middleware() -> None:
    seen = {}
    for impl in IMPLS:
        graph = mod(impl, "graph")
        classes = graph._REQUIRED_MIDDLEWARE_CLASSES
        seen[impl] = (type(classes), sorted(c.__name__ for c in classes), graph._REQUIRED_MIDDLEWARE_NAMES)
        assert mod(impl, "middleware").FilesystemMiddleware in classes
    assert seen["deepagents_rs"] == seen["deepagents"]


# --------------------------------------------------------------------------------------------
# A SubAgent spec's explicit `mode: None`
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_subagent_mode_none_is_the_default(mode: str) -> None:
    script = [
        ai_tool_calls(("task", {"description": "look it up", "subagent_type": "helper"}, "t1")),
        ai_tool_calls(("lookup", {"key": "k"}, "s1")),
        "found",
        "done",
    ]
    spec = {"name": "helper", "description": "Helps.", "system_prompt": "Help.", "tools": [lookup], "mode": None}
    both = _run(script, mode, lambda impl: {"subagents": [dict(spec)]})
    assert_parity(both)
    assert both.ref.unwrap()["messages"][-1].content == "done"


@pytest.mark.filterwarnings("ignore:The feature `forked subagents` is in beta")
def test_subagent_mode_checks() -> None:
    seen = {}
    for impl in IMPLS:
        api = importlib.import_module(impl)
        out = []
        for mode in ("bogus", "", 0, "fork"):
            spec = {
                "name": "helper",
                "description": "Helps.",
                "system_prompt": "Help.",
                "mode": mode,
                "skills": ["/s/"],
            }
            try:
                api.create_deep_agent(model=ScriptedChatModel([]), subagents=[spec])
                out.append("built")
            except ValueError as e:
                out.append(str(e))
        seen[impl] = out
    assert seen["deepagents_rs"] == seen["deepagents"]
