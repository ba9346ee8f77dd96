"""Harness profiles through both implementations on the simulated OpenAI and Anthropic APIs with
model strings: the built-in Anthropic and Codex profiles and a custom one, every request body
byte for byte (the OpenAI ``prompt_cache_key``, which deepagents_rs adds on purpose, aside)."""

from __future__ import annotations

import importlib
import json
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .harness_profiles_support import IMPLS, lookup, register
from .profile_support import BOTH, Impl, compare, isolated_profiles, outcome  # noqa: F401 - autouse fixture

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

# --------------------------------------------------------------------------------------------
# The built-in profiles on the simulated APIs
# --------------------------------------------------------------------------------------------


@pytest.fixture
def sim_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], Any]]:
    """A fresh simulated OpenAI API per call (its ids count from 1 again), wired in through
    the environment."""
    from sim.openai import SimOpenAI

    servers: list[Any] = []
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")

    def start() -> Any:
        server = SimOpenAI(min_cache_tokens=256).__enter__()
        servers.append(server)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def _openai_bodies(server: Any) -> list[dict[str, Any]]:
    out = []
    for request in server.requests:
        body = dict(request.body)
        body.pop("prompt_cache_key", None)
        out.append(body)
    return out


CODEX = "openai:gpt-5.1-codex"


@pytest.mark.parametrize("subagent", ["general-purpose", "fork"])
def test_the_codex_profile_on_the_openai_wire(sim_openai: Callable[[], Any], subagent: str) -> None:
    from sim.openai import text, tool_calls

    todos = {"todos": [{"content": "plan", "status": "in_progress"}]}
    bodies, results = {}, {}
    for impl, module in IMPLS.items():
        server = sim_openai()
        server.script(
            tool_calls(("write_todos", todos)),
            tool_calls(("task", {"description": "do the step", "subagent_type": subagent})),
            tool_calls(("write_todos", {"todos": [{"content": "step", "status": "completed"}]})),
            text("step done"),
            text("all done"),
        )
        subagents = [{"name": "fork", "description": "Forks.", "mode": "fork"}] if subagent == "fork" else None
        agent = module.create_deep_agent(model=CODEX, system_prompt="Be useful.", subagents=subagents)
        result = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
        bodies[impl] = _openai_bodies(server)
        results[impl] = (result["todos"], [(m.type, m.text) for m in result["messages"]])
    assert len(bodies["deepagents"]) == 5
    for i, (theirs, ours) in enumerate(zip(bodies["deepagents"], bodies["deepagents_rs"], strict=True)):
        assert json.dumps(ours) == json.dumps(theirs), f"request {i} differs"
    assert results["deepagents_rs"] == results["deepagents"]
    first = bodies["deepagents"][0]
    assert [t["name"] for t in first["tools"]][-1] == "write_todos"
    system_blocks = first["input"][0]["content"]
    assert system_blocks[0]["text"].startswith("Be useful.\n\n## Codex-Specific Behavior")
    assert system_blocks[1]["text"].startswith("\n\n## `write_todos`")
    # The subagent has its own to-do list middleware and the suffix as well.
    child = bodies["deepagents"][2]
    assert "write_todos" in [t["name"] for t in child["tools"]]
    assert "## Codex-Specific Behavior" in child["input"][0]["content"][0]["text"]


def _anthropic_bodies(sim: Any, module: Any, **kwargs: Any) -> list[str]:
    from sim.anthropic import text, tool_use

    start = len(sim.requests)
    sim.script(
        tool_use(("task", {"description": "look", "subagent_type": "haiku"}, "toolu_1")),
        tool_use(("lookup", {"key": "k"}, "toolu_2")),
        text("haiku done"),
        text("Done."),
    )
    subagents = [{"name": "haiku", "description": "Quick.", "model": "anthropic:claude-haiku-4-5"}]
    agent = module.create_deep_agent(tools=[lookup], subagents=subagents, **kwargs)
    agent.invoke({"messages": [{"role": "user", "content": "Look k up."}]})
    return [json.dumps(r.body, ensure_ascii=False, separators=(",", ":")) for r in sim.requests[start:]]


