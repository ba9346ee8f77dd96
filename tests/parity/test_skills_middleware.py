"""A user's ``SkillsMiddleware`` through both implementations: it takes the skills slot, its
constructor refuses what deepagents refuses, it is exported where deepagents exports it."""

from __future__ import annotations

import importlib
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import AIMessage

from .fs_support import run_fs
from .harness import ai_tool_calls, assert_parity, hi_input, state_files, system_text
from .skills_support import CODE, TEMPLATE, WEB, _skills_mw

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


@pytest.mark.parametrize("with_skills_arg", [False, True], ids=["alone", "with-skills-arg"])
def test_user_skills_middleware_takes_the_slot(with_skills_arg: bool) -> None:
    """Alone, its sources become ``skills`` (its slot is the default's, after the todo list's,
    and the general-purpose subagent gets it); with ``skills=`` it replaces the default."""

    def setup(a: Any) -> dict[str, Any]:
        from langchain.agents.middleware import TodoListMiddleware

        mw = _skills_mw(a.impl)(backend=a.StateBackend(), sources=[("/team/", "Team")], system_prompt=TEMPLATE)
        kwargs: dict[str, Any] = {"middleware": [mw, TodoListMiddleware()], "system_prompt": "Base."}
        if with_skills_arg:
            kwargs["skills"] = ["/skills/"]
        return kwargs

    script = [
        ai_tool_calls(("task", {"description": "gp work", "subagent_type": "general-purpose"})),
        AIMessage("x"),
        AIMessage("y"),
    ]
    files = state_files(**{"/team/code-review/SKILL.md": CODE, "/skills/web-research/SKILL.md": WEB})
    run = run_fs(script, mode="invoke", inp=hi_input(files), setup=setup)
    assert_parity(run.both)
    text = system_text(run.rs.calls[0].messages[0])
    mine, todos = (
        text.index("## Mine\n**Team Skills**: `/team/` (higher priority)\n- **code-review**"),
        text.index("write_todos"),
    )
    assert mine > todos and "web-research" not in text and "{literal}" in text
    assert "## Mine" in system_text(run.rs.calls[1].messages[0])


def test_skills_loaded_but_not_shown() -> None:
    def setup(a: Any) -> dict[str, Any]:
        return {"middleware": [_skills_mw(a.impl)(backend=a.StateBackend(), sources=["/s/"], system_prompt=None)]}

    run = run_fs([AIMessage(content="ok")], mode="invoke", inp=hi_input(), setup=setup)
    assert_parity(run.both)
    assert run.rs.calls[0].messages[0].content == ""


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"system_prompt": 42}, TypeError),
        ({"system_prompt": "{skills_list} only"}, ValueError),
        ({"sources": [("/a/", "A", "extra")]}, TypeError),
        ({"sources": [("/a/", 3)]}, TypeError),
        ({"tools": 42}, TypeError),
        ({"tools": [{"type": "web_search"}]}, TypeError),
    ],
    ids=["prompt-int", "missing-slots", "triple", "label-int", "tools-int", "tools-dict"],
)
def test_constructor_refuses_what_deepagents_refuses(kwargs: dict[str, Any], error: type) -> None:
    raised = []
    for impl in ("deepagents", "deepagents_rs"):
        backend = importlib.import_module(f"{impl}.backends").StateBackend()
        with pytest.raises(error) as info:
            _skills_mw(impl)(backend=backend, **{"sources": [], **kwargs})
        raised.append(str(info.value))
    assert raised[0] == raised[1]


def test_exported_where_deepagents_exports_it() -> None:
    from deepagents.middleware.skills import SKILLS_SYSTEM_PROMPT as theirs
    from deepagents_rs.middleware import skills as ours

    assert ours.SKILLS_SYSTEM_PROMPT == theirs
    for name in ("SkillMetadata", "SkillsState", "SkillToolResolver", "SkillsMiddleware"):
        assert getattr(deepagents_rs.middleware, name) is getattr(ours, name)
    mw = ours.SkillsMiddleware(
        backend=deepagents_rs.backends.StateBackend(), sources=["/skills/built_in_skills", ("/x", "X")]
    )
    ref = importlib.import_module("deepagents.middleware.skills").SkillsMiddleware(
        backend=deepagents.backends.StateBackend(), sources=["/skills/built_in_skills", ("/x", "X")]
    )
    assert (mw.sources, mw.source_labels, mw.name) == (ref.sources, ref.source_labels, ref.name)
    state = {"_skill_tools_disclosed": {"a": "x"}}
    assert ours.disclosed_skill_tool_names(state) == importlib.import_module(
        "deepagents.middleware.skills"
    ).disclosed_skill_tool_names(state)
