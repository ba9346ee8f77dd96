"""Memory (``create_deep_agent(memory=[...])`` and ``MemoryMiddleware``) through both
implementations: AGENTS.md files read through the agent's backend, shown at the end of the
system prompt, loaded once per thread (and again by a fork), absent from other subagents and
from the output.

The system prompt is compared exactly (``assert_parity`` compares every message each model
was sent, the system message included); each scenario also checks what it is about on the
deepagents_rs side directly, so a change to both would not pass unseen.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import AIMessage

from .fs_support import MODES, Tree, run_fs
from .harness import (
    Mode,
    ScriptedChatModel,
    ai_tool_calls,
    assert_parity,
    assert_same_error,
    hi_input,
    run_both,
    run_both_on_a_saver_thread,
    state_files,
    system_text,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

AGENTS_MD = "# Project\n<!-- authoring note,\nover two lines -->\nUse tabs.\n\n\n"
USER_MD = "Prefers short answers.\n"


def _memory_mw(impl: str) -> type:
    return importlib.import_module(f"{impl}.middleware").MemoryMiddleware


# --------------------------------------------------------------------------------------------
# StateBackend: files given in the input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_state_backend_sources_in_order_missing_skipped(mode: str) -> None:
    files = state_files(**{"/AGENTS.md": AGENTS_MD, "/user/AGENTS.md": USER_MD})
    both = run_both(
        [AIMessage(content="ok")],
        None,
        hi_input(files),
        mode=mode,
        system_prompt="You are X.",
        memory=["/user/AGENTS.md", "/missing.md", "/AGENTS.md"],
    )
    ref = assert_parity(both)
    system = both.rs.calls[0].messages[0]
    assert system.content[0] == {"type": "text", "text": "You are X."}
    assert system.content[1]["text"].startswith(
        "\n\n<agent_memory>\n/user/AGENTS.md\n\nPrefers short answers.\n\n/AGENTS.md\n\n# Project\n\nUse tabs.\n\n</agent_memory>"
    )
    # `memory_contents` is private: never in the output.
    assert sorted(ref) == sorted(both.rs.result) == ["files", "messages"]


@pytest.mark.parametrize(
    "files",
    [None, state_files(**{"/AGENTS.md": "<!-- only a comment -->\n \n"})],
    ids=["no-files", "only-comments"],
)
def test_nothing_to_show_reads_no_memory_loaded(files: dict[str, Any] | None) -> None:
    both = run_both([AIMessage(content="ok")], None, hi_input(files), memory=["/AGENTS.md"])
    assert_parity(both)
    # An empty authored prompt has no blocks: the section comes first, with no blank line.
    assert system_text(both.rs.calls[0].messages[0]).startswith("<agent_memory>\n(No memory loaded)\n\n</agent_memory>")


def test_memory_is_reloaded_by_each_run_without_a_checkpointer() -> None:
    """Without a saver each run starts from its input: memory is read again."""
    for files in (state_files(**{"/AGENTS.md": "first"}), state_files(**{"/AGENTS.md": "second"})):
        both = run_both([AIMessage(content="ok")], None, hi_input(files), memory=["/AGENTS.md"])
        assert_parity(both)
        assert "/AGENTS.md\n\n" + files["/AGENTS.md"]["content"] in system_text(both.rs.calls[0].messages[0])


def test_private_key_in_the_input_is_ignored() -> None:
    """``memory_contents`` is not an input key: passing it does not stop the load."""
    inp = {**hi_input(state_files(**{"/AGENTS.md": "from the file"})), "memory_contents": {"/AGENTS.md": "forged"}}
    both = run_both([AIMessage(content="ok")], None, inp, memory=["/AGENTS.md"])
    assert_parity(both)
    assert "from the file" in system_text(both.rs.calls[0].messages[0])


# --------------------------------------------------------------------------------------------
# Other backends: on disk, a composite, a failing download
# --------------------------------------------------------------------------------------------


def _on_disk(tree: Tree, mode: str, sources: list[str]) -> Any:
    """One reply's run with memory read from ``tree`` through a ``FilesystemBackend``."""
    return run_fs(
        [AIMessage(content="ok")],
        mode=mode,
        tree=tree,
        setup=lambda a: {
            "backend": a.FilesystemBackend(root_dir=str(tree.root), virtual_mode=True),
            "memory": sources,
        },
    )


@pytest.mark.parametrize("mode", MODES)
def test_filesystem_backend_reads_from_disk(tmp_path: Path, mode: str) -> None:
    tree = Tree(tmp_path / "root", files={"AGENTS.md": AGENTS_MD, "team/AGENTS.md": USER_MD})
    run = _on_disk(tree, mode, ["/AGENTS.md", "/team/AGENTS.md", "/absent.md"])
    ref = assert_parity(run.both)
    assert "/team/AGENTS.md\n\nPrefers short answers." in system_text(run.rs.calls[0].messages[0])
    # No StateBackend: only messages come out.
    assert sorted(ref) == sorted(run.rs.result) == ["messages"]