ANTHROPIC_CASES: dict[str, Callable[[str], dict[str, Any]]] = {
    # The built-in Sonnet 4.6 suffix, and the Haiku 4.5 one on the subagent of that model.
    "built-in": lambda impl: {},
    "custom-without-caching": lambda impl: {
        "excluded_middleware": frozenset({"AnthropicPromptCachingMiddleware"}),
        "tool_description_overrides": {"lookup": "Look it up."},
        "excluded_tools": frozenset({"glob"}),
    },
    "caching-by-class": lambda impl: {
        "excluded_middleware": frozenset(
            {importlib.import_module("langchain_anthropic.middleware").AnthropicPromptCachingMiddleware}
        )
    },
}


@pytest.mark.parametrize("case", ANTHROPIC_CASES)
def test_profiles_on_the_anthropic_wire(sim: Any, case: str) -> None:
    bodies = {}
    for impl, module in IMPLS.items():
        fields = ANTHROPIC_CASES[case](impl)
        if fields:
            register(impl, "anthropic", **fields)
        bodies[impl] = _anthropic_bodies(sim, module, model="anthropic:claude-sonnet-4-6", system_prompt="Hi.")
    assert len(bodies["deepagents"]) == 4
    for i, (theirs, ours) in enumerate(zip(bodies["deepagents"], bodies["deepagents_rs"], strict=True)):
        assert ours == theirs, f"request {i} differs"
    main, child = (json.loads(b)["system"] for b in bodies["deepagents"][:2])
    # Without the caching middleware, nothing makes the prompt blocks: it goes as a string.
    assert isinstance(main, str) == (case != "built-in")
    for system in (main, child):
        text = system if isinstance(system, str) else "".join(b["text"] for b in system)
        assert "<use_parallel_tool_calls>" in text
    if case == "built-in":
        assert main[-1]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}


SUFFIX_START = "<use_parallel_tool_calls>"


@pytest.mark.parametrize("model", ["anthropic:claude-sonnet-4-6", "claude-sonnet-4-6", None])
def test_which_spec_a_profile_matches_on_the_anthropic_wire(sim: Any, model: str | None) -> None:
    from sim.anthropic import text, tool_use

    bodies = {}
    for impl, module in IMPLS.items():
        start = len(sim.requests)
        sim.script(
            tool_use(("task", {"description": "look", "subagent_type": "helper"}, "toolu_1")), text("ok"), text("Done.")
        )
        # A subagent without a model of its own: deepagents looks its profile up on the chat
        # model it built for the parent, by provider and identifier.
        helper = {"name": "helper", "description": "Helps.", "system_prompt": "Help."}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agent = module.create_deep_agent(model=model, subagents=[helper], system_prompt="Hi.")
        agent.invoke({"messages": [{"role": "user", "content": "Go."}]})
        bodies[impl] = [json.dumps(r.body, ensure_ascii=False, separators=(",", ":")) for r in sim.requests[start:]]
    assert bodies["deepagents_rs"] == bodies["deepagents"]
    main, child = (json.loads(b)["system"] for b in bodies["deepagents"][:2])
    # A model string is looked up as written: the bare model name matches no key.
    assert (SUFFIX_START in main[0]["text"]) == (model != "claude-sonnet-4-6")
    assert SUFFIX_START in child[0]["text"]


def test_a_config_registered_for_a_provider_on_the_anthropic_wire(sim: Any) -> None:
    config = {
        "system_prompt_suffix": "Keep it short.",
        "tool_description_overrides": {"task": "Hand work off.\n\n{available_agents}", "glob": "Find paths."},
        "excluded_tools": ["write_file", "edit_file"],
        "excluded_middleware": ["AnthropicPromptCachingMiddleware"],
        "general_purpose_subagent": {"description": "Does anything."},
    }
    bodies = {}
    for impl, module in IMPLS.items():
        module.register_harness_profile("anthropic", module.HarnessProfileConfig.from_dict(config))
        bodies[impl] = _anthropic_bodies(sim, module, model="anthropic:claude-sonnet-4-5")
    assert bodies["deepagents_rs"] == bodies["deepagents"]
    main = json.loads(bodies["deepagents"][0])
    assert main["system"] == "Keep it short."
    tools = {t["name"]: t["description"] for t in main["tools"]}
    assert "write_file" not in tools and tools["glob"] == "Find paths."
    assert tools["task"].startswith("Hand work off.\n\n- general-purpose: Does anything.")
