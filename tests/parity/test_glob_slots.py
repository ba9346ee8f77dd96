"""The `glob` tool's bound on calls still running, side by side with deepagents.

deepagents runs a sync run's `glob` on four threads behind a semaphore; a call that timed out
keeps its slot until the backend returns, so a fifth call while four are still running is
refused with "too many glob calls". An async run awaits the backend with a timeout and keeps
no count. Which of several parallel calls is refused is the thread pool's choice, so each
model turn's results are compared as a multiset.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from .fs_support import MODES, ai_tool_calls, run_fs

TIMEOUT = 0.5
TOO_MANY = (
    "Error: too many glob calls are already running. Try again later with a more specific pattern or a narrower path."
)
TIMED_OUT = f"Error: glob timed out after {TIMEOUT}s. Try a more specific pattern or a narrower path."


def stuck_backend(a: SimpleNamespace, release: threading.Event) -> Any:
    """A StateBackend whose `glob` returns only once the test releases it."""

    class Stuck(a.StateBackend):
        def glob(self, pattern: str, path: str | None = None) -> Any:
            release.wait(60)
            return a.protocol.GlobResult(matches=[])

        async def aglob(self, pattern: str, path: str | None = None) -> Any:
            # Waits on the loop (a thread left blocked would hold up the loop's shutdown).
            while not release.is_set():
                await asyncio.sleep(0.02)
            return a.protocol.GlobResult(matches=[])

    return Stuck()


def turns(result: dict[str, Any]) -> list[Counter]:
    """Each model turn's tool results, as a multiset of contents."""
    out: list[Counter] = []
    for m in result["messages"]:
        if isinstance(m, AIMessage) and m.tool_calls:
            out.append(Counter())
        elif isinstance(m, ToolMessage):
            out[-1][m.content] += 1
    return out


@pytest.mark.parametrize("mode", MODES)
def test_calls_still_running_bound_new_ones(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for impl in ("deepagents", "deepagents_rs"):
        monkeypatch.setattr(importlib.import_module(f"{impl}.middleware.filesystem"), "GLOB_TIMEOUT", TIMEOUT)
    releases: list[threading.Event] = []

    def setup(a: SimpleNamespace) -> dict[str, Any]:
        releases.append(threading.Event())
        return {"backend": stuck_backend(a, releases[-1])}

    five = [("glob", {"pattern": f"*.{n}"}) for n in range(5)]
    try:
        run = run_fs(
            [ai_tool_calls(*five), ai_tool_calls(("glob", {"pattern": "*.md"})), "done"], mode=mode, setup=setup
        )
        ref, rs = run.ref.unwrap(), run.rs.unwrap()
    finally:
        for release in releases:
            release.set()
    assert turns(rs) == turns(ref)
    if mode == "invoke":
        # Four hold their slots past the timeout; the fifth, and the next turn's, are refused.
        assert turns(ref) == [Counter({TIMED_OUT: 4, TOO_MANY: 1}), Counter({TOO_MANY: 1})]
    else:
        assert turns(ref) == [Counter({TIMED_OUT: 5}), Counter({TIMED_OUT: 1})]
