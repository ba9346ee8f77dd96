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
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage

from .harness import FS_TOOLS, MODES, ScriptedChatModel, ai_tool_calls
from .harness_profiles_support import IMPLS, SCRIPTED, Notes, Stamp, graph_shape, lookup, register, task
from .middleware_support import Ctx, check, run_pair
from .profile_support import BOTH, Impl, compare, isolated_profiles, outcome  # noqa: F401 - autouse fixture

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

USER = {"messages": [{"role": "user", "content": "please help"}]}


OTHER = "othermodel"


class OtherModel(ScriptedChatModel):
    """A scripted model reporting the provider ``othermodel`` (and an identifier, if given)."""

    model_name: str | None = None


def plain(text: str) -> str:
    """Echo the text (a plain function: no profile rewrites its description)."""
    return text


SPEC_TOOL = {
    "name": "spec_tool",
    "description": "A dict tool.",
    "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
}


def tool_names(call: Any) -> list[str]:
    return [t["function"]["name"] for t in call.tools]


def descriptions(call: Any) -> dict[str, str]:
    return {t["function"]["name"]: t["function"]["description"] for t in call.tools}


def system_text(call: Any) -> str:
    first = call.messages[0]
    assert first.type == "system"
    return first.text


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
