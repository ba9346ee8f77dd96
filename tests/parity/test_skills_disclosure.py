"""Skills in a run through both implementations: read by the model on demand, pinned skills
appended before the model call; the general-purpose subagent and forks get the caller's skills,
a declarative subagent only its own."""

from __future__ import annotations

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import AIMessage

from .fs_support import MODES
from .harness import ScriptedChatModel, ai_tool_calls, assert_parity, hi_input, run_both, state_files, system_text
from .skills_support import CODE, WEB, _last_human

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

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
        script, None, hi_input(state_files(**{"/skills/web-research/SKILL.md": WEB})), mode=mode, skills=["/skills/"]
    )
    ref = assert_parity(both)
    read = ref["messages"][2]
    assert read.type == "tool" and "Do it well." in read.content
    # The section is the same on the second call: the skills were loaded once.
    first, second = (system_text(c.messages[0]) for c in both.rs.calls)
    assert first == second


@pytest.mark.parametrize("mode", MODES)
def test_pinned_skills_are_appended_before_the_model_call(mode: str) -> None:
    files = state_files(**{"/skills/web-research/SKILL.md": WEB, "/skills/code-review/SKILL.md": CODE})
    inp = hi_input(files, pinned_skills=["code-review", "unknown", "web-research", "code-review"])
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
    files = state_files(
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
        script, None, hi_input(files), mode=mode, system_prompt="Main.", skills=["/skills/"], subagents=subagents
    )
    assert_parity(both)
    calls = {_last_human(c.messages): c for c in both.rs.calls}
    section = {task: system_text(c.messages[0]) for task, c in calls.items()}
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