@pytest.mark.parametrize("mode", MODES)
def test_composite_backend_routes_each_source(tmp_path: Path, mode: str) -> None:
    tree = Tree(tmp_path / "root", files={"AGENTS.md": "on disk"})
    run = run_fs(
        [AIMessage(content="ok")],
        mode=mode,
        tree=tree,
        inp=hi_input(state_files(**{"/AGENTS.md": "in state"})),
        setup=lambda a: {
            "backend": a.CompositeBackend(
                default=a.StateBackend(),
                routes={"/disk/": a.FilesystemBackend(root_dir=str(tree.root), virtual_mode=True)},
            ),
            "memory": ["/AGENTS.md", "/disk/AGENTS.md"],
        },
    )
    assert_parity(run.both)
    text = system_text(run.rs.calls[0].messages[0])
    assert "/AGENTS.md\n\nin state\n\n/disk/AGENTS.md\n\non disk" in text


@pytest.mark.parametrize("mode", MODES)
def test_a_download_error_other_than_missing_fails_the_run(tmp_path: Path, mode: str) -> None:
    tree = Tree(tmp_path / "root", files={"AGENTS.md": "x"}, dirs=["docs"])
    run = _on_disk(tree, mode, ["/AGENTS.md", "/docs"])
    err = assert_same_error(run.both)
    assert isinstance(err, ValueError)
    assert str(run.rs.error) == "Failed to download /docs: is_directory"
    assert run.rs.calls == []


@pytest.mark.parametrize("mode", MODES)
def test_bytes_that_are_not_utf8_fail_as_in_python(tmp_path: Path, mode: str) -> None:
    tree = Tree(tmp_path / "root", files={"AGENTS.md": b"ok \xff"})
    run = _on_disk(tree, mode, ["/AGENTS.md"])
    assert_same_error(run.both)
    assert isinstance(run.rs.error, UnicodeDecodeError)


# --------------------------------------------------------------------------------------------
# Subagents: a fork loads memory again; the general-purpose and isolated ones have none
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_fork_reloads_memory_and_other_subagents_have_none(mode: str) -> None:
    """The parent edits AGENTS.md before delegating. deepagents hands the fork its state, but
    the fork's graph drops private input keys (``memory_contents`` among them), so the fork
    reads memory again and shows the edit, while the parent keeps what it loaded. The
    general-purpose and isolated subagents get no memory section."""
    subagents = [
        {"name": "forker", "description": "Continues the work.", "mode": "fork"},
        {"name": "researcher", "description": "Researches.", "system_prompt": "You research."},
    ]
    script = [
        ai_tool_calls(("edit_file", {"file_path": "/AGENTS.md", "old_string": "tabs", "new_string": "spaces"})),
        # One delegation a turn: parallel ones would take the script's replies in any order.
        ai_tool_calls(("task", {"description": "fork work", "subagent_type": "forker"})),
        AIMessage(content="fork done"),
        ai_tool_calls(("task", {"description": "iso work", "subagent_type": "researcher"})),
        AIMessage(content="iso done"),
        ai_tool_calls(("task", {"description": "gp work", "subagent_type": "general-purpose"})),
        AIMessage(content="gp done"),
        AIMessage(content="all done"),
    ]
    both = run_both(
        script,
        None,
        hi_input(state_files(**{"/AGENTS.md": AGENTS_MD})),
        mode=mode,
        system_prompt="You are the main agent.",
        memory=["/AGENTS.md"],
        subagents=subagents,
    )
    ref = assert_parity(both)
    assert "Use spaces." in ref["files"]["/AGENTS.md"]["content"]
    calls = {_last_human(c.messages): c for c in both.rs.calls}
    fork = next(c for task, c in calls.items() if task.endswith("fork work"))
    assert "Use spaces." in system_text(fork.messages[0])
    assert "Use tabs." in system_text(both.rs.calls[-1].messages[0])
    for task in ("iso work", "gp work"):
        assert "<agent_memory>" not in system_text(calls[task].messages[0])


def _last_human(messages: list[Any]) -> str:
    return next(m.content for m in reversed(messages) if m.type == "human")


# --------------------------------------------------------------------------------------------
# A user's MemoryMiddleware
# --------------------------------------------------------------------------------------------


TEMPLATE = "## Notes\n{agent_memory}\n{{not a slot}}"


