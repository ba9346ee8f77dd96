"""Parity: `read_file` on a video, with deepagents' `[video]` extra (PyAV and Pillow) and
without it.

With the extra, `offset`/`limit` are seconds, `.mkv` is a video, and a read answers with a
short tool message plus a user message carrying the sampled frames (JPEGs), which the next
model call gets behind the whole batch of tool results. The clips are made here with PyAV,
so both implementations decode the same bytes; the frames each sends must be identical.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage

from .fs_support import BACKENDS, MODES, ai_tool_calls, check, check_error, make_backend, tool_msgs

av = pytest.importorskip("av", reason="the [video] extra (av) is not installed")
pytest.importorskip("PIL.Image", reason="the [video] extra (pillow) is not installed")

from .video_support import clip

IMPLS = ("deepagents", "deepagents_rs")


MP4 = clip("mp4")
MKV = clip("matroska")
FILES: dict[str, str | bytes] = {
    "/clips/walk.mp4": MP4,
    "/clips/walk.mkv": MKV,
    "/clips/broken.mp4": b"\x00\x00\x00 this is no video",
    "/notes.txt": "hello\n",
}


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path):
    return make_backend(request.param, tmp_path, FILES)


def _media(result: dict[str, Any]) -> list[HumanMessage]:
    return [m for m in result["messages"] if isinstance(m, HumanMessage) and m.additional_kwargs]


@pytest.mark.parametrize("mode", MODES)
def test_video_reads_send_sampled_frames(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(("read_file", {"file_path": p("/clips/walk.mp4")})),
        ai_tool_calls(("read_file", {"file_path": p("/clips/walk.mkv"), "offset": 3, "limit": 4})),
        "seen",
    ]
    run = backend.run(script, mode=mode)
    ref = check(run)
    first, second = tool_msgs(ref)
    assert first.content.startswith(f"Read video {p('/clips/walk.mp4')}: sampled 5 frames.")
    assert second.additional_kwargs["read_file_frame_count"] == 2
    media = _media(ref)
    assert [b["type"] for b in media[0].content] == ["text"] + ["text", "image"] * 5
    assert media[1].content[0]["text"] == f"Reading [3.000s, 7.000s) of {p('/clips/walk.mkv')} at 0.5 fps."
    # The model got the frames as a user message right after the tool result.
    sent = run.rs.calls[1].messages
    assert isinstance(sent[-2], ToolMessage) and sent[-1].additional_kwargs["read_file_media_result"] is True


@pytest.mark.parametrize("mode", MODES)
def test_video_refusals(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": p("/clips/walk.mp4"), "limit": 0}),
            ("read_file", {"file_path": p("/clips/walk.mp4"), "offset": 60, "limit": 5}),
            ("read_file", {"file_path": p("/clips/broken.mp4"), "offset": -4}),
        ),
        "ok",
    ]
    ref = check(backend.run(script, mode=mode))
    texts = [m.content for m in tool_msgs(ref)]
    assert [m.status for m in tool_msgs(ref)] == ["error"] * 3
    assert texts[0] == f"Error reading video {p('/clips/walk.mp4')}: limit must be > 0, got 0"
    assert "No frames decoded for window [60.000s, 65.000s)" in texts[1]
    assert texts[2].startswith(f"Error reading video {p('/clips/broken.mp4')}: Failed to open video payload: ")


@pytest.mark.parametrize("mode", MODES)
def test_media_moves_behind_the_batch_of_tool_results(backend, mode: str) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": p("/clips/walk.mp4"), "limit": 3}),
            ("read_file", {"file_path": p("/notes.txt")}),
            ("read_file", {"file_path": p("/clips/walk.mkv"), "offset": 2, "limit": 2}),
        ),
        "ok",
    ]
    run = backend.run(script, mode=mode)
    ref = check(run)
    # The state keeps each media message after its own result...
    kinds = [type(m).__name__ for m in ref["messages"][2:]]
    assert kinds == ["ToolMessage", "HumanMessage", "ToolMessage", "ToolMessage", "HumanMessage", "AIMessage"]
    # ...the model gets every tool result first.
    sent = [type(m).__name__ for m in run.rs.calls[1].messages]
    assert sent[sent.index("AIMessage") + 1 :] == ["ToolMessage"] * 3 + ["HumanMessage"] * 2


def test_text_content_under_a_video_name_is_decoded_as_base64() -> None:
    """A state file written as text keeps its text: deepagents decodes it as base64 anyway."""
    files = {"/v.mp4": "not base64!", "/w.mp4": "abcde", "/x.mp4": "YQ=="}
    backend = make_backend("state", Path("/unused"), files)
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": "/v.mp4"}),
            ("read_file", {"file_path": "/w.mp4"}),
            ("read_file", {"file_path": "/x.mp4"}),
        ),
        "ok",
    ]
    ref = check(backend.run(script, mode="invoke"))
    texts = [m.content for m in tool_msgs(ref)]
    assert "video bytes are not valid base64 (Only base64 data is allowed)" in texts[0]
    assert "number of data characters (5)" in texts[1]
    assert "Failed to open video payload" in texts[2]


@pytest.fixture
def without_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both implementations as if the `[video]` extra were not installed."""
    import deepagents.middleware.filesystem as ref_fs
    import deepagents_rs.middleware.filesystem as rs_fs

    for module in (ref_fs, rs_fs):
        monkeypatch.setattr(module, "video_dependencies_available", lambda: False)


