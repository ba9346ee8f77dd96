"""Harness profiles through both implementations: ``HarnessProfile``, ``HarnessProfileConfig``,
``GeneralPurposeSubagentProfile`` and ``register_harness_profile`` on deepagents 0.7.32 and
deepagents_rs.

Each implementation gets the same profile in its own registry (built from its own classes),
and the same scenario:

- with scripted models (``ScriptedChatModel`` reports the provider ``scriptedchatmodel``,
  ``OtherModel`` the provider ``othermodel``, so a profile under either key applies to it),
  everything ``test_middleware.check`` compares: each model's requests (messages, tool
  schemas, call kwargs), the result, the graph's nodes, the stream's node sequence;
- on the simulated Anthropic and OpenAI APIs with model strings (the built-in Anthropic
  and Codex profiles, a custom one), every request body byte for byte (the OpenAI
  ``prompt_cache_key``, which deepagents_rs adds on purpose, aside);
- the registry itself (lookups with their log records, merges, serialization, the
  bootstrap's harness plugins), and the errors deepagents raises for bad input, by class
  and message.

Each test also asserts some of deepagents' own answer, so a scenario cannot quietly stop
testing what it was written for.
"""

from __future__ import annotations

import importlib
import json
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from unittest.mock import patch

import deepagents
import deepagents_rs
import pytest
from langchain.agents.middleware import AgentMiddleware, ModelRequest
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from .harness import FS_TOOLS, MODES, ScriptedChatModel, ai_tool_calls
from .profile_support import BOTH, Impl, compare, isolated_profiles, outcome  # noqa: F401 - autouse fixture
from .test_middleware import Ctx, check, run_pair

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = {"deepagents": deepagents, "deepagents_rs": deepagents_rs}
USER = {"messages": [{"role": "user", "content": "please help"}]}
SCRIPTED = "scriptedchatmodel"
OTHER = "othermodel"


class OtherModel(ScriptedChatModel):
    """A scripted model reporting the provider ``othermodel`` (and an identifier, if given)."""

    model_name: str | None = None


def hp(impl: str) -> Any:
    """An implementation's ``harness_profiles`` module."""
    return importlib.import_module(f"{impl}.profiles.harness.harness_profiles")


def profile(impl: str, **fields: Any) -> Any:
    return IMPLS[impl].HarnessProfile(**fields)


def register(impl: str, key: str, **fields: Any) -> None:
    IMPLS[impl].register_harness_profile(key, profile(impl, **fields))


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def plain(text: str) -> str:
    """Echo the text (a plain function: no profile rewrites its description)."""
    return text


SPEC_TOOL = {
    "name": "spec_tool",
    "description": "A dict tool.",
    "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
}


class Notes(AgentMiddleware):
    """Profile middleware with a model-call effect (a prompt section), a tool, and a hook node."""

    def __init__(self, text: str = "NOTES") -> None:
        super().__init__()
        self.text = text

        @tool
        def note(entry: str) -> str:
            """Write a note."""
            return f"noted {entry}"

        self.tools = [note]

    def _with_notes(self, request: ModelRequest) -> ModelRequest:
        blocks = list(request.system_message.content_blocks) if request.system_message is not None else []
        return request.override(system_message=SystemMessage(content=[*blocks, {"type": "text", "text": self.text}]))

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(self._with_notes(request))

    async def awrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return await handler(self._with_notes(request))

    def after_model(self, state: Any, runtime: Any) -> None:
        return None


class Stamp(AgentMiddleware):
    """User middleware (a prompt section) that a profile may exclude by class."""

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(request.override(system_message=SystemMessage(content="stamped")))

    async def awrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return await handler(request.override(system_message=SystemMessage(content="stamped")))


def task(description: str, subagent_type: str, call_id: str = "t1") -> tuple:
    return ("task", {"description": description, "subagent_type": subagent_type}, call_id)


def tool_names(call: Any) -> list[str]:
    return [t["function"]["name"] for t in call.tools]


def descriptions(call: Any) -> dict[str, str]:
    return {t["function"]["name"]: t["function"]["description"] for t in call.tools}


def system_text(call: Any) -> str:
    first = call.messages[0]
    assert first.type == "system"
    return first.text