def _user_memory_setup(with_memory_arg: bool) -> Any:
    def setup(a: Any) -> dict[str, Any]:
        from langchain.agents.middleware import TodoListMiddleware

        mw = _memory_mw(a.impl)(backend=a.StateBackend(), sources=["/team.md"], system_prompt=TEMPLATE)
        kwargs: dict[str, Any] = {"middleware": [mw, TodoListMiddleware()], "system_prompt": "Base."}
        if with_memory_arg:
            kwargs["memory"] = ["/AGENTS.md"]
        return kwargs

    return setup


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("with_memory_arg", [False, True], ids=["alone", "with-memory-arg"])
def test_user_memory_middleware(mode: str, with_memory_arg: bool) -> None:
    """Alone it stays among the user's middleware (its section before the todo list's);
    with ``memory=`` it takes the default's place (after the todo list's), and the default's
    sources are not read."""
    run = run_fs(
        [AIMessage(content="ok")],
        mode=mode,
        inp=hi_input(state_files(**{"/team.md": "Team rules.", "/AGENTS.md": AGENTS_MD})),
        setup=_user_memory_setup(with_memory_arg),
    )
    assert_parity(run.both)
    text = system_text(run.rs.calls[0].messages[0])
    notes, todos = text.index("## Notes\n/team.md\n\nTeam rules.\n{not a slot}"), text.index("write_todos")
    assert (notes > todos) is with_memory_arg
    assert "# Project" not in text


def test_memory_loaded_but_not_shown() -> None:
    def setup(a: Any) -> dict[str, Any]:
        return {
            "middleware": [_memory_mw(a.impl)(backend=a.StateBackend(), sources=["/AGENTS.md"], system_prompt=None)]
        }

    run = run_fs(
        [AIMessage(content="ok")], mode="invoke", inp=hi_input(state_files(**{"/AGENTS.md": "x"})), setup=setup
    )
    assert_parity(run.both)
    assert run.rs.calls[0].messages[0].content == ""


@pytest.mark.parametrize(
    ("system_prompt", "error"),
    [(42, TypeError), (b"{agent_memory}", TypeError), ("no slot here", ValueError)],
    ids=["int", "bytes", "no-slot"],
)
def test_constructor_refuses_what_deepagents_refuses(system_prompt: Any, error: type) -> None:
    raised = []
    for impl in ("deepagents", "deepagents_rs"):
        backend = importlib.import_module(f"{impl}.backends").StateBackend()
        with pytest.raises(error) as info:
            _memory_mw(impl)(backend=backend, sources=[], system_prompt=system_prompt)
        raised.append(str(info.value))
    assert raised[0] == raised[1]


def test_exported_where_deepagents_exports_it() -> None:
    assert deepagents_rs.MemoryMiddleware is deepagents_rs.middleware.MemoryMiddleware
    from deepagents.middleware.memory import MEMORY_SYSTEM_PROMPT as theirs
    from deepagents_rs.middleware.memory import MEMORY_SYSTEM_PROMPT as ours

    assert ours == theirs


# --------------------------------------------------------------------------------------------
# A checkpointed thread: memory is loaded on the first turn only
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_checkpointed_thread_keeps_the_first_load(tmp_path: Path, mode: Mode) -> None:
    def before_turn(root: Path, i: int) -> None:
        (root / "AGENTS.md").write_text(("first version", "second version")[i])

    turns = [{"messages": [{"role": "user", "content": text}]} for text in ("a", "b")]
    (ref_model, ref_out, ref_state), (rs_model, rs_out, rs_state) = run_both_on_a_saver_thread(
        tmp_path, mode, turns, before_turn, memory=["/AGENTS.md"]
    )
    assert [c.messages[0] for c in rs_model.calls] == [c.messages[0] for c in ref_model.calls]
    assert "first version" in system_text(rs_model.calls[1].messages[0])
    assert sorted(rs_out) == sorted(ref_out) == ["messages"]
    # The thread keeps the private key (checkpointed, not output).
    assert rs_state["memory_contents"] == ref_state["memory_contents"] == {"/AGENTS.md": "first version"}


# --------------------------------------------------------------------------------------------
# Stream: the hook's node and its write
# --------------------------------------------------------------------------------------------


def test_stream_shows_the_memory_node() -> None:
    updates = {}
    for module in (deepagents, deepagents_rs):
        agent = module.create_deep_agent(model=ScriptedChatModel([AIMessage(content="ok")]), memory=["/AGENTS.md"])
        chunks = agent.stream(hi_input(state_files(**{"/AGENTS.md": "x"})), stream_mode="updates")
        updates[module.__name__] = [(node, update) for chunk in chunks for node, update in chunk.items()]
    ref, rs = updates.values()
    assert [n for n, _ in rs] == [n for n, _ in ref]
    assert dict(rs)["MemoryMiddleware.before_agent"] == dict(ref)["MemoryMiddleware.before_agent"]
