"""Skill tools (``SkillsMiddleware(tools=...)``) through both implementations.

A skill lists tools under ``metadata.include_tools``; the model is offered them once it has
read that skill's ``SKILL.md`` (or the skill is pinned), for as long as the read stays in the
conversation, and a call to one before that fails as an unknown tool. Each scenario runs
deepagents and deepagents_rs on the same scripted model and compares every request the model
got (its messages and its tools, in order), the run's messages, the private record
``_skill_tools_disclosed`` in the checkpointed state, the resolver's calls and the warnings
logged; each also checks what it is about on the deepagents_rs side directly, so a change
to both would not pass unseen.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, StructuredTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel, Field

from .harness import MODES, Both, Outcome, ScriptedChatModel, ai_tool_calls, assert_parity, call_view, norm

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = ("deepagents", "deepagents_rs")
_SESSION = re.compile(r"session_[0-9a-f]{32}")
CRM_PATH = "/skills/crm/SKILL.md"


def skill_md(name: str, include: str | None, body: str = "Use the tools.\n") -> str:
    meta = f"metadata:\n  include_tools: {include}\n" if include is not None else ""
    return f"---\nname: {name}\ndescription: The {name} skill.\n{meta}---\n\n{body}"


def files(**texts: str) -> dict[str, Any]:
    return {path: {"content": text, "encoding": "utf-8"} for path, text in texts.items()}


@tool
def create_request(title: str) -> str:
    """Create a customer request."""
    return f"created {title}"


@tool
def list_requests() -> str:
    """List the customer requests."""
    return "no requests"


def read(path: str = CRM_PATH, **args: Any) -> AIMessage:
    return ai_tool_calls(("read_file", {"file_path": path, **args}))


def call(name: str, **args: Any) -> AIMessage:
    return ai_tool_calls((name, args))


@dataclass
class Run:
    """One implementation's run: the model's calls, the result or error, the state after it,
    what the resolver was asked (when the scenario's resolver keeps a log) and the warnings."""

    outcome: Outcome
    state: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def run_impl(
    impl: str,
    script: list[Any],
    *,
    skill_tools: Any = None,
    mode: str = "invoke",
    inp: dict[str, Any] | None = None,
    model: ScriptedChatModel | None = None,
    agent_tools: list[Any] | None = None,
    middleware: Callable[[Any], list[Any]] | None = None,
    caplog: pytest.LogCaptureFixture | None = None,
    context: Any = None,
    response_format: Any = None,
) -> Run:
    module = importlib.import_module(impl)
    backends = importlib.import_module(f"{impl}.backends")
    skills_mw = importlib.import_module(f"{impl}.middleware").SkillsMiddleware
    model = model if model is not None else ScriptedChatModel(list(script))
    kwargs: dict[str, Any] = {} if skill_tools is None else {"tools": skill_tools}
    mw = [skills_mw(backend=backends.StateBackend(), sources=["/skills/"], **kwargs)]
    if middleware is not None:
        mw = [*middleware(module), *mw]
    extra: dict[str, Any] = {} if context is None else {"context_schema": type(context)}
    if response_format is not None:
        extra["response_format"] = response_format
    agent = module.create_deep_agent(
        model=model, tools=agent_tools, middleware=mw, checkpointer=InMemorySaver(), **extra
    )
    run_kwargs: dict[str, Any] = {} if context is None else {"context": context}
    config = {"configurable": {"thread_id": "t"}}
    outcome = Outcome(impl=impl, model=model)
    if caplog is not None:
        caplog.clear()
    try:
        if mode == "invoke":
            outcome.result = agent.invoke(inp, config, **run_kwargs)
        else:
            outcome.result = asyncio.run(agent.ainvoke(inp, config, **run_kwargs))
    except Exception as exc:  # noqa: BLE001 - compared below
        outcome.error = exc
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] if caplog else []
    return Run(outcome=outcome, state=dict(agent.get_state(config).values), warnings=warnings)


