"""Skills (``create_deep_agent(skills=[...])`` and ``SkillsMiddleware``) through both
implementations: SKILL.md directories found through the agent's backend, listed in the
system prompt (before memory), read by the model on demand, loaded once per thread, kept
out of the output; the general-purpose subagent and forks get the caller's skills, a
declarative subagent only its own.

The system prompt is compared exactly (``assert_parity`` compares every message each model
was sent, the system message included); each scenario also checks what it is about on the
deepagents_rs side directly, so a change to both would not pass unseen.
"""

from __future__ import annotations

import asyncio
import importlib
import uuid
from pathlib import Path
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import AIMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver

from .fs_support import MODES, Tree, run_fs
from .harness import ScriptedChatModel, ai_tool_calls, assert_parity, run_both

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


def skill_md(name: str, description: str, extra: str = "", body: str = "# Steps\nDo it well.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}"


WEB = skill_md(
    "web-research",
    "Structured web research.",
    "license: MIT\ncompatibility: Python 3.10+\nallowed-tools: search, fetch\nmetadata:\n  author: me\n  version: 2\n",
)
CODE = skill_md("code-review", "Review code carefully.")


def _files(**texts: str) -> dict[str, Any]:
    return {path: {"content": text, "encoding": "utf-8"} for path, text in texts.items()}


def _inp(files: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    inp: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}], **extra}
    if files is not None:
        inp["files"] = files
    return inp


def _system_text(message: Any) -> str:
    assert isinstance(message, SystemMessage)
    content = message.content
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


def _skills_mw(impl: str) -> type:
    return importlib.import_module(f"{impl}.middleware").SkillsMiddleware


def _last_human(messages: list[Any]) -> str:
    return next(m.content for m in reversed(messages) if m.type == "human")


# --------------------------------------------------------------------------------------------
# StateBackend: skills given in the input files
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_state_backend_lists_skills_with_their_fields(mode: str) -> None:
    files = _files(**{"/skills/user/web-research/SKILL.md": WEB, "/skills/user/code-review/SKILL.md": CODE})
    both = run_both(
        [AIMessage(content="ok")], None, _inp(files), mode=mode, system_prompt="Base.", skills=["/skills/user/"]
    )
    ref = assert_parity(both)
    system = both.rs.calls[0].messages[0]
    assert system.content[0] == {"type": "text", "text": "Base."}
    text = system.content[1]["text"]
    assert text.startswith("\n\n## Skills System")
    assert "**User Skills**: `/skills/user/` (higher priority)" in text
    assert (
        "- **web-research**: Structured web research. (License: MIT, Compatibility: Python 3.10+)\n"
        "  -> Allowed tools: search, fetch\n"
        "  -> Read `/skills/user/web-research/SKILL.md` for full instructions"
    ) in text
    # The skills are state kept out of the output.
    assert sorted(ref) == sorted(both.rs.result) == ["files", "messages"]


def test_no_skills_says_where_to_create_them() -> None:
    both = run_both([AIMessage(content="ok")], None, _inp(), skills=["/skills/user/", "~/.claude/skills"])
    assert_parity(both)
    text = _system_text(both.rs.calls[0].messages[0])
    assert "(No skills available yet. You can create skills in /skills/user/ or ~/.claude/skills)" in text
    assert "**Claude Skills**: `~/.claude/skills` (higher priority)" in text


def test_later_sources_override_earlier_ones_by_name() -> None:
    """The later source's skill wins, in the place its name was first seen."""
    files = _files(
        **{
            "/base/code-review/SKILL.md": CODE,
            "/base/web-research/SKILL.md": WEB,
            "/project/code-review/SKILL.md": skill_md("code-review", "The project's own review."),
        }
    )
    both = run_both([AIMessage(content="ok")], None, _inp(files), skills=["/base/", ("/project/", "Team")])
    assert_parity(both)
    text = _system_text(both.rs.calls[0].messages[0])
    assert "**Base Skills**: `/base/`\n**Team Skills**: `/project/` (higher priority)" in text
    assert "Review code carefully." not in text
    assert text.index("The project's own review.") < text.index("web-research")


