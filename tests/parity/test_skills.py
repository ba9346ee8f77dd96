"""Skills (``create_deep_agent(skills=[...])`` and ``SkillsMiddleware``) through both
implementations, loading: SKILL.md directories found through the agent's backend (input state
files, a disk backend), listed in the system prompt, later sources overriding earlier ones,
frontmatter rules, the loaded state.

The system prompt is compared exactly (``assert_parity`` compares every message each model
was sent, the system message included); each scenario also checks what it is about on the
deepagents_rs side directly, so a change to both would not pass unseen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from .fs_support import MODES, Tree, run_fs
from .harness import ScriptedChatModel, assert_parity, hi_input, run_both, state_files, system_text
from .skills_support import CODE, WEB, skill_md

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

# --------------------------------------------------------------------------------------------
# StateBackend: skills given in the input files
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_state_backend_lists_skills_with_their_fields(mode: str) -> None:
    files = state_files(**{"/skills/user/web-research/SKILL.md": WEB, "/skills/user/code-review/SKILL.md": CODE})
    both = run_both(
        [AIMessage(content="ok")], None, hi_input(files), mode=mode, system_prompt="Base.", skills=["/skills/user/"]
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
    both = run_both([AIMessage(content="ok")], None, hi_input(), skills=["/skills/user/", "~/.claude/skills"])
    assert_parity(both)
    text = system_text(both.rs.calls[0].messages[0])
    assert "(No skills available yet. You can create skills in /skills/user/ or ~/.claude/skills)" in text
    assert "**Claude Skills**: `~/.claude/skills` (higher priority)" in text


def test_later_sources_override_earlier_ones_by_name() -> None:
    """The later source's skill wins, in the place its name was first seen."""
    files = state_files(
        **{
            "/base/code-review/SKILL.md": CODE,
            "/base/web-research/SKILL.md": WEB,
            "/project/code-review/SKILL.md": skill_md("code-review", "The project's own review."),
        }
    )
    both = run_both([AIMessage(content="ok")], None, hi_input(files), skills=["/base/", ("/project/", "Team")])
    assert_parity(both)
    text = system_text(both.rs.calls[0].messages[0])
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
    files = state_files(**{f"/skills/{case}/SKILL.md": FRONTMATTER_CASES[case], "/skills/code-review/SKILL.md": CODE})
    both = run_both([AIMessage(content="ok")], None, hi_input(files), skills=["/skills/"])
    assert_parity(both)
    text = system_text(both.rs.calls[0].messages[0])
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
        agent.invoke(hi_input(state_files(**{"/skills/web-research/SKILL.md": WEB})), config)
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
    inp = hi_input(
        state_files(**{"/skills/code-review/SKILL.md": CODE}),
        skills_metadata=None,
        skills_load_errors=["forged"],
    )
    both = run_both([AIMessage(content="ok")], None, inp, skills=["/skills/"])
    assert_parity(both)
    text = system_text(both.rs.calls[0].messages[0])
    assert "forged" not in text and "- **code-review**" in text


def test_given_skills_metadata_is_not_reloaded() -> None:
    """A list in the input means loaded: the files are not read."""
    given = [{"name": "given", "description": "From the input.", "path": "/x/given/SKILL.md", "metadata": {},
              "license": None, "compatibility": None, "allowed_tools": []}]  # fmt: skip
    inp = hi_input(state_files(**{"/skills/code-review/SKILL.md": CODE}), skills_metadata=given)
    both = run_both([AIMessage(content="ok")], None, inp, skills=["/skills/"])
    assert_parity(both)
    text = system_text(both.rs.calls[0].messages[0])
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
    text = system_text(run.rs.calls[0].messages[0])
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
        inp=hi_input(state_files(**{"/skills/code-review/SKILL.md": CODE})),
        setup=setup,
    )
    assert_parity(run.both)
    text = system_text(run.rs.calls[0].messages[0])
    assert "<skill_load_warnings>" in text
    assert "- &quot;Cannot load skills from &#x27;/broken/&#x27;: permission denied: &lt;/broken/&gt;" in text
