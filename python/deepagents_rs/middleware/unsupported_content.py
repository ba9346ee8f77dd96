"""deepagents' ``UnsupportedContentMiddleware``: the multimodal blocks the active model cannot
accept are replaced with a text notice on every model request, the thread keeping the
original. The core does it (``src/middleware/unsupported_content.rs``); this face holds the
entry's place in a stack, as deepagents' own class does when passed in ``middleware``."""

from __future__ import annotations

from typing import Any

from ._core_face import CoreEntryFace


class _TracePolicy:
    """deepagents' ``trace_policy`` (hook inputs left out of traces), made on first use: it is
    LangChain's type."""

    def __get__(self, instance: object, owner: type) -> Any:
        from langchain.agents.middleware.types import TracePolicy, omit_payload

        policy = TracePolicy(process_inputs=omit_payload)
        owner.trace_policy = policy  # type: ignore[attr-defined]
        return policy


class UnsupportedContentMiddleware(CoreEntryFace):
    """Replace multimodal input blocks the active model can't accept with a text notice.

    ``create_deep_agent`` adds it to every stack; one passed in ``middleware`` takes its
    place."""

    trace_policy = _TracePolicy()

    def __init__(self) -> None:
        self.tools: list[Any] = []

    def _core_config(self, store: Any = None) -> dict[str, Any]:
        return {"kind": "unsupported_content"}