def graph_shape(impl: str, **kwargs: Any) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """The compiled graph's nodes and edges (sorted: each implementation adds them in its own
    order), which say which middleware hooks run and in what order."""
    graph = IMPLS[impl].create_deep_agent(**kwargs).get_graph()
    return sorted(graph.nodes), sorted((e.source, e.target, e.conditional) for e in graph.edges)


MAIN_PROFILE = {
    "system_prompt_suffix": "Be brief.",
    "tool_description_overrides": {
        "ls": "List a directory.",
        "lookup": "Look a key up, fast.",
        "plain": "Never applied: a plain function has no description hook.",
        "spec_tool": "A dict tool, described by the profile.",
        "task": "Delegate.\n\n{available_agents}\n\nUse it well.",
    },
    "excluded_tools": frozenset({"grep", "write_file"}),
}


def _main_profile(impl: str, **more: Any) -> None:
    register(impl, SCRIPTED, **MAIN_PROFILE, extra_middleware=lambda: [Notes()], **more)


# --------------------------------------------------------------------------------------------
# A registered profile: the main agent and the general-purpose subagent
# --------------------------------------------------------------------------------------------

PROMPTS: dict[str, Callable[[], Any]] = {
    "str": lambda: "You are careful.",
    "none": lambda: None,
    "empty": lambda: "",
    "system-message": lambda: SystemMessage(content=[{"type": "text", "text": "First."}]),
    "empty-system-message": lambda: SystemMessage(content=""),
}


@pytest.mark.parametrize("prompt", PROMPTS)
@pytest.mark.parametrize("mode", [*MODES, "stream"])
def test_a_registered_profile_shapes_the_agent_and_its_general_purpose_subagent(prompt: str, mode: str) -> None:
    script = [
        # An excluded tool called anyway is refused; the others run.
        ai_tool_calls(("lookup", {"key": "a"}, "c1"), ("grep", {"pattern": "x"}, "c2"), ("note", {"entry": "n"}, "c3")),
        ai_tool_calls(task("research it", "general-purpose")),
        ai_tool_calls(("write_file", {"file_path": "/a.md", "content": "x"}, "c4")),
        "found it",
        "done",
    ]

    def setup(ctx: Ctx) -> dict[str, Any]:
        _main_profile(ctx.impl)
        return {"tools": [lookup, plain, SPEC_TOOL], "system_prompt": PROMPTS[prompt]()}

    both = run_pair(script, setup, mode=mode)
    result, _ = check(both)
    calls = both.ref.calls
    main, child = calls[0], calls[2]
    assert "grep" not in tool_names(main) and "write_file" not in tool_names(main)
    assert tool_names(main)[-4:] == ["note", "lookup", "plain", "spec_tool"]
    assert descriptions(main)["ls"] == "List a directory."
    assert descriptions(main)["lookup"] == "Look a key up, fast."
    assert descriptions(main)["plain"] == plain.__doc__
    assert descriptions(main)["spec_tool"] == "A dict tool, described by the profile."
    assert descriptions(main)["task"].startswith("Delegate.\n\n- general-purpose: General-purpose agent")
    assert "Be brief." in system_text(main) and system_text(main).endswith("NOTES")
    # The general-purpose subagent: the profile's tools, suffix and middleware, no task tool.
    assert tool_names(child) == [t for t in tool_names(main) if t != "task"]
    assert system_text(child).endswith("complete answer.\n\nBe brief.NOTES")
    refused = calls[3].messages[-1]
    assert (refused.name, refused.content, refused.status) == (
        "write_file",
        "Error: write_file is not available.",
        "error",
    )
    if mode != "stream":
        refused = [m for m in result["messages"] if isinstance(m, ToolMessage) and m.status == "error"]
        assert [(m.name, m.content) for m in refused] == [("grep", "Error: grep is not available.")]


def test_the_graph_has_the_profiles_middleware_nodes() -> None:
    seen = {}
    for impl in IMPLS:
        _main_profile(impl)
        seen[impl] = graph_shape(impl, model=ScriptedChatModel([]), interrupt_on={"lookup": True}, tools=[lookup])
    assert seen["deepagents_rs"] == seen["deepagents"]
    # The profile's middleware comes before human-in-the-loop, whose after_model runs first.
    edges = seen["deepagents"][1]
    assert ("model", "HumanInTheLoopMiddleware.after_model", False) in edges
    assert ("HumanInTheLoopMiddleware.after_model", "Notes.after_model", False) in edges


