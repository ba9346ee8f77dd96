"""Parity: `read_file` on a video through `FilesystemMiddleware` outside a deep agent.

The same middleware (deepagents' and deepagents_rs', over a disk backend holding a clip
made with PyAV) goes into LangChain's own `create_agent` with a scripted model, or has its
tool and `wrap_model_call` called directly. With the `[video]` extra a read answers with a
`Command` writing the tool message and the frames' user message; the next model call gets
that user message behind the whole batch of tool results; the size cap refuses a video.
"""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.types import Command

from tests.fake_models import ScriptedChatModel, ai_tool_calls, normalize_messages

from .test_fs_middleware_langchain import IMPLS, MODES, _fs

pytest.importorskip("av", reason="the [video] extra (av) is not installed")
pytest.importorskip("PIL.Image", reason="the [video] extra (pillow) is not installed")

from .video_support import clip

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "clips").mkdir()
    (tmp_path / "clips" / "walk.mp4").write_bytes(clip("mp4"))
    (tmp_path / "notes.txt").write_text("hello\n")
    return tmp_path


def _runtime(call_id: str) -> ToolRuntime:
    return ToolRuntime(
        state={"messages": [], "files": {}},
        context=None,
        tool_call_id=call_id,
        store=None,
        stream_writer=lambda _: None,
        config={},
    )


def _read(mw: Any, args: dict[str, Any], mode: str) -> Any:
    read_file = next(t for t in mw.tools if t.name == "read_file")
    call = {**args, "runtime": _runtime("read-1")}
    return read_file.invoke(call) if mode == "sync" else asyncio.run(read_file.ainvoke(call))


@pytest.mark.parametrize("mode", MODES)
def test_agent_reads_a_video_beside_other_calls(root: Path, mode: str) -> None:
    def script() -> list[Any]:
        return [
            ai_tool_calls(
                ("read_file", {"file_path": "/clips/walk.mp4", "offset": 2, "limit": 5}),
                ("ls", {"path": "/"}),
            ),
            ai_tool_calls(("read_file", {"file_path": "/clips/walk.mp4", "limit": 0})),
            "seen",
        ]

    ref, ours = (_agent_run(_fs(impl, "disk", root), script(), mode) for impl in IMPLS)
    assert ours == ref
    messages, kwargs, calls = ref
    media = [m for m, k in zip(messages, kwargs, strict=True) if k.get("read_file_media_result")]
    assert len(media) == 1 and [b["type"] for b in media[0]["content"]] == ["text"] + ["text", "image"] * 3
    # The second model call got both tool results before the frames.
    assert [m["type"] for m in calls[1][-3:]] == ["tool", "tool", "human"]


def _agent_run(mw: Any, script: list[Any], mode: str) -> tuple:
    """The run's messages, their `additional_kwargs`, and the messages each model call got."""
    model = ScriptedChatModel(script)
    agent = create_agent(model, middleware=[mw])
    inputs = {"messages": [HumanMessage(content="go", id="h1")]}
    result = agent.invoke(inputs) if mode == "sync" else asyncio.run(agent.ainvoke(inputs))
    kwargs = [m.additional_kwargs for m in result["messages"]]
    calls = [normalize_messages(c.messages, ids="stable") for c in model.calls]
    return normalize_messages(result["messages"], ids="stable"), kwargs, calls


@pytest.mark.parametrize("mode", MODES)
def test_tool_answers_with_a_command(root: Path, mode: str) -> None:
    results = {
        impl: _read(_fs(impl, "disk", root), {"file_path": "/clips/walk.mp4", "limit": 3}, mode) for impl in IMPLS
    }
    ref, ours = results["deepagents"], results["deepagents_rs"]
    assert isinstance(ref, Command) and isinstance(ours, Command)
    assert ours.update == ref.update
    tool, frames = ours.update["messages"]
    assert isinstance(tool, ToolMessage) and tool.additional_kwargs["read_file_frame_count"] == 2
    assert frames.additional_kwargs["read_file_tool_call_id"] == "read-1"


