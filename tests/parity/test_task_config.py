"""What code inside a run sees of LangGraph's run context, side by side with deepagents: the
config (``get_config()``, a ``ToolRuntime``'s ``config``) and runtime (``get_runtime()``, a
hook's ``runtime``) of a plain tool, an ``InjectedToolCallId`` tool, a ``ToolRuntime`` tool
and a user middleware's hooks, on a thread with a saver (in memory, SQLite) and without one,
in a subagent too, under invoke, ainvoke and stream.

Compared after masking what is random but keeping the structure: every key that exists, every
value that is not an id, and which ids equal which. A checkpoint id is shown as the step and
namespace of the checkpoint with that id in the saver (``cp:<ns>@<step>``), so a tool's
``checkpoint_map`` must name a checkpoint the saver holds, as under LangGraph; a task id, run
id or other uuid as ``<kind>#<n>``, numbered in order of first appearance. Objects (the
scratchpad, the saver, callables) are shown by their type. Every key is compared: our own
carriers (keys starting ``__deepagents_rs``) must not show, as deepagents has none.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import sqlite3
from typing import Annotated, Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.config import get_config
from langgraph.runtime import get_runtime

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: LangGraph's private configurable keys compared by value; the others (its loop's read,
#: send, call and scratchpad machinery) are compared as a set on their own
#: (`test_private_loop_keys`).
_SHOWN_PREGEL = ("__pregel_task_id", "__pregel_runtime")


class _Masker:
    """Replaces ids by stable labels: checkpoints by where they are in the saver, any other
    uuid by its kind and order of first appearance."""

    def __init__(self, checkpoints: dict[str, str]) -> None:
        self.checkpoints = checkpoints
        self.labels: dict[str, str] = {}

    def ids(self, text: str, kind: str) -> str:
        def label(match: re.Match) -> str:
            value = match.group(0)
            if value in self.checkpoints:
                return f"<cp@{value}>"
            if value not in self.labels:
                self.labels[value] = f"<{kind}#{sum(v.startswith(f'<{kind}#') for v in self.labels.values())}>"
            return self.labels[value]

        return _UUID.sub(label, text)

    def value(self, value: Any, kind: str = "id") -> Any:
        if isinstance(value, str):
            return self.ids(value, kind)
        if isinstance(value, dict):
            return {self.value(k, "task"): self.value(v, kind) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.value(v, kind) for v in value)
        if value is None or isinstance(value, (int, float, bool)):
            return value
        return f"<{type(value).__name__}>"

    def _configurable(self, key: str, value: Any) -> Any:
        if key == "checkpoint_map":
            return self.value(value, "cp")
        if key in ("checkpoint_ns", "__pregel_task_id"):
            return self.value(value, "task")
        return self.value(value) if not key.startswith("__") else f"<{type(value).__name__}>"

    def config(self, config: Any) -> Any:
        if isinstance(config, Exception):
            return repr(config)
        out: dict[str, Any] = {}
        for key, value in sorted(config.items()):
            if key == "configurable":
                out[key] = {
                    k: self._configurable(k, v)
                    for k, v in sorted(value.items())
                    if not k.startswith("__pregel_") or k in _SHOWN_PREGEL
                }
            elif key == "callbacks":
                out[key] = (
                    type(value).__name__,
                    self.value(str(getattr(value, "parent_run_id", None)), "run"),
                    list(getattr(value, "tags", None) or []),
                )
            elif key == "metadata":
                out[key] = {k: self.value(v, "task") for k, v in sorted(value.items())}
            else:
                out[key] = self.value(value)
        return out

    def runtime(self, runtime: Any) -> tuple:
        fields: dict[str, Any] = {}
        for field in dataclasses.fields(runtime):
            value = getattr(runtime, field.name)
            if field.name == "execution_info" and value is not None:
                info = dataclasses.asdict(value)
                info["node_first_attempt_time"] = type(info["node_first_attempt_time"]).__name__
                fields[field.name] = {
                    k: self.value(v, "cp" if k == "checkpoint_id" else "task") for k, v in info.items()
                }
            elif field.name == "config":
                fields[field.name] = self.config(value)
            elif field.name == "state":
                fields[field.name] = sorted(value)
            elif field.name == "control":
                # Compared on its own (`test_run_control_reaches_tasks`).
                continue
            elif field.name in ("context", "tool_call_id", "previous"):
                fields[field.name] = self.value(value)
            else:
                fields[field.name] = type(value).__name__
        return type(runtime).__name__, fields


class _Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict]] = []

    def add(self, where: str, key: str, **what: Any) -> None:
        self.seen.append((where, key, what))


REC = _Recorder()


def _config() -> Any:
    """``get_config()``, or the error it raised (outside any runnable context)."""
    try:
        return get_config()
    except RuntimeError as exc:
        return exc


@tool
def plain(x: str) -> str:
    """A plain tool."""
    REC.add("plain", x, config=_config(), runtime=get_runtime())
    return "ok"


@tool
def with_id(x: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """A tool taking its call id."""
    REC.add("with_id", x, config=_config(), call_id=tool_call_id)
    return "ok"


@tool
def with_runtime(x: str, runtime: ToolRuntime) -> str:
    """A tool taking the runtime."""
    REC.add("with_runtime", x, config=_config(), runtime=runtime)
    return "ok"


class Hooks(AgentMiddleware):
    """Records what each hook sees."""

    def _seen(self, hook: str, runtime: Any, key: str = "") -> None:
        REC.add(hook, key, config=_config(), runtime=runtime)

    def before_agent(self, state, runtime):
        self._seen("before_agent", runtime)

    def before_model(self, state, runtime):
        self._seen("before_model", runtime, str(len(state["messages"])))

    def after_model(self, state, runtime):
        self._seen("after_model", runtime, str(len(state["messages"])))

    def after_agent(self, state, runtime):
        self._seen("after_agent", runtime)

    def wrap_model_call(self, request, handler):
        self._seen("wrap_model_call", request.runtime, str(len(request.messages)))
        return handler(request)

    async def awrap_model_call(self, request, handler):
        self._seen("wrap_model_call", request.runtime, str(len(request.messages)))
        return await handler(request)

    def wrap_tool_call(self, request, handler):
        self._seen("wrap_tool_call", request.runtime, request.tool_call["args"].get("x", ""))
        return handler(request)

    async def awrap_tool_call(self, request, handler):
        self._seen("wrap_tool_call", request.runtime, request.tool_call["args"].get("x", ""))
        return await handler(request)


def _saver(kind: str, tmp_path, module) -> Any:
    if kind == "memory":
        return InMemorySaver()
    if kind == "sqlite":
        return SqliteSaver(sqlite3.connect(str(tmp_path / f"{module.__name__}.db"), check_same_thread=False))
    return None


def _run(module, saver_kind: str, how: str, subagent: bool | str, tmp_path, part) -> list:
    """``subagent``: the tools are called by the general-purpose subagent (True), or by a
    subagent of this name that has the `Hooks` middleware in place of the agent."""
    calls = [("plain", {"x": "1"}), ("with_id", {"x": "2"}), ("with_runtime", {"x": "3"})]
    kind = subagent if isinstance(subagent, str) else "general-purpose"
    if subagent:
        script = [
            ai_tool_calls(("task", {"description": "d", "subagent_type": kind})),
            ai_tool_calls(*calls),
            AIMessage("sub done"),
            AIMessage("done"),
        ]
    else:
        script = [ai_tool_calls(*calls), AIMessage("done")]
    payload = {"messages": [("user", "go")]}
    config = {"configurable": {"thread_id": "t"}}

    def agent(saver):
        hooked = isinstance(subagent, str)
        return module.create_deep_agent(
            model=ScriptedChatModel(responses=script),
            tools=[plain, with_id, with_runtime],
            middleware=[] if hooked else [Hooks()],
            subagents=[{"name": kind, "description": "w", "system_prompt": "s", "middleware": [Hooks()]}]
            if hooked
            else None,
            checkpointer=saver,
        )

    REC.seen.clear()
    checkpoints: list = []
    if how == "ainvoke":

        async def run() -> None:
            if saver_kind == "sqlite":
                from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

                async with AsyncSqliteSaver.from_conn_string(str(tmp_path / f"{module.__name__}.db")) as saver:
                    await agent(saver).ainvoke(payload, config)
                    checkpoints.extend([c async for c in saver.alist(config)])
                return
            saver = _saver(saver_kind, tmp_path, module)
            await agent(saver).ainvoke(payload, config)
            checkpoints.extend(saver.list(config) if saver is not None else [])

        asyncio.run(run())
    else:
        saver = _saver(saver_kind, tmp_path, module)
        if how == "stream":
            list(agent(saver).stream(payload, config, stream_mode=["updates", "values"]))
        else:
            agent(saver).invoke(payload, config)
        checkpoints.extend(saver.list(config) if saver is not None else [])
    # Tools run side by side: in a fixed order, so ids are numbered alike.
    seen = sorted((s for s in REC.seen if part(s[0])), key=lambda s: (s[0], s[1]))
    masker = _Masker({})
    for c in checkpoints:
        conf = c.config["configurable"]
        masker.checkpoints[conf["checkpoint_id"]] = f"cp:{conf['checkpoint_ns']}@{c.metadata['step']}"
    # Numbered in the order the tasks are seen; the saver's namespaces then take their labels.
    shown_seen = [(where, key, _shown(masker, what)) for where, key, what in seen]
    masker.checkpoints = {k: masker.ids(v, "task") for k, v in masker.checkpoints.items()}
    return [(where, key, _resolve(masker, shown)) for where, key, shown in shown_seen]


def _shown(masker: _Masker, what: dict) -> dict:
    shown = {"config": masker.config(what["config"])}
    if "runtime" in what:
        shown["runtime"] = masker.runtime(what["runtime"])
    if "call_id" in what:
        shown["call_id"] = what["call_id"]
    return shown


def _resolve(masker: _Masker, shown: Any) -> Any:
    """Checkpoint labels, once the saver's namespaces are numbered like the tasks."""
    if isinstance(shown, str):
        return re.sub(r"<cp@([^>]*)>", lambda m: masker.checkpoints.get(m.group(1), m.group(0)), shown)
    if isinstance(shown, dict):
        return {_resolve(masker, k): _resolve(masker, v) for k, v in shown.items()}
    if isinstance(shown, (list, tuple)):
        return type(shown)(_resolve(masker, v) for v in shown)
    return shown


