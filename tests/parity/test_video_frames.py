"""Parity: `deepagents_rs.middleware._video` against `deepagents.middleware._video`, the
frame extraction behind a video `read_file`: the same blocks for the same bytes and window,
the same refusals, the same caps (which callers may change on the module).
"""

from __future__ import annotations

import base64
import importlib
import io
from typing import Any

import pytest

av = pytest.importorskip("av", reason="the [video] extra (av) is not installed")
Image = pytest.importorskip("PIL.Image", reason="the [video] extra (pillow) is not installed")

from .video_support import clip

MODULES = {impl: importlib.import_module(f"{impl}.middleware._video") for impl in ("deepagents", "deepagents_rs")}


CLIP = clip(seconds=6, fps=4, width=48)


def _both(call: Any) -> tuple[Any, Any]:
    """`call(module)` on each implementation: its result, or its exception's type name and text."""
    out = []
    for module in MODULES.values():
        try:
            out.append(call(module))
        except Exception as exc:  # noqa: BLE001 - compared
            out.append((type(exc).__name__, str(exc)))
    return out[0], out[1]


@pytest.mark.parametrize(
    ("offset", "duration", "rate"),
    [
        (0, 100, 0.5),
        (1, 3, 2),
        (0.5, 2.5, 4),
        (2, 1, 0.3),
        (5.9, 10, 1),
        (7, 2, 1),
        (-1, 1, 1),
        (0, 0, 1),
        (0, 1, -2.5),
    ],
)
def test_same_blocks_and_refusals(offset: float, duration: float, rate: float) -> None:
    def extract(m: Any) -> Any:
        return m.extract_video_frames(CLIP, offset_seconds=offset, duration_seconds=duration, sampling_rate=rate)

    ref, rs = _both(extract)
    assert rs == ref


@pytest.mark.parametrize(("cap", "value"), [("MAX_VIDEO_SAMPLED_FRAMES", 2), ("MAX_VIDEO_EMITTED_BYTES", 1500)])
def test_the_caps_cut_a_window_short_alike(monkeypatch: pytest.MonkeyPatch, cap: str, value: int) -> None:
    for module in MODULES.values():
        monkeypatch.setattr(module, cap, value)
    ref, rs = _both(lambda m: m.extract_video_frames(CLIP, offset_seconds=0, duration_seconds=6, sampling_rate=2))
    assert rs == ref
    assert ref[-1]["text"].startswith("Coverage truncated at t=")


def test_a_first_frame_over_the_byte_cap_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in MODULES.values():
        monkeypatch.setattr(module, "MAX_VIDEO_EMITTED_BYTES", 10)
    ref, rs = _both(lambda m: m.extract_video_frames(CLIP, offset_seconds=0, duration_seconds=6, sampling_rate=2))
    assert rs == ref and ref[0] == "VideoExtractionError"


def test_large_frames_are_scaled_down_alike() -> None:
    big = clip(seconds=1, fps=1, width=2400, height=1200)
    ref, rs = _both(lambda m: m.extract_video_frames(big, offset_seconds=0, duration_seconds=1, sampling_rate=1))
    assert rs == ref
    assert Image.open(io.BytesIO(base64.b64decode(ref[1]["base64"]))).size == (1920, 960)


def test_garbage_and_text_are_refused_alike() -> None:
    for payload in (b"", b"\x00" * 64, b"plain text, not a container"):
        ref, rs = _both(
            lambda m, payload=payload: m.extract_video_frames(
                payload, offset_seconds=0, duration_seconds=1, sampling_rate=1
            )
        )
        assert rs == ref and ref[0] == "VideoExtractionError"


def test_constants_match() -> None:
    names = [
        "MISSING_VIDEO_HINT",
        "MAX_VIDEO_SAMPLED_FRAMES",
        "MAX_VIDEO_FRAME_PIXELS",
        "MAX_VIDEO_FRAME_SIDE",
        "MAX_VIDEO_OUTPUT_WIDTH",
        "MAX_VIDEO_OUTPUT_HEIGHT",
        "MAX_VIDEO_EMITTED_BYTES",
        "MAX_VIDEO_DECODE_SECONDS",
        "_JPEG_QUALITY",
    ]
    ref, rs = MODULES.values()
    assert {n: getattr(rs, n) for n in names} == {n: getattr(ref, n) for n in names}
    from deepagents.backends.utils import MAX_VIDEO_INPUT_BYTES as ref_cap
    from deepagents_rs._core import VIDEO_LIMITS

    assert VIDEO_LIMITS["MAX_VIDEO_INPUT_BYTES"] == ref_cap


@pytest.mark.parametrize(
    "probe",
    [
        lambda name: object(),
        lambda name: None if name == "av" else object(),
        lambda name: None if name == "PIL.Image" else object(),
        lambda name: (_ for _ in ()).throw(ValueError("corrupt spec")),
    ],
)
def test_the_dependency_probe(monkeypatch: pytest.MonkeyPatch, probe: Any) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", probe)
    answers = []
    for module in MODULES.values():
        module.video_dependencies_available.cache_clear()
        answers.append(module.video_dependencies_available())
        module.video_dependencies_available.cache_clear()
    assert answers[1] == answers[0]
