"""Interrupt-mode ``FilesystemPermission`` rules on a ``FilesystemBackend`` with real
symlinks, side by side with deepagents: a call whose path leads into a gated subtree through
a link goes to a human; one whose target a deny rule covers is refused at the tool instead;
one whose path cannot be resolved (a symlink loop) is not gated."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import deepagents
import deepagents_rs
import pytest
from deepagents.backends import CompositeBackend as RefComposite
from deepagents.backends import FilesystemBackend as RefDisk
from deepagents.backends import StateBackend as RefState
from deepagents.middleware.filesystem import FilesystemPermission as RefPermission
from deepagents_rs.backends import CompositeBackend, FilesystemBackend, StateBackend
from deepagents_rs.middleware.filesystem import FilesystemPermission
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from .harness import ScriptedChatModel, ai_tool_calls

THREAD = {"configurable": {"thread_id": "t"}}

CALLS = {
    "file_link_into_gated": ("read_file", {"file_path": "/open/alias.txt"}),
    "dir_link_into_gated": ("read_file", {"file_path": "/link/a.txt"}),
    "listing_through_a_link": ("ls", {"path": "/link"}),
    "grep_through_a_link": ("grep", {"pattern": "s", "path": "/link"}),
    "write_through_a_link": ("write_file", {"file_path": "/link/new.txt", "content": "n"}),
    "link_into_denied": ("read_file", {"file_path": "/to_public/p.txt"}),
    "open_file": ("read_file", {"file_path": "/open/o.txt"}),
    "gated_itself": ("read_file", {"file_path": "/secret/a.txt"}),
    "symlink_loop": ("read_file", {"file_path": "/open/loop"}),
    "listing_everything": ("ls", {"path": "/"}),
}


def _tree(root: Path) -> None:
    (root / "secret" / "public").mkdir(parents=True)
    (root / "open").mkdir()
    (root / "secret" / "a.txt").write_text("secret a\n")
    (root / "secret" / "public" / "p.txt").write_text("public p\n")
    (root / "open" / "o.txt").write_text("open o\n")
    os.symlink(root / "secret", root / "link")
    os.symlink(root / "secret" / "a.txt", root / "open" / "alias.txt")
    os.symlink(root / "secret" / "public", root / "to_public")
    os.symlink(root / "open" / "loop", root / "open" / "loop")


def _run(impl: Any, root: Path, call: tuple[str, dict], routed: bool) -> list[Any]:
    ref = impl is deepagents
    permission = RefPermission if ref else FilesystemPermission
    disk = (RefDisk if ref else FilesystemBackend)(root_dir=str(root), virtual_mode=True)
    backend = disk
    if routed:
        # The disk under a route: its paths are the route's, resolved by the routed backend.
        composite = RefComposite if ref else CompositeBackend
        backend = composite(default=(RefState if ref else StateBackend)(), routes={"/disk/": disk})
        call = (call[0], {k: ("/disk" + v if k in ("file_path", "path") else v) for k, v in call[1].items()})
    prefix = "/disk" if routed else ""
    rules = [
        permission(operations=["read", "write"], paths=[f"{prefix}/secret/public/**"], mode="deny"),
        permission(operations=["read", "write"], paths=[f"{prefix}/secret/**"], mode="interrupt"),
    ]
    agent = impl.create_deep_agent(
        model=ScriptedChatModel([ai_tool_calls((call[0], call[1], "call_F")), "done"]),
        checkpointer=InMemorySaver(),
        permissions=rules,
        backend=backend,
    )
    first = agent.invoke({"messages": [("user", "go")]}, THREAD)
    row = [
        [i.value for i in first.get("__interrupt__", [])],
        [(m.type, m.content) for m in first["messages"]],
    ]
    if first.get("__interrupt__"):
        resumed = agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), THREAD)
        row.append([(m.type, m.content) for m in resumed["messages"]])
    return [_relative(r, root) for r in row]


def _relative(value: Any, root: Path) -> Any:
    """The run's view with the temporary root's own path taken out."""
    if isinstance(value, str):
        return value.replace(str(root), "<root>")
    if isinstance(value, list):
        return [_relative(v, root) for v in value]
    if isinstance(value, tuple):
        return tuple(_relative(v, root) for v in value)
    if isinstance(value, dict):
        return {k: _relative(v, root) for k, v in value.items()}
    return value


@pytest.mark.parametrize("routed", [False, True], ids=["disk", "routed"])
@pytest.mark.parametrize("case", sorted(CALLS))
def test_links_are_gated_as_deepagents_gates_them(case: str, routed: bool, tmp_path: Path) -> None:
    rows = []
    for impl in (deepagents, deepagents_rs):
        root = tmp_path / impl.__name__
        root.mkdir()
        _tree(root)
        rows.append(_run(impl, root, CALLS[case], routed))
    assert rows[1] == rows[0]


def test_a_link_into_the_gated_subtree_is_stopped(tmp_path: Path) -> None:
    _tree(tmp_path)
    row = _run(deepagents_rs, tmp_path, CALLS["dir_link_into_gated"], routed=False)
    assert row[0], "no interrupt"
    assert row[0][0]["action_requests"][0]["args"] == {"file_path": "/link/a.txt"}