def _diff(ours: list, theirs: list) -> str:
    import difflib
    import pprint

    return "\n".join(
        difflib.unified_diff(
            pprint.pformat(theirs, width=140).splitlines(),
            pprint.pformat(ours, width=140).splitlines(),
            "deepagents",
            "deepagents_rs",
            lineterm="",
        )
    )


def _compare(saver_kind, how, subagent, tmp_path, part):
    theirs = _run(deepagents, saver_kind, how, subagent, tmp_path, part)
    ours = _run(deepagents_rs, saver_kind, how, subagent, tmp_path, part)
    assert theirs, "deepagents ran none of the recorded code"
    assert ours == theirs, _diff(ours, theirs)


_TOOLS = ("plain", "with_id", "with_runtime")


@pytest.mark.parametrize(
    ("subagent", "saver_kind", "how"),
    [
        (subagent, saver_kind, how)
        for subagent in (False, True)
        for saver_kind in ("none", "memory", "sqlite")
        for how in ("invoke", "ainvoke", "stream")
    ],
)
def test_tools_see_their_task(saver_kind, how, subagent, tmp_path):
    _compare(saver_kind, how, subagent, tmp_path, lambda where: where in _TOOLS)


@pytest.mark.parametrize("how", ["invoke", "ainvoke", "stream"])
@pytest.mark.parametrize("saver_kind", ["none", "memory", "sqlite"])
def test_hooks_see_their_node(saver_kind, how, tmp_path):
    _compare(saver_kind, how, False, tmp_path, lambda where: where not in _TOOLS)


@pytest.mark.parametrize("how", ["invoke", "ainvoke", "stream"])
@pytest.mark.parametrize("saver_kind", ["none", "memory", "sqlite"])
def test_subagent_hooks_see_their_node(saver_kind, how, tmp_path):
    """A subagent's middleware: its nodes' tasks under the `task` call's namespace."""
    _compare(saver_kind, how, "worker", tmp_path, lambda where: where not in _TOOLS)


def _tool_seen(module, saver_kind, tmp_path) -> list[tuple[list[str], str]]:
    _run(module, saver_kind, "invoke", False, tmp_path, lambda where: where in _TOOLS)
    return sorted(
        (
            sorted(k for k in what["config"]["configurable"] if k.startswith("__pregel_")),
            type(getattr(what.get("runtime"), "control", None)).__name__,
        )
        for _where, _key, what in REC.seen
        if _where in _TOOLS
    )


@pytest.mark.parametrize("saver_kind", ["none", "memory", "sqlite"])
def test_loop_keys_and_run_control(saver_kind, tmp_path):
    ours = _tool_seen(deepagents_rs, saver_kind, tmp_path)
    theirs = _tool_seen(deepagents, saver_kind, tmp_path)
    assert theirs and ours == theirs
