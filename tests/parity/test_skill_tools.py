"""Skill tools (``SkillsMiddleware(tools=...)``) through both implementations: a list of
tools, a resolver, pinned skills, what the constructor refuses, frontmatter listing tools
wrongly.

A skill lists tools under ``metadata.include_tools``; the model is offered them once it has
read that skill's ``SKILL.md`` (or the skill is pinned), for as long as the read stays in the
conversation, and a call to one before that fails as an unknown tool. Each scenario compares
both runs (``skill_tools_support.run_both``) and the resolver's calls, and also checks what
it is about on the deepagents_rs side directly, so a change to both would not pass unseen.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel

from .harness import MODES, ai_tool_calls
from .skill_tools_support import (
    CRM,
    CRM_PATH,
    IMPLS,
    call,
    create_request,
    inp,
    list_requests,
    read,
    run_both,
    skill_md,
    tool_names,
    tool_results,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

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
