"""Parity: `FilesystemMiddleware` as a LangChain `AgentMiddleware`, outside a deep agent.

The same middleware (deepagents' and deepagents_rs', over the same backend) goes into
LangChain's own `create_agent` with a scripted model, or has its methods called directly
(`tools`, `wrap_model_call`, `wrap_tool_call`, `_intercept_large_tool_result`). The tools
the model is offered, the requests it gets, the tool messages and the state (files,
messages) must be the same. deepagents_rs' tools and wrapping run in the core.
"""

from __future__ import annotations

import asyncio
import importlib
import re
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.types import Command

from tests.fake_models import ScriptedChatModel, ai_tool_calls, normalize_messages

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = ("deepagents", "deepagents_rs")
MODES = ("sync", "async")


def _fs(impl: str, backend: str, root: Path | None = None, **settings: Any) -> Any:
    """`impl`'s `FilesystemMiddleware` over a fresh backend of kind `backend`."""
    backends = importlib.import_module(f"{impl}.backends")
    made = {
        "state": lambda: backends.StateBackend(),
        "disk": lambda: backends.FilesystemBackend(root_dir=str(root), virtual_mode=True),
        "shell": lambda: backends.LocalShellBackend(root_dir=str(root), virtual_mode=True),
        "composite": lambda: backends.CompositeBackend(
            default=backends.StateBackend(),
            routes={"/disk/": backends.FilesystemBackend(root_dir=str(root), virtual_mode=True)},
        ),
    }[backend]()
    module = importlib.import_module(f"{impl}.middleware.filesystem")
    return module.FilesystemMiddleware(backend=made, **settings)


def _offered(mw: Any) -> list[dict[str, Any]]:
    return [convert_to_openai_tool(t) for t in mw.tools]


def _files_view(files: dict[str, Any] | None) -> dict[str, Any]:
    """The files without their timestamps."""
    return {
        path: {k: v for k, v in record.items() if k not in ("created_at", "modified_at")}
        for path, record in (files or {}).items()
    }


def _run(impl: str, mw: Any, script: list[Any], mode: str, tools: list[Any] = (), **state: Any) -> tuple:
    model = ScriptedChatModel(script)
    agent = create_agent(model, tools=list(tools), middleware=[mw])
    inputs = {"messages": [HumanMessage(content="go", id="h1")], **state}
    result = agent.invoke(inputs) if mode == "sync" else asyncio.run(agent.ainvoke(inputs))
    calls = [
        (
            normalize_messages(c.messages, ids="stable"),
            [t["function"]["name"] for t in c.tools],
            {t["function"]["name"]: t["function"]["description"] for t in c.tools},
        )
        for c in model.calls
    ]
    return normalize_messages(result["messages"], ids="stable"), _files_view(result.get("files")), calls


def _both(make: Any, script: Any, mode: str, **kw: Any) -> tuple:
    ref = _run("deepagents", make("deepagents"), script(), mode, **kw)
    ours = _run("deepagents_rs", make("deepagents_rs"), script(), mode, **kw)
    return ref, ours


@pytest.mark.parametrize(
    ("backend", "settings"),
    [
        ("state", {}),
        ("state", {"tools": ["ls", "read_file", "grep"]}),
        ("state", {"custom_tool_descriptions": {"ls": "List it.", "grep": "Find it."}}),
        ("shell", {}),
        ("composite", {"tools": "all"}),
    ],
)
def test_the_face_is_agent_middleware_with_the_same_tools(tmp_path: Path, backend: str, settings: dict) -> None:
    ref, ours = (_fs(impl, backend, tmp_path, **settings) for impl in IMPLS)
    assert isinstance(ours, AgentMiddleware)
    assert ours.name == ref.name == "FilesystemMiddleware"
    assert ours.state_schema.__name__ == ref.state_schema.__name__
    assert set(ours.state_schema.__annotations__) == set(ref.state_schema.__annotations__)
    assert ours.trace_policy == ref.trace_policy
    assert _offered(ours) == _offered(ref)


