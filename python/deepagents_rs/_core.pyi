"""Type stubs for the compiled Rust core (``deepagents_rs._core``)."""

from typing import Any

__version__: str

class CoreAgent:
    """The compiled agent: model, tools and system message, run by the Rust loop."""

    def __init__(
        self,
        model: tuple[str, str] | Any,
        tools: list[Any],
        system: dict[str, Any],
        name: str | None = None,
    ) -> None: ...
    @property
    def model_id(self) -> str: ...
    @property
    def tool_names(self) -> list[str]: ...
    def invoke(self, state: dict[str, Any], recursion_limit: int) -> dict[str, Any]:
        """Run to completion with the GIL released."""
    def ainvoke(self, state: dict[str, Any], recursion_limit: int) -> Any:
        """An awaitable running the agent on the caller's loop."""
