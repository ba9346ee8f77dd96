"""Parity: which file dicts of the output's ``files`` are the caller's own objects.

deepagents' ``files`` reducer merges each write into the dict it had, so a file dict that
came in through the input and that no write touched is the very object the caller gave; a
file a tool wrote, or one a tool's ``Command`` update stored, is a new one. deepagents_rs hands the
caller's object back the same way instead of rebuilding every file dict from its reading
(for a 10,000-file state that rebuilding was most of a short run's cost). Each case runs
both implementations under ``invoke`` and ``ainvoke`` and compares, per path, whether the
output's entry is the object that went in, besides the contents.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib
from typing import Annotated, Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.types import Command

from .harness import ai_tool_calls

IMPLS = ("deepagents", "deepagents_rs")
STAMP = "2026-01-01T00:00:00+00:00"


def file(content: str, **extra: Any) -> dict[str, Any]:
    return {"content": content, "encoding": "utf-8", "created_at": STAMP, "modified_at": STAMP, **extra}


@tool
def put_note(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Store a note file through a state update."""
    return Command(
        update={
            "files": {"/note.txt": NOTE},
            "messages": [ToolMessage("stored", tool_call_id=tool_call_id)],
        }
    )


NOTE = file("a note\n")


def run(impl: str, files: dict[str, Any], script: list[Any], mode: str) -> dict[str, Any]:
    from fake_models import ScriptedChatModel

    mod = importlib.import_module(impl)
    backends = importlib.import_module(f"{impl}.backends")
    agent = mod.create_deep_agent(
        model=ScriptedChatModel([*script, "done"]), tools=[put_note], backend=backends.StateBackend()
    )
    payload = {"messages": [{"role": "user", "content": "go"}], "files": dict(files)}
    if mode == "ainvoke":
        return asyncio.run(agent.ainvoke(payload))
    return agent.invoke(payload)


def identities(files: dict[str, Any], out: dict[str, Any]) -> dict[str, bool]:
    """Per output path: whether the entry is the object given (in the input, or ``NOTE``)."""
    given = {**files, "/note.txt": NOTE}
    return {path: entry is given.get(path) for path, entry in out["files"].items()}


def contents(out: dict[str, Any]) -> dict[str, Any]:
    return {path: entry["content"] for path, entry in out["files"].items()}


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_untouched_files_are_the_callers_objects(mode: str) -> None:
    files = {
        "/keep.txt": file("kept\n"),
        "/edit.txt": file("old text\n"),
        "/gone.txt": file("to delete\n"),
        # Not read exactly by deepagents_rs (a datetime): it took another path before.
        "/odd.txt": file("odd\n", seen=dt.datetime(2026, 1, 1)),
        "/later.txt": file("read, then overwritten\n"),
    }
    script = [
        ai_tool_calls(("read_file", {"file_path": "/keep.txt"}), ("glob", {"pattern": "*.txt"})),
        ai_tool_calls(("edit_file", {"file_path": "/edit.txt", "old_string": "old", "new_string": "new"})),
        ai_tool_calls(("write_file", {"file_path": "/new.txt", "content": "fresh\n"}), ("put_note", {})),
        ai_tool_calls(("delete", {"file_path": "/gone.txt"})),
        ai_tool_calls(("read_file", {"file_path": "/later.txt"})),
        ai_tool_calls(("edit_file", {"file_path": "/later.txt", "old_string": "read", "new_string": "seen"})),
    ]
    out = {impl: run(impl, files, script, mode) for impl in IMPLS}
    ref = out["deepagents"]
    # deepagents' own facts, so the comparison below covers each kind of entry.
    assert identities(files, ref) == {
        "/keep.txt": True,
        "/edit.txt": False,
        "/odd.txt": True,
        "/later.txt": False,
        "/new.txt": False,
        # A tool's Command update reaches the reducer as a copy in deepagents.
        "/note.txt": False,
    }, identities(files, ref)
    assert contents(ref)["/edit.txt"] == "new text\n"
    assert identities(files, out["deepagents_rs"]) == identities(files, ref)
    assert contents(out["deepagents_rs"]) == contents(ref)
    # The caller's dicts were not changed on the way through.
    assert files["/edit.txt"]["content"] == "old text\n"
    assert files["/later.txt"]["content"] == "read, then overwritten\n"


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_file_written_again_with_equal_content_is_a_new_object(mode: str) -> None:
    files = {"/same.txt": file("same\n"), "/other.txt": file("other\n")}
    script = [ai_tool_calls(("edit_file", {"file_path": "/same.txt", "old_string": "same", "new_string": "same"}))]
    out = {impl: run(impl, files, script, mode) for impl in IMPLS}
    assert identities(files, out["deepagents"])["/other.txt"] is True
    assert identities(files, out["deepagents_rs"]) == identities(files, out["deepagents"])
    assert contents(out["deepagents_rs"]) == contents(out["deepagents"])
