"""Small clips for the video parity tests, made with PyAV (the `[video]` extra)."""

from __future__ import annotations

import io

import av
from PIL import Image


def clip(container: str = "mp4", *, seconds: int = 9, fps: int = 2, width: int = 32, height: int = 32) -> bytes:
    """A clip whose frames differ (the colour steps each frame), encoded with MPEG-4 Part 2."""
    out = io.BytesIO()
    with av.open(out, mode="w", format=container) as c:
        stream = c.add_stream("mpeg4", rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        for i in range(seconds * fps):
            image = Image.new("RGB", (width, height), ((i * 13) % 255, 200 - i * 5, 40))
            frame = av.VideoFrame.from_image(image)
            frame.pts = i
            for packet in stream.encode(frame):
                c.mux(packet)
        for packet in stream.encode():
            c.mux(packet)
    return out.getvalue()
