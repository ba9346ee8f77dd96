"""Message objects made from the core's dicts without re-validating plain values.

``_convert.from_core`` makes a LangChain message for every message of a run's result (and
of a LangChain model's or middleware's request). When pydantic's validation would keep every
value as given (a text content, no tool calls, no usage; for AI messages' tool calls, usage
and block content see ``test_ai_objects_as_given.py``, for tool messages
``test_tool_objects_as_given.py``) the object is made directly; it must
be the very object ``cls(**fields)`` makes: same ``__dict__`` (values and order), same set
fields, extras and private attributes, so equality, ``repr``, ``model_dump``,
``model_dump(exclude_unset=True)``, serialization and copies cannot tell them apart. Anything
else takes LangChain's constructor.
"""

from __future__ import annotations

import copy
import itertools
import pickle
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from deepagents_rs import _convert
from langchain_core.load import dumpd
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

CLASSES = {"human": HumanMessage, "system": SystemMessage, "ai": AIMessage, "tool": ToolMessage}


def _constructed(d: dict) -> Any:
    """What LangChain's constructor makes of the dict, as ``from_core`` hands it the fields."""
    d = dict(d)
    cls = CLASSES[d.pop("type")]
    if d.get("usage_metadata") is None:
        d.pop("usage_metadata", None)
    if d.get("name") is None:
        d.pop("name", None)
    return cls(**d)


def _fields(d: dict) -> dict:
    """The fields ``from_core`` hands the class of the dict ``d``."""
    fields = {k: v for k, v in d.items() if k != "type"}
    if fields.get("name") is None:
        fields.pop("name", None)
    if fields.get("usage_metadata") is None:
        fields.pop("usage_metadata", None)
    return fields


def made_directly(d: dict) -> tuple[Any, Any]:
    """``from_core``'s object of ``d``, made without validation, and LangChain's."""
    assert _convert._validated_as_given(CLASSES[d["type"]], _fields(d)) is not None
    made, expected = _convert.from_core(d), _constructed(d)
    _same(made, expected)
    return made, expected


def takes_the_constructor(d: dict) -> None:
    """``from_core`` leaves ``d`` to LangChain's constructor: the same object, or the same
    error when LangChain refuses it."""
    assert _convert._validated_as_given(CLASSES[d["type"]], _fields(d)) is None
    try:
        expected = _constructed(d)
    except (TypeError, ValueError, KeyError) as error:
        with pytest.raises(type(error)):
            _convert.from_core(d)
        return
    _same(_convert.from_core(d), expected)


def _same(made: Any, expected: Any) -> None:
    assert type(made) is type(expected)
    assert list(made.__dict__.items()) == list(expected.__dict__.items())
    assert made.__pydantic_fields_set__ == expected.__pydantic_fields_set__
    assert made.__pydantic_extra__ == expected.__pydantic_extra__
    assert made.__pydantic_private__ == expected.__pydantic_private__
    assert made == expected
    assert repr(made) == repr(expected)
    assert made.model_dump() == expected.model_dump()
    assert made.model_dump(exclude_unset=True) == expected.model_dump(exclude_unset=True)
    assert made.model_dump_json() == expected.model_dump_json()
    assert dumpd(made) == dumpd(expected)
    assert made.text == expected.text
    assert made.content_blocks == expected.content_blocks
    assert pickle.loads(pickle.dumps(made)) == expected
    assert copy.deepcopy(made) == expected
    assert made.model_copy(update={"content": "changed"}) == expected.model_copy(update={"content": "changed"})


def _plain_cases() -> list[dict]:
    cases = []
    for kind, msg_id, name, extra, metadata in itertools.product(
        ("human", "system", "ai"),
        ("id-1", None),
        (None, "bob"),
        ({}, {"k": [1, {"x": None}]}),
        ({}, {"model_provider": "anthropic", "stop_reason": "end_turn"}),
    ):
        d = {
            "type": kind,
            "content": f"text of a {kind} message",
            "id": msg_id,
            "name": name,
            "additional_kwargs": extra,
            "response_metadata": metadata,
        }
        if kind == "ai":
            d.update(tool_calls=[], invalid_tool_calls=[], usage_metadata=None)
        cases.append(d)
    # Fewer keys, as a dict made elsewhere may hold them.
    cases.append({"type": "human", "content": ""})
    cases.append({"type": "ai", "content": "x", "tool_calls": []})
    return cases


@pytest.mark.parametrize("d", _plain_cases(), ids=lambda d: "-".join(f"{k}={v!r}"[:20] for k, v in d.items()))
def test_a_plain_message_is_made_directly_and_is_what_langchain_makes(d: dict) -> None:
    cls = CLASSES[d["type"]]
    fields = {k: v for k, v in d.items() if k != "type"}
    if fields.get("name") is None:
        fields.pop("name", None)
    if fields.get("usage_metadata") is None:
        fields.pop("usage_metadata", None)
    assert _convert._validated_as_given(cls, fields) is not None
    _same(_convert.from_core(d), _constructed(d))


class Text(str):
    pass


def _other_cases() -> list[dict]:
    base = {"id": "m1", "additional_kwargs": {}, "response_metadata": {}}
    return [
        {"type": "human", "content": [{"type": "text", "text": "blocks"}], **base},
        {"type": "human", "content": Text("a str subclass"), **base},
        {
            "type": "ai",
            "content": "",
            "tool_calls": [],
            "invalid_tool_calls": [{"name": "x", "args": "{", "id": "c2", "error": None, "type": "invalid_tool_call"}],
            **base,
        },
        {
            "type": "ai",
            "content": "",
            "tool_calls": [],
            "invalid_tool_calls": [],
            "id": "m2",
            "additional_kwargs": {
                "tool_calls": [{"id": "c3", "function": {"name": "f", "arguments": "{}"}, "type": "function"}]
            },
            "response_metadata": {},
        },
        {"type": "human", "content": "numeric id", "id": 7, "additional_kwargs": {}, "response_metadata": {}},
        {"type": "human", "content": "an extra key", "example": True, **base},
    ]


@pytest.mark.parametrize("d", _other_cases(), ids=lambda d: str(d.get("content"))[:20] or d["type"])
def test_anything_validation_could_change_takes_langchains_constructor(d: dict) -> None:
    fields = {k: v for k, v in d.items() if k != "type"}
    assert _convert._validated_as_given(CLASSES[d["type"]], fields) is None
    _same(_convert.from_core(d), _constructed(d))


def test_a_subclass_is_made_by_its_constructor() -> None:
    class MyHuman(HumanMessage):
        pass

    assert _convert._validated_as_given(MyHuman, {"content": "x", "id": "1"}) is None


def test_its_dicts_are_its_own_as_after_validation() -> None:
    extra, metadata = {"k": [1]}, {"model_provider": "anthropic"}
    d = {"type": "ai", "content": "x", "additional_kwargs": extra, "response_metadata": metadata, "tool_calls": []}
    made, expected = _convert.from_core(d), _constructed(d)
    extra["later"] = metadata["later"] = True
    assert made.additional_kwargs == expected.additional_kwargs == {"k": [1]}
    assert made.response_metadata == expected.response_metadata == {"model_provider": "anthropic"}
    # Shallow, as pydantic's copy: the values are the given ones.
    assert made.additional_kwargs["k"] is expected.additional_kwargs["k"] is extra["k"]