FRONTMATTER_CASES = {
    "no-frontmatter": "# Just text\n",
    "unclosed": "---\nname: a\ndescription: b\n",
    "bad-yaml": "---\nname: [unclosed\ndescription: b\n---\n",
    "not-a-mapping": "---\n- a\n- b\n---\n",
    "no-description": "---\nname: lonely\n---\n",
    "blank-name": "---\nname: '  '\ndescription: d\n---\n",
    "yaml-1.1-scalars": "---\nname: yes\ndescription: 2024-01-01\nlicense: null\ncompatibility: 1.50\n---\n",
    "bad-name-still-loads": skill_md("Bad_Name", "Loads with a warning."),
    "long-fields-cut": skill_md("long", "d" * 1100, "compatibility: " + "c" * 600 + "\n"),
    "list-tools-and-odd-metadata": skill_md("lists", "x", "allowed-tools: [a, ' b ', 3, '']\nmetadata: [1, 2]\n"),
    "empty-frontmatter": "---\n\n---\nbody\n",
}


@pytest.mark.parametrize("case", FRONTMATTER_CASES)
def test_frontmatter_rules(case: str) -> None:
    """What deepagents skips (no frontmatter, bad YAML, missing fields), what it only warns
    about (a name off the spec), how it reads YAML 1.1 scalars, and what it cuts short."""
    files = _files(**{f"/skills/{case}/SKILL.md": FRONTMATTER_CASES[case], "/skills/code-review/SKILL.md": CODE})
    both = run_both([AIMessage(content="ok")], None, _inp(files), skills=["/skills/"])
    assert_parity(both)
    text = _system_text(both.rs.calls[0].messages[0])
    assert "- **code-review**" in text
    if case == "yaml-1.1-scalars":
        assert "- **True**: 2024-01-01 (License: None, Compatibility: 1.5)" in text
    if case == "bad-name-still-loads":
        assert "- **Bad_Name**: Loads with a warning." in text


def test_state_of_the_loaded_skills() -> None:
    """``skills_metadata`` holds deepagents' ``SkillMetadata`` dicts, ``skills_load_errors``
    the sources' errors (checked through a checkpointed thread's state)."""
    states = {}
    for module in (deepagents, deepagents_rs):
        agent = module.create_deep_agent(
            model=ScriptedChatModel([AIMessage(content="ok")]), skills=["/skills/"], checkpointer=InMemorySaver()
        )
        config = {"configurable": {"thread_id": "t"}}
        agent.invoke(_inp(_files(**{"/skills/web-research/SKILL.md": WEB})), config)
        states[module.__name__] = agent.get_state(config).values
    ref, rs = states.values()
    for key in ("skills_metadata", "skills_load_errors", "_skill_tools_disclosed"):
        assert rs[key] == ref[key], key
    assert rs["skills_metadata"] == [
        {
            "name": "web-research",
            "description": "Structured web research.",
            "path": "/skills/web-research/SKILL.md",
            "metadata": {"author": "me", "version": "2"},
            "license": "MIT",
            "compatibility": "Python 3.10+",
            "allowed_tools": ["search", "fetch"],
        }
    ]
    assert rs["_skill_tools_disclosed"] == {}


def test_private_keys_in_the_input_are_ignored_and_none_reloads() -> None:
    """``skills_load_errors`` is private (dropped from the input); ``skills_metadata: None``
    asks for a load, as a missing key does."""
    inp = _inp(
        _files(**{"/skills/code-review/SKILL.md": CODE}),
        skills_metadata=None,
        skills_load_errors=["forged"],
    )
    both = run_both([AIMessage(content="ok")], None, inp, skills=["/skills/"])
    assert_parity(both)
    text = _system_text(both.rs.calls[0].messages[0])
    assert "forged" not in text and "- **code-review**" in text


def test_given_skills_metadata_is_not_reloaded() -> None:
    """A list in the input means loaded: the files are not read."""
    given = [{"name": "given", "description": "From the input.", "path": "/x/given/SKILL.md", "metadata": {},
              "license": None, "compatibility": None, "allowed_tools": []}]  # fmt: skip
    inp = _inp(_files(**{"/skills/code-review/SKILL.md": CODE}), skills_metadata=given)
    both = run_both([AIMessage(content="ok")], None, inp, skills=["/skills/"])
    assert_parity(both)
    text = _system_text(both.rs.calls[0].messages[0])
    assert "- **given**: From the input." in text and "code-review" not in text


