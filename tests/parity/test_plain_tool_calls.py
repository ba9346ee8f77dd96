"""A plain tool call's config made from its run's shared part (``_plain_tool_calls``) is what
the general path (``_stream.full_config``, then ``_direct_tools``' child config) gives the
same call: every key, in order, every value (ids compared by where they first appear, so the
same structure of ids), the runtime, the stream writer, the store, the files accessor, the
functional-API caller's view, the loop objects, the error notes and the validation message;
and what deepagents gives it (``get_config()``, ``get_runtime()``, masked as
``test_task_config`` masks them). The path is taken for a plain tool when nothing listens,
and not otherwise (a tool with tags or callbacks, a run with tags, a handler, a tracer)."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import re
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import deepagents
import deepagents_rs
import pytest
from deepagents_rs import _plain_tool_calls, _stream
from deepagents_rs._files_context import CURRENT_FILES
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool, ToolException
from langchain_core.tracers.context import collect_runs
from langgraph.config import get_config, get_store, get_stream_writer
from langgraph.runtime import get_runtime
from langgraph.store.memory import InMemoryStore

from .test_task_config import _Masker

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class Who:
    user: str = "nobody"


SEEN: list[dict] = []


def look(x: str) -> str:
    """Record what the tool sees."""
    SEEN.append(
        {
            "x": x,
            "config": get_config(),
            "runtime": get_runtime(),
            "writer": get_stream_writer(),
            "store": get_store(),
            "files": CURRENT_FILES.get(),
        }
    )
    return f"saw {x}"


async def alook(x: str) -> str:
    """Record what the tool sees."""
    await asyncio.sleep(0)
    return look(x)


# The same tool as a coroutine function (the scripts call `look`).
alook.__name__ = "look"


async def acount(n: int) -> str:
    """Take a number."""
    return str(n)


async def afail(x: str) -> str:
    """Fail."""
    raise ToolException(f"cannot: {x}")


acount.__name__, afail.__name__ = "count", "fail"

#: The tools of each kind: sync functions, or coroutine functions (`acall_plain`).
LOOK = {"sync": look, "async": alook}


def fail(x: str) -> str:
    """Fail."""
    raise ToolException(f"cannot: {x}")


def fail_configured(x: str, config: RunnableConfig) -> str:
    """Fail, taking the config (the general path, from a `PlainCall`)."""
    raise RuntimeError(f"cannot: {x}")


def count(n: int) -> str:
    """Take a number."""
    return str(n)


#: Run configs (and ``invoke`` keywords) a plain call's base is made from.
CASES: dict[str, tuple[dict, dict]] = {
    "bare": ({}, {}),
    "thread": ({"configurable": {"thread_id": "t1"}}, {}),
    "config": (
        {
            "metadata": {"who": "me", "lc_versions": {"mine": "1"}},
            "configurable": {"thread_id": "t1", "model": "m-1", "user_id": 7, "nested": {"a": 1}},
            "max_concurrency": 3,
            "recursion_limit": 40,
        },
        {},
    ),
    "context": ({"configurable": {"user_id": 7}}, {"context": {"user": "ann"}}),
}


class Shape:
    """A value's structure with its ids numbered by first appearance (dict keys in order)."""

    def __init__(self) -> None:
        self.labels: dict[str, str] = {}

    def text(self, value: str) -> str:
        return _UUID.sub(lambda m: self.labels.setdefault(m.group(0), f"<id{len(self.labels)}>"), value)

    def of(self, value: Any, depth: int = 0) -> Any:
        if depth > 8:
            return type(value).__name__
        if isinstance(value, str):
            return self.text(value)
        if value is None or isinstance(value, (bool, int)):
            return value
        if isinstance(value, float):
            return "float"
        if isinstance(value, UUID):
            return ("UUID", self.text(str(value)))
        if isinstance(value, dict):
            return ("dict", [(self.of(k, depth + 1), self.of(v, depth + 1)) for k, v in value.items()])
        if isinstance(value, (list, tuple, frozenset)):
            items = sorted(value) if isinstance(value, frozenset) else value
            return (type(value).__name__, [self.of(v, depth + 1) for v in items])
        if isinstance(value, types.MethodType):
            return ("method", value.__func__.__qualname__, self.of(value.__self__, depth + 1))
        if dataclasses.is_dataclass(value):
            fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
            return (type(value).__name__, self.of(fields, depth + 1))
        slots = [s for c in type(value).__mro__ for s in getattr(c, "__slots__", ()) if not s.startswith("__")]
        state = getattr(value, "__dict__", None)
        if state is None and slots:
            state = {s: getattr(value, s, None) for s in slots if not s.startswith("_")}
        if state is not None and type(value).__module__.startswith(("deepagents_rs", "langchain_core.callbacks")):
            return (type(value).__name__, self.of(dict(state), depth + 1))
        return type(value).__name__