@pytest.mark.parametrize("mode", MODES)
def test_base_prompt_and_general_purpose_edits(mode: str) -> None:
    script = [ai_tool_calls(task("research it", "general-purpose")), "found it", "done"]
    gp_edits = {"description": "Does the legwork.", "system_prompt": "You do the legwork."}

    def setup(ctx: Ctx) -> dict[str, Any]:
        gp = IMPLS[ctx.impl].GeneralPurposeSubagentProfile(**gp_edits)
        register(ctx.impl, SCRIPTED, base_system_prompt="Profile base.", system_prompt_suffix="Suffix.")
        register(ctx.impl, SCRIPTED, general_purpose_subagent=gp)
        return {"system_prompt": "Caller."}

    both = run_pair(script, setup, mode=mode)
    check(both)
    main, child = both.ref.calls[0], both.ref.calls[1]
    assert system_text(main) == "Caller.\n\nProfile base.\n\nSuffix."
    # The general-purpose prompt wins over the base prompt; the suffix still follows.
    assert system_text(child) == "You do the legwork.\n\nSuffix."
    assert "- general-purpose: Does the legwork." in descriptions(main)["task"]


@pytest.mark.parametrize("with_subagent", [False, True])
def test_general_purpose_subagent_disabled(with_subagent: bool) -> None:
    script = [ai_tool_calls(task("check", "reviewer")), "ok", "done"] if with_subagent else ["done"]

    def setup(ctx: Ctx) -> dict[str, Any]:
        off = IMPLS[ctx.impl].GeneralPurposeSubagentProfile(enabled=False)
        register(ctx.impl, SCRIPTED, general_purpose_subagent=off)
        subagents = [{"name": "reviewer", "description": "Reviews.", "system_prompt": "Review."}]
        return {"subagents": subagents if with_subagent else None}

    both = run_pair(script, setup)
    check(both)
    main = both.ref.calls[0]
    if with_subagent:
        listed = descriptions(main)["task"]
        assert "- reviewer: Reviews." in listed and "- general-purpose:" not in listed
    else:
        # Nothing left to delegate to: no task tool.
        assert tool_names(main) == list(FS_TOOLS)


def test_a_model_profile_re_enables_what_its_provider_profile_disabled() -> None:
    seen = {}
    for impl, module in IMPLS.items():
        register(impl, OTHER, general_purpose_subagent=module.GeneralPurposeSubagentProfile(enabled=False))
        register(impl, f"{OTHER}:m1", general_purpose_subagent=module.GeneralPurposeSubagentProfile(enabled=True))
        seen[impl] = [graph_tools(module, OtherModel(["done"], model_name=name)) for name in ("m1", "m2")]
    assert seen["deepagents_rs"] == seen["deepagents"]
    assert "task" in seen["deepagents"][0] and "task" not in seen["deepagents"][1]


def graph_tools(module: Any, model: ScriptedChatModel) -> list[str]:
    """The tools the model is offered on its first call."""
    module.create_deep_agent(model=model).invoke(USER)
    return tool_names(model.calls[0])


# --------------------------------------------------------------------------------------------
# Declarative subagents and forks
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_declarative_subagent_takes_its_own_models_profile(mode: str) -> None:
    script = [
        ai_tool_calls(task("look it up", "other"), task("look again", "same", "t2")),
        "main done",
    ]

    def setup(ctx: Ctx) -> dict[str, Any]:
        _main_profile(ctx.impl)
        register(
            ctx.impl,
            OTHER,
            base_system_prompt="Other base.",
            system_prompt_suffix="Other suffix.",
            tool_description_overrides={"lookup": "Other lookup.", "read_file": "Read it."},
            excluded_tools=frozenset({"ls"}),
            extra_middleware=[Notes("OTHER NOTES")],
        )
        ctx.models["other"] = OtherModel([ai_tool_calls(("ls", {"path": "/"}, "o1")), "other done"])
        subagents = [
            {"name": "other", "description": "Other model.", "system_prompt": "Own.", "model": ctx.models["other"]},
            # No model of its own: the parent's model, so the parent's profile.
            {"name": "same", "description": "Same model.", "system_prompt": "Mine."},
        ]
        return {"tools": [lookup], "subagents": subagents}

    script.insert(1, "same done")
    both = run_pair(script, setup, mode=mode)
    check(both, concurrent=True)
    other = both.extras["ref"].ctx.models["other"].calls[0]
    assert system_text(other) == "Other base.\n\nOther suffix.OTHER NOTES"
    assert "ls" not in tool_names(other) and "grep" in tool_names(other)
    assert descriptions(other)["lookup"] == "Other lookup."
    assert descriptions(other)["read_file"] == "Read it."
    same = both.ref.calls[1]
    assert system_text(same) == "Mine.\n\nBe brief.NOTES"
    assert "grep" not in tool_names(same)


