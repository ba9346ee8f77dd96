"""The prompt model of the simulated Anthropic server: the ordered block list (tools, system,
messages) the cache is computed over."""

from __future__ import annotations

from typing import Any

from ._anthropic_records import (
    Block,
    SimError,
)
from ._anthropic_turns import block_tokens


def _as_blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list) and all(isinstance(b, dict) for b in content):
        return list(content)
    raise SimError(400, f"{where}: Input should be a valid string or a list of content blocks")


def _turns(body: dict[str, Any], merge_consecutive: bool) -> list[tuple[str, list[dict[str, Any]]]]:
    """Messages as (role, blocks), merged when consecutive same-role turns are allowed."""
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for i, msg in enumerate(body.get("messages") or []):
        blocks = _as_blocks(msg.get("content"), f"messages.{i}.content")
        role = msg.get("role")
        if merge_consecutive and turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    return turns


def prompt_blocks(body: dict[str, Any], *, merge_consecutive: bool = False) -> list[Block]:
    """The request's prompt as the ordered block list tools -> system -> messages."""
    blocks: list[Block] = []
    for tool in body.get("tools") or []:
        blocks.append(Block("tools", None, False, tool, block_tokens(tool)))
    system = body.get("system")
    if system is not None:
        for sb in _as_blocks(system, "system"):
            blocks.append(Block("system", None, False, sb, block_tokens(sb)))
    for role, content in _turns(body, merge_consecutive):
        for j, b in enumerate(content):
            blocks.append(Block("messages", role, j == 0, b, block_tokens(b)))
    return blocks