# --------------------------------------------------------------------------------------------
# FilesystemBackend on disk: listing errors, unreadable files, sizes
# --------------------------------------------------------------------------------------------


def _on_disk(tree: Tree, mode: str, sources: list[Any], script: list[Any] | None = None, **kwargs: Any) -> Any:
    return run_fs(
        script or [AIMessage(content="ok")],
        mode=mode,
        tree=tree,
        setup=lambda a: {
            "backend": a.FilesystemBackend(root_dir=str(tree.root), virtual_mode=True),
            "skills": sources,
            **kwargs,
        },
    )


@pytest.mark.parametrize("mode", MODES)
def test_filesystem_backend_reads_skills_from_disk(tmp_path: Path, mode: str) -> None:
    tree = Tree(
        tmp_path / "root",
        files={
            "skills/web-research/SKILL.md": WEB,
            "skills/web-research/helper.py": "print(1)\n",
            "skills/not-a-skill/notes.md": "no SKILL.md here",
            "skills/binary/SKILL.md": b"---\nname: binary\ndescription: \xff\n---\n",
            "skills/loose-file.md": "ignored: not a directory",
            "project/skills/code-review/SKILL.md": CODE,
        },
        dirs=["skills/dir-named-skill/SKILL.md"],
    )
    run = _on_disk(tree, mode, ["/skills", "/project/skills/", "/missing/"])
    ref = assert_parity(run.both)
    text = _system_text(run.rs.calls[0].messages[0])
    assert "- **web-research**" in text and "- **code-review**" in text and "binary" not in text
    assert "**Project Skills**: `/project/skills/`" in text
    assert sorted(ref) == sorted(run.rs.result) == ["messages"]


def test_a_source_that_cannot_be_listed_is_a_load_warning(tmp_path: Path) -> None:
    """A backend's ``ls`` error becomes a warning shown to the model, JSON- and HTML-quoted."""

    def setup(a: Any) -> dict[str, Any]:
        class FailingLs(a.StateBackend):
            def ls(self, path: str) -> Any:
                if path.startswith("/broken"):
                    return a.protocol.LsResult(error=f'permission denied: <{path}> & "more" é')
                return super().ls(path)

        return {"backend": FailingLs(), "skills": ["/broken/", "/skills/", "/broken2/"]}

    run = run_fs(
        [AIMessage(content="ok")],
        mode="invoke",
        inp=_inp(_files(**{"/skills/code-review/SKILL.md": CODE})),
        setup=setup,
    )
    assert_parity(run.both)
    text = _system_text(run.rs.calls[0].messages[0])
    assert "<skill_load_warnings>" in text
    assert "- &quot;Cannot load skills from &#x27;/broken/&#x27;: permission denied: &lt;/broken/&gt;" in text


# --------------------------------------------------------------------------------------------
# Progressive disclosure: the model reads a skill; pinned skills
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_model_reads_a_skill_on_demand(mode: str) -> None:
    script = [
        ai_tool_calls(("read_file", {"file_path": "/skills/web-research/SKILL.md", "limit": 1000})),
        AIMessage(content="done"),
    ]
    both = run_both(
        script, None, _inp(_files(**{"/skills/web-research/SKILL.md": WEB})), mode=mode, skills=["/skills/"]
    )
    ref = assert_parity(both)
    read = ref["messages"][2]
    assert read.type == "tool" and "Do it well." in read.content
    # The section is the same on the second call: the skills were loaded once.
    first, second = (_system_text(c.messages[0]) for c in both.rs.calls)
    assert first == second


@pytest.mark.parametrize("mode", MODES)
def test_pinned_skills_are_appended_before_the_model_call(mode: str) -> None:
    files = _files(**{"/skills/web-research/SKILL.md": WEB, "/skills/code-review/SKILL.md": CODE})
    inp = _inp(files, pinned_skills=["code-review", "unknown", "web-research", "code-review"])
    both = run_both([AIMessage(content="ok")], None, inp, mode=mode, skills=["/skills/"])
    ref = assert_parity(both)
    pinned = [m for m in both.rs.calls[0].messages if m.type == "human"][1:]
    assert [m.additional_kwargs["skill"]["name"] for m in pinned] == ["code-review", "web-research"]
    assert (
        pinned[0].content
        == '<skill name="code-review" path="/skills/code-review/SKILL.md">\n# Steps\nDo it well.\n</skill>'
    )
    assert pinned[0].additional_kwargs["lc_source"] == "pinned_skill"
    assert len(ref["messages"]) == 4


