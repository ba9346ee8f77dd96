"""A native client's chunks made into LangChain's content-block protocol events as they
arrive, for ``stream_events(version="v3")``.

LangChain's bridge (``achunks_to_events``) makes a provider's chunks into the events a
LangChain chat model streams under v3; it pulls its chunks from an iterator. The core pushes
a native client's chunks one at a time, so ``NativeCallEvents`` steps the bridge by hand: it
feeds each chunk in and takes the events the bridge makes of it, up to where the bridge asks
for the next one; the call's end gives the closing events. The bridge awaits nothing but
its chunks, so its steps need no event loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator
from typing import Any


class _NextChunk:
    """What the bridge's step yields when it waits for the next chunk (``None``: no more)."""

    def __await__(self) -> Generator[Any, Any, Any]:
        return (yield self)


class NativeCallEvents:
    """The protocol events of one native call, made as its chunks are fed in."""

    def __init__(self, message_id: str | None) -> None:
        from deepagents_rs._langchain_private import achunks_to_events

        self._events = achunks_to_events(self._chunks(), message_id=message_id)
        # The bridge's step under way (waiting for a chunk), if any.
        self._step: Any = None
        self.done = False

    @staticmethod
    async def _chunks() -> AsyncIterator[Any]:
        from langchain_core.outputs import ChatGenerationChunk

        while (chunk := await _NextChunk()) is not None:
            yield ChatGenerationChunk(message=chunk)

    def feed(self, chunk: Any) -> list[dict]:
        """The events ``chunk`` makes (``None``: the call ended: its closing events)."""
        out: list[dict] = []
        if self._step is None and not self.done:
            # Not started: run the bridge up to its first wait for a chunk.
            out.extend(self._advance(None))
        if not self.done:
            out.extend(self._advance(chunk))
        return out

    def _advance(self, value: Any) -> list[dict]:
        """Hands ``value`` to the waiting step (a fresh step starts with ``None``) and collects
        the events the bridge makes until it waits for a chunk again or ends."""
        out: list[dict] = []
        while True:
            if self._step is None:
                self._step = self._events.__anext__()
                value = None
            try:
                waiting = self._step.send(value)
            except StopIteration as made:
                out.append(made.value)
                self._step = None
                continue
            except StopAsyncIteration:
                self._step = None
                self.done = True
                return out
            if not isinstance(waiting, _NextChunk):  # pragma: no cover - it awaits only chunks
                raise TypeError(f"LangChain's event bridge awaited {waiting!r}")
            return out


def v1_reply(message_id: str, chunks: list[dict]) -> dict | None:
    """The reply LangChain assembles under the v3 stream from a call's content-block events
    (v1 blocks, ``output_version: "v1"``), made of a native client's chunks (their fields, as
    the core sent them): the message the core keeps in place of its own. ``None`` when the
    chunks made no message."""
    from langchain_core.language_models.chat_model_stream import ChatModelStream

    from ._convert import to_core
    from ._stream import native_chunk

    events = NativeCallEvents(message_id)
    assembled = ChatModelStream(message_id=message_id)
    for chunk in [*map(native_chunk, chunks), None]:
        for event in events.feed(chunk):
            assembled.dispatch(event)
    message = assembled.output_message
    return None if message is None else to_core(message)