@pytest.mark.parametrize("mode", MODES)
def test_without_the_extra_videos_are_media_blocks(backend, mode: str, without_extra: None) -> None:
    p = backend.path
    script = [
        ai_tool_calls(
            ("read_file", {"file_path": p("/clips/walk.mp4"), "limit": 0}),
            ("read_file", {"file_path": p("/clips/walk.mkv")}),
        ),
        "ok",
    ]
    run = backend.run(script, mode=mode)
    ref = check(run)
    mp4, mkv = tool_msgs(ref)
    # LangGraph's tool node sends a video block as its JSON text; a `.mkv` is a generic file.
    video = json.loads(mp4.content)[0]
    assert video["type"] == "video" and base64.b64decode(video["base64"]) == MP4
    assert mkv.content_blocks[0]["type"] == "file"
    assert "For videos" not in run.rs.calls[0].tools[1]["function"]["description"]


def test_the_extra_changes_the_read_file_tool(backend) -> None:
    run = backend.run(["ok"], mode="invoke")
    check(run)
    read_file = run.rs.calls[0].tools[1]["function"]
    assert read_file["name"] == "read_file" and "For videos" in read_file["description"]
    assert "For videos" in read_file["parameters"]["properties"]["offset"]["description"]


def _patch_extractor(monkeypatch: pytest.MonkeyPatch, extract: Any) -> None:
    import deepagents.middleware.filesystem as ref_fs
    import deepagents_rs.middleware.filesystem as rs_fs

    for module in (ref_fs, rs_fs):
        monkeypatch.setattr(module, "extract_video_frames", extract)


@pytest.mark.parametrize("mode", MODES)
def test_an_extractor_bug_fails_the_run(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    def broken(*_a: Any, **_k: Any) -> list[dict[str, Any]]:
        raise ValueError("formatter failure")

    _patch_extractor(monkeypatch, broken)
    backend = make_backend("state", Path("/unused"), FILES)
    run = backend.run([ai_tool_calls(("read_file", {"file_path": "/clips/walk.mp4"})), "ok"], mode=mode)
    error = check_error(run)
    assert type(error) is ValueError and str(error) == "formatter failure"
    assert type(run.rs.error) is ValueError and str(run.rs.error) == "formatter failure"


@pytest.mark.parametrize("mode", MODES)
def test_the_extractor_is_called_as_deepagents_calls_it(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    calls: list[tuple[str, int, dict[str, Any]]] = []

    def recording(content: bytes, **kwargs: Any) -> list[dict[str, Any]]:
        calls.append((type(content).__name__, len(content), kwargs))
        return [
            {"type": "text", "text": "Frame at t=00:00:00.000"},
            {"type": "image", "base64": "AAAA", "mime_type": "image/jpeg"},
        ]

    _patch_extractor(monkeypatch, recording)
    backend = make_backend("state", Path("/unused"), FILES)
    script = [ai_tool_calls(("read_file", {"file_path": "/clips/walk.mkv", "offset": 12, "limit": 90})), "ok"]
    ref = check(backend.run(script, mode=mode))
    assert tool_msgs(ref)[0].content.endswith(
        "sampled 1 frame. The sampled frames are attached in the following message."
    )
    expected = {"offset_seconds": 12.0, "duration_seconds": 90.0, "sampling_rate": 0.5}
    assert calls == [("bytes", len(MKV), expected)] * 2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["fs_virtual", "store"])
def test_offloaded_frames_are_blobs_in_the_state(tmp_path: Path, name: str, mode: str) -> None:
    """With `offload_binary_content`, the frames message keeps blob references in the state
    and the model gets the JPEGs back."""
    backend = make_backend(name, tmp_path, FILES)

    def setup(a: Any) -> dict[str, Any]:
        kwargs = backend.setup(a)
        fs = a.FilesystemMiddleware(backend=kwargs.pop("backend"), offload_binary_content=True)
        return {**kwargs, "middleware": [fs]}

    script = [ai_tool_calls(("read_file", {"file_path": "/clips/walk.mp4", "limit": 3})), "done"]
    run = backend.run(script, mode=mode, setup=setup)
    ref = check(run)
    frames = [b for b in _media(ref)[0].content if b["type"] == "image"]
    assert frames and all("deepagents_blob" in b and "base64" not in b for b in frames)
    sent = [b for m in run.rs.calls[1].messages if isinstance(m.content, list) for b in m.content]
    assert [b["type"] for b in sent if "base64" in b] == ["image", "image"]
