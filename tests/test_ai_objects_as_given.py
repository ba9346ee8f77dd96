"""AI messages with tool calls, usage and block content made without LangChain's validation.

A model reply comes back from the core with tool calls, usage metadata and, from Anthropic, a
list of content blocks; ``_convert.from_core`` makes its ``AIMessage`` directly when every
value has a shape ``_ai_fields`` knows. The object must be the very one ``AIMessage(**fields)``
makes (``_same``: ``__dict__`` values and order, set fields, equality, repr, dumps, pickle,
copies), its dicts and lists its own as after validation. Any other shape takes LangChain's
constructor.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")

from deepagents_rs import _convert
from test_message_objects_as_given import _constructed, _same, made_directly, takes_the_constructor

_BLOCK = {"id": "toolu_1", "input": {"text": "step 0"}, "name": "echo", "type": "tool_use", "toolset_name": None}
_CALL = {"name": "echo", "args": {"text": "step 0", "n": {"deep": [1]}}, "id": "toolu_1", "type": "tool_call"}
_USAGE = {
    "input_tokens": 100,
    "output_tokens": 10,
    "total_tokens": 110,
    "input_token_details": {"cache_read": 3, "cache_creation": 4},
}
_METADATA = {
    "id": "msg_1",
    "model": "claude-sonnet-4-5",
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 100, "output_tokens": 10},
    "model_name": "claude-sonnet-4-5",
    "model_provider": "anthropic",
}


def _reply(**fields: Any) -> dict:
    """An Anthropic tool-use reply as the core hands it over, with ``fields`` changed."""
    d = {
        "type": "ai",
        "content": [dict(_BLOCK)],
        "tool_calls": [dict(_CALL)],
        "id": "lc_run--1-0",
        "usage_metadata": dict(_USAGE),
        "response_metadata": dict(_METADATA),
    }
    d.update(fields)
    return {k: v for k, v in d.items() if v is not _DROP}


_DROP: Any = object()

DIRECT = {
    "anthropic tool use": _reply(),
    "final text with usage": _reply(content="done", tool_calls=[]),
    "usage without details": _reply(usage_metadata={"total_tokens": 3, "output_tokens": 2, "input_tokens": 1}),
    "usage with both details out of order": _reply(
        usage_metadata={
            "output_token_details": {"reasoning": 5, "audio": 1},
            "total_tokens": 3,
            "input_token_details": {"cache_creation": 1, "audio": 0, "cache_read": 2},
            "output_tokens": 2,
            "input_tokens": 1,
        }
    ),
    "no usage": _reply(usage_metadata=_DROP),
    "two calls, one without type, id None": _reply(
        tool_calls=[{"id": None, "args": {}, "name": "a"}, {"name": "b", "args": {"x": 1}, "id": "c2"}]
    ),
    "text and blocks mixed": _reply(content=["plain", {"type": "text", "text": "t"}, dict(_BLOCK)]),
    "empty block list": _reply(content=[]),
    "named, with extra kwargs": _reply(name="bot", additional_kwargs={"k": [1]}),
    "no id": _reply(id=None),
}

CONSTRUCTED = {
    "usage with an unknown key": _reply(usage_metadata={**_USAGE, "extra": 1}),
    "details with an unknown key": _reply(
        usage_metadata={**_USAGE, "input_token_details": {"cache_read": 1, "ephemeral_5m_input_tokens": 2}}
    ),
    "usage missing a count": _reply(usage_metadata={"input_tokens": 1, "output_tokens": 2}),
    "a bool count": _reply(usage_metadata={**_USAGE, "total_tokens": True}),
    "a float detail": _reply(usage_metadata={**_USAGE, "input_token_details": {"cache_read": 1.0}}),
    "a call without id": _reply(tool_calls=[{"name": "a", "args": {}}]),
    "a call with extras": _reply(tool_calls=[{**_CALL, "extras": {"x": 1}}]),
    "a call with an unknown key": _reply(tool_calls=[{**_CALL, "index": 0}]),
    "a call with an int id": _reply(tool_calls=[{**_CALL, "id": 7}]),
    "args with an int key": _reply(tool_calls=[{**_CALL, "args": {1: "x"}}]),
    "args not a dict": _reply(tool_calls=[{**_CALL, "args": "{}"}]),
    "a tuple of calls": _reply(tool_calls=(dict(_CALL),)),
    "a tuple content": _reply(content=("a",)),
    "a block of another type": _reply(content=[("a", "b")]),
    "tool calls missing": _reply(tool_calls=_DROP),
    "raw calls in additional kwargs": _reply(
        additional_kwargs={
            "tool_calls": [{"id": "c3", "function": {"name": "f", "arguments": "{}"}, "type": "function"}]
        }
    ),
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_a_reply_is_made_directly_and_is_what_langchain_makes(name: str) -> None:
    made, expected = made_directly(DIRECT[name])
    assert made.tool_calls == expected.tool_calls and made.usage_metadata == expected.usage_metadata


@pytest.mark.parametrize("name", list(CONSTRUCTED))
def test_any_other_shape_takes_langchains_constructor(name: str) -> None:
    takes_the_constructor(CONSTRUCTED[name])


def test_its_dicts_and_lists_are_its_own_and_its_values_the_given_ones() -> None:
    """As pydantic copies them: new containers at the validated levels, the same values inside."""
    d = _reply(content=[dict(_BLOCK), "s"])
    made, expected = _convert.from_core(d), _constructed(d)
    for obj in (made, expected):
        assert obj.content is not d["content"] and obj.content[0] is not d["content"][0]
        assert obj.content[0]["input"] is d["content"][0]["input"]
        call, given = obj.tool_calls[0], d["tool_calls"][0]
        assert call is not given and call["args"] is not given["args"]
        assert call["args"]["n"] is given["args"]["n"]
        assert obj.usage_metadata is not d["usage_metadata"]
        assert obj.usage_metadata["input_token_details"] is not d["usage_metadata"]["input_token_details"]
        assert obj.response_metadata is not d["response_metadata"]
        assert obj.response_metadata["usage"] is d["response_metadata"]["usage"]
    d["tool_calls"][0]["args"]["later"] = True
    d["usage_metadata"]["input_token_details"]["audio"] = 1
    _same(made, expected)