@pytest.mark.parametrize("mode", MODES)
def test_a_fork_of_the_same_model_runs_the_profiles_stack(mode: str) -> None:
    script = [
        ai_tool_calls(("lookup", {"key": "a"}, "c1")),
        ai_tool_calls(task("fix it", "fixer")),
        ai_tool_calls(("grep", {"pattern": "x"}, "f1"), ("note", {"entry": "fork"}, "f2")),
        "fixed",
        "done",
    ]

    def setup(ctx: Ctx) -> dict[str, Any]:
        _main_profile(ctx.impl)
        return {"tools": [lookup], "subagents": [{"name": "fixer", "description": "Fixes.", "mode": "fork"}]}

    both = run_pair(script, setup, mode=mode)
    check(both)
    parent, fork = both.ref.calls[1], both.ref.calls[2]
    assert fork.tools == parent.tools and system_text(fork) == system_text(parent)


@pytest.mark.parametrize("mode", MODES)
def test_a_fork_of_another_model_takes_that_models_profile(mode: str) -> None:
    script = [ai_tool_calls(task("fix it", "fixer")), "done"]

    def setup(ctx: Ctx) -> dict[str, Any]:
        _main_profile(ctx.impl)
        register(
            ctx.impl,
            OTHER,
            system_prompt_suffix="Other suffix.",
            tool_description_overrides={"lookup": "Other lookup.", "ls": "Other ls."},
            excluded_tools=frozenset({"ls"}),
            extra_middleware=lambda: [Notes("OTHER NOTES")],
        )
        ctx.models["fork"] = OtherModel(
            [ai_tool_calls(("ls", {"path": "/"}, "f1"), ("grep", {"pattern": "x"}, "f2")), "fixed"]
        )
        fork = {"name": "fixer", "description": "Fixes.", "mode": "fork", "model": ctx.models["fork"]}
        return {"tools": [lookup], "subagents": [fork]}

    both = run_pair(script, setup, mode=mode)
    check(both)
    fork = both.extras["ref"].ctx.models["fork"].calls[0]
    # The parent's prompt (its suffix, not the fork model's) with the fork profile's middleware.
    assert system_text(fork).endswith("Be brief.OTHER NOTES")
    assert "ls" not in tool_names(fork) and "grep" in tool_names(fork)
    assert descriptions(fork)["lookup"] == "Other lookup."


def test_a_fork_with_tools_of_its_own_keeps_the_profiles_middleware_tools() -> None:
    script = [ai_tool_calls(task("fix it", "fixer")), ai_tool_calls(("note", {"entry": "n"}, "f1")), "fixed", "done"]

    def setup(ctx: Ctx) -> dict[str, Any]:
        _main_profile(ctx.impl)
        fork = {"name": "fixer", "description": "Fixes.", "mode": "fork", "tools": [plain]}
        return {"tools": [lookup], "subagents": [fork]}

    both = run_pair(script, setup)
    check(both)
    assert "note" in tool_names(both.ref.calls[1])


# --------------------------------------------------------------------------------------------
# Middleware: exclusions and replacements
# --------------------------------------------------------------------------------------------

EXCLUSIONS: dict[str, Callable[[str], Any]] = {
    "patch-by-name": lambda impl: {"PatchToolCallsMiddleware"},
    # Each implementation's own class (ours is a LangChain middleware for the core's entry).
    "patch-by-class": lambda impl: {
        importlib.import_module(f"{impl}.middleware.patch_tool_calls").PatchToolCallsMiddleware
    },
    "parent-notifier-by-class": lambda impl: {_parent_notifier(impl)},
    "summarization-by-class": lambda impl: {importlib.import_module(f"{impl}.middleware").SummarizationMiddleware},
    "caching-by-name": lambda impl: {"AnthropicPromptCachingMiddleware"},
    "user-by-class": lambda impl: {Stamp},
    "profile-middleware-by-class": lambda impl: {Notes},
}


