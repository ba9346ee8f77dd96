"""What the grader reads and what the agent reads back: the grader's first user message (the
rubric, the frozen criteria and a bounded transcript, each between delimiters carrying a
fresh nonce) and the revision message a ``needs_revision`` verdict becomes."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from typing import Any

from . import _rubric_texts as texts

#: The transcript's last messages the grader sees (the user's request is kept besides).
TRANSCRIPT_WINDOW = 30
#: Characters of one message the grader sees before the rest is cut.
MESSAGE_CHARS = 4_000

# A closing delimiter inside untrusted content would end the section early; it is escaped.
_CLOSER = re.compile(r"</(rubric|transcript|criteria)", re.IGNORECASE)


def _escape_closers(content: str) -> str:
    return _CLOSER.sub(r"<\\/\1", content)


def is_revision(message: Any) -> bool:
    """A message this middleware wrote (its revision requests)."""
    return (getattr(message, "additional_kwargs", None) or {}).get("lc_source") == texts.RUBRIC_GRADER_MESSAGE_SOURCE


def _role(message: Any) -> str:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, ToolMessage):
        return f"tool:{message.name or 'tool'}"
    return getattr(message, "type", "message")


def _text(message: Any) -> str:
    """A message as plain text: its text blocks, its tool calls as tags, any other block by
    its type alone (no raw bytes reach the grader)."""
    parts: list[str] = []
    for block in message.content_blocks:
        kind = block.get("type")
        if kind == "text":
            if block.get("text"):
                parts.append(block["text"])
        elif kind == "tool_call":
            parts.append(f"<tool_call name={block.get('name', 'tool')!r} args={block.get('args', {})!r}/>")
        else:
            parts.append(f"({kind or 'block'})")
    return "\n".join(parts) or texts.EMPTY_MESSAGE


def transcript(messages: Sequence[Any]) -> str:
    """The last ``TRANSCRIPT_WINDOW`` messages, each labelled with its role and cut at
    ``MESSAGE_CHARS``; the user's request leads when the window has moved past it."""
    from langchain_core.messages import HumanMessage

    if not messages:
        return texts.EMPTY_TRANSCRIPT
    request = next((m for m in messages if isinstance(m, HumanMessage) and not is_revision(m)), None)
    window = list(messages[-TRANSCRIPT_WINDOW:])
    shown = window if request is None or request in window else [request, *window]
    lines = []
    for message in shown:
        text = _text(message)
        if len(text) > MESSAGE_CHARS:
            text = text[:MESSAGE_CHARS] + texts.TRUNCATED
        lines.append(f"[{_role(message)}] {text}")
    return "\n\n".join(lines)


def grader_payload(rubric: str, frozen: Sequence[str], messages: Sequence[Any], iteration: int, correction: str | None) -> str:  # fmt: skip
    """The grader's user message. Without frozen criteria the grader names them itself;
    with them, it grades exactly those, in order."""
    nonce = secrets.token_hex(8)

    def section(tag: str, body: str) -> str:
        return f"<{tag}-{nonce}>\n{body}\n</{tag}-{nonce}>"

    sections = [section("rubric", _escape_closers(rubric.strip()))]
    if frozen:
        # Names a grader wrote after reading untrusted content: escaped like the rest.
        sections.append(section("criteria", "\n".join(f"{i}. {_escape_closers(n)}" for i, n in enumerate(frozen, 1))))
        tags = texts.TAGS_THREE.format(nonce=nonce)
        instruction = texts.INSTRUCTION_FROZEN.format(count=len(frozen), nonce=nonce)
    else:
        tags = texts.TAGS_TWO.format(nonce=nonce)
        instruction = texts.INSTRUCTION_ENUMERATE
    sections.append(section("transcript", _escape_closers(transcript(messages))))
    if correction is None:
        preamble = texts.PREAMBLE.format(iteration=iteration)
    else:
        preamble = texts.PREAMBLE_REGRADE.format(iteration=iteration, correction=correction)
    return texts.PAYLOAD.format(preamble=preamble, tags=tags, payload="\n\n".join(sections), instruction=instruction)


def revision_message(evaluation: dict) -> str:
    """The request for another attempt: the grader's feedback, what still fails, and (unless
    the verdict was unverified, when that list cannot be trusted) what already passes."""
    unverified = evaluation.get("unverified", False)
    lines = [texts.REVISION_OPENING_UNVERIFIED if unverified else texts.REVISION_OPENING]
    if evaluation.get("explanation"):
        lines += ["", texts.REVISION_FEEDBACK.format(explanation=evaluation["explanation"].strip())]
    criteria = evaluation.get("criteria", [])
    failing = [c for c in criteria if not c.get("passed")]
    if failing:
        lines += ["", texts.REVISION_FAILING_HEADER]
        for c in failing:
            name, gap = c.get("name", texts.UNNAMED_CRITERION), c.get("gap", "").strip()
            item = texts.REVISION_FAILING_ITEM if gap else texts.REVISION_FAILING_ITEM_NO_GAP
            lines.append(item.format(name=name, gap=gap))
    passing = [c for c in criteria if c.get("passed")]
    if passing and not unverified:
        lines += ["", texts.REVISION_PASSING_HEADER]
        lines += [texts.REVISION_PASSING_ITEM.format(name=c.get("name", texts.UNNAMED_CRITERION)) for c in passing]
    lines += ["", texts.REVISION_CLOSING_UNVERIFIED if unverified else texts.REVISION_CLOSING]
    return "\n".join(lines)
