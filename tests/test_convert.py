"""Input conversion: the fast path for plain role/content dicts makes exactly what LangChain's
own coercion makes."""

from __future__ import annotations

from typing import Any

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


class _Role(str):
    """A role that is a str subclass: plain to the rule (a dict lookup by the role)."""


@pytest.mark.parametrize(
    "msg",
    [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": ""},
        {"role": "system", "content": "x"},
        {"role": "tool", "content": "x"},
        {"role": "user", "content": ["x"]},
        {"role": _Role("user"), "content": "x"},
        {"role": ["user"], "content": "x"},
        {"role": "user", "content": "x", "id": "1"},
        {"type": "human", "content": "x"},
        ("user", "x"),
        "x",
    ],
)
def test_the_quick_plain_check_is_the_rule(msg: Any) -> None:
    from deepagents_rs import _core
    from deepagents_rs._convert import _plain_type

    # The core's quick check of a whole input and its reading of each message share one
    # predicate: the rule `_plain_type` states, on exact dicts.
    assert _core.all_plain_messages([msg]) == (type(msg) is dict and _plain_type(msg) is not None)


def test_an_all_plain_input_is_passed_as_given_in_a_new_list() -> None:
    from deepagents_rs._convert import input_messages

    given = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    out = input_messages(given)
    assert out == given and out is not given
    assert all(o is g for o, g in zip(out, given, strict=True))
    # One message of another form: the others still pass as given.
    mixed = [*given, {"role": _Role("user"), "content": "c"}]
    out = input_messages(mixed)
    assert all(o is g for o, g in zip(out, mixed, strict=True))
