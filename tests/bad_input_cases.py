"""The child side of ``test_bad_input``: odd Python values run through both implementations.

A child (``python tests/bad_input_cases.py``) reads cases from stdin, one ``<place> <kind>``
line each, until stdin closes. Each case runs the same scenario through
``deepagents.create_deep_agent`` and ``deepagents_rs.create_deep_agent`` (each with its own
``ScriptedChatModel`` over the same script, its own tools and its own freshly built copy of the
value) and compares the two runs with ``exact_diff.diff``, an exact comparator: same types all
the way down, floats by ``repr`` (so NaN equals NaN and ``-0.0`` differs from
``0.0``), dict keys in order, messages field by field (ids aside: both make random ones).

For every case it prints ``START <place> <kind>`` before running it and ``RESULT <json
verdict>`` after, flushing each line, so the parent can tell which case a crash (a segfault, an
abort) or a hang happened in and send the rest to a fresh interpreter. One child runs many
places' cases: its start (importing both implementations, their first agent) costs more CPU
than a whole place's cases.

``bad_input_fuzz.fuzz_main`` runs a hypothesis test of one implementation: generated nested values in six
places of one run, each of which must come back exactly as given.

Everything here is imported by the parent too (for the lists of places and kinds); the
implementations are imported only when a run starts.
"""

from __future__ import annotations

import datetime
import decimal
import importlib
import json
import sys
import traceback
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any, NotRequired

from exact_diff import diff, short
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.prebuilt import InjectedState
from langgraph.types import Command
from pydantic import BaseModel

# ---------------------------------------------------------------------------------------------
# Values


class Point(BaseModel):
    """A pydantic model instance as a value."""

    x: int
    label: str


class Opaque:
    """An object of a class the implementations know nothing about."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.items = [1, 2]

    def __repr__(self) -> str:
        return f"Opaque({self.tag!r})"


#: The innermost item of the deep values, a marker the comparator reaches last.
BOTTOM = "bottom"


def deep_list(depth: int) -> list[Any]:
    """``[[[...["bottom"]...]]]`` with ``depth`` lists, built without recursion."""
    value: list[Any] = [BOTTOM]
    for _ in range(depth - 1):
        value = [value]
    return value


def deep_dict(depth: int) -> dict[str, Any]:
    """``{"k": {"k": ... {"k": "bottom"}}}`` with ``depth`` dicts, built without recursion."""
    value: dict[str, Any] = {"k": BOTTOM}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


#: kind -> a factory building a fresh value (called once per implementation and once more for
#: a pristine copy to check that the run left the caller's value as it was).
VALUES: dict[str, Callable[[], Any]] = {
    "surrogate_str": lambda: "bad \ud800",
    "surrogate_alone": lambda: "\udfff",
    "surrogate_key": lambda: {"k\ud800": 1, "ok": "\udc80x"},
    "datetime": lambda: datetime.datetime(2024, 2, 29, 13, 14, 15, 161718),
    "datetime_tz": lambda: datetime.datetime(2024, 2, 29, 13, 14, 15, tzinfo=datetime.UTC),
    "date": lambda: datetime.date(2024, 2, 29),
    "decimal": lambda: decimal.Decimal("1.10"),
    "uuid": lambda: uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "bytes": lambda: b"\x00\xffraw",
    "big_int": lambda: 2**70,
    "big_neg_int": lambda: -(2**70),
    "nan": lambda: float("nan"),
    "inf": lambda: float("inf"),
    "neg_inf": lambda: float("-inf"),
    "neg_zero": lambda: -0.0,
    "set": lambda: {1, 2},
    "frozenset": lambda: frozenset({"a", "b"}),
    "tuple": lambda: (1, "a"),
    "pydantic": lambda: Point(x=1, label="p"),
    "object": lambda: Opaque("t"),
    "int_keys": lambda: {1: "a", 2: "b"},
    "mixed": lambda: {"t": (1, [2, {3}]), "b": b"x", "d": decimal.Decimal("0.1"), "n": None},
}
STANDARD_KINDS = list(VALUES)
STR_KINDS = ("surrogate_str", "surrogate_alone")

#: How deep the ``deep`` kind nests in the places that have it. deepagents handles all of them
#: without crashing (tool-call args 5,000 deep make it raise RecursionError: LangChain copies the
#: model's reply).
DEEP_DEPTH = {"content_block": 10_000, "tool_args": 5_000, "file_entry": 20_000, "state_key": 10_000}


# ---------------------------------------------------------------------------------------------
# One run of one implementation


class ExtraState(AgentState):
    """The user middleware's state: one extra key, typed ``Any``."""

    extra: NotRequired[Any]


