"""An AI message's tool calls, usage and block content as ``AIMessage``'s validation leaves them.

A model reply comes back from the core with tool calls, usage and (for Anthropic) a list of
content blocks; ``AIMessage(**fields)`` validates each (its ``_backwards_compat_tool_calls``
remakes every tool call, pydantic copies every dict), which made the AI messages of a run's
result the largest single cost of a 1,000-thread run (about a quarter of the time the GIL was
held). For the shapes a reply has, the validated values are made here directly: the same new
dicts and lists, in the order pydantic writes them, holding the same values. Any other shape
(another type, a missing or unknown key) gets ``None`` and takes LangChain's constructor.
"""

from __future__ import annotations

from typing import Any

#: ``create_tool_call``'s keywords; ``type`` is dropped and written anew.
_CALL_KEYS = frozenset({"name", "args", "id", "type"})
#: ``UsageMetadata``'s keys in its order, and those of its two details ``TypedDict``s.
_USAGE_ORDER = ("input_tokens", "output_tokens", "total_tokens", "input_token_details", "output_token_details")
_DETAILS_ORDER = {
    "input_token_details": ("audio", "cache_creation", "cache_read"),
    "output_token_details": ("audio", "reasoning"),
}
_USAGE_KEYS = frozenset(_USAGE_ORDER)
_REQUIRED_USAGE = ("input_tokens", "output_tokens", "total_tokens")


def content(value: Any) -> Any:
    """``str | list[str | dict]`` validated: a str as it is, a list and its dicts copied
    (shallow); ``None`` for anything else (a str subclass, another item type)."""
    if type(value) is str:
        return value
    if type(value) is not list:
        return None
    out = []
    for item in value:
        kind = type(item)
        if kind is dict:
            out.append(dict(item))
        elif kind is str:
            out.append(item)
        else:
            return None
    return out


def tool_calls(value: Any) -> list | None:
    """``tool_calls`` as the before-validator's ``create_tool_call`` and then the ``ToolCall``
    validation make them: new dicts of name, args (copied), id and ``type``; ``None`` when a
    call lacks a key, has another, or holds a value of another type."""
    if type(value) is not list:
        return None
    out = []
    for call in value:
        if type(call) is not dict or not call.keys() <= _CALL_KEYS:
            return None
        name, args, call_id = call.get("name"), call.get("args"), call.get("id", _MISSING)
        if type(name) is not str or type(args) is not dict or (call_id is not None and type(call_id) is not str):
            return None
        if not all(type(k) is str for k in args):
            return None
        out.append({"name": name, "args": dict(args), "id": call_id, "type": "tool_call"})
    return out


def usage(value: Any) -> dict | None:
    """``UsageMetadata`` validated: its keys in the ``TypedDict``'s order, the details
    likewise; ``None`` for a missing count, an unknown key or a value that is not an int."""
    if type(value) is not dict or not value.keys() <= _USAGE_KEYS:
        return None
    if any(type(value.get(k)) is not int for k in _REQUIRED_USAGE):
        return None
    out: dict[str, Any] = {}
    for key in _USAGE_ORDER:
        if key not in value:
            continue
        item = value[key]
        order = _DETAILS_ORDER.get(key)
        if order is None:
            out[key] = item
            continue
        if type(item) is not dict or not item.keys() <= frozenset(order):
            return None
        if any(type(v) is not int for v in item.values()):
            return None
        out[key] = {k: item[k] for k in order if k in item}
    return out


_MISSING: Any = object()