def _parent_notifier(impl: str) -> type:
    """The class of the main stack's parent-notifier entry (private in both)."""
    module = (
        "deepagents.middleware._parent_notifier"
        if impl == "deepagents"
        else f"{impl}.middleware._async_parent_notifier"
    )
    return importlib.import_module(module)._ParentNotifierMiddleware


@pytest.mark.parametrize("case", EXCLUSIONS)
@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_excluded_middleware(case: str, mode: str) -> None:
    # A dangling tool call in the input: PatchToolCallsMiddleware answers it, unless excluded.
    inp = {"messages": [*USER["messages"], AIMessage(content="", tool_calls=[{"name": "ls", "args": {}, "id": "x1"}])]}
    script = [ai_tool_calls(task("research", "general-purpose")), "found", "done"]

    def setup(ctx: Ctx) -> dict[str, Any]:
        register(ctx.impl, SCRIPTED, extra_middleware=lambda: [Notes()], excluded_middleware=EXCLUSIONS[case](ctx.impl))
        return {"middleware": [Stamp()] if case == "user-by-class" else []}

    both = run_pair(script, setup, inp, mode=mode)
    check(both)
    main = both.ref.calls[0]
    if case in ("patch-by-name", "patch-by-class"):
        assert not any(isinstance(m, ToolMessage) for m in main.messages)
    else:
        assert any(isinstance(m, ToolMessage) for m in main.messages)
    if case == "profile-middleware-by-class":
        assert "note" not in tool_names(main) and not system_text(main).endswith("NOTES")


@pytest.mark.parametrize("form", ["class", "name"])
@pytest.mark.parametrize("subagents", [True, False], ids=["with-subagents", "no-subagents"])
def test_the_task_tools_middleware_cannot_be_excluded(form: str, subagents: bool) -> None:
    """`SubAgentMiddleware` is scaffolding: a profile excluding it (each implementation's own
    class, or its name) is refused with deepagents' words."""
    errors = []
    for impl in ("deepagents", "deepagents_rs"):
        cls = importlib.import_module(f"{impl}.middleware").SubAgentMiddleware
        kwargs = {} if subagents else {"subagents": []}
        with pytest.raises(ValueError) as caught:
            register(impl, SCRIPTED, excluded_middleware={cls if form == "class" else "SubAgentMiddleware"})
            IMPLS[impl].create_deep_agent(model=ScriptedChatModel(["done"]), **kwargs)
        errors.append(str(caught.value))
    assert errors[1] == errors[0]
    assert "SubAgentMiddleware" in errors[0]


def test_a_user_middleware_of_a_profile_middlewares_name_takes_its_place() -> None:
    script = [ai_tool_calls(task("research", "general-purpose")), "found", "done"]

    def setup(ctx: Ctx) -> dict[str, Any]:
        _main_profile(ctx.impl)
        return {"middleware": [Notes("MINE")]}

    both = run_pair(script, setup)
    check(both)
    # The general-purpose subagent inherits the caller's instance in that slot too.
    assert system_text(both.ref.calls[0]).endswith("MINE") and system_text(both.ref.calls[1]).endswith("MINE")


def test_profile_middleware_factories_are_called_once_per_stack() -> None:
    seen: dict[str, list[str]] = {}
    for impl, module in IMPLS.items():
        made: list[str] = []

        def factory(made: list[str] = made) -> list[Any]:
            made.append("made")
            return [Notes()]

        register(impl, SCRIPTED, extra_middleware=factory)
        subagents = [
            {"name": "a", "description": "A."},
            {"name": "f", "description": "F.", "mode": "fork"},
            {"name": "c", "description": "C.", "runnable": module.create_deep_agent(model=OtherModel([]))},
        ]
        module.create_deep_agent(model=ScriptedChatModel([]), subagents=subagents)
        seen[impl] = made
    # Declarative subagents, forks included, the general-purpose one and the main agent; not
    # a compiled subagent.
    assert seen["deepagents_rs"] == seen["deepagents"] == ["made"] * 4


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
