"""`deepagents.middleware.memory`'s public face: `MemoryMiddleware` and its texts.

Memory is loaded and shown to the model by the Rust core (`src/middleware/memory/`).
`MemoryMiddleware` here checks its arguments as deepagents does (the checks are the core's)
and hands the core its configuration; `create_deep_agent(memory=[...])` builds one the way
deepagents does, and a user's own goes in `middleware=[...]`.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

from .._core import MEMORY_SYSTEM_PROMPT, check_memory_prompt, format_memory
from ..backends.protocol import BackendProtocol
from ._core_face import CoreEntryFace, TakesContextAndResponseTypes, TracePolicyOnFirstUse

logger = logging.getLogger(__name__)

__all__ = ["MEMORY_SYSTEM_PROMPT", "MemoryMiddleware", "MemoryStateUpdate"]

#: The private state key the loaded contents live in, `{source path: content}`.
MEMORY_CONTENTS_KEY = "memory_contents"


class MemoryStateUpdate(TypedDict):
    """State update for `MemoryMiddleware`."""

    memory_contents: dict[str, str]


@cache
def _memory_state() -> type | None:
    """deepagents' `MemoryState` (None without LangChain, which the thread graph needs
    anyway)."""
    try:
        from ._memory_state import MemoryState
    except ImportError:
        return None
    return MemoryState


class _StateSchema:
    """A class attribute made when first read: deepagents' `MemoryState` needs LangChain."""

    def __get__(self, obj: Any, owner: type) -> type | None:
        return _memory_state()


class MemoryMiddleware(TakesContextAndResponseTypes, CoreEntryFace):
    """Loads agent memory from `AGENTS.md` files into the system prompt.

    The sources are read through `backend` once per thread, before the agent's first
    step, and shown to the model at the end of the system prompt on every call.

    Args:
        backend: Backend the memory sources are read from.
        sources: Memory file paths, loaded and shown in this order.
        add_cache_control: Tag the memory block as an Anthropic prompt-cache
            breakpoint (`{"type": "ephemeral"}`) when the model is Anthropic's.
        system_prompt: Template of the memory section, with an `{agent_memory}`
            slot; `None` loads memory without showing it.

    Raises:
        TypeError: If `system_prompt` is neither `str` nor `None`.
        ValueError: If `system_prompt` lacks the `{agent_memory}` slot.
    """

    trace_policy = TracePolicyOnFirstUse()
    state_schema = _StateSchema()
    """deepagents' `MemoryState` (the private `memory_contents` key)."""

    def __init__(
        self, *, backend: BackendProtocol, sources: list[str], add_cache_control: bool = False,
        system_prompt: str | None = MEMORY_SYSTEM_PROMPT,
    ) -> None:  # fmt: skip
        """Check and keep the settings, under deepagents' attribute names."""
        check_memory_prompt(system_prompt)
        self.sources, self.system_prompt = sources, system_prompt
        self._backend, self._add_cache_control = backend, add_cache_control
        self.tools: list[Any] = []

    def _format_agent_memory(self, contents: dict[str, str], template: str = MEMORY_SYSTEM_PROMPT) -> str:
        """`template` with the memory section of `contents` (`{source: content}`) in its
        `{agent_memory}` slot, as the model is shown it."""
        return format_memory(template, list(self.sources), dict(contents))

    def before_agent(self, state: Any, runtime: Any, config: RunnableConfig) -> MemoryStateUpdate | None:
        """Loads the sources through the backend into `memory_contents` (a missing file is
        left out), unless the state has them already."""
        from ._entry_call import before_agent

        return before_agent(self, state, runtime, config)

    async def abefore_agent(self, state: Any, runtime: Any, config: RunnableConfig) -> MemoryStateUpdate | None:
        """`before_agent` under `ainvoke`."""
        from ._entry_call import abefore_agent

        return await abefore_agent(self, state, runtime, config)

    def modify_request(self, request: Any) -> Any:
        """The request with the memory section added to its system message (and the cache
        breakpoint, when asked for and the model is Anthropic's)."""
        from ._entry_call import modify_request

        return modify_request(self, request, (MEMORY_CONTENTS_KEY,))

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        """`handler` on `modify_request(request)`."""
        from ._entry_call import wrap

        return wrap(self, request, handler, (MEMORY_CONTENTS_KEY,))

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        """`wrap_model_call` with an async `handler`."""
        from ._entry_call import awrap

        return await awrap(self, request, handler, (MEMORY_CONTENTS_KEY,))

    def _core_config(self, store: Any = None) -> dict[str, Any]:
        """The configuration the core builds its memory entry from."""
        from .._backend_adapter import backend_arg

        return {
            "kind": "memory",
            "backend": backend_arg(self._backend, store),
            "sources": list(self.sources),
            "add_cache_control": bool(self._add_cache_control),
            "system_prompt": self.system_prompt,
        }


def __getattr__(name: str) -> Any:
    # `MemoryState` needs LangChain: made when first asked for.
    if name == "MemoryState":
        state = _memory_state()
        if state is not None:
            return state
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
