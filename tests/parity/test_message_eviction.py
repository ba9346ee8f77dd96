"""Parity: ``deepagents.middleware._message_eviction``'s helpers, side by side: the
head-and-tail preview of a large content (``_create_content_preview``, its text and what it
left out), the text of a message (``_extract_text_from_message``), and the content an
evicted tool message keeps (``_build_evicted_content``).
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

IMPLS = ("deepagents", "deepagents_rs")


def eviction(impl: str) -> Any:
    return importlib.import_module(f"{impl}.middleware._message_eviction")


LONG = "x" * 1500
CONTENTS = [
    "",
    "one line",
    "a\nb\nc",
    "trailing newline\n",
    "\n\n\n",
    "\r\nwindows\r\nlines\r\n",
    "form\x0cfeed\x1cand\u2028separators\u0085too",
    "\n".join(f"line {i}" for i in range(10)),
    "\n".join(f"line {i}" for i in range(11)),
    "\n".join(f"line {i}" for i in range(250)),
    "\n".join([LONG] * 3),
    "\n".join([LONG] + [f"l{i}" for i in range(20)] + [LONG]),
    "\n".join(["short"] * 12 + [LONG]),
    "x" * 12000,
    "ünïcödé 🎉\n" * 30,
]

#: Negative counts slice as Python slices them (deepagents takes any integer).
WINDOWS = [
    (5, 5), (0, 0), (1, 0), (0, 3), (2, 2), (10, 1), (100, 100),
    (-2, 3), (3, -2), (-20, 5), (-1, -1), (5, -100), (0, -3), (-100, 0), (-5, 100),
]  # fmt: skip


@pytest.mark.parametrize("content", CONTENTS, ids=range(len(CONTENTS)))
def test_content_preview(content: str) -> None:
    def previews(impl: str) -> list[Any]:
        make = eviction(impl)._create_content_preview
        out = [dataclasses.asdict(make(content))]
        out += [dataclasses.asdict(make(content, head_lines=h, tail_lines=t)) for h, t in WINDOWS]
        return out

    assert previews("deepagents_rs") == previews("deepagents")


def test_preview_type_and_limit() -> None:
    ref, ours = (eviction(impl) for impl in IMPLS)
    assert ours.PREVIEW_LINE_CHAR_LIMIT == ref.PREVIEW_LINE_CHAR_LIMIT
    preview = ours._create_content_preview("\n".join(str(i) for i in range(40)))
    assert type(preview).__name__ == "ContentPreview"
    assert preview.lines_omitted is True
    assert preview.lines_clipped is False
    assert [f.name for f in dataclasses.fields(preview)] == ["text", "lines_omitted", "lines_clipped"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        preview.text = "changed"  # type: ignore[misc]


IMAGE = {"type": "image", "base64": "aGk=", "mime_type": "image/png"}
MESSAGES = [
    ToolMessage(content="plain text", tool_call_id="c1"),
    ToolMessage(content="", tool_call_id="c1"),
    ToolMessage(content=["bare string", {"type": "text", "text": "block"}], tool_call_id="c1"),
    ToolMessage(content=[{"type": "text", "text": "a"}, IMAGE, {"type": "text", "text": "b"}], tool_call_id="c1"),
    ToolMessage(content=[IMAGE], tool_call_id="c1"),
    ToolMessage(content=[{"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}}], tool_call_id="c"),
    ToolMessage(content=[{"type": "text", "text": "t"}, {"type": "file", "url": "https://x/f.pdf"}], tool_call_id="c"),
    HumanMessage(content=[{"type": "text", "text": "human"}, {"type": "text", "text": "two"}]),
    AIMessage(content=[{"type": "text", "text": "ai"}, {"type": "reasoning", "reasoning": "hm"}]),
]


@pytest.mark.parametrize("message", MESSAGES, ids=range(len(MESSAGES)))
def test_text_and_evicted_content(message: Any) -> None:
    def answers(impl: str) -> Any:
        module = eviction(impl)
        out: list[Any] = [module._extract_text_from_message(message)]
        if isinstance(message, ToolMessage):
            out.append(module._build_evicted_content(message, "REPLACED"))
        return out

    assert without_random_ids(answers("deepagents_rs")) == without_random_ids(answers("deepagents"))


def without_random_ids(value: Any) -> Any:
    """`value` without the random `lc_...` ids LangChain's `content_blocks` gives blocks."""
    if isinstance(value, dict):
        return {k: without_random_ids(v) for k, v in value.items() if not (k == "id" and str(v).startswith("lc_"))}
    if isinstance(value, list):
        return [without_random_ids(v) for v in value]
    return value
