"""Request validation of the simulated Anthropic server (malformed requests fail the way the real API
fails them) and the cache breakpoints a valid request sets."""

from __future__ import annotations

from typing import Any

from ._anthropic_prompt import _as_blocks, _turns, prompt_blocks
from ._anthropic_records import (
    _NOT_CACHEABLE_TYPES,
    _TOOL_NAME_RE,
    MAX_CACHE_BREAKPOINTS,
    TOOL_NAME_PATTERN,
    TTL_SECONDS,
    Breakpoint,
    SimError,
)

# --------------------------------------------------------------------------- validation


def _check_cache_control(cc: Any, where: str) -> str:
    """Validate a cache_control marker and return its TTL."""
    if not isinstance(cc, dict) or cc.get("type") != "ephemeral":
        raise SimError(400, f"{where}.cache_control.type: Input should be 'ephemeral'")
    ttl = cc.get("ttl", "5m")
    if ttl not in TTL_SECONDS:
        raise SimError(400, f"{where}.cache_control.ttl: Input should be '5m' or '1h'")
    return ttl


def _validate(body: Any, merge_consecutive: bool) -> None:
    """Reject what the real Messages API rejects (the subset tests rely on)."""
    if not isinstance(body, dict):
        raise SimError(400, "Request body must be a JSON object")
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            raise SimError(400, f"{key}: Field required")
    if not isinstance(body["model"], str) or not body["model"]:
        raise SimError(400, "model: Input should be a valid string")
    max_tokens = body["max_tokens"]
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
        raise SimError(400, "max_tokens: Input should be a valid non-negative integer")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise SimError(400, "messages: Input should be a valid list")
    if not messages:
        raise SimError(400, "messages: at least one message is required")
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise SimError(400, f"messages.{i}: Input should be a valid dictionary")
        # A `system` turn after the first is how a model taking mid-conversation system
        # messages gets one in place (its tool-change blocks' beta header is not checked).
        if msg.get("role") not in ("user", "assistant") and not (i > 0 and msg.get("role") == "system"):
            raise SimError(400, f"messages.{i}.role: Input should be 'user' or 'assistant'")
        if "content" not in msg:
            raise SimError(400, f"messages.{i}.content: Field required")
    if messages[0]["role"] != "user":
        raise SimError(400, 'messages: first message must use the "user" role')
    if not merge_consecutive:
        for i in range(1, len(messages)):
            if messages[i]["role"] == messages[i - 1]["role"]:
                role = messages[i]["role"]
                raise SimError(
                    400,
                    f'messages: roles must alternate between "user" and "assistant", '
                    f'but found multiple "{role}" roles in a row',
                )

    turns = _turns(body, merge_consecutive)
    for i, (_role, blocks) in enumerate(turns):
        if not blocks and i != len(turns) - 1:
            raise SimError(
                400,
                f"messages.{i}: all messages must have non-empty content except for the optional final assistant message",
            )
        for j, b in enumerate(blocks):
            if b.get("type") == "text" and b.get("text", "") == "":
                raise SimError(
                    400,
                    f"messages.{i}.content.{j}: text content blocks must be non-empty",
                )

    _validate_tool_pairing(turns)

    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
            raise SimError(400, "tools: Input should be a valid list of tool definitions")
        for i, tool in enumerate(tools):
            kind = tool.get("type", "custom")
            if not isinstance(tool.get("name"), str) or not _TOOL_NAME_RE.match(tool["name"]):
                raise SimError(
                    400,
                    f"tools.{i}.{kind}.name: String should match pattern '{TOOL_NAME_PATTERN}'",
                )
            if kind == "custom" and "input_schema" not in tool:
                raise SimError(400, f"tools.{i}.custom.input_schema: Field required")

    system = body.get("system")
    if system is not None:
        for j, sb in enumerate(_as_blocks(system, "system")):
            if sb.get("type") != "text":
                raise SimError(400, f"system.{j}.type: Input should be 'text'")

    _breakpoints(body, merge_consecutive)  # raises on a bad marker or too many


def _validate_tool_pairing(turns: list[tuple[str, list[dict[str, Any]]]]) -> None:
    for i, (role, blocks) in enumerate(turns):
        if role == "assistant":
            ids = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
            if not ids:
                continue
            answered: set[Any] = set()
            if i + 1 < len(turns) and turns[i + 1][0] == "user":
                answered = {b.get("tool_use_id") for b in turns[i + 1][1] if b.get("type") == "tool_result"}
            missing = [str(x) for x in ids if x not in answered]
            if missing:
                raise SimError(
                    400,
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block "
                    f"in the next message.",
                )
        else:
            previous: set[Any] = set()
            if i > 0 and turns[i - 1][0] == "assistant":
                previous = {b.get("id") for b in turns[i - 1][1] if b.get("type") == "tool_use"}
            seen_other = False
            for j, b in enumerate(blocks):
                if b.get("type") != "tool_result":
                    seen_other = True
                    continue
                if b.get("tool_use_id") not in previous:
                    raise SimError(
                        400,
                        f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{b.get('tool_use_id')}. Each `tool_result` block must have a corresponding `tool_use` "
                        f"block in the previous message.",
                    )
                if seen_other:
                    # Wording approximated; the rule itself is documented.
                    raise SimError(
                        400,
                        f"messages.{i}.content.{j}: `tool_result` blocks must come first in the user message "
                        f"content, before any other block",
                    )


def _breakpoints(body: dict[str, Any], merge_consecutive: bool) -> list[Breakpoint]:
    """Explicit markers plus the top-level one, validated, in prefix order."""
    blocks = prompt_blocks(body, merge_consecutive=merge_consecutive)
    found: list[Breakpoint] = []
    for i, b in enumerate(blocks):
        cc = b.data.get("cache_control")
        if cc is None:
            continue
        where = f"{b.section}.block_{i}"
        ttl = _check_cache_control(cc, where)
        if b.data.get("type") in _NOT_CACHEABLE_TYPES:
            raise SimError(
                400,
                f"{where}: cache_control cannot be set on {b.data.get('type')} blocks",
            )
        found.append(Breakpoint(i, ttl, "explicit"))
    top = body.get("cache_control")
    count = len(found)
    if top is not None:
        ttl = _check_cache_control(top, "body")
        count += 1  # the real API counts the top-level marker even though it lands on a block
        for i in range(len(blocks) - 1, -1, -1):
            b = blocks[i]
            if b.section != "messages":
                break
            if b.data.get("type") in _NOT_CACHEABLE_TYPES or (b.data.get("type") == "text" and not b.data.get("text")):
                continue
            found.append(Breakpoint(i, ttl, "top-level"))
            break
    if count > MAX_CACHE_BREAKPOINTS:
        raise SimError(
            400,
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {count}.",
        )
    found.sort(key=lambda bp: bp.index)
    seen_5m = False
    for bp in found:
        if bp.ttl == "5m":
            seen_5m = True
        elif seen_5m:
            # Wording approximated; the ordering rule is documented.
            raise SimError(
                400,
                "a cache_control block with ttl='1h' cannot come after one with ttl='5m'",
            )
    return found
