"""What the Python faces of the core's own middleware entries (memory, skills, the compact
tool) share: they hold a configuration, named as deepagents names the middleware, and
hand it to the core (`_core_config`, read by `deepagents_rs._middleware.core_entries`)."""

from __future__ import annotations

from typing import Any


class CoreEntryFace:
    """A middleware whose work the core does; the tools it offers are the core's too."""

    tools: list[Any]

    @property
    def name(self) -> str:
        """The middleware's name in the agent's stack."""
        return type(self).__name__

    def _core_config(self, store: Any = None) -> dict[str, Any]:
        """The configuration the core builds the entry from (`{"kind": ..., ...}`)."""
        raise NotImplementedError  # pragma: no cover - every face defines it
