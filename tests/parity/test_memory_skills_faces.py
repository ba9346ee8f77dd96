"""Parity: `MemoryMiddleware` and `SkillsMiddleware` as LangChain `AgentMiddleware`s, outside
a deep agent.

The same middleware (deepagents' and deepagents_rs', over the same files) goes into
LangChain's own `create_agent`, or has its hooks (`before_agent`, `modify_request`,
`wrap_model_call`, their async forms) called directly. What the model is sent, the state
writes and the requests handed on must be the same. deepagents_rs' middleware does the work
in the core.
"""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware.types import AgentMiddleware, ExtendedModelResponse, ModelRequest
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from tests.fake_models import ScriptedChatModel

IMPLS = ("deepagents", "deepagents_rs")

SKILL = """---
name: {name}
description: {description}
---

# {name}

Steps.
"""


def _files(root: Path) -> Path:
    """Two memory files (one with a comment), and two skill sources where the second
    overrides a skill of the first and holds one skill with a bad name."""
    (root / "mem").mkdir(parents=True)
    (root / "mem" / "AGENTS.md").write_text("# Team\n<!-- private -->\nUse tabs.\n")
    (root / "mem" / "USER.md").write_text("Prefers short answers.\n")
    for source, name, description in (
        ("base", "review", "Review code."),
        ("base", "deploy", "Deploy the app."),
        ("user", "review", "Review code the user's way."),
        ("user", "Bad_Name", "Broken."),
    ):
        (root / "skills" / source / name).mkdir(parents=True)
        (root / "skills" / source / name / "SKILL.md").write_text(SKILL.format(name=name, description=description))
    return root


def _memory(impl: str, root: Path, **settings: Any) -> Any:
    memory = importlib.import_module(f"{impl}.middleware.memory")
    backends = importlib.import_module(f"{impl}.backends")
    backend = backends.FilesystemBackend(root_dir=str(root), virtual_mode=True)
    return memory.MemoryMiddleware(
        backend=backend, sources=["/mem/AGENTS.md", "/mem/missing.md", "/mem/USER.md"], **settings
    )


def _skills(impl: str, root: Path, **settings: Any) -> Any:
    skills = importlib.import_module(f"{impl}.middleware.skills")
    backends = importlib.import_module(f"{impl}.backends")
    backend = backends.FilesystemBackend(root_dir=str(root), virtual_mode=True)
    return skills.SkillsMiddleware(backend=backend, sources=["/skills/base", ("/skills/user", "User")], **settings)


def _request(model: Any, state: dict, system: SystemMessage | None) -> ModelRequest:
    return ModelRequest(model=model, messages=[HumanMessage(content="hi")], system_message=system, state=state)


def _view(request: ModelRequest) -> Any:
    system = request.system_message
    return None if system is None else system.content_blocks


def test_the_faces_are_langchain_agent_middleware(tmp_path: Path) -> None:
    root = _files(tmp_path)
    for make in (_memory, _skills):
        ours, theirs = make("deepagents_rs", root), make("deepagents", root)
        assert isinstance(ours, AgentMiddleware)
        assert ours.name == theirs.name
        assert ours.state_schema.__name__ == theirs.state_schema.__name__
        assert ours.trace_policy == theirs.trace_policy


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_before_agent_loads_the_same_state(tmp_path: Path, mode: str) -> None:
    root = _files(tmp_path)
    for make in (_memory, _skills):
        outs = []
        for impl in IMPLS:
            mw = make(impl, root)
            outs.append(
                mw.before_agent({}, None, {}) if mode == "sync" else asyncio.run(mw.abefore_agent({}, None, {}))
            )
        assert outs[0] == outs[1]
        assert outs[0]


def test_a_loaded_state_is_not_loaded_again(tmp_path: Path) -> None:
    root = _files(tmp_path)
    for impl in IMPLS:
        assert _memory(impl, root).before_agent({"memory_contents": {}}, None, {}) is None
        assert _skills(impl, root).before_agent({"skills_metadata": []}, None, {}) is None