# --------------------------------------------------------------------------------------------
# Subagents
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_subagents_general_purpose_and_fork_inherit_declarative_has_its_own(mode: str) -> None:
    files = _files(
        **{
            "/skills/web-research/SKILL.md": WEB,
            "/team/code-review/SKILL.md": CODE,
        }
    )
    subagents = [
        {"name": "forker", "description": "Continues the work.", "mode": "fork"},
        {"name": "researcher", "description": "Researches.", "system_prompt": "You research."},
        {"name": "reviewer", "description": "Reviews.", "system_prompt": "You review.", "skills": ["/team/"]},
    ]
    script = [
        ai_tool_calls(("task", {"description": "fork work", "subagent_type": "forker"})),
        AIMessage(content="fork done"),
        ai_tool_calls(("task", {"description": "iso work", "subagent_type": "researcher"})),
        AIMessage(content="iso done"),
        ai_tool_calls(("task", {"description": "review work", "subagent_type": "reviewer"})),
        AIMessage(content="review done"),
        ai_tool_calls(("task", {"description": "gp work", "subagent_type": "general-purpose"})),
        AIMessage(content="gp done"),
        AIMessage(content="all done"),
    ]
    both = run_both(
        script, None, _inp(files), mode=mode, system_prompt="Main.", skills=["/skills/"], subagents=subagents
    )
    assert_parity(both)
    calls = {_last_human(c.messages): c for c in both.rs.calls}
    section = {task: _system_text(c.messages[0]) for task, c in calls.items()}
    fork = next(t for t in section if t.endswith("fork work"))
    assert "- **web-research**" in section[fork]
    assert "- **web-research**" in section["gp work"]
    assert "## Skills System" not in section["iso work"]
    assert "- **code-review**" in section["review work"] and "- **web-research**" not in section["review work"]


def test_a_fork_cannot_set_skills() -> None:
    errors = []
    for module in (deepagents, deepagents_rs):
        with pytest.raises(ValueError) as info:
            module.create_deep_agent(
                model=ScriptedChatModel([]),
                subagents=[{"name": "f", "description": "d", "mode": "fork", "skills": ["/s/"]}],
            )
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    assert errors[1] == "SubAgent 'f' cannot set skills under mode='fork'; the parent's skills are inherited instead."


# --------------------------------------------------------------------------------------------
# A user's SkillsMiddleware
# --------------------------------------------------------------------------------------------

TEMPLATE = "## Mine\n{skills_locations}{skills_load_warnings}\n{skills_list}\n{{literal}}"


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
    files = _files(**{"/team/code-review/SKILL.md": CODE, "/skills/web-research/SKILL.md": WEB})
    run = run_fs(script, mode="invoke", inp=_inp(files), setup=setup)
    assert_parity(run.both)
    text = _system_text(run.rs.calls[0].messages[0])
    mine, todos = (
        text.index("## Mine\n**Team Skills**: `/team/` (higher priority)\n- **code-review**"),
        text.index("write_todos"),
    )
    assert mine > todos and "web-research" not in text and "{literal}" in text
    assert "## Mine" in _system_text(run.rs.calls[1].messages[0])


def test_skills_loaded_but_not_shown() -> None:
    def setup(a: Any) -> dict[str, Any]:
        return {"middleware": [_skills_mw(a.impl)(backend=a.StateBackend(), sources=["/s/"], system_prompt=None)]}

    run = run_fs([AIMessage(content="ok")], mode="invoke", inp=_inp(), setup=setup)
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


# --------------------------------------------------------------------------------------------
# A checkpointed thread: loaded on the first turn; None asks for a reload
# --------------------------------------------------------------------------------------------


