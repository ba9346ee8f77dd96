"""Tool messages made from the core's dicts without LangChain's validation.

Every tool call of a run comes back from the core as a tool message, and a run's result makes
a ``ToolMessage`` of each; ``_convert.from_core`` makes it directly when validation would keep
its values as given (``ToolMessage.coerce_args`` copies a list content, pydantic its dicts).
The object must be the very one ``ToolMessage(**fields)`` makes (``_same``: ``__dict__``
values and order, set fields, equality, repr, dumps, pickle, copies). A value validation
would coerce or refuse takes LangChain's constructor, which then coerces or raises alike.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from deepagents_rs import _convert
from test_message_objects_as_given import _constructed, _same, made_directly, takes_the_constructor


def _result(**fields: Any) -> dict:
    """A tool result as the core hands it over (what a plain function tool's call gives),
    with ``fields`` changed; ``_DROP`` leaves a key out."""
    d = {
        "type": "tool",
        "content": "step 0",
        "tool_call_id": "toolu_01",
        "name": "echo",
        "status": "success",
        "id": "0b7c1a55-2d1e-4c5e-9a53-1f0e8f6a2b11",
    }
    d.update(fields)
    return {k: v for k, v in d.items() if v is not _DROP}


class Text(str):
    pass


_DROP: Any = object()

DIRECT = {
    "as the core hands it": _result(),
    "an error": _result(status="error", content="Error: cannot"),
    "no status": _result(status=_DROP),
    "no name, no id": _result(name=_DROP, id=None),
    "an artifact": _result(artifact={"rows": [1, 2]}),
    "an artifact of None": _result(artifact=None),
    "blocks and strings": _result(content=["a", {"type": "text", "text": "t"}, {"type": "image", "url": "u"}]),
    "an empty block list": _result(content=[]),
    "extra kwargs and metadata": _result(additional_kwargs={"k": [1]}, response_metadata={"m": {"x": None}}),
}

CONSTRUCTED = {
    "an int call id": _result(tool_call_id=7),
    "a float call id": _result(tool_call_id=1.5),
    "a UUID call id": _result(tool_call_id=uuid.UUID("0b7c1a55-2d1e-4c5e-9a53-1f0e8f6a2b11")),
    "a str subclass call id": _result(tool_call_id=Text("toolu_01")),
    "no call id": _result(tool_call_id=_DROP),
    "a None call id": _result(tool_call_id=None),
    "an int content": _result(content=42),
    "a tuple content": _result(content=("a", "b")),
    "a list holding an int": _result(content=["a", 1]),
    "a str subclass content": _result(content=Text("x")),
    "another status": _result(status="done"),
    "a str subclass status": _result(status=Text("success")),
    "an int id": _result(id=7),
    "an unknown key": _result(example=True),
    "an AI message's key": _result(tool_calls=[]),
    "metadata not a dict": _result(response_metadata=[("k", 1)]),
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_a_tool_result_is_made_directly_and_is_what_langchain_makes(name: str) -> None:
    made, expected = made_directly(DIRECT[name])
    for field in ("tool_call_id", "status", "artifact"):
        assert getattr(made, field) == getattr(expected, field)


@pytest.mark.parametrize("name", list(CONSTRUCTED))
def test_any_other_shape_takes_langchains_constructor(name: str) -> None:
    takes_the_constructor(CONSTRUCTED[name])


def test_its_containers_are_its_own_and_its_values_the_given_ones() -> None:
    """As validation leaves them: a new list and new dicts in it, new dict fields, the
    artifact itself."""
    d = _result(content=[{"type": "text", "text": "t", "extras": {"a": 1}}], additional_kwargs={"k": [1]}, artifact=[1])
    made, expected = _convert.from_core(d), _constructed(d)
    for obj in (made, expected):
        assert obj.content is not d["content"] and obj.content[0] is not d["content"][0]
        assert obj.content[0]["extras"] is d["content"][0]["extras"]
        assert obj.additional_kwargs is not d["additional_kwargs"]
        assert obj.additional_kwargs["k"] is d["additional_kwargs"]["k"]
        assert obj.artifact is d["artifact"]
    d["content"][0]["later"] = True
    d["additional_kwargs"]["later"] = True
    _same(made, expected)