@pytest.mark.parametrize("mode", MODES)
def test_size_cap_read_when_the_video_is_read(root: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    results = {}
    for impl in IMPLS:
        mw = _fs(impl, "disk", root)
        # Set after the middleware and its tools are made: the cap is read at each read.
        mw.tools  # noqa: B018
        monkeypatch.setattr(importlib.import_module(f"{impl}.middleware.filesystem"), "MAX_VIDEO_INPUT_BYTES", 100)
        results[impl] = _read(mw, {"file_path": "/clips/walk.mp4"}, mode)
    ref, ours = results["deepagents"], results["deepagents_rs"]
    assert isinstance(ours, ToolMessage) and ours.status == ref.status == "error"
    assert ours.content == ref.content
    assert "video payload exceeds maximum input size of 100 bytes" in ours.content


@pytest.mark.parametrize("mode", MODES)
def test_wrap_model_call_sends_frames_after_the_batch(mode: str) -> None:
    calls = AIMessage(
        content="",
        tool_calls=[
            {"id": "v", "name": "read_file", "args": {"file_path": "/c.mp4"}},
            {"id": "l", "name": "ls", "args": {"path": "/"}},
            {"id": "w", "name": "read_file", "args": {"file_path": "/d.mp4"}},
        ],
    )

    def media(call_id: str) -> HumanMessage:
        kwargs = {"read_file_media_result": True, "read_file_tool_call_id": call_id}
        return HumanMessage(content=[{"type": "text", "text": call_id}], additional_kwargs=kwargs)

    history = [
        HumanMessage(content="go"),
        calls,
        ToolMessage(content="video v", name="read_file", tool_call_id="v"),
        media("v"),
        ToolMessage(content="[]", name="ls", tool_call_id="l"),
        ToolMessage(content="video w", name="read_file", tool_call_id="w"),
        media("w"),
    ]
    sent = {}
    for impl in IMPLS:
        seen: list[Any] = []

        def handler(request: ModelRequest, seen: list[Any] = seen) -> ModelResponse:
            seen.append(request.messages)
            return ModelResponse(result=[AIMessage(content="ok")])

        async def ahandler(request: ModelRequest, handler: Any = handler) -> ModelResponse:
            return handler(request)

        mw = importlib.import_module(f"{impl}.middleware.filesystem").FilesystemMiddleware()
        request = ModelRequest(model=None, messages=list(history), tools=[])
        if mode == "sync":
            mw.wrap_model_call(request, handler)
        else:
            asyncio.run(mw.awrap_model_call(request, ahandler))
        sent[impl] = seen
    assert sent["deepagents_rs"] == sent["deepagents"]
    assert [m.content for m in sent["deepagents"][0][-5:]] == [
        "video v",
        "[]",
        "video w",
        [{"type": "text", "text": "v"}],
        [{"type": "text", "text": "w"}],
    ]


@pytest.mark.parametrize("mode", MODES)
def test_without_the_extra_a_video_is_a_generic_block(root: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    made = {}
    for impl in IMPLS:
        module = importlib.import_module(f"{impl}.middleware.filesystem")
        monkeypatch.setattr(module, "video_dependencies_available", lambda: False)
        made[impl] = (_fs(impl, "disk", root), _fs(impl, "disk", root))
    direct = {impl: _read(mw, {"file_path": "/clips/walk.mp4"}, mode) for impl, (mw, _) in made.items()}
    assert direct["deepagents_rs"] == direct["deepagents"]
    # Called directly the tool keeps the block list; LangGraph's tool node makes it text.
    assert direct["deepagents_rs"].content[0]["type"] == "video"
    script = lambda: [ai_tool_calls(("read_file", {"file_path": "/clips/walk.mp4"})), "seen"]
    ref, ours = (_agent_run(agent_mw, script(), mode) for _, agent_mw in made.values())
    assert ours == ref
    assert isinstance(ref[0][2]["content"], str) and '"type": "video"' in ref[0][2]["content"]
