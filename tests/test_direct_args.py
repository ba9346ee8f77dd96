"""A direct tool call's arguments (``_direct_args.py``): what ``BaseTool._to_args_and_kwargs``
gives, with the tool's introspection done once; tools it cannot plan for keep LangChain's.

Each tool here is called both ways on the same arguments: the positional and keyword
arguments must be equal (values and their types, key order) and a refusal the same
``ValidationError`` (type and errors)."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

import pytest
from deepagents_rs import _direct_args
from deepagents_rs._tools import LangChainToolAdapter
from langchain_core.tools import InjectedToolArg, InjectedToolCallId, StructuredTool, tool
from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, ValidationError, computed_field, field_serializer


def add(a: float, b: int) -> str:
    """Add two numbers."""
    return f"{a + b}"


def with_defaults(text: str, times: int = 2, sep: str | None = None, flag: bool = False) -> str:
    """Repeat the text."""
    return (sep or "").join([text] * times)


def no_args() -> str:
    """Take nothing."""
    return "none"


def variadic(first: str, *args: Any, **kwargs: Any) -> str:
    """Take anything."""
    return first


class Aliased(BaseModel):
    path: str = Field(alias="file_path")
    limit: int = Field(default=10, description="at most")
    note: str = Field(default_factory=lambda: "made")


def aliased(path: str, limit: int = 10, note: str = "made") -> str:
    """Read a file."""
    return f"{path}:{limit}:{note}"


class Serialized(BaseModel):
    text: str
    times: int = 2

    @field_serializer("times")
    def _times(self, value: int) -> str:
        return str(value)


class Annotated_(BaseModel):
    text: str
    times: Annotated[int, PlainSerializer(str)] = 2


class Computed(BaseModel):
    text: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def size(self) -> int:
        return len(self.text)


class Excluded(BaseModel):
    text: str
    hidden: int = Field(default=1, exclude=True)


class Extra(BaseModel):
    model_config = ConfigDict(extra="allow")
    text: str


class OwnValidate(BaseModel):
    """A schema with a ``model_validate`` of its own (LangChain calls it)."""

    text: str
    times: int = 2

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Any:
        return super().model_validate({**obj, "text": str(obj.get("text", "")).upper()}, **kwargs)


class OwnFieldsSet(BaseModel):
    """A schema whose instances tell their set fields their own way (which decides whether
    a variadic function's synthetic ``kwargs`` field is passed)."""

    text: str
    kwargs: dict = Field(default_factory=dict)

    @property
    def model_fields_set(self) -> set[str]:
        return {"text", "kwargs"}


def repeat(text: str, times: int = 2, size: int = 0, hidden: int = 0, **extra: Any) -> str:
    """Repeat the text."""
    return text * times


def which_call(note: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Say which call this is."""
    return note


def hidden(note: str, secret: Annotated[str, InjectedToolArg]) -> str:
    """Take an injected argument."""
    return note


TOOLS = {
    "add": tool(add),
    "with_defaults": tool(with_defaults),
    "no_args": tool(no_args),
    "variadic": tool(variadic),
    "aliased": StructuredTool.from_function(aliased, args_schema=Aliased),
    # Schemas whose dump is not their fields alone: dumped at each call, as LangChain does.
    "serialized": StructuredTool.from_function(repeat, args_schema=Serialized),
    "annotated": StructuredTool.from_function(repeat, args_schema=Annotated_),
    "computed": StructuredTool.from_function(repeat, args_schema=Computed),
    "excluded": StructuredTool.from_function(repeat, args_schema=Excluded),
    "extra": StructuredTool.from_function(repeat, args_schema=Extra),
    # Schemas with their own validation: called as LangChain calls them.
    "own_validate": StructuredTool.from_function(repeat, args_schema=OwnValidate),
    "own_fields_set": StructuredTool.from_function(repeat, args_schema=OwnFieldsSet),
}

CALLS = [
    ("add", {"a": 1, "b": "2"}),
    ("add", {"b": 2, "a": 1.5}),
    ("add", {"a": "x", "b": 2}),
    ("add", {"a": 1}),
    ("add", {"a": 1, "b": 2, "c": 3}),
    ("with_defaults", {"text": "t"}),
    ("with_defaults", {"text": "t", "sep": None}),
    ("with_defaults", {"flag": "yes", "text": "t", "times": 3}),
    ("no_args", {}),
    ("no_args", {"unexpected": 1}),
    ("variadic", {"first": "f"}),
    ("variadic", {"first": "f", "args": [1], "kwargs": {"k": 2}}),
    ("aliased", {"file_path": "/a"}),
    ("aliased", {"file_path": "/a", "limit": "5"}),
    ("aliased", {"path": "/a"}),
    ("serialized", {"text": "t", "times": 3}),
    ("annotated", {"text": "t", "times": 3}),
    ("computed", {"text": "t"}),
    ("excluded", {"text": "t", "hidden": 5}),
    ("extra", {"text": "t", "more": 1}),
    ("own_validate", {"text": "t"}),
    ("own_fields_set", {"text": "t"}),
]


@pytest.mark.parametrize(("name", "args"), CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)])
def test_a_plan_gives_what_langchain_gives(name: str, args: dict) -> None:
    t = TOOLS[name]
    plan = _direct_args.args_plan(t)
    assert plan is not None
    try:
        expected = t._to_args_and_kwargs(dict(args), "call_1")
    except ValidationError as error:
        with pytest.raises(ValidationError) as ours:
            _direct_args.args_and_kwargs(t, plan, dict(args), "call_1")
        assert ours.value.errors() == error.errors()
        assert ours.value.title == error.title
        return
    given = dict(args)
    made = _direct_args.args_and_kwargs(t, plan, given, "call_1")
    assert made == expected
    assert list(made[1]) == list(expected[1])
    assert [type(v) for v in made[1].values()] == [type(v) for v in expected[1].values()]
    assert given == args  # the call's arguments are left as they were


def test_tools_that_inject_or_have_no_model_schema_keep_langchains_method() -> None:
    assert _direct_args.args_plan(tool(which_call)) is None
    assert _direct_args.args_plan(tool(hidden)) is None
    json_schema = StructuredTool(
        name="js",
        description="A JSON schema tool.",
        args_schema={"type": "object", "properties": {"a": {"type": "string"}}},
        func=lambda **kw: "x",
    )
    assert _direct_args.args_plan(json_schema) is None


def test_a_tool_given_another_schema_later_is_checked_against_it() -> None:
    t = tool(with_defaults)
    plan = _direct_args.args_plan(t)

    class Other(BaseModel):
        text: str
        times: int = 7

    t.args_schema = Other
    assert _direct_args.args_and_kwargs(t, plan, {"text": "t"}, "c") == ((), {"text": "t", "times": 7})


def test_the_adapter_plans_for_the_tools_it_calls_directly() -> None:
    # Checked so the planned path cannot silently turn off; the parity tests in
    # tests/parity/test_direct_tools.py run it through both implementations.
    direct = LangChainToolAdapter(tool(add))._direct
    assert direct is not None and direct[1] is not None
    direct = LangChainToolAdapter(tool(which_call))._direct
    assert direct is not None and direct[1] is None
    assert LangChainToolAdapter(StructuredTool.from_function(add, handle_tool_error=True))._direct is None


def test_the_plan_does_no_introspection_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the plan is for: no signature or annotation walk when a call's arguments are
    checked (LangChain's method does both at every call)."""
    t = tool(with_defaults)
    plan = _direct_args.args_plan(t)
    calls = []
    real = inspect.signature
    monkeypatch.setattr(inspect, "signature", lambda *a, **k: calls.append(a) or real(*a, **k))
    _direct_args.args_and_kwargs(t, plan, {"text": "t"}, "c")
    assert calls == []
    t._to_args_and_kwargs({"text": "t"}, "c")
    assert calls


def test_a_plan_walks_the_fields_instead_of_dumping_when_the_dump_is_the_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LangChain dumps the validated model only for its keys; a schema whose dump can only be
    its fields is not dumped per call, and one whose dump differs still is."""
    dumps: list[str] = []
    real = BaseModel.model_dump
    monkeypatch.setattr(
        BaseModel, "model_dump", lambda self, **kw: dumps.append(type(self).__name__) or real(self, **kw)
    )
    for name in ("with_defaults", "aliased", "variadic"):
        t = TOOLS[name]
        plan = _direct_args.args_plan(t)
        assert plan is not None and plan.dumped is not None
        _direct_args.args_and_kwargs(t, plan, {"text": "t", "file_path": "/a", "first": "f"}, "c")
    assert dumps == []
    for name in ("serialized", "annotated", "computed", "excluded", "extra"):
        t = TOOLS[name]
        plan = _direct_args.args_plan(t)
        assert plan is not None and plan.dumped is None
        _direct_args.args_and_kwargs(t, plan, {"text": "t"}, "c")
    assert dumps == ["Serialized", "Annotated_", "Computed", "Excluded", "Extra"]
