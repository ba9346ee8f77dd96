"""The frame extractor the core's `read_file` calls for a video (`src/python/video.rs`).

It calls `extract_video_frames` as `deepagents_rs.middleware.filesystem` holds it when the
read happens, as deepagents' tool does, so a replacement put there is the one used.
"""

from __future__ import annotations

import asyncio
from typing import Any


def read_frames(content: bytes, offset: float, duration: float, rate: float) -> list[dict[str, Any]]:
    """The sampled frames of a window (`VideoExtractionError` when the video is refused)."""
    from deepagents_rs.middleware import filesystem

    return filesystem.extract_video_frames(
        content, offset_seconds=offset, duration_seconds=duration, sampling_rate=rate
    )


async def aread_frames(content: bytes, offset: float, duration: float, rate: float) -> list[dict[str, Any]]:
    """`read_frames` on a worker thread: decoding would otherwise hold up the caller's loop."""
    return await asyncio.to_thread(read_frames, content, offset, duration, rate)
