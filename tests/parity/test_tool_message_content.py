"""Parity: a tool message's content as LangGraph's tool node leaves it (`msg_content_output`):
a string, or a list of LangChain's tool-message blocks; a list holding anything else (plain
strings, audio or video blocks, from a user's tool or from ``read_file``) becomes its JSON
text. Both implementations run the same calls; the tool messages are compared."""

from __future__ import annotations

import importlib
from typing import Any

from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool


@tool
def strings() -> list:
    """Plain strings."""
    return ["a", "é"]


@tool
def audio() -> list:
    """An audio block."""
    return [{"type": "audio", "base64": "eA==", "mime_type": "audio/mpeg"}]


@tool
def blocks() -> list:
    """Tool-message blocks."""
    return [{"type": "text", "text": "é"}, {"type": "image", "base64": "eA==", "mime_type": "image/png"}]


@tool(response_format="content_and_artifact")
def with_artifact() -> tuple:
    """A video block and a string, with an artifact."""
    return [{"type": "video", "base64": "eA==", "mime_type": "video/mp4"}, "é"], {"x": 1}


def _tool_messages(impl: str) -> list[Any]:
    calls = [(name, {}) for name in ("strings", "audio", "blocks", "with_artifact")]
    calls += [("read_file", {"file_path": p}) for p in ("/a.mp3", "/b.mp4", "/c.png")]
    model = ScriptedChatModel([ai_tool_calls(*calls), "done"])
    agent = importlib.import_module(impl).create_deep_agent(model=model, tools=[strings, audio, blocks, with_artifact])
    files = {p: {"content": "eA==", "encoding": "base64"} for p in ("/a.mp3", "/b.mp4", "/c.png")}
    out = agent.invoke({"messages": [{"role": "user", "content": "go"}], "files": files})
    return [(m.name, m.content, m.artifact) for m in out["messages"] if isinstance(m, ToolMessage)]


def test_tool_message_content_is_langgraphs() -> None:
    ref = _tool_messages("deepagents")
    assert _tool_messages("deepagents_rs") == ref
    by_name = {name: content for name, content, _ in ref}
    assert by_name["strings"] == '["a", "é"]'
    assert isinstance(by_name["blocks"], list)