def run_both(script: list[Any], skill_tools: Callable[[], Any] | None = None, **kwargs: Any) -> tuple[Run, Run]:
    """Both implementations, each with its own ``skill_tools()`` (a resolver keeps a log per
    run) and its own scripted model; the requests, results and records compared."""
    runs = [run_impl(impl, script, skill_tools=skill_tools() if skill_tools else None, **kwargs) for impl in IMPLS]
    ref, rs = runs
    assert_parity(Both(ref=ref.outcome, rs=rs.outcome))
    assert rs.state.get("_skill_tools_disclosed") == ref.state.get("_skill_tools_disclosed")
    assert rs.warnings == ref.warnings
    return ref, rs


def tool_names(run: Run) -> list[list[str]]:
    return [[t["function"]["name"] for t in c.tools] for c in run.outcome.calls]


def tool_results(run: Run) -> list[tuple[str, str, str]]:
    messages = run.outcome.unwrap()["messages"]
    return [(m.name, m.status, str(m.content)) for m in messages if m.type == "tool"]


def inp(*, pinned: list[str] | None = None, **texts: str) -> dict[str, Any]:
    out: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}], "files": files(**texts)}
    if pinned is not None:
        out["pinned_skills"] = pinned
    return out


CRM = {CRM_PATH: skill_md("crm", "create_request list_requests")}


# --------------------------------------------------------------------------------------------
# A list of tools
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_list_is_disclosed_by_a_read_and_gated_before_it(mode: str) -> None:
    script = [
        call("create_request", title="early"),
        read(limit=5),
        call("create_request", title="late"),
        AIMessage(content="done"),
    ]
    _, rs = run_both(script, lambda: [create_request, list_requests], mode=mode, inp=inp(**CRM))
    names = tool_names(rs)
    assert "create_request" not in names[0] and "create_request" not in names[1]
    # Appended after the agent's tools, sorted by name.
    assert names[2][-2:] == names[3][-2:] == ["create_request", "list_requests"]
    results = tool_results(rs)
    assert results[0][:2] == ("create_request", "error")
    assert results[0][2].startswith("Error: create_request is not a valid tool, try one of [ls, read_file")
    assert results[2] == ("create_request", "success", "created late")
    assert rs.state["_skill_tools_disclosed"] == {"create_request": "create_request", "list_requests": "list_requests"}


class Verdict(BaseModel):
    """The final verdict."""

    ok: bool


def test_skill_tools_come_before_the_structured_output_tool() -> None:
    script = [read(), ai_tool_calls(("Verdict", {"ok": True}))]
    _, rs = run_both(script, lambda: [create_request], inp=inp(**CRM), response_format=Verdict)
    assert tool_names(rs)[1][-2:] == ["create_request", "Verdict"]
    assert rs.outcome.unwrap()["structured_response"] == Verdict(ok=True)


def test_plain_functions_are_converted_and_a_failed_read_discloses_nothing() -> None:
    def shout(text: str) -> str:
        """Shout the text."""
        return text.upper()

    skills = {CRM_PATH: skill_md("crm", "shout")}
    script = [
        read("/skills/crm/SKILL.md", offset=999),
        read("/skills/other/SKILL.md"),
        call("shout", text="no"),
        read(),
        call("shout", text="yes"),
        AIMessage(content="done"),
    ]
    _, rs = run_both(script, lambda: [shout], inp=inp(**skills))
    names = tool_names(rs)
    # A read past the end of the file is an error result: it read nothing.
    assert [r[1] for r in tool_results(rs)] == ["error", "error", "error", "success", "success"]
    assert all("shout" not in n for n in names[:4]) and names[4][-1] == "shout"
    assert tool_results(rs)[-1][2] == "YES"


def test_a_pinned_skill_discloses_from_the_first_call() -> None:
    script = [call("list_requests"), AIMessage(content="done")]
    _, rs = run_both(script, lambda: [create_request, list_requests], inp=inp(pinned=["crm"], **CRM))
    assert tool_names(rs)[0][-2:] == ["create_request", "list_requests"]
    assert tool_results(rs) == [("list_requests", "success", "no requests")]


def test_a_skill_without_include_tools_or_an_unread_one_discloses_nothing() -> None:
    skills = {CRM_PATH: skill_md("crm", None), "/skills/ops/SKILL.md": skill_md("ops", "create_request")}
    script = [read(), call("create_request", title="x"), AIMessage(content="done")]
    _, rs = run_both(script, lambda: [create_request], inp=inp(**skills))
    assert all("create_request" not in names for names in tool_names(rs))
    assert rs.state["_skill_tools_disclosed"] == {}


