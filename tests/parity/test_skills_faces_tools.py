"""Parity: `SkillsMiddleware(tools=...)` outside a deep agent, in LangChain's own
`create_agent` or with its hooks called directly (`wrap_model_call`, `wrap_tool_call`,
`before_model` and their async forms): the skill tools are disclosed, gated and run as
deepagents does. Both implementations run the same scripted model with their own middleware;
the requests (messages and tools), the results, the private record and the warnings must be
the same.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware.types import ExtendedModelResponse, ModelRequest, ToolCallRequest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from .harness import ScriptedChatModel
from .skill_tools_support import CRM, CRM_PATH, IMPLS, call, create_request, inp, list_requests, read, skill_md


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def _skills(impl: str, **kwargs: Any) -> Any:
    backends = importlib.import_module(f"{impl}.backends")
    middleware = importlib.import_module(f"{impl}.middleware.skills")
    return middleware.SkillsMiddleware(backend=backends.StateBackend(), sources=["/skills/"], **kwargs)


def _run(impl: str, script: list[Any], mode: str, given: dict, agent_tools: list[Any] | None = None, **kwargs: Any):
    # deepagents' filesystem middleware gives both agents `read_file` and the `files` channel:
    # what is compared is the skills middleware.
    filesystem = importlib.import_module("deepagents.middleware.filesystem").FilesystemMiddleware
    state_backend = importlib.import_module("deepagents.backends").StateBackend
    model = ScriptedChatModel(list(script))
    agent = create_agent(
        model,
        tools=agent_tools or [],
        middleware=[filesystem(backend=state_backend()), _skills(impl, **kwargs)],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "t"}}
    try:
        out = agent.invoke(given, config) if mode == "invoke" else asyncio.run(agent.ainvoke(given, config))
    except Exception as exc:  # noqa: BLE001 - compared
        out = f"{type(exc).__name__}: {exc}"
    calls = [(c.tools, [(m.type, m.content) for m in c.messages]) for c in model.calls]
    if isinstance(out, dict):
        out = [(m.type, m.content, getattr(m, "status", None)) for m in out["messages"]]
    return calls, out, agent.get_state(config).values.get("_skill_tools_disclosed")


def _both(caplog: pytest.LogCaptureFixture, *args: Any, **kwargs: Any) -> Any:
    runs = []
    for impl in IMPLS:
        caplog.clear()
        runs.append((_run(impl, *args, **kwargs), _warnings(caplog)))
    assert runs[0] == runs[1]
    return runs[0]


def _by_name() -> list[Any]:
    return [create_request, list_requests]


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


@tool(extras={"defer_loading": True})
def archive(item: str) -> str:
    """Archive an item."""
    return f"archived {item}"


SCRIPTS = {
    "read then call": [read(), call("create_request", title="x"), AIMessage(content="done")],
    "call before reading": [call("create_request", title="x"), AIMessage(content="done")],
    "read with a limit, then both": [
        read(limit=1000),
        AIMessage(
            content="", tool_calls=[*call("list_requests").tool_calls, *call("create_request", title="y").tool_calls]
        ),
        AIMessage(content="done"),
    ],
}


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.parametrize("scenario", sorted(SCRIPTS))
def test_in_create_agent_skill_tools_are_disclosed_and_gated_the_same(
    caplog: pytest.LogCaptureFixture, mode: str, scenario: str
) -> None:
    calls, out, record = _both(caplog, SCRIPTS[scenario], mode, inp(**CRM), tools=_by_name())[0]
    assert isinstance(out, list)
    if scenario != "call before reading":
        assert record == {"create_request": "create_request", "list_requests": "list_requests"}
        assert "create_request" in [t["function"]["name"] for t in calls[-1][0]]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_resolver_gets_the_request_runtime_and_names(caplog: pytest.LogCaptureFixture, mode: str) -> None:
    texts = {CRM_PATH: skill_md("crm", "crm-suite lookup")}
    asked: dict[str, list[Any]] = {impl: [] for impl in IMPLS}
    runs = []
    for impl in IMPLS:

        def resolve(name: str, runtime: Any, log: list = asked[impl]) -> list[Any]:
            log.append((name, type(runtime).__name__))
            return [create_request, list_requests] if name == "crm-suite" else []

        caplog.clear()
        script = [read(), call("list_requests"), AIMessage(content="done")]
        runs.append((_run(impl, script, mode, inp(**texts), agent_tools=[lookup], tools=resolve), _warnings(caplog)))
    assert runs[0] == runs[1]
    assert asked["deepagents"] == asked["deepagents_rs"]
    assert asked["deepagents"]


def test_an_async_resolver_under_ainvoke_and_its_error_under_invoke(caplog: pytest.LogCaptureFixture) -> None:
    async def resolve(name: str, runtime: Any) -> list[Any]:
        return [create_request] if name == "create_request" else []

    script = [read(), call("create_request", title="z"), AIMessage(content="done")]
    _both(caplog, script, "ainvoke", inp(**CRM), tools=resolve)
    _, out, _ = _both(caplog, script, "invoke", inp(**CRM), tools=resolve)[0]
    assert "awaitable" in out


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_pinned_skill_discloses_its_tools(caplog: pytest.LogCaptureFixture, mode: str) -> None:
    script = [call("create_request", title="p"), AIMessage(content="done")]
    _calls, out, record = _both(caplog, script, mode, inp(pinned=["crm", "unknown"], **CRM), tools=_by_name())[0]
    assert record
    assert any(kind == "human" and "<skill" in str(content) for kind, content, _ in out)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_deferred_agent_tool_a_read_skill_names_is_sent_undeferred(
    caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    texts = {CRM_PATH: skill_md("crm", "archive create_request")}
    script = [read(), call("archive", item="a"), AIMessage(content="done")]
    _both(caplog, script, mode, inp(**texts), agent_tools=[archive], tools=_by_name())


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_tool_the_resolver_stops_answering_fails_as_unknown_with_a_warning(
    caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    def flaky() -> Any:
        answers = iter([[create_request]])

        def resolve(name: str, runtime: Any) -> list[Any]:
            return next(answers, [])

        return resolve

    runs = []
    for impl in IMPLS:
        caplog.clear()
        script = [read(), call("create_request", title="x"), AIMessage(content="done")]
        runs.append((_run(impl, script, mode, inp(**CRM), tools=flaky()), _warnings(caplog)))
    assert runs[0] == runs[1]
    assert any("no longer returns it" in w for w in runs[0][1])


def _read_request(model: Any, tools: list[Any]) -> ModelRequest:
    skill = {
        "name": "crm",
        "description": "d",
        "path": CRM_PATH,
        "metadata": {"include_tools": "create_request archive"},
        "license": None,
        "compatibility": None,
        "allowed_tools": [],
    }
    messages = [HumanMessage(content="hi"), read(), ToolMessage(content="...", tool_call_id="call_read_file_0")]
    messages[1].tool_calls[0]["id"] = "call_read_file_0"
    return ModelRequest(
        model=model,
        messages=messages,
        system_message=None,
        tools=tools,
        state={"messages": [], "skills_metadata": [skill]},
    )


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_wrap_model_call_hands_the_handler_the_same_tools_and_records_them(mode: str) -> None:
    got = []
    for impl in IMPLS:
        handed: list[ModelRequest] = []

        def handler(request: ModelRequest, handed: list = handed) -> AIMessage:
            handed.append(request)
            return AIMessage(content="ok")

        async def ahandler(request: ModelRequest, handed: list = handed) -> AIMessage:
            return handler(request)

        mw = _skills(impl, tools=_by_name())
        request = _read_request(ScriptedChatModel(["ok"]), [lookup, archive])
        if mode == "sync":
            out = mw.wrap_model_call(request, handler)
        else:
            out = asyncio.run(mw.awrap_model_call(request, ahandler))
        assert isinstance(out, ExtendedModelResponse)
        tools = handed[0].tools
        got.append(
            (
                [(t.name, t.extras) for t in tools],
                tools[0] is lookup,
                tools[2] is create_request,
                out.command.update,
                out.model_response.content,
                handed[0].system_message.text,
            )
        )
    assert got[0] == got[1]
    assert got[0][0] == [("lookup", None), ("archive", {}), ("create_request", None)]


def test_modify_request_adds_the_section_only() -> None:
    views = []
    for impl in IMPLS:
        request = _read_request(ScriptedChatModel(["ok"]), [lookup, archive])
        out = _skills(impl, tools=_by_name()).modify_request(request)
        views.append((out.system_message.text, out.tools == request.tools, out.messages == request.messages))
    assert views[0] == views[1]


def _tool_request(state: dict, name: str = "create_request", given_tool: Any = None) -> ToolCallRequest:
    return ToolCallRequest(
        tool_call={"name": name, "args": {"title": "t"}, "id": "c1", "type": "tool_call"},
        tool=given_tool,
        state=state,
        runtime=None,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    ("state", "name", "given"),
    [
        ({"_skill_tools_disclosed": {"create_request": "create_request"}}, "create_request", None),
        ({"_skill_tools_disclosed": {"create_request": "gone"}}, "create_request", None),
        ({"_skill_tools_disclosed": {"create_request": "create_request"}}, "create_request", lookup),
        ({"_skill_tools_disclosed": {"x": 1}}, "create_request", None),
        ({}, "create_request", None),
    ],
)
def test_wrap_tool_call_runs_the_disclosed_tool(
    caplog: pytest.LogCaptureFixture, mode: str, state: dict, name: str, given: Any
) -> None:
    from langgraph.runtime import Runtime

    outs = []
    for impl in IMPLS:
        handed: list[ToolCallRequest] = []

        def handler(request: ToolCallRequest, handed: list = handed) -> ToolMessage:
            handed.append(request)
            return ToolMessage(content="ran", tool_call_id="c1")

        async def ahandler(request: ToolCallRequest) -> ToolMessage:
            return handler(request)

        mw = _skills(impl, tools=_by_name())
        caplog.clear()
        # deepagents reads the graph's runtime (`get_runtime`): run inside one.
        from langchain_core.runnables.config import var_child_runnable_config
        from langgraph.constants import CONF
        from langgraph.runtime import CONFIG_KEY_RUNTIME

        token = var_child_runnable_config.set({CONF: {CONFIG_KEY_RUNTIME: Runtime()}})
        try:
            request = _tool_request(state, name, given)
            if mode == "sync":
                out = mw.wrap_tool_call(request, handler)
            else:
                out = asyncio.run(mw.awrap_tool_call(request, ahandler))
        finally:
            var_child_runnable_config.reset(token)
        outs.append((out.content, handed[0].tool, _warnings(caplog)))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_before_model_pins_the_same_messages(tmp_path: Path, mode: str) -> None:
    (tmp_path / "skills" / "crm").mkdir(parents=True)
    (tmp_path / "skills" / "crm" / "SKILL.md").write_text(CRM[CRM_PATH] + "\n\n")
    (tmp_path / "skills" / "empty").mkdir()
    (tmp_path / "skills" / "empty" / "SKILL.md").write_text("")
    outs = []
    for impl in IMPLS:
        backends = importlib.import_module(f"{impl}.backends")
        middleware = importlib.import_module(f"{impl}.middleware.skills")
        backend = backends.FilesystemBackend(root_dir=str(tmp_path), virtual_mode=True)
        mw = middleware.SkillsMiddleware(backend=backend, sources=["/skills/"])
        loaded = mw.before_agent({"messages": []}, None, {})
        empty = {"name": "empty", "path": "/skills/empty/SKILL.md", "description": "e"}
        state = {"messages": [], **loaded, "pinned_skills": ["crm", "missing", "empty", "crm"]}
        state["skills_metadata"] = [*state["skills_metadata"], empty]
        out = mw.before_model(state, None) if mode == "sync" else asyncio.run(mw.abefore_model(state, None))
        outs.append(
            (
                out["pinned_skills"],
                [(m.type, m.content, m.additional_kwargs, m.id) for m in out["messages"]],
                mw.before_model({**state, "pinned_skills": []}, None),
                mw.before_model({**state, "pinned_skills": ["missing"]}, None),
            )
        )
    assert outs[0] == outs[1]
    assert outs[0][1]
