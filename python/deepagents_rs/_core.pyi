"""Type stubs for the compiled Rust core (``deepagents_rs._core``)."""

from typing import Any

__version__: str
DEFAULT_SUBAGENT_PROMPT: str
DEFAULT_GENERAL_PURPOSE_DESCRIPTION: str

class CoreAgent:
    """The compiled agent: model, tools, system message, subagents and response format, run
    by the Rust loop."""

    def __init__(
        self,
        model: tuple[str, str] | Any,
        tools: list[Any],
        system: dict[str, Any],
        name: str | None = None,
        subagents: list[dict[str, Any]] | None = None,
        response_format: Any | None = None,
        middleware: list[Any] | None = None,
    ) -> None: ...
    @property
    def model_id(self) -> str:
        """``provider:name`` of the agent's model."""
    @property
    def tool_names(self) -> list[str]:
        """The tools in the order the model sees them."""
    def invoke(self, state: dict[str, Any], recursion_limit: int) -> dict[str, Any]:
        """Run to completion with the GIL released."""
    def ainvoke(self, state: dict[str, Any], recursion_limit: int) -> Any:
        """An awaitable running the agent on the caller's loop."""
    def stream(
        self,
        state: dict[str, Any],
        recursion_limit: int,
        modes: list[str],
        subgraphs: bool = False,
        config: dict[str, Any] | None = None,
        subagent_response_format: Any | None = None,
    ) -> EventStream:
        """Run the agent, reporting raw ``(mode, ns, payload)`` items, then ``("done", (), state)``."""
    def astream(
        self,
        state: dict[str, Any],
        recursion_limit: int,
        modes: list[str],
        subgraphs: bool = False,
        config: dict[str, Any] | None = None,
        subagent_response_format: Any | None = None,
    ) -> AsyncEventStream:
        """``stream`` on the caller's event loop."""

class EventStream:
    """Iterator over a run's raw events; ``close()`` stops the run."""

    def __iter__(self) -> EventStream: ...
    def __next__(self) -> tuple[str, tuple[str, ...], Any]: ...
    def close(self) -> None: ...

class AsyncEventStream:
    """Async iterator over a run's raw events; ``aclose()`` stops the run."""

    def __aiter__(self) -> AsyncEventStream: ...
    async def __anext__(self) -> tuple[str, tuple[str, ...], Any]: ...
    async def aclose(self) -> None: ...
