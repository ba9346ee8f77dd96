"""A direct tool call (``_direct_tools.py``) decides at each call whether anything would hear
its tool run, without building LangChain's callback manager when nothing would
(``_unheard``): whatever listens must still see every tool run as under deepagents, whether
passed in ``config``, entered around ``invoke`` (``tracing_v2_enabled``, a configure hook's
context variable) or set in the environment (a configure hook's variable; LangSmith's is
``test_callbacks_langsmith.py``'s); and when nothing listens, the manager the tool's config
holds is the one ``CallbackManager.configure`` would have made."""

from __future__ import annotations

import contextvars
import copy
import threading
from typing import Any, ClassVar
from uuid import UUID

import pytest
from deepagents_rs import _direct_tools
from langchain_core.callbacks import AsyncCallbackManager, BaseCallbackHandler, CallbackManager
from langchain_core.tools import StructuredTool
from langchain_core.tracers.context import register_configure_hook, tracing_v2_enabled

from .harness import MODES, _run_one, ai_tool_calls
from .test_callbacks_langsmith import _LangSmithServer, posted_runs

USER = {"messages": [{"role": "user", "content": "go"}]}


def add(a: float, b: int) -> str:
    """Add two numbers."""
    return f"{a!r} + {b!r} = {a + b!r}"


SCRIPT = [ai_tool_calls(("add", {"a": 1, "b": 2}, "c1"), ("add", {"a": 3, "b": 4}, "c2")), "done"]


class HookRuns(BaseCallbackHandler):
    """Made by LangChain for each run it configures while ``DARS_TEST_HOOK_TRACER`` is set:
    its tool runs go into one list, by implementation."""

    seen: ClassVar[list[tuple[str, str]]] = []

    def on_tool_start(self, serialized: dict[str, Any], input_str: str, **kwargs: Any) -> None:
        HookRuns.seen.append(("start", serialized["name"]))

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        HookRuns.seen.append(("end", getattr(output, "content", output)))


#: A configure hook created by its environment variable, as a tracing package registers one.
_ENV_HOOK: contextvars.ContextVar[Any] = contextvars.ContextVar("dars_test_env_hook", default=None)
register_configure_hook(_ENV_HOOK, True, HookRuns, "DARS_TEST_HOOK_TRACER")
#: A hook set by a context manager around `invoke`, as `collect_runs` sets its own.
_CONTEXT_HOOK: contextvars.ContextVar[Any] = contextvars.ContextVar("dars_test_context_hook", default=None)
register_configure_hook(_CONTEXT_HOOK, True)

EXPECTED = [("start", "add"), ("end", "1.0 + 2 = 3.0"), ("start", "add"), ("end", "3.0 + 4 = 7.0")]


def _tool_runs(impl: str, mode: str) -> list[tuple[str, str]]:
    HookRuns.seen = []
    out = _run_one(impl, SCRIPT, [add], USER, mode, None, {})
    assert out.error is None, out.error
    return sorted(HookRuns.seen)