def _two_turns(module: Any, root: Path, asynchronous: bool) -> tuple[ScriptedChatModel, dict, dict]:
    (root / "skills" / "a-skill").mkdir(parents=True)
    (root / "skills" / "a-skill" / "SKILL.md").write_text(skill_md("a-skill", "First version."))
    model = ScriptedChatModel([AIMessage(content=t) for t in ("one", "two", "three")])
    backend = importlib.import_module(f"{module.__name__}.backends").FilesystemBackend(
        root_dir=str(root), virtual_mode=True
    )
    agent = module.create_deep_agent(model=model, backend=backend, skills=["/skills/"], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": str(uuid.uuid4())}}

    async def arun(inp: dict) -> dict:
        return await agent.ainvoke(inp, config)

    def run(inp: dict) -> dict:
        return asyncio.run(arun(inp)) if asynchronous else agent.invoke(inp, config)

    run({"messages": [{"role": "user", "content": "a"}]})
    (root / "skills" / "a-skill" / "SKILL.md").write_text(skill_md("a-skill", "Second version."))
    run({"messages": [{"role": "user", "content": "b"}]})
    third = run({"messages": [{"role": "user", "content": "c"}], "skills_metadata": None})
    return model, third, agent.get_state(config).values


@pytest.mark.parametrize("mode", MODES)
def test_checkpointed_thread_keeps_the_first_load_until_asked(tmp_path: Path, mode: str) -> None:
    results = {}
    for module in (deepagents, deepagents_rs):
        root = tmp_path / module.__name__
        root.mkdir()
        results[module.__name__] = _two_turns(module, root, mode == "ainvoke")
    (ref_model, ref_out, ref_state), (rs_model, rs_out, rs_state) = results.values()
    assert [c.messages[0] for c in rs_model.calls] == [c.messages[0] for c in ref_model.calls]
    texts = [_system_text(c.messages[0]) for c in rs_model.calls]
    assert "First version." in texts[1] and "Second version." in texts[2]
    assert sorted(rs_out) == sorted(ref_out) == ["messages"]
    assert rs_state["skills_metadata"] == ref_state["skills_metadata"]


# --------------------------------------------------------------------------------------------
# Stream: the hooks' nodes and their writes
# --------------------------------------------------------------------------------------------


def test_stream_shows_the_skills_nodes() -> None:
    updates = {}
    for module in (deepagents, deepagents_rs):
        agent = module.create_deep_agent(
            model=ScriptedChatModel([AIMessage(content="ok")]), skills=["/skills/"], memory=["/AGENTS.md"]
        )
        chunks = agent.stream(_inp(_files(**{"/skills/code-review/SKILL.md": CODE})), stream_mode="updates")
        updates[module.__name__] = [(node, update) for chunk in chunks for node, update in chunk.items()]
    ref, rs = updates.values()
    assert [n for n, _ in rs] == [n for n, _ in ref]
    assert dict(rs)["SkillsMiddleware.before_agent"] == dict(ref)["SkillsMiddleware.before_agent"]
    assert dict(rs)["SkillsMiddleware.before_model"] == dict(ref)["SkillsMiddleware.before_model"] is None


def test_load_warnings_reach_the_general_purpose_subagent_but_not_a_fork() -> None:
    """The fork takes the caller's ``skills_metadata`` (no reload) but not its private
    ``skills_load_errors``: it shows the skills without the warnings. The general-purpose
    subagent loads on its own and shows both."""

    def setup(a: Any) -> dict[str, Any]:
        class FailingLs(a.StateBackend):
            def ls(self, path: str) -> Any:
                if path == "/broken/":
                    return a.protocol.LsResult(error="permission denied")
                return super().ls(path)

        return {
            "backend": FailingLs(),
            "skills": ["/broken/", "/skills/"],
            "subagents": [{"name": "forker", "description": "Continues.", "mode": "fork"}],
        }

    script = [
        ai_tool_calls(("task", {"description": "fork work", "subagent_type": "forker"})),
        AIMessage(content="fork done"),
        ai_tool_calls(("task", {"description": "gp work", "subagent_type": "general-purpose"})),
        AIMessage(content="gp done"),
        AIMessage(content="all done"),
    ]
    run = run_fs(script, mode="invoke", inp=_inp(_files(**{"/skills/code-review/SKILL.md": CODE})), setup=setup)
    assert_parity(run.both)
    calls = {_last_human(c.messages): _system_text(c.messages[0]) for c in run.rs.calls}
    fork = next(t for t in calls if t.endswith("fork work"))
    assert "- **code-review**" in calls[fork] and "<skill_load_warnings>" not in calls[fork]
    assert "<skill_load_warnings>" in calls["gp work"] and "<skill_load_warnings>" in calls["hi"]


def test_host_paths_and_a_file_over_the_size_limit(tmp_path: Path) -> None:
    """A non-virtual ``FilesystemBackend`` lists host paths, which the prompt shows; a SKILL.md
    over 10 MiB is skipped."""
    root = tmp_path / "root"
    tree = Tree(
        root,
        files={
            "skills/web-research/SKILL.md": WEB,
            "skills/huge/SKILL.md": skill_md("huge", "Too big.") + "a" * (10 * 1024 * 1024),
        },
    )

    def setup(a: Any) -> dict[str, Any]:
        return {
            "backend": a.FilesystemBackend(root_dir=str(root), virtual_mode=False),
            "skills": [str(root / "skills")],
        }

    run = run_fs([AIMessage(content="ok")], mode="invoke", tree=tree, setup=setup)
    assert_parity(run.both)
    text = _system_text(run.rs.calls[0].messages[0])
    assert f"-> Read `{root}/skills/web-research/SKILL.md`" in text and "Too big." not in text


@pytest.mark.parametrize("mode", MODES)
def test_composite_backend_routes_each_source(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "root"
    tree = Tree(root, files={"skills/web-research/SKILL.md": WEB})

    def setup(a: Any) -> dict[str, Any]:
        disk = a.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        return {
            "backend": a.CompositeBackend(default=a.StateBackend(), routes={"/disk/": disk}),
            "skills": ["/disk/skills/", "/state-skills/"],
        }

    inp = _inp(_files(**{"/state-skills/code-review/SKILL.md": CODE}))
    run = run_fs([AIMessage(content="ok")], mode=mode, tree=tree, inp=inp, setup=setup)
    assert_parity(run.both)
    text = _system_text(run.rs.calls[0].messages[0])
    assert "-> Read `/disk/skills/web-research/SKILL.md`" in text and "- **code-review**" in text


def test_declarative_subagent_with_a_skills_middleware_of_its_own() -> None:
    """A SubAgent without ``skills`` whose ``middleware`` holds a ``SkillsMiddleware`` gets
    its slot (before caching), with its template."""

    def setup(a: Any) -> dict[str, Any]:
        mw = _skills_mw(a.impl)(backend=a.StateBackend(), sources=["/team/"], system_prompt=TEMPLATE)
        spec = {"name": "reviewer", "description": "Reviews.", "system_prompt": "You review.", "middleware": [mw]}
        return {"subagents": [spec]}

    script = [
        ai_tool_calls(("task", {"description": "review", "subagent_type": "reviewer"})),
        AIMessage("r"),
        AIMessage("x"),
    ]
    run = run_fs(script, mode="invoke", inp=_inp(_files(**{"/team/code-review/SKILL.md": CODE})), setup=setup)
    assert_parity(run.both)
    assert "## Mine\n**Team Skills**" in _system_text(run.rs.calls[1].messages[0])
    assert "## Skills System" not in _system_text(run.rs.calls[0].messages[0])


def test_pinned_skills_are_cleared_in_the_thread_and_streamed_as_an_overwrite() -> None:
    """The hook clears ``pinned_skills`` past its adding reducer (``Overwrite``), so a later
    turn of the thread pins nothing again."""
    files = _files(**{"/skills/code-review/SKILL.md": CODE})
    seen = {}
    for module in (deepagents, deepagents_rs):
        model = ScriptedChatModel([AIMessage(content="one"), AIMessage(content="two")])
        agent = module.create_deep_agent(model=model, skills=["/skills/"], checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t"}}
        chunks = list(agent.stream(_inp(files, pinned_skills=["code-review"]), config, stream_mode="updates"))
        pin = next(c["SkillsMiddleware.before_model"] for c in chunks if "SkillsMiddleware.before_model" in c)
        agent.invoke({"messages": [{"role": "user", "content": "again"}]}, config)
        state = agent.get_state(config).values
        seen[module.__name__] = (pin, state["pinned_skills"], [m.type for m in model.calls[1].messages])
    (ref_pin, ref_names, ref_types), (rs_pin, rs_names, rs_types) = seen.values()
    assert list(rs_pin) == list(ref_pin) == ["pinned_skills", "messages"]
    assert rs_pin["pinned_skills"] == ref_pin["pinned_skills"]
    assert [m.content for m in rs_pin["messages"]] == [m.content for m in ref_pin["messages"]]
    assert rs_names == ref_names == []
    assert rs_types == ref_types