# --------------------------------------------------------------------------------------------
# A resolver
# --------------------------------------------------------------------------------------------


def _tool(name: str, reply: str) -> BaseTool:
    def run(query: str = "") -> str:
        return f"{reply} {query}".strip()

    return StructuredTool.from_function(run, name=name, description=f"The {name} tool.")


class Resolver:
    """Maps names to tools and keeps a log of what it was asked."""

    def __init__(self, table: dict[str, list[Any]], *, asynchronous: bool = False) -> None:
        self.table = table
        self.asked: list[str] = []
        self.asynchronous = asynchronous

    def _answer(self, name: str, runtime: Any) -> Any:
        assert runtime is not None
        self.asked.append(name)
        return self.table.get(name, [])

    def __call__(self, name: str, runtime: Any) -> Any:
        if not self.asynchronous:
            return self._answer(name, runtime)

        async def later() -> Any:
            await asyncio.sleep(0)
            return self._answer(name, runtime)

        return later()


def linear_table() -> dict[str, list[Any]]:
    zeta, alpha = _tool("linear_zeta", "zeta"), _tool("linear_alpha", "alpha")
    # One name stands for several tools; a repeated name keeps the first.
    return {"linear": [zeta, alpha, _tool("linear_zeta", "shadowed")]}


@pytest.mark.parametrize("mode", MODES)
def test_a_resolver_is_asked_on_each_call_after_a_read_and_before_the_tool_runs(mode: str) -> None:
    skills = {
        CRM_PATH: skill_md("crm", "linear nothing ls"),
        "/skills/ops/SKILL.md": skill_md("ops", "linear"),
    }
    resolvers: list[Resolver] = []

    def make() -> Resolver:
        resolvers.append(Resolver(linear_table(), asynchronous=mode == "ainvoke"))
        return resolvers[-1]

    script = [
        read("/skills/ops/SKILL.md"),
        read(),
        ai_tool_calls(("linear_zeta", {"query": "a"}), ("linear_alpha", {})),
        AIMessage(content="done"),
    ]
    _, rs = run_both(script, make, mode=mode, inp=inp(**skills))
    ref_resolver, rs_resolver = resolvers
    assert rs_resolver.asked == ref_resolver.asked
    # Model calls 2-4 ask for each unclaimed name once ("ls" is the agent's); each tool call
    # asks again for its own name.
    assert rs_resolver.asked[:2] == ["linear", "linear"]
    assert "nothing" in rs_resolver.asked and "ls" not in rs_resolver.asked
    assert tool_names(rs)[1][-2:] == ["linear_alpha", "linear_zeta"]
    assert [r[2] for r in tool_results(rs)[2:]] == ["zeta a", "alpha"]
    assert rs.state["_skill_tools_disclosed"] == {"linear_alpha": "linear", "linear_zeta": "linear"}


@dataclass
class Team:
    name: str


@pytest.mark.parametrize("mode", MODES)
def test_the_resolver_sees_the_runs_context(mode: str) -> None:
    """One resolver serves every thread; it scopes what it answers by ``runtime.context``."""
    by_team = {"red": [_tool("red_tool", "red")], "blue": [_tool("blue_tool", "blue")]}

    def resolve(name: str, runtime: Any) -> list[Any]:
        return by_team[runtime.context.name] if name == "team" else []

    skills = {CRM_PATH: skill_md("crm", "team")}
    script = [read(), call("blue_tool", query="q"), AIMessage(content="done")]
    _, rs = run_both(script, lambda: resolve, mode=mode, inp=inp(**skills), context=Team("blue"))
    assert tool_names(rs)[1][-1] == "blue_tool"
    assert tool_results(rs)[1] == ("blue_tool", "success", "blue q")


