"""The core's ``routes`` items reach a checkpointed run's stream only when its shaper reads
them (`_stream.Shaper.reads_routes`: the ``tools`` parts and the v3 protocol); a stream that
makes nothing of them is not handed them (`_thread_feed.Feed.forward_routes`), and the one
that reads them still gets them, so its tool events are LangGraph's."""

from __future__ import annotations

from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _thread_feed
from fake_models import ScriptedChatModel, ai_tool_calls
from langgraph.checkpoint.memory import InMemorySaver
from thread_support import THREAD, my_tool


@pytest.fixture
def forwarded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The modes of the core's items each checkpointed run's feed hands its caller's stream."""
    modes: list[str] = []
    init = _thread_feed.Feed.__init__

    def recording(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        forward = self._forward

        def seen(item: tuple) -> None:
            modes.append(item[0])
            forward(item)

        self._forward = seen

    monkeypatch.setattr(_thread_feed.Feed, "__init__", recording)
    return modes


def _agent() -> Any:
    script = [ai_tool_calls(("my_tool", {"x": 1}, "call_1")), "done"]
    return deepagents_rs.create_deep_agent(
        model=ScriptedChatModel(script), tools=[my_tool], checkpointer=InMemorySaver()
    )


def test_a_stream_that_makes_nothing_of_routes_is_not_handed_them(forwarded: list[str]) -> None:
    result = _agent().invoke({"messages": [("user", "go")]}, THREAD)
    assert result["messages"][-1].content == "done"
    chunks = list(_agent().stream({"messages": [("user", "go")]}, THREAD, stream_mode="updates"))
    assert chunks
    assert forwarded and "routes" not in forwarded, forwarded


def test_the_tools_stream_is_handed_routes_and_shows_its_tool_events(forwarded: list[str]) -> None:
    chunks = list(_agent().stream({"messages": [("user", "go")]}, THREAD, stream_mode=["tools", "updates"]))
    assert "routes" in forwarded, forwarded
    tools = [c[1] for c in chunks if c[0] == "tools"]
    assert [t["event"] for t in tools] == ["tool-started", "tool-finished"], tools
