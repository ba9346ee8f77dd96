"""deepagents' ``UnsupportedContentMiddleware``: the multimodal blocks the active model cannot
accept are replaced with a text notice on every model request, the thread keeping the
original. The core does it (``src/middleware/unsupported_content.rs``); this face holds the
entry's place in a stack, as deepagents' own class does when passed in ``middleware``."""

from __future__ import annotations

from typing import Any

from ._core_face import CoreEntryFace, TakesContextAndResponseTypes, TracePolicyOnFirstUse


class UnsupportedContentMiddleware(TakesContextAndResponseTypes, CoreEntryFace):
    """Replace multimodal input blocks the active model can't accept with a text notice.

    ``create_deep_agent`` adds it to every stack; one passed in ``middleware`` takes its
    place."""

    trace_policy = TracePolicyOnFirstUse()
    # deepagents' class is generic in the response type first.
    _type_parameters = ("ResponseT", "ContextT")

    def __init__(self) -> None:
        self.tools: list[Any] = []

    def _core_config(self, store: Any = None) -> dict[str, Any]:
        return {"kind": "unsupported_content"}