@pytest.mark.parametrize("mode", MODES)
def test_a_tracer_set_in_the_environment_sees_each_tool_run(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DARS_TEST_HOOK_TRACER", "true")
    theirs = _tool_runs("deepagents", mode)
    ours = _tool_runs("deepagents_rs", mode)
    assert ours == theirs
    assert [r for r in theirs if r[0] == "start"] == [("start", "add")] * 2
    assert sorted(EXPECTED) == [r for r in theirs if r[0] != "start" or r[1] == "add"]


@pytest.mark.parametrize("mode", MODES)
def test_a_hook_entered_around_invoke_sees_each_tool_run(mode: str) -> None:
    runs = {}
    for impl in ("deepagents", "deepagents_rs"):
        HookRuns.seen = []
        token = _CONTEXT_HOOK.set(HookRuns())
        try:
            out = _run_one(impl, SCRIPT, [add], USER, mode, None, {})
        finally:
            _CONTEXT_HOOK.reset(token)
        assert out.error is None, out.error
        runs[impl] = sorted(r for r in HookRuns.seen)
    assert runs["deepagents_rs"] == runs["deepagents"]
    assert sorted(EXPECTED) == runs["deepagents"]


def _tool_runs_traced(impl: str, mode: str, server: _LangSmithServer) -> list[tuple[str, Any]]:
    from langsmith import Client

    client = Client(api_url=server.url, api_key="fake")
    with tracing_v2_enabled(project_name="p", client=client):
        out = _run_one(impl, SCRIPT, [add], USER, mode, None, {})
    client.flush()
    assert out.error is None, out.error
    runs = posted_runs(server.take())
    return sorted((r["name"], _content(r.get("outputs"))) for r in runs.values() if r["run_type"] == "tool")


def _content(outputs: Any) -> str:
    """A tool run's output as posted: a ``ToolMessage``'s content, wherever it is nested."""
    output = (outputs or {}).get("output")
    if isinstance(output, dict):
        output = output.get("content", (output.get("kwargs") or {}).get("content"))
    return str(output)


@pytest.mark.parametrize("mode", MODES)
def test_tracing_entered_around_invoke_sees_each_tool_run(mode: str) -> None:
    server = _LangSmithServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        theirs = _tool_runs_traced("deepagents", mode, server)
        ours = _tool_runs_traced("deepagents_rs", mode, server)
    finally:
        server.shutdown()
        server.server_close()
    assert theirs == [("add", "1.0 + 2 = 3.0"), ("add", "3.0 + 4 = 7.0")]
    assert ours == theirs


def _fields(manager: Any) -> tuple:
    return (
        type(manager),
        manager.handlers,
        manager.inheritable_handlers,
        manager.tags,
        manager.inheritable_tags,
        manager.metadata,
        manager.inheritable_metadata,
    )


def _given_callbacks(kind: str, manager_type: type) -> Any:
    if kind == "manager":
        return manager_type(
            handlers=[],
            tags=["seq:step:1", "shared"],
            inheritable_tags=["inherited", "shared"],
            metadata={"own": 1},
            inheritable_metadata={"kept": "k", "shared": "parent"},
        )
    return {"none": None, "list": []}[kind]


@pytest.mark.parametrize("manager_type", [CallbackManager, AsyncCallbackManager])
@pytest.mark.parametrize("given", ["none", "list", "manager"])
@pytest.mark.parametrize("tool_own", [False, True], ids=["plain-tool", "tool-tags"])
@pytest.mark.parametrize("run_own", [False, True], ids=["plain-run", "run-tags"])
def test_the_quiet_manager_is_the_one_configure_makes(
    manager_type: type, given: str, tool_own: bool, run_own: bool
) -> None:
    tool = StructuredTool.from_function(
        add,
        tags=["tool-tag", "shared"] if tool_own else None,
        metadata={"tool": "m", "shared": "tool"} if tool_own else None,
    )
    config = (
        {"tags": ["run-tag", "shared", "inherited"], "metadata": {"langgraph_step": 3, "shared": "run"}}
        if run_own
        else {"tags": [], "metadata": {}}
    )
    lc = _direct_tools._langchain()
    assert _direct_tools._unheard(lc, _given_callbacks(given, manager_type), tool)
    ours = _direct_tools._quiet_manager(
        lc, manager_type, _given_callbacks(given, manager_type), copy.deepcopy(config), tool
    )
    theirs = _direct_tools.configured(manager_type, _given_callbacks(given, manager_type), copy.deepcopy(config), tool)
    assert _fields(ours) == _fields(theirs)


_RUN_CONFIGS = {
    "plain-run": {"tags": [], "metadata": {}},
    "run-metadata": {"tags": [], "metadata": {"langgraph_step": 3, "lc_versions": {"run": "2"}, "kept": "run"}},
    "run-tags": {"tags": ["run-tag", "shared", "inherited"], "metadata": {"langgraph_step": 3, "shared": "run"}},
}


@pytest.mark.parametrize("manager_type", [CallbackManager, AsyncCallbackManager])
@pytest.mark.parametrize("given", ["none", "list", "manager"])
@pytest.mark.parametrize("tool_own", [False, True], ids=["plain-tool", "tool-tags"])
@pytest.mark.parametrize("run", list(_RUN_CONFIGS))
def test_the_quiet_child_manager_is_the_child_of_the_one_configure_makes(
    manager_type: type, given: str, tool_own: bool, run: str
) -> None:
    """The tool run's child manager, made at once for a plain tool in a run without tags:
    the inherited tags and metadata of the manager ``configure`` makes, as its own too."""
    tool = StructuredTool.from_function(
        add,
        tags=["tool-tag", "shared"] if tool_own else None,
        metadata={"tool": "m", "shared": "tool"} if tool_own else None,
    )
    callbacks = _given_callbacks(given, manager_type)
    if given == "manager":
        callbacks.inheritable_metadata["lc_versions"] = {"given": "1"}
    lc = _direct_tools._langchain()
    ours = _direct_tools._quiet_child_manager(lc, manager_type, callbacks, copy.deepcopy(_RUN_CONFIGS[run]), tool)
    theirs = _direct_tools.configured(manager_type, copy.deepcopy(callbacks), copy.deepcopy(_RUN_CONFIGS[run]), tool)
    assert _fields(ours) == (
        type(theirs),
        [],
        [],
        theirs.inheritable_tags,
        theirs.inheritable_tags,
        theirs.inheritable_metadata,
        theirs.inheritable_metadata,
    )
    # Its own lists and dicts: a tool changing one changes nothing else.
    assert ours.tags is not ours.inheritable_tags and ours.metadata is not ours.inheritable_metadata
    if given == "manager":
        assert ours.inheritable_tags is not callbacks.inheritable_tags
        assert ours.inheritable_metadata is not callbacks.inheritable_metadata


def test_a_listener_anywhere_is_heard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each source ``configure`` takes a handler from makes the call heard."""
    lc = _direct_tools._langchain()
    tool = StructuredTool.from_function(add)
    assert _direct_tools._unheard(lc, None, tool)
    assert not _direct_tools._unheard(lc, [HookRuns()], tool)
    assert not _direct_tools._unheard(lc, CallbackManager(handlers=[], inheritable_handlers=[HookRuns()]), tool)
    assert not _direct_tools._unheard(lc, None, StructuredTool.from_function(add, callbacks=[HookRuns()]))
    assert not _direct_tools._unheard(lc, None, StructuredTool.from_function(add, verbose=True))
    token = _CONTEXT_HOOK.set(HookRuns())
    try:
        assert not _direct_tools._unheard(lc, None, tool)
    finally:
        _CONTEXT_HOOK.reset(token)
    with monkeypatch.context() as env:
        env.setenv("DARS_TEST_HOOK_TRACER", "1")
        assert not _direct_tools._unheard(lc, None, tool)
    with monkeypatch.context() as env:
        env.setenv("LANGCHAIN_TRACING", "true")
        assert not _direct_tools._unheard(lc, None, tool)
    from langchain_core.globals import set_debug

    set_debug(True)
    try:
        assert not _direct_tools._unheard(lc, None, tool)
    finally:
        set_debug(False)
    from langsmith import tracing_context

    with tracing_context(enabled=True):
        assert not _direct_tools._unheard(lc, None, tool)
    with tracing_context(tags=["outer"]):
        assert not _direct_tools._unheard(lc, None, tool)
    assert _direct_tools._unheard(lc, None, tool)