def test_a_tool_the_resolver_no_longer_returns_fails_as_unknown_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Forgetful(Resolver):
        def _answer(self, name: str, runtime: Any) -> Any:
            answer = super()._answer(name, runtime)
            return answer if len(self.asked) == 1 else []

    script = [read(), call("linear_alpha"), AIMessage(content="done")]
    skills = {CRM_PATH: skill_md("crm", "linear")}
    _, rs = run_both(script, lambda: Forgetful(linear_table()), inp=inp(**skills), caplog=caplog)
    assert tool_results(rs)[1][:2] == ("linear_alpha", "error")
    assert rs.warnings == [
        "Skill tool 'linear_alpha' was disclosed via 'linear', but the resolver no longer returns it"
    ]


BAD_ANSWERS = {
    "a-string": lambda name, runtime: "linear_alpha",
    "not-tools": lambda name, runtime: [42],
    "none": lambda name, runtime: None,
}


@pytest.mark.parametrize("answer", BAD_ANSWERS)
@pytest.mark.parametrize("mode", MODES)
def test_a_resolver_answering_something_else_fails_the_run(answer: str, mode: str) -> None:
    script = [read(), AIMessage(content="done")]
    ref, _ = run_both(script, lambda: BAD_ANSWERS[answer], mode=mode, inp=inp(**CRM))
    assert isinstance(ref.outcome.error, TypeError)


@pytest.mark.parametrize("mode", MODES)
def test_a_resolver_failing_before_the_tool_runs_fails_the_run(mode: str) -> None:
    class FailsLater(Resolver):
        def _answer(self, name: str, runtime: Any) -> Any:
            answer = super()._answer(name, runtime)
            return answer if len(self.asked) == 1 else "linear_alpha"

    script = [read(), call("linear_alpha"), AIMessage(content="done")]
    skills = {CRM_PATH: skill_md("crm", "linear")}
    _, rs = run_both(script, lambda: FailsLater(linear_table()), mode=mode, inp=inp(**skills))
    assert isinstance(rs.outcome.error, TypeError)
    assert "must return a sequence of BaseTool for 'linear'" in str(rs.outcome.error)


def test_an_async_resolver_needs_ainvoke() -> None:
    script = [read(), AIMessage(content="done")]
    _, rs = run_both(script, lambda: Resolver(linear_table(), asynchronous=True), inp=inp(**CRM))
    assert isinstance(rs.outcome.error, TypeError)
    assert "an async resolver needs the agent's async entry point" in str(rs.outcome.error)


# --------------------------------------------------------------------------------------------
# The read leaves the conversation
# --------------------------------------------------------------------------------------------


def test_a_read_summarized_away_takes_its_tools_with_it() -> None:
    def summarization(module: Any) -> list[Any]:
        summarizer = importlib.import_module(f"{module.__name__}.middleware.summarization").SummarizationMiddleware
        backend = importlib.import_module(f"{module.__name__}.backends").StateBackend()
        return [
            summarizer(model=model_for[module.__name__], backend=backend, trigger=("messages", 7), keep=("messages", 2))
        ]

    script = [
        read(),
        call("create_request", title="a"),
        call("list_requests"),
        call("list_requests"),
        call("list_requests"),
        call("create_request", title="b"),
        AIMessage(content="done"),
    ]
    model_for = {impl: SummarizingModel(list(script)) for impl in IMPLS}
    runs = [
        run_impl(
            impl,
            script,
            skill_tools=[create_request, list_requests],
            model=model_for[impl],
            middleware=summarization,
            inp=inp(**CRM),
        )
        for impl in IMPLS
    ]
    ref, rs = runs
    # The history file's session id is random.
    masked = [
        [_SESSION.sub("session_<id>", json.dumps(call_view(c), default=str)) for c in r.outcome.calls] for r in runs
    ]
    assert masked[1] == masked[0]
    assert norm(rs.outcome.unwrap()["messages"])[-3:] == norm(ref.outcome.unwrap()["messages"])[-3:]
    assert rs.state["_skill_tools_disclosed"] == ref.state["_skill_tools_disclosed"] == {}
    names = tool_names(rs)
    assert rs.outcome.model.summaries, "no summary was made"
    assert "create_request" in names[1] and "create_request" not in names[-1]
    assert tool_results(rs)[-1][:2] == ("create_request", "error")


