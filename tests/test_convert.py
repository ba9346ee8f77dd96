"""Input conversion: the fast path for plain role/content dicts makes exactly what LangChain's
own coercion makes."""

from __future__ import annotations

import pytest
from deepagents_rs import _convert
from langchain_core.messages import convert_to_messages


@pytest.mark.parametrize("role", ["user", "human", "assistant", "ai", "system"])
def test_plain_dicts_convert_like_langchain(role: str) -> None:
    message = {"role": role, "content": "hello"}
    (reference,) = convert_to_messages([message])
    assert _convert.to_core(message) == _convert._object_to_dict(reference)
    assert _convert._plain_dict(message) is not None


@pytest.mark.parametrize(
    "message",
    [
        {"role": "developer", "content": "x"},
        {"role": "user", "content": [{"type": "text", "text": "x"}]},
        {"role": "user", "content": "x", "name": "bob"},
        {"role": "tool", "content": "x", "tool_call_id": "c1"},
    ],
)
def test_other_dicts_take_langchains_path(message: dict) -> None:
    assert _convert._plain_dict(message) is None
    (reference,) = convert_to_messages([message])
    assert _convert.to_core(message) == _convert._object_to_dict(reference)