def _agent(module: Any, tools: list, script: list, store: Any = None, subagent: bool = False) -> Any:
    kwargs: dict[str, Any] = {"context_schema": Who}
    if store is not None:
        kwargs["store"] = store
    return module.create_deep_agent(model=ScriptedChatModel(responses=script), tools=tools, **kwargs)


def _script(subagent: bool, calls: list) -> list:
    if subagent:
        task = ai_tool_calls(("task", {"description": "d", "subagent_type": "general-purpose"}, "t0"))
        return [task, ai_tool_calls(*calls), AIMessage("sub done"), AIMessage("done")]
    return [ai_tool_calls(*calls), AIMessage("done")]


def _run(module: Any, how: str, case: str, subagent: bool, tools: list, calls: list, store: Any = None) -> Any:
    config, kwargs = CASES[case]
    agent = _agent(module, tools, _script(subagent, calls), store, subagent)
    payload = {"messages": [("user", "go")]}
    try:
        if how == "ainvoke":
            return asyncio.run(agent.ainvoke(payload, config, **kwargs))
        if how == "astream":

            async def parts() -> list:
                return [p async for p in agent.astream(payload, config, stream_mode=["updates"], **kwargs)]

            return asyncio.run(parts())
        if how == "stream":
            return list(agent.stream(payload, config, stream_mode=["updates"], **kwargs))
        return agent.invoke(payload, config, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        return exc


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call made on the general path: no run has a base for its plain calls (the core
    looks ``run_base`` up at each run's first tool call)."""
    monkeypatch.setattr(_plain_tool_calls, "run_base", lambda *args: None)


class Paths:
    """Counts the calls made on each path."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.plain = self.general = 0
        tool_config, full_config = _plain_tool_calls._tool_config, _stream.full_config

        def plain(*args: Any) -> Any:
            self.plain += 1
            return tool_config(*args)

        def general(*args: Any, **kwargs: Any) -> Any:
            self.general += 1
            return full_config(*args, **kwargs)

        monkeypatch.setattr(_plain_tool_calls, "_tool_config", plain)
        monkeypatch.setattr(_stream, "full_config", general)


def _both_paths(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[bool, Paths]]:
    """The plain path, then the general one, each with its calls counted."""
    for general in (False, True):
        with monkeypatch.context() as patch:
            if general:
                _general(patch)
            yield general, Paths(patch)


def _seen_shape(store: Any) -> Any:
    shape = Shape()
    out = []
    for seen in sorted(SEEN, key=lambda s: s["x"]):
        out.append(
            {
                "config": shape.of(seen["config"]),
                "runtime": shape.of(seen["runtime"]),
                "writer": getattr(seen["writer"], "__qualname__", type(seen["writer"]).__name__),
                "store": seen["store"] is store,
                "files": type(seen["files"]).__name__,
            }
        )
    return out


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("subagent", [False, True])
@pytest.mark.parametrize("how", ["invoke", "ainvoke", "stream", "astream"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_plain_call_sees_what_the_general_path_gives(case, how, subagent, kind, monkeypatch):
    calls = [("look", {"x": "1"}, "c1"), ("look", {"x": "2"}, "c2")]
    store = InMemoryStore()
    seen = []
    for general, paths in _both_paths(monkeypatch):
        SEEN.clear()
        _run(deepagents_rs, how, case, subagent, [LOOK[kind]], calls, store)
        seen.append(_seen_shape(store))
        assert (paths.plain, paths.general) == ((0, 2) if general else (2, 0))
    assert len(seen[0]) == 2
    assert seen[0] == seen[1]


@pytest.mark.parametrize(("kind", "how"), [("sync", "invoke"), ("sync", "ainvoke"), ("async", "ainvoke")])
def test_errors_and_bad_arguments_are_the_general_paths(kind, how, monkeypatch):
    calls = [("count", {"n": "not a number"}, "c1"), ("fail", {"x": "r"}, "c2")]
    tools = [count, fail] if kind == "sync" else [acount, afail]
    outcomes = []
    for general, paths in _both_paths(monkeypatch):
        error = _run(deepagents_rs, how, "thread", False, tools, calls)
        assert isinstance(error, ToolException)
        outcomes.append((repr(error), Shape().text(str(getattr(error, "__notes__", None)))))
        assert paths.plain == (0 if general else 2)
    assert outcomes[0] == outcomes[1]
    assert "During task with name 'tools'" in outcomes[0][1]
    theirs = _run(deepagents, how, "thread", False, tools, calls)
    assert repr(theirs) == outcomes[0][0]


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_an_error_of_a_tool_off_the_path_keeps_its_notes(how):
    """A tool taking its config is handed the general config made from the `PlainCall`; its
    error is noted with that config's task, as deepagents notes it."""
    error = _run(deepagents_rs, how, "thread", False, [fail_configured], [("fail_configured", {"x": "r"}, "c1")])
    theirs = _run(deepagents, how, "thread", False, [fail_configured], [("fail_configured", {"x": "r"}, "c1")])
    assert repr(error) == repr(theirs)
    shape = Shape()
    assert [shape.text(n) for n in error.__notes__] == [Shape().text(n) for n in theirs.__notes__]
    assert len(error.__notes__) == 1


#: deepagents cannot call a coroutine-only tool synchronously (deepagents_rs awaits it).
_WAYS = [("sync", how) for how in ("invoke", "ainvoke", "stream", "astream")] + [
    ("async", how) for how in ("ainvoke", "astream")
]


@pytest.mark.parametrize(("kind", "how"), _WAYS)
@pytest.mark.parametrize("case", list(CASES))
def test_a_plain_call_sees_what_deepagents_gives(case, kind, how):
    calls = [("look", {"x": "1"}, "c1"), ("look", {"x": "2"}, "c2")]
    shown = []
    for module in (deepagents, deepagents_rs):
        SEEN.clear()
        store = InMemoryStore()
        _run(module, how, case, False, [LOOK[kind]], calls, store)
        masker = _Masker({})
        shown.append(
            [
                (
                    masker.config(s["config"]),
                    masker.runtime(s["runtime"]),
                    s["store"] is store,
                    # LangGraph's is its loop's, a no-op when `custom` is not streamed
                    # (`test_direct_tools` compares what it writes).
                    callable(s["writer"]),
                    list(s["config"]),
                )
                # Numbered in the order of the calls (deepagents runs them side by side).
                for s in sorted(SEEN, key=lambda s: s["x"])
            ]
        )
    theirs, ours = shown
    assert len(ours) == 2
    assert ours == theirs


class Tools(BaseCallbackHandler):
    def __init__(self) -> None:
        self.starts: list[str] = []

    def on_tool_start(self, serialized: dict, input_str: str, **kwargs: Any) -> None:
        self.starts.append(serialized["name"])


def test_the_path_is_not_taken_where_something_would_differ(monkeypatch):
    calls = [("look", {"x": "1"}, "c1")]
    script = [ai_tool_calls(*calls), AIMessage("done")]
    payload = {"messages": [("user", "go")]}

    def paths_of(tool: Any, config: dict | None = None, around: Any = None) -> tuple[int, int]:
        with monkeypatch.context() as patch:
            paths = Paths(patch)
            agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(responses=list(script)), tools=[tool])
            if around is None:
                agent.invoke(payload, config)
            else:
                with around():
                    agent.invoke(payload, config)
            return paths.plain, paths.general

    handler = Tools()
    assert paths_of(look) == (1, 0)
    assert paths_of(StructuredTool.from_function(look, tags=["mine"])) == (0, 1)
    assert paths_of(StructuredTool.from_function(look, metadata={"k": "v"})) == (0, 1)
    assert paths_of(StructuredTool.from_function(look, callbacks=[handler])) == (0, 1)
    assert handler.starts == ["look"]
    assert paths_of(look, {"tags": ["run-tag"]}) == (0, 1)
    assert paths_of(look, {"callbacks": [handler]}) == (0, 1)
    assert handler.starts == ["look", "look"]
    assert paths_of(look, around=collect_runs) == (0, 1)


def test_a_runs_config_is_freed_without_the_cyclic_collector():
    """The run's shared part is kept on its config and must not point back at it: a cycle
    would leave every run's config (and what its calls made) to the cyclic collector."""
    from deepagents_rs._task_config import RunConfig

    script = [ai_tool_calls(("look", {"x": "1"}, "c1")), AIMessage("done")] * 3
    agent = deepagents_rs.create_deep_agent(model=ScriptedChatModel(responses=script), tools=[look])
    gc.collect()
    # Other tests' configs still held (kept here, so no new one takes an address of theirs).
    earlier = [o for o in gc.get_objects() if type(o) is RunConfig]
    seen = {id(o) for o in earlier}
    gc.disable()
    try:
        for _ in range(3):
            agent.invoke({"messages": [("user", "go")]})
        alive = sum(type(o) is RunConfig and id(o) not in seen for o in gc.get_objects())
    finally:
        gc.enable()
    assert alive == 0