class SummarizingModel(ScriptedChatModel):
    """Answers a summary prompt with a fixed summary, replaying its script otherwise."""

    summaries: list[str] = Field(default_factory=list, exclude=True)

    def _next(self, messages: Any, stop: Any, kwargs: dict[str, Any]) -> Any:
        from langchain_core.outputs import ChatGeneration, ChatResult

        if len(messages) == 1 and "Messages to summarize:" in str(messages[0].content):
            self.summaries.append(str(messages[0].content))
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="SUMMARY"))])
        return super()._next(messages, stop, kwargs)


# --------------------------------------------------------------------------------------------
# The agent's deferred tool
# --------------------------------------------------------------------------------------------


class ExtrasRecordingModel(ScriptedChatModel):
    """Keeps the ``extras`` of each tool object it is bound with (``defer_loading`` among
    them), which the OpenAI tool dicts it records leave out."""

    bound_extras: list[dict[str, Any]] = Field(default_factory=list, exclude=True)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.bound_extras.append({t.name: dict(t.extras or {}) for t in tools if isinstance(t, BaseTool)})
        return super().bind_tools(tools, **kwargs)


def _changes(values: list[Any]) -> list[Any]:
    return [v for i, v in enumerate(values) if i == 0 or values[i - 1] != v]


def test_a_deferred_agent_tool_a_skill_lists_is_sent_with_its_schema() -> None:
    deferred = StructuredTool.from_function(
        lambda: "searched", name="deep_search", description="Search deeply.", extras={"defer_loading": True}
    )
    skills = {CRM_PATH: skill_md("crm", "deep_search create_request")}
    script = [read(), call("deep_search"), AIMessage(content="done")]
    runs = []
    for impl in IMPLS:
        model = ExtrasRecordingModel(list(script))
        runs.append(
            run_impl(impl, script, skill_tools=[create_request], model=model, agent_tools=[deferred], inp=inp(**skills))
        )
    ref, rs = runs
    assert_parity(Both(ref=ref.outcome, rs=rs.outcome))
    # deepagents binds on every call, deepagents_rs once per tool list: what changes counts.
    ref_extras, rs_extras = ([e["deep_search"] for e in r.outcome.model.bound_extras] for r in runs)
    assert _changes(rs_extras) == _changes(ref_extras)
    assert rs_extras[0] == {"defer_loading": True} and rs_extras[-1] == {}
    # Not a skill tool: the record holds the skill tool only.
    assert (
        rs.state["_skill_tools_disclosed"]
        == ref.state["_skill_tools_disclosed"]
        == {"create_request": "create_request"}
    )
    assert tool_results(rs)[1] == ("deep_search", "success", "searched")


# --------------------------------------------------------------------------------------------
# What the constructor refuses; frontmatter that lists tools wrongly
# --------------------------------------------------------------------------------------------


def _raised(impl: str, tools: Any) -> BaseException:
    backends = importlib.import_module(f"{impl}.backends")
    cls = importlib.import_module(f"{impl}.middleware").SkillsMiddleware
    with pytest.raises(Exception) as info:
        cls(backend=backends.StateBackend(), sources=[], tools=tools)
    return info.value


@pytest.mark.parametrize(
    "tools",
    [42, create_request, [{"type": "web_search"}], [create_request, create_request], "ab"],
    ids=["int", "single-tool", "provider-dict", "duplicate-names", "str"],
)
def test_bad_tools_are_refused_as_deepagents_refuses_them(tools: Any) -> None:
    ref, rs = (_raised(impl, tools) for impl in IMPLS)
    assert type(rs) is type(ref)
    assert str(rs) == str(ref)


@pytest.mark.parametrize(
    "include",
    ["[create_request, list_requests]", "'create_request,list_requests'"],
    ids=["yaml-list", "commas"],
)
def test_include_tools_not_space_separated_warns_and_matches_nothing(
    include: str, caplog: pytest.LogCaptureFixture
) -> None:
    skills = {CRM_PATH: skill_md("crm", include)}
    script = [read(), AIMessage(content="done")]
    _, rs = run_both(script, lambda: [create_request, list_requests], inp=inp(**skills), caplog=caplog)
    assert any("metadata.include_tools in /skills/crm/SKILL.md should be a space-separated" in w for w in rs.warnings)
    assert all("create_request" not in names for names in tool_names(rs))