SCRIPT = [
    ai_tool_calls(("write_file", {"file_path": "/notes/a.txt", "content": "alpha\nbeta\n"}, "w1")),
    ai_tool_calls(
        ("read_file", {"file_path": "/notes/a.txt"}, "r1"),
        ("ls", {"path": "/notes"}, "l1"),
        ("grep", {"pattern": "beta"}, "g1"),
        ("glob", {"pattern": "**/*.txt"}, "gl1"),
    ),
    ai_tool_calls(
        ("edit_file", {"file_path": "/notes/a.txt", "old_string": "beta", "new_string": "gamma"}, "e1"),
        ("read_file", {"file_path": "/missing.txt"}, "r2"),
        ("ls", {"path": "relative"}, "l2"),
        ("write_file", {"file_path": "/notes/b.txt"}, "bad1"),
    ),
    ai_tool_calls(("delete", {"file_path": "/notes/a.txt"}, "d1")),
    "done",
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", ["state", "disk", "composite"])
def test_create_agent_runs_the_file_tools_the_same(tmp_path: Path, mode: str, backend: str) -> None:
    (tmp_path / "ref").mkdir()
    (tmp_path / "ours").mkdir()
    roots = {"deepagents": tmp_path / "ref", "deepagents_rs": tmp_path / "ours"}
    ref, ours = _both(lambda impl: _fs(impl, backend, roots[impl]), lambda: list(SCRIPT), mode)
    assert ours == ref
    assert "Updated file /notes/a.txt" in str(ref[0])


@pytest.mark.parametrize("mode", MODES)
def test_files_given_in_the_input_are_read_and_changed(mode: str) -> None:
    seed = {"/seed.md": {"content": "one\ntwo\n", "encoding": "utf-8"}}
    script = lambda: [
        ai_tool_calls(("read_file", {"file_path": "/seed.md", "offset": 1, "limit": 1}, "r")),
        ai_tool_calls(("edit_file", {"file_path": "/seed.md", "old_string": "two", "new_string": "2"}, "e")),
        "ok",
    ]
    ref, ours = _both(lambda impl: _fs(impl, "state"), script, mode, files=seed)
    assert ours == ref
    assert ref[1]["/seed.md"]["content"] == "one\n2\n"


@pytest.mark.parametrize("mode", MODES)
def test_a_second_write_to_one_path_in_one_message_is_refused(mode: str) -> None:
    script = lambda: [
        ai_tool_calls(
            ("write_file", {"file_path": "/x.txt", "content": "1"}, "a"),
            ("edit_file", {"file_path": "/x.txt", "old_string": "1", "new_string": "2"}, "b"),
            ("write_file", {"file_path": "/y.txt", "content": "3"}, "c"),
        ),
        "ok",
    ]
    ref, ours = _both(lambda impl: _fs(impl, "state"), script, mode)
    assert ours == ref
    assert any(m.get("status") == "error" for m in ref[0] if m.get("type") == "tool")


@tool
def shout(text: str) -> str:
    """Repeat the text many times."""
    return (text + " ") * 4000


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("limit", [None, 100])
def test_a_large_tool_result_is_moved_to_a_file(mode: str, limit: int | None) -> None:
    script = lambda: [ai_tool_calls(("shout", {"text": "hey"}, "s1")), "ok"]
    ref, ours = _both(lambda impl: _fs(impl, "state", tool_token_limit_before_evict=limit), script, mode, tools=[shout])
    assert ours == ref
    assert ("/large_tool_results/s1" in ref[1]) == (limit is not None)


@pytest.mark.parametrize("mode", MODES)
def test_a_large_user_message_is_moved_to_a_file(mode: str) -> None:
    def run(impl: str) -> Any:
        model = ScriptedChatModel(["ok"])
        agent = create_agent(model, middleware=[_fs(impl, "state", human_message_token_limit_before_evict=50)])
        inputs = {"messages": [HumanMessage(content="word " * 400, id="h1")]}
        result = agent.invoke(inputs) if mode == "sync" else asyncio.run(agent.ainvoke(inputs))
        sent = normalize_messages(model.calls[0].messages, ids="stable")
        return normalize_messages(result["messages"], ids="stable"), _files_view(result["files"]), sent

    # The file is named with a random uuid by both.
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    ours, ref = (uuid.sub("<uuid>", repr(run(impl))) for impl in ("deepagents_rs", "deepagents"))
    assert ours == ref
    assert "/conversation_history/<uuid>.md" in ref


@pytest.mark.parametrize("mode", MODES)
def test_the_custom_system_prompt_and_shell_descriptions_reach_the_model(tmp_path: Path, mode: str) -> None:
    script = lambda: [ai_tool_calls(("execute", {"command": "echo hi"}, "x")), "ok"]
    for backend in ("shell", "state"):
        (tmp_path / backend).mkdir()

        def make(impl: str, backend: str = backend) -> Any:
            return _fs(impl, backend, tmp_path / backend, system_prompt="Mind the files.")

        ref, ours = _both(make, script, mode)
        assert ours == ref


@pytest.mark.parametrize("mode", MODES)
def test_intercept_large_tool_result_directly(tmp_path: Path, mode: str) -> None:
    outs = []
    for impl in IMPLS:
        root = tmp_path / impl
        root.mkdir()
        mw = _fs(impl, "disk", root, tool_token_limit_before_evict=10)
        small = ToolMessage(content="short", tool_call_id="t0", name="x")
        large = ToolMessage(content="z" * 500, tool_call_id="t/1", name="x")
        command = Command(update={"messages": [large, HumanMessage(content="h")], "other": 1}, goto="model")
        results = []
        for given in (small, large, command, Command(goto="model")):
            if mode == "sync":
                results.append(mw._intercept_large_tool_result(given))
            else:
                results.append(asyncio.run(mw._aintercept_large_tool_result(given)))
        written = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
        outs.append((repr(results), written, (root / "large_tool_results" / "t_1").read_text()))
    assert outs[0] == outs[1]
    assert outs[0][1] == ["large_tool_results/t_1"]


def _outside_graph(impl: str, root: Path, name: str, args: dict) -> Any:
    from langchain.tools import ToolRuntime

    backends = importlib.import_module(f"{impl}.backends")
    backend = backends.CompositeBackend(
        default=backends.LocalShellBackend(root_dir=str(root), virtual_mode=True),
        routes={"/mem/": backends.StateBackend()},
    )
    mw = importlib.import_module(f"{impl}.middleware.filesystem").FilesystemMiddleware(backend=backend)
    runtime = ToolRuntime(state={}, context=None, config={}, stream_writer=None, tool_call_id="t1", store=None)
    tool = next(t for t in mw.tools if t.name == name)
    try:
        message = tool.invoke({**args, "runtime": runtime})
    except RuntimeError as e:
        return "raised", str(e)
    return message.content, message.status


def test_tools_called_outside_a_graph(tmp_path: Path) -> None:
    """A call that never reaches the state route runs; a write to it fails as deepagents'."""
    for name, args in (("execute", {"command": "echo hi"}), ("write_file", {"file_path": "/mem/a", "content": "x"})):
        ref, ours = (_outside_graph(impl, tmp_path, name, args) for impl in IMPLS)
        assert ours == ref
    assert _outside_graph("deepagents", tmp_path, "write_file", args)[0] == "raised"