class ExtraStateMiddleware(AgentMiddleware):
    """Declares ``extra`` and does nothing else."""

    state_schema = ExtraState


@dataclass
class Run:
    """One implementation's run of one scenario."""

    impl: str
    value: Any = None
    result: Any = None
    error: BaseException | None = None
    calls: list[list[BaseMessage]] = field(default_factory=list)
    tool_inputs: list[Any] = field(default_factory=list)
    input: Any = None
    #: How the run changed the caller's value (``None``: it did not).
    value_changed: str | None = None


@dataclass
class Scenario:
    """What one run is given. ``script``/``tools``/``input`` are built afresh for each run."""

    script: Callable[[Any], list[Any]] = lambda v: ["done"]
    tools: Callable[[Any, list[Any]], list[Any]] = lambda v, rec: []
    input: Callable[[Any], Any] = lambda v: {"messages": [("user", "hi")]}
    config: Callable[[Any], Any] = lambda v: None
    create: Callable[[Any], dict[str, Any]] = lambda v: {}
    #: More ``create_deep_agent`` arguments, given the tool-input recorder (for subagents' tools).
    create_recording: Callable[[Any, list[Any]], dict[str, Any]] = lambda v, rec: {}
    #: Where the value ends up in a run that kept it (for the report and the identity check).
    pick: Callable[[Run], Any] | None = None


def make_probe(rec: list[Any]) -> Callable[..., str]:
    def probe(x: Any) -> str:
        """Record the argument it is given."""
        rec.append(x)
        return "ok"

    return probe


