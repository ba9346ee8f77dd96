"""Skills over a thread and in the stream through both implementations: loaded once per thread
(None asks for a reload), the hooks' nodes and writes in the stream, load warnings, host paths,
composite backends, pinned skills cleared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from .fs_support import MODES, Tree, run_fs
from .harness import (
    Mode,
    ScriptedChatModel,
    ai_tool_calls,
    assert_parity,
    hi_input,
    run_both_on_a_saver_thread,
    state_files,
    system_text,
)
from .skills_support import CODE, TEMPLATE, WEB, _last_human, _skills_mw, skill_md

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

# --------------------------------------------------------------------------------------------
# A checkpointed thread: loaded on the first turn; None asks for a reload
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_checkpointed_thread_keeps_the_first_load_until_asked(tmp_path: Path, mode: Mode) -> None:
    def before_turn(root: Path, i: int) -> None:
        # The skill changes before the second turn; the third asks for a reload.
        if i < 2:
            (root / "skills" / "a-skill").mkdir(parents=True, exist_ok=True)
            text = skill_md("a-skill", ("First version.", "Second version.")[i])
            (root / "skills" / "a-skill" / "SKILL.md").write_text(text)

    turns = [{"messages": [{"role": "user", "content": text}]} for text in ("a", "b")]
    turns.append({"messages": [{"role": "user", "content": "c"}], "skills_metadata": None})
    (ref_model, ref_out, ref_state), (rs_model, rs_out, rs_state) = run_both_on_a_saver_thread(
        tmp_path, mode, turns, before_turn, skills=["/skills/"]
    )
    assert [c.messages[0] for c in rs_model.calls] == [c.messages[0] for c in ref_model.calls]
    texts = [system_text(c.messages[0]) for c in rs_model.calls]
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
        chunks = agent.stream(hi_input(state_files(**{"/skills/code-review/SKILL.md": CODE})), stream_mode="updates")
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
    run = run_fs(
        script, mode="invoke", inp=hi_input(state_files(**{"/skills/code-review/SKILL.md": CODE})), setup=setup
    )
    assert_parity(run.both)
    calls = {_last_human(c.messages): system_text(c.messages[0]) for c in run.rs.calls}
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
    text = system_text(run.rs.calls[0].messages[0])
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

    inp = hi_input(state_files(**{"/state-skills/code-review/SKILL.md": CODE}))
    run = run_fs([AIMessage(content="ok")], mode=mode, tree=tree, inp=inp, setup=setup)
    assert_parity(run.both)
    text = system_text(run.rs.calls[0].messages[0])
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
    run = run_fs(script, mode="invoke", inp=hi_input(state_files(**{"/team/code-review/SKILL.md": CODE})), setup=setup)
    assert_parity(run.both)
    assert "## Mine\n**Team Skills**" in system_text(run.rs.calls[1].messages[0])
    assert "## Skills System" not in system_text(run.rs.calls[0].messages[0])


def test_pinned_skills_are_cleared_in_the_thread_and_streamed_as_an_overwrite() -> None:
    """The hook clears ``pinned_skills`` past its adding reducer (``Overwrite``), so a later
    turn of the thread pins nothing again."""
    files = state_files(**{"/skills/code-review/SKILL.md": CODE})
    seen = {}
    for module in (deepagents, deepagents_rs):
        model = ScriptedChatModel([AIMessage(content="one"), AIMessage(content="two")])
        agent = module.create_deep_agent(model=model, skills=["/skills/"], checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t"}}
        chunks = list(agent.stream(hi_input(files, pinned_skills=["code-review"]), config, stream_mode="updates"))
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