@pytest.mark.parametrize("cache", [False, True])
@pytest.mark.parametrize("system", [None, "base", [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]])
def test_modify_request_sends_the_same_system_message(tmp_path: Path, cache: bool, system: Any) -> None:
    root = _files(tmp_path)
    anthropic = ChatAnthropic(model_name="claude-sonnet-4-6", anthropic_api_key="fake")  # type: ignore[call-arg]
    for model in (anthropic, ScriptedChatModel(["ok"])):
        views = []
        for impl in IMPLS:
            memory, skills = _memory(impl, root, add_cache_control=cache), _skills(impl, root)
            state = {"messages": [], **memory.before_agent({}, None, {}), **skills.before_agent({}, None, {})}
            message = None if system is None else SystemMessage(content=system)
            request = skills.modify_request(memory.modify_request(_request(model, state, message)))
            views.append(_view(request))
        assert views[0] == views[1]


def test_the_prompt_none_hands_the_request_on_unchanged(tmp_path: Path) -> None:
    root = _files(tmp_path)
    request = _request(ScriptedChatModel(["ok"]), {"messages": []}, SystemMessage(content="base"))
    for impl in IMPLS:
        assert _memory(impl, root, system_prompt=None).modify_request(request) is request
        assert _skills(impl, root, system_prompt=None).modify_request(request) is request


def test_format_agent_memory_is_the_same(tmp_path: Path) -> None:
    root = _files(tmp_path)
    contents = {"/mem/USER.md": "u <!-- x -->", "/mem/AGENTS.md": "<!-- only -->", "/other.md": "o"}
    for template in ("<{agent_memory}>", "{{x}} {agent_memory}"):
        for given in (contents, {}):
            texts = [_memory(impl, root)._format_agent_memory(given, template) for impl in IMPLS]
            assert texts[0] == texts[1]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_in_create_agent_the_model_sees_the_same_prompt(tmp_path: Path, mode: str) -> None:
    root = _files(tmp_path)
    seen, states = [], []
    for impl in IMPLS:
        model = ScriptedChatModel(["done"])
        agent = create_agent(model, system_prompt="You help.", middleware=[_memory(impl, root), _skills(impl, root)])
        inp = {"messages": [{"role": "user", "content": "hi"}]}
        state = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
        seen.append([[m.content for m in call.messages] for call in model.calls])
        states.append({k: v for k, v in state.items() if k != "messages"})
    assert seen[0] == seen[1]
    assert states[0] == states[1]


def test_wrap_model_call_hands_the_handler_the_same_request(tmp_path: Path) -> None:
    root = _files(tmp_path)
    got = []
    for impl in IMPLS:
        memory = _memory(impl, root)
        state = {"messages": [], **memory.before_agent({}, None, {})}
        handed: list[ModelRequest] = []

        def handler(request: ModelRequest, handed: list = handed) -> AIMessage:
            handed.append(request)
            return AIMessage(content="ok")

        out = memory.wrap_model_call(_request(ScriptedChatModel(["ok"]), state, SystemMessage(content="s")), handler)
        assert not isinstance(out, ExtendedModelResponse)
        got.append((_view(handed[0]), out.content))
    assert got[0] == got[1]


def test_a_backend_with_only_the_methods_used_loads_the_same(tmp_path: Path) -> None:
    """deepagents calls only `ls` and `download_files` to load skills and memory: an object
    with just those works (no search methods needed)."""
    from types import SimpleNamespace

    root = _files(tmp_path)
    outs = []
    for impl in IMPLS:
        disk = importlib.import_module(f"{impl}.backends").FilesystemBackend(root_dir=str(root), virtual_mode=True)
        bare = SimpleNamespace(ls=disk.ls, download_files=disk.download_files)
        skills = importlib.import_module(f"{impl}.middleware.skills").SkillsMiddleware(
            backend=bare, sources=["/skills/base"]
        )
        memory = importlib.import_module(f"{impl}.middleware.memory").MemoryMiddleware(
            backend=bare, sources=["/mem/AGENTS.md"]
        )
        outs.append((skills.before_agent({}, None, {}), memory.before_agent({}, None, {})))
    assert outs[0] == outs[1]
    assert outs[0][0]["skills_metadata"]