def make_writer(value: Any) -> Any:
    """A tool writing the value into the ``files`` state key with a ``Command``."""

    @tool
    def write_it(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Write the value under test into the files."""
        message = ToolMessage("ok", tool_call_id=tool_call_id)
        return Command(update={"files": {"/b.txt": value}, "messages": [message]})

    return write_it


def make_state_reader(rec: list[Any]) -> Any:
    """A tool taking the state injected: records the ``/a.txt`` entry it sees and writes it
    back as ``/b.txt``."""

    @tool
    def copy_it(state: Annotated[dict, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Copy /a.txt to /b.txt."""
        seen = state["files"]["/a.txt"]
        rec.append(seen)
        message = ToolMessage("ok", tool_call_id=tool_call_id)
        return Command(update={"files": {"/b.txt": seen}, "messages": [message]})

    return copy_it


def _copying_subagent(rec: list[Any]) -> dict[str, Any]:
    spec = {
        "name": "copier",
        "description": "Copies files.",
        "system_prompt": "Copy.",
        "tools": [make_state_reader(rec)],
    }
    return {"subagents": [spec]}


def make_give(value: Any) -> Callable[[], Any]:
    def give() -> Any:
        """Return the value under test."""
        return value

    return give


def run_one(impl: str, scenario: Scenario, make_value: Callable[[], Any]) -> Run:
    module = importlib.import_module(impl)
    run = Run(impl=impl, value=make_value())
    model: ScriptedChatModel | None = None
    try:
        model = ScriptedChatModel(scenario.script(run.value))
        kwargs: dict[str, Any] = {"model": model, "tools": scenario.tools(run.value, run.tool_inputs)}
        kwargs.update(scenario.create(run.value))
        kwargs.update(scenario.create_recording(run.value, run.tool_inputs))
        agent = module.create_deep_agent(**kwargs)
        run.input = scenario.input(run.value)
        config = scenario.config(run.value)
        run.result = agent.invoke(run.input) if config is None else agent.invoke(run.input, config)
    except Exception as exc:  # noqa: BLE001 - compared with the other implementation's
        run.error = exc
    if model is not None:
        run.calls = [list(c.messages) for c in model.calls]
    run.value_changed = diff(make_value(), run.value, "value")
    return run


# ---------------------------------------------------------------------------------------------
# Places


def _hi_block(value: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": "hi", "extra": value}]


def _content(value: Any) -> Any:
    return value if isinstance(value, str) else _hi_block(value)


def _first(run: Run) -> BaseMessage:
    return run.result["messages"][0]


def _reply(run: Run) -> BaseMessage:
    return run.result["messages"][1]


def _extra_of(content: Any) -> Any:
    return content if isinstance(content, str) else content[0]["extra"]


def _files(files: Callable[[Any], dict[Any, Any]]) -> Callable[[Any], dict[str, Any]]:
    return lambda v: {"messages": [("user", "hi")], "files": files(v)}


def _probe_call(value: Any) -> list[Any]:
    call = {"name": "probe", "args": {"x": value}, "id": "call_x", "type": "tool_call"}
    return [AIMessage(content="", tool_calls=[call]), "done"]


PLACES: dict[str, Scenario] = {
    # A dict message whose content is the value (a string kind as is; anything else as the
    # content itself, which LangChain's message coercion has to deal with).
    "content": Scenario(
        input=lambda v: {"messages": [{"role": "user", "content": v}]},
        pick=lambda r: _first(r).content,
    ),
    "content_block": Scenario(
        input=lambda v: {"messages": [{"role": "user", "content": _hi_block(v)}]},
        pick=lambda r: _first(r).content[0]["extra"],
    ),
    "human_additional_kwargs": Scenario(
        input=lambda v: {"messages": [HumanMessage(content="hi", additional_kwargs={"v": v})]},
        pick=lambda r: _first(r).additional_kwargs["v"],
    ),
    "human_response_metadata": Scenario(
        input=lambda v: {"messages": [HumanMessage(content="hi", response_metadata={"v": v})]},
        pick=lambda r: _first(r).response_metadata["v"],
    ),
    "dict_additional_kwargs": Scenario(
        input=lambda v: {"messages": [{"role": "user", "content": "hi", "additional_kwargs": {"v": v}}]},
        pick=lambda r: _first(r).additional_kwargs["v"],
    ),
    "dict_response_metadata": Scenario(
        input=lambda v: {"messages": [{"role": "user", "content": "hi", "response_metadata": {"v": v}}]},
        pick=lambda r: _first(r).response_metadata["v"],
    ),
    "reply_content": Scenario(
        script=lambda v: [AIMessage(content=_content(v))],
        pick=lambda r: _extra_of(_reply(r).content),
    ),
    "reply_additional_kwargs": Scenario(
        script=lambda v: [AIMessage(content="done", additional_kwargs={"v": v})],
        pick=lambda r: _reply(r).additional_kwargs["v"],
    ),
    "reply_response_metadata": Scenario(
        script=lambda v: [AIMessage(content="done", response_metadata={"v": v})],
        pick=lambda r: _reply(r).response_metadata["v"],
    ),
    # The model calls a tool taking ``x: Any`` with the value; the tool records what it got.
    "tool_args": Scenario(
        script=_probe_call,
        tools=lambda v, rec: [make_probe(rec)],
        pick=lambda r: r.tool_inputs[0],
    ),
    # A plain function tool returns the value; LangChain turns it into the ToolMessage's content.
    "tool_return": Scenario(
        script=lambda v: [ai_tool_calls(("give", {}, "call_g")), "done"],
        tools=lambda v, rec: [make_give(v)],
        pick=lambda r: r.result["messages"][2].content,
    ),
    "file_timestamps": Scenario(
        input=_files(lambda v: {"/a.txt": {"content": "x", "encoding": "utf-8", "created_at": v, "modified_at": v}}),
        pick=lambda r: r.result["files"]["/a.txt"]["created_at"],
    ),
    "file_entry": Scenario(
        input=_files(lambda v: {"/a.txt": v}),
        pick=lambda r: r.result["files"]["/a.txt"],
    ),
    # An entry under a key that is not a str path (any hashable value; the others cannot be
    # dict keys, and both implementations raise the same TypeError building the input).
    "file_key": Scenario(
        input=_files(lambda v: {"/a.txt": {"content": "x", "encoding": "utf-8"}, v: {"content": "y"}}),
        pick=lambda r: list(r.result["files"])[1],
    ),
    # Written during the run from Python: a tool's ``Command`` update.
    "file_from_tool": Scenario(
        script=lambda v: [ai_tool_calls(("write_it", {}, "call_w")), "done"],
        tools=lambda v, rec: [make_writer(v)],
        pick=lambda r: r.result["files"]["/b.txt"],
    ),
    # An input entry as a tool taking the state injected sees it, and written back.
    "file_in_injected_state": Scenario(
        input=_files(lambda v: {"/a.txt": v}),
        script=lambda v: [ai_tool_calls(("copy_it", {}, "call_c")), "done"],
        tools=lambda v, rec: [make_state_reader(rec)],
        pick=lambda r: r.result["files"]["/b.txt"],
    ),
    # The same inside a subagent: the child sees the caller's entry and hands its write back.
    "file_through_subagent": Scenario(
        input=_files(lambda v: {"/a.txt": v}),
        script=lambda v: [
            ai_tool_calls(("task", {"description": "copy", "subagent_type": "copier"}, "call_t")),
            ai_tool_calls(("copy_it", {}, "call_c")),
            "copied",
            "done",
        ],
        create_recording=lambda v, rec: _copying_subagent(rec),
        pick=lambda r: r.result["files"]["/b.txt"],
    ),
    "state_key": Scenario(
        input=lambda v: {"messages": [("user", "hi")], "extra": v},
        create=lambda v: {"middleware": [ExtraStateMiddleware()]},
        pick=lambda r: r.result["extra"],
    ),
}

#: Bad arguments in other spots: the scenario gets no value. deepagents' own outcome is noted.
ERRORS: dict[str, Scenario] = {
    # deepagents: ValueError (LangChain's tool decorator refuses 42).
    "tools_42": Scenario(create=lambda v: {"tools": [42]}),
    # deepagents: AttributeError (loose, see LOOSE).
    "tools_none_item": Scenario(create=lambda v: {"tools": [None]}),
    # deepagents: AttributeError (loose).
    "model_42": Scenario(create=lambda v: {"model": 42}),
    # deepagents: TypeError.
    "system_prompt_42": Scenario(create=lambda v: {"system_prompt": 42}),
    # deepagents: NotImplementedError (LangChain cannot coerce 42 into a message).
    "messages_42": Scenario(input=lambda v: {"messages": [42]}),
    # deepagents: returns (a string is one human message).
    "messages_str": Scenario(input=lambda v: {"messages": "hi"}),
    # deepagents: NotImplementedError.
    "messages_none": Scenario(input=lambda v: {"messages": None}),
    # deepagents: pydantic ValidationError.
    "message_tuple_int": Scenario(input=lambda v: {"messages": [("user", 42)]}),
    # deepagents: ValueError (both dict cases).
    "message_bad_role": Scenario(input=lambda v: {"messages": [{"role": "bogus", "content": "x"}]}),
    "message_dict_no_content": Scenario(input=lambda v: {"messages": [{"role": "user"}]}),
    # deepagents: langgraph InvalidUpdateError.
    "input_42": Scenario(input=lambda v: 42),
    # deepagents: AttributeError (loose).
    "files_42": Scenario(input=lambda v: {"messages": [("user", "hi")], "files": 42}),
    # deepagents: TypeError (LangGraph compares the limit with an int).
    "recursion_limit_abc": Scenario(config=lambda v: {"recursion_limit": "abc"}),
    # deepagents: GraphRecursionError (2.5 is taken as a limit, reached after three steps).
    "recursion_limit_float": Scenario(config=lambda v: {"recursion_limit": 2.5}),
    # deepagents: AttributeError (loose).
    "config_configurable_42": Scenario(config=lambda v: {"configurable": 42}),
}

#: Cases where deepagents fails by accident of its internals (an AttributeError on the bad
#: value): deepagents_rs need not copy that type, but must raise some exception of its own type
#: (not a bare ``Exception``) rather than return or crash.
LOOSE = {"tools_none_item", "model_42", "files_42", "config_configurable_42"}


def kinds_for(place: str) -> list[str]:
    """The kinds the parent runs at ``place``."""
    if place == "errors":
        return list(ERRORS)
    kinds = list(STANDARD_KINDS)
    if place in DEEP_DEPTH:
        kinds.append("deep")
    return kinds


ALL_PLACES = [*PLACES, "errors"]


def value_factory(place: str, kind: str) -> Callable[[], Any]:
    if place == "errors":
        return lambda: None
    if kind == "deep":
        depth = DEEP_DEPTH[place]
        # A file entry is a dict; elsewhere a list nested in lists.
        return (lambda: deep_dict(depth)) if place == "file_entry" else (lambda: deep_list(depth))
    return VALUES[kind]


# ---------------------------------------------------------------------------------------------
# Comparing the two runs


def _error_text(exc: BaseException) -> str:
    text = str(exc).replace("\n", " ")
    return f"{type(exc).__module__}.{type(exc).__qualname__}: {text[:300]}"


def summarize(run: Run, scenario: Scenario) -> str:
    """``raises X`` / ``kept`` / ``converted to ...`` / ``dropped`` / ``returns``."""
    if run.error is not None:
        return f"raises {type(run.error).__name__}"
    if scenario.pick is None:
        return "returns"
    try:
        got = scenario.pick(run)
    except (KeyError, IndexError, TypeError, AttributeError):
        return "dropped"
    if diff(run.value, got) is None:
        return "kept"
    return f"converted to {type(got).__name__} {short(got)}"


def _is_user_object(value: Any) -> bool:
    return isinstance(value, (Point, Opaque))


def compare(ref: Run, rs: Run, scenario: Scenario, *, loose: bool = False) -> list[str]:
    """What deepagents_rs did differently from deepagents (empty: nothing)."""
    problems: list[str] = []
    if rs.error is not None and type(rs.error) is Exception:
        problems.append(f"deepagents_rs raised a bare Exception: {_error_text(rs.error)}")
    if ref.error is not None:
        if rs.error is None:
            problems.append(f"deepagents raised {_error_text(ref.error)}; deepagents_rs returned")
        elif not loose and not isinstance(rs.error, type(ref.error)):
            problems.append(
                f"wrong exception: deepagents raised {_error_text(ref.error)}; "
                f"deepagents_rs raised {_error_text(rs.error)}"
            )
    elif rs.error is not None:
        problems.append(f"deepagents returned; deepagents_rs raised {_error_text(rs.error)}")
    else:
        problems.extend(_compare_results(ref, rs, scenario))
    if ref.value_changed is None and rs.value_changed is not None:
        problems.append(f"deepagents_rs changed the caller's value: {rs.value_changed}")
    return problems


def _compare_results(ref: Run, rs: Run, scenario: Scenario) -> list[str]:
    problems: list[str] = []
    a, b = ref.result, rs.result
    if not isinstance(a, dict) or not isinstance(b, dict):
        found = diff(a, b, "result")
        return [found] if found else []
    if set(a) != set(b):
        problems.append(f"result keys: deepagents {sorted(a)}, deepagents_rs {sorted(b)}")
    for key in a.keys() & b.keys():
        found = diff(a[key], b[key], f"result[{key!r}]")
        if found:
            problems.append(found)
    if len(ref.calls) != len(rs.calls):
        problems.append(f"model calls: deepagents {len(ref.calls)}, deepagents_rs {len(rs.calls)}")
    for i, (x, y) in enumerate(zip(ref.calls, rs.calls, strict=False)):
        found = diff(x, y, f"model call {i} messages")
        if found:
            problems.append(found)
    found = diff(ref.tool_inputs, rs.tool_inputs, "tool inputs")
    if found:
        problems.append(found)
    found = diff(ref.input, rs.input, "input after the run")
    if found:
        problems.append(found)
    if scenario.pick is not None and _is_user_object(ref.value):
        try:
            ref_kept, rs_kept = scenario.pick(ref) is ref.value, scenario.pick(rs) is rs.value
        except (KeyError, IndexError, TypeError, AttributeError):
            ref_kept = rs_kept = False
        if ref_kept and not rs_kept:
            problems.append("deepagents hands back the very object it was given; deepagents_rs a different one")
    return problems


def run_case(place: str, kind: str) -> dict[str, Any]:
    scenario = ERRORS[kind] if place == "errors" else PLACES[place]
    make_value = value_factory(place, kind)
    ref = run_one("deepagents", scenario, make_value)
    rs = run_one("deepagents_rs", scenario, make_value)
    problems = compare(ref, rs, scenario, loose=place == "errors" and kind in LOOSE)
    verdict = {
        "place": place,
        "kind": kind,
        "ok": not problems,
        "deepagents": summarize(ref, scenario),
        "deepagents_rs": summarize(rs, scenario),
        "problems": problems,
    }
    if ref.value_changed is not None:
        verdict["deepagents_changed_value"] = ref.value_changed
    return verdict


def main(lines: Iterable[str]) -> int:
    """Run each ``<place> <kind>`` line's case; one START and one RESULT line per case."""
    for line in lines:
        if not line.strip():
            continue
        place, kind = line.split()
        print(f"START {place} {kind}", flush=True)
        try:
            verdict = run_case(place, kind)
        except BaseException:  # noqa: BLE001 - a harness failure is reported, not hidden
            verdict = {"place": place, "kind": kind, "ok": False, "problems": [traceback.format_exc()]}
        print("RESULT " + json.dumps(verdict, ensure_ascii=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.stdin))