# --------------------------------------------------------------------------------------------
# Subagents
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_the_general_purpose_subagent_takes_the_users_skills_middleware_with_its_tools(mode: str) -> None:
    """The user's ``SkillsMiddleware`` takes the general-purpose subagent's skills slot too, so
    a skill the subagent reads discloses the tools there; the main agent's record is its own."""
    script = [
        call("task", description="file it", subagent_type="general-purpose"),
        read(),
        call("create_request", title="sub"),
        AIMessage(content="sub done"),
        call("create_request", title="main"),
        AIMessage(content="done"),
    ]
    _, rs = run_both(script, lambda: [create_request], mode=mode, inp=inp(**CRM))
    names = tool_names(rs)
    assert names[2][-1] == "create_request" and "create_request" not in names[4]
    assert [r[:2] for r in tool_results(rs)] == [("task", "success"), ("create_request", "error")]
    assert rs.state["_skill_tools_disclosed"] == {}


# --------------------------------------------------------------------------------------------
# A model that takes tools mid-conversation
# --------------------------------------------------------------------------------------------


def _recording(provider: str, script: list[AIMessage]) -> Any:
    """A ``ChatAnthropic`` for Claude Opus 5 or a Responses ``ChatOpenAI`` for GPT-5 (whose profiles
    take tools mid-conversation) answering from a script, keeping what each call was sent."""
    from langchain_core.outputs import ChatGeneration, ChatResult

    if provider == "anthropic":
        base, kwargs = importlib.import_module("langchain_anthropic").ChatAnthropic, {"model": "claude-opus-5"}
    else:
        # Only the Responses API takes tools mid-conversation.
        base, kwargs = (
            importlib.import_module("langchain_openai").ChatOpenAI,
            {"model": "gpt-5", "use_responses_api": True},
        )

    class Recording(base):  # type: ignore[misc, valid-type]
        sent: list[Any] = Field(default_factory=list, exclude=True)

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            self.sent.append(
                {
                    "messages": [(m.type, m.content) for m in messages],
                    "tools": [t.get("name") or t["function"]["name"] for t in kwargs.get("tools", [])],
                }
            )
            reply = script[len(self.sent) - 1].model_copy(deep=True)
            return ChatResult(generations=[ChatGeneration(message=reply)])

        async def _agenerate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            return self._generate(messages, stop, run_manager, **kwargs)

    return Recording(api_key="sk-test-not-a-real-key", **kwargs)


def _with_ids(script: list[AIMessage]) -> list[AIMessage]:
    for i, m in enumerate(script):
        for k, tc in enumerate(m.tool_calls):
            tc["id"] = f"toolu_{i}_{k}"
    return script


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("mode", MODES)
def test_a_model_taking_tools_mid_conversation_gets_them_there(mode: str, provider: str) -> None:
    pytest.importorskip(f"langchain_{provider}")
    script = _with_ids(
        [
            ai_tool_calls(("read_file", {"file_path": CRM_PATH}), ("ls", {"path": "/"})),
            call("create_request", title="x"),
            AIMessage(content="done"),
        ]
    )
    sent = {}
    for impl in IMPLS:
        model = _recording(provider, script)
        run = run_impl(
            impl, script, skill_tools=[create_request, list_requests], model=model, mode=mode, inp=inp(**CRM)
        )
        sent[impl] = (model.sent, run)
    (ref_sent, ref), (rs_sent, rs) = sent.values()
    assert rs_sent == ref_sent
    assert rs.state["_skill_tools_disclosed"] == ref.state["_skill_tools_disclosed"]
    assert tool_results(rs) == tool_results(ref)
    # Not in the tools: in a system message after the read's batch of results.
    assert "create_request" not in rs_sent[1]["tools"]
    kind, blocks = rs_sent[1]["messages"][-1]
    assert kind == "system"
    if provider == "anthropic":
        names = [b["tool"]["definition"]["name"] for b in blocks]
    else:
        names = [t["name"] for b in blocks for t in b["tools"]]
    assert names == ["create_request", "list_requests"]
    assert tool_results(rs)[-1] == ("create_request", "success", "created x")
