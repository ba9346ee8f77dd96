"""`deepagents.middleware._message_eviction`: the head-and-tail preview of a large message's
content and the replacement content an evicted tool message keeps.

The preview is the core's (`_core.files_content_preview`), the one its filesystem entry
shows when it moves a large tool result to a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from .._core import LIMITS, files_content_preview

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage, ToolMessage

PREVIEW_LINE_CHAR_LIMIT: Final[int] = LIMITS["PREVIEW_LINE_CHAR_LIMIT"]
"""Characters of each shown line a preview keeps (a longer line is cut there)."""


@dataclass(frozen=True, slots=True)
class ContentPreview:
    """A rendered preview and what was left out to make it."""

    text: str
    """The line-numbered preview."""

    lines_omitted: bool
    """Whole lines were left out of the middle, behind a truncation marker."""

    lines_clipped: bool
    """A shown line was cut at `PREVIEW_LINE_CHAR_LIMIT` characters."""


def _create_content_preview(
    content_str: str,
    *,
    head_lines: int = LIMITS["PREVIEW_HEAD_LINES"],
    tail_lines: int = LIMITS["PREVIEW_TAIL_LINES"],
) -> ContentPreview:
    """The numbered preview of `content_str`: every line when they fit in `head_lines +
    tail_lines`, else the first `head_lines` and last `tail_lines` around a
    `... [N lines truncated] ...` marker."""
    text, omitted, clipped = files_content_preview(content_str, head_lines, tail_lines)
    return ContentPreview(text, lines_omitted=omitted, lines_clipped=clipped)


def _extract_text_from_message(message: BaseMessage) -> str:
    """The message's text blocks joined with newlines (images and other media left out,
    so a payload does not count towards its size)."""
    return "\n".join(block["text"] for block in message.content_blocks if block["type"] == "text")


def _build_evicted_content(message: ToolMessage, replacement_text: str) -> str | list[Any]:
    """An evicted message's new content: `replacement_text`, followed by the message's
    non-text blocks when it has any (its text blocks are what the replacement stands for)."""
    if isinstance(message.content, str):
        return replacement_text
    media = [block for block in message.content_blocks if block["type"] != "text"]
    if not media:
        return replacement_text
    return [{"type": "text", "text": replacement_text}, *media]
