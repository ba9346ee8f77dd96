"""deepagents' `[video]` extra: sampled frames of a video for `read_file`, as
`deepagents.middleware._video` provides them.

PyAV opens, seeks and decodes the video and Pillow encodes each kept frame as a JPEG;
which frames are kept, the caps on one read and every text the model sees come from the
core (`FrameSampler`, `VIDEO_TEXTS`). Neither PyAV nor Pillow is imported until a video is
read, so `import deepagents_rs` works without the extra.

The caps are module constants, read when a video is read, so a caller may change them.
"""

from __future__ import annotations

import base64
import importlib.util
import io
import logging
import time
from functools import lru_cache
from typing import Any

from deepagents_rs import _core

logger = logging.getLogger(__name__)

_TEXTS: dict[str, str] = _core.VIDEO_TEXTS
_LIMITS: dict[str, Any] = _core.VIDEO_LIMITS

MISSING_VIDEO_HINT = _TEXTS["MISSING_VIDEO_HINT"]
"""What a video read says when the `[video]` extra is not installed."""

MAX_VIDEO_SAMPLED_FRAMES: int = _LIMITS["MAX_VIDEO_SAMPLED_FRAMES"]
"""Frames one read sends at most."""

MAX_VIDEO_FRAME_PIXELS: int = _LIMITS["MAX_VIDEO_FRAME_PIXELS"]
"""Pixels a frame may have before it is scaled down."""

MAX_VIDEO_FRAME_SIDE: int = _LIMITS["MAX_VIDEO_FRAME_SIDE"]
"""Width or height past which a frame is refused."""

MAX_VIDEO_OUTPUT_WIDTH: int = _LIMITS["MAX_VIDEO_OUTPUT_WIDTH"]
"""Width frames are scaled into."""

MAX_VIDEO_OUTPUT_HEIGHT: int = _LIMITS["MAX_VIDEO_OUTPUT_HEIGHT"]
"""Height frames are scaled into."""

MAX_VIDEO_EMITTED_BYTES: int = _LIMITS["MAX_VIDEO_EMITTED_BYTES"]
"""Bytes of frame texts and base64 images one read sends at most."""

MAX_VIDEO_DECODE_SECONDS: float = _LIMITS["MAX_VIDEO_DECODE_SECONDS"]
"""Wall-clock seconds one read may spend decoding."""

_JPEG_QUALITY: int = _LIMITS["JPEG_QUALITY"]
"""Pillow's JPEG quality for the frames sent."""


_DEPENDENCIES = ("av", "PIL.Image")
_PROBE_FAILED = "Video dependency probe failed; treating the [video] extra as unavailable."


class VideoExtractionError(RuntimeError):
    """A video the extractor cannot sample: the model is told why, and the run goes on."""


@lru_cache(maxsize=1)
def video_dependencies_available() -> bool:
    """Whether PyAV and Pillow can be found (not imported): the `[video]` extra is installed.

    A probe that raises counts as not installed, with a warning in the log; an install
    that is found but broken shows up when a video is read.
    """
    try:
        # A generator, so Pillow is not looked for once PyAV is missing.
        return all(importlib.util.find_spec(name) is not None for name in _DEPENDENCIES)
    except (ImportError, ValueError):  # found but unimportable: a broken install
        logger.warning(_PROBE_FAILED, exc_info=True)
    return False


def _missing(exc: ImportError) -> VideoExtractionError:
    return VideoExtractionError(_TEXTS["MISSING_DEPENDENCY"].format(hint=MISSING_VIDEO_HINT, error=exc))


def _import_av() -> Any:
    """PyAV, imported on first use; its absence is a `VideoExtractionError`."""
    try:
        import av
    except ImportError as exc:  # pragma: no cover - only without the extra
        raise _missing(exc) from exc
    return av


def _video_backend_error_types(av: Any) -> tuple[type[BaseException], ...]:
    """The failures of PyAV (and of a missing or broken FFmpeg, `OSError`) that refuse a video."""
    found: list[type[BaseException]] = [OSError]
    namespace = getattr(av, "error", None)
    for name in ("FFmpegError", "InvalidDataError"):
        kind = getattr(namespace, name, None)
        if isinstance(kind, type) and issubclass(kind, BaseException) and not issubclass(kind, tuple(found)):
            found.append(kind)
    return tuple(found)


def _open_video_container(av: Any, content: bytes) -> Any:
    """The container of `content`, or a `VideoExtractionError` saying why it does not open."""
    try:
        return av.open(io.BytesIO(content))
    except _video_backend_error_types(av) as exc:
        raise VideoExtractionError(_TEXTS["OPEN_FAILED"].format(error=exc)) from exc


def _find_video_stream(container: Any) -> Any:
    for stream in container.streams:
        if stream.type == "video":
            return stream
    raise VideoExtractionError(_TEXTS["NO_VIDEO_STREAM"])


def _stream_start_pts(stream: Any) -> int:
    start = getattr(stream, "start_time", None)
    return 0 if start is None else int(start)


def _time_base(stream: Any) -> float:
    raw = stream.time_base
    if raw is None:
        raise VideoExtractionError(_TEXTS["NO_TIME_BASE"])
    if float(raw) == 0.0:
        raise VideoExtractionError(_TEXTS["ZERO_TIME_BASE"])
    return float(raw)


def extract_video_frames(
    content: bytes, *, offset_seconds: float, duration_seconds: float, sampling_rate: float
) -> list[dict[str, Any]]:
    """The sampled frames of `[offset_seconds, offset_seconds + duration_seconds)`, at
    `sampling_rate` frames per second, as text (`Frame at t=...`) and JPEG image blocks.

    Raises:
        VideoExtractionError: The window is invalid, the video cannot be opened or decoded,
            or no frame falls in the window.
    """
    problem = _core.video_window_error(offset_seconds, duration_seconds, sampling_rate)
    if problem is not None:
        raise VideoExtractionError(problem)
    av = _import_av()
    container = _open_video_container(av, content)
    failures = _video_backend_error_types(av)
    try:
        try:
            stream = _find_video_stream(container)
            time_base = _time_base(stream)
            start_pts = _stream_start_pts(stream)
            if offset_seconds > 0:
                # From the nearest keyframe before the window; earlier frames are skipped.
                target = start_pts + int(offset_seconds / time_base)
                container.seek(target, any_frame=False, backward=True, stream=stream)
            blocks = _sample_frames_in_window(
                container.decode(stream),
                offset_seconds=offset_seconds,
                duration_seconds=float(duration_seconds),
                sampling_rate=float(sampling_rate),
                time_base=time_base,
                stream_start_seconds=start_pts * time_base,
                deadline_seconds=time.monotonic() + MAX_VIDEO_DECODE_SECONDS,
                decode_error_types=failures,
            )
        except failures as exc:
            raise VideoExtractionError(_TEXTS["DECODE_FAILED"].format(error=exc)) from exc
    finally:
        container.close()
    if not blocks:
        raise VideoExtractionError(_core.video_no_frames(float(offset_seconds), float(duration_seconds)))
    return blocks


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _sample_frames_in_window(
    decoded_frames: Any, *, offset_seconds: float, duration_seconds: float, sampling_rate: float, time_base: float,
    stream_start_seconds: float = 0.0, deadline_seconds: float | None = None,
    decode_error_types: tuple[type[BaseException], ...] = (),
) -> list[dict[str, Any]]:  # fmt: skip
    """Encodes the frames of `decoded_frames` the core's sampler keeps, until it stops."""
    sampler = _core.FrameSampler(
        float(offset_seconds),
        float(duration_seconds),
        float(sampling_rate),
        float(time_base),
        float(stream_start_seconds),
        MAX_VIDEO_SAMPLED_FRAMES,
        MAX_VIDEO_EMITTED_BYTES,
        VideoExtractionError,
    )
    try:
        for frame in decoded_frames:
            if deadline_seconds is not None and time.monotonic() > deadline_seconds:
                raise VideoExtractionError(_core.video_deadline_error())
            at = sampler.seconds(_number(getattr(frame, "pts", None)), _number(getattr(frame, "time", None)))
            step = sampler.step(at)
            if step == "skip":
                continue
            if step == "stop":
                break
            image = base64.b64encode(_encode_jpeg(frame)).decode("ascii")
            if not sampler.add(at, image):
                break
    except decode_error_types as exc:
        raise VideoExtractionError(_TEXTS["DECODE_FAILED"].format(error=exc)) from exc
    return sampler.finish()


def _validate_dimensions(width: int, height: int) -> None:
    problem = _core.video_frame_size_error(width, height)
    if problem is not None:
        raise VideoExtractionError(problem)


def _encode_jpeg(frame: Any) -> bytes:
    """`frame` as a JPEG, scaled into the output box; a frame too large is refused before
    it is converted."""
    try:
        from PIL import Image
    except ImportError as exc:  # pragma: no cover - only without the extra
        raise _missing(exc) from exc
    width, height = getattr(frame, "width", None), getattr(frame, "height", None)
    if width is not None and height is not None:
        _validate_dimensions(int(width), int(height))
    image = frame.to_image() if hasattr(frame, "to_image") else Image.fromarray(frame.to_ndarray(format="rgb24"))
    _validate_dimensions(*image.size)
    if _core.video_needs_downscale(*image.size):
        image = image.copy()
        image.thumbnail((MAX_VIDEO_OUTPUT_WIDTH, MAX_VIDEO_OUTPUT_HEIGHT), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=_JPEG_QUALITY)
    return out.getvalue()
