"""deepagents' ``SubAgentMiddleware``: the ``task`` tool (``_task_tool``) and the system prompt
that lists the subagents, for LangChain's own ``create_agent``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import types as middleware_types
from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse

from . import subagents as _face
from ._task_tool import _build_task_tool, _forked
from ._utils import append_to_system_message


# Generic in the run's context and response types, as deepagents declares it.
class SubAgentMiddleware(AgentMiddleware[Any, middleware_types.ContextT, middleware_types.ResponseT]):
    """Adds a ``task`` tool that runs one of ``subagents`` (raw ``SubAgent`` specs, which must
    name ``model`` and ``tools``, or ``CompiledSubAgent`` runnables) on a task and answers with
    its final message. ``system_prompt``, when given, is appended to the agent's with the
    list of subagents; ``task_description`` replaces the tool's description;
    ``private_state_keys`` are never handed to or taken from a subagent; ``state_schema`` is
    the graph state of the raw specs' agents."""

    # Hook inputs are left out of traces unless the caller sets its own policy.
    trace_policy = middleware_types.TracePolicy(process_inputs=middleware_types.omit_payload)

    def __init__(
        self,
        *,
        backend: Any,
        subagents: Sequence[Any],
        system_prompt: str | None = None,
        task_description: str | None = None,
        private_state_keys: frozenset[str] | None = None,
        state_schema: type | None = None,
    ) -> None:
        super().__init__()
        if not subagents:
            raise ValueError("At least one subagent must be specified")
        self._backend = backend
        self._subagents = subagents
        self._private_state_keys = private_state_keys or frozenset()
        self._task_description = task_description
        self._state_schema = state_schema
        if any(_forked(spec) for spec in subagents):
            from .._subagents import _warn_fork_beta

            _warn_fork_beta()
        self.subagent_names: frozenset[str] = frozenset(spec["name"] for spec in subagents)
        """The declared subagents' names (for streamers)."""
        task_tool = _build_task_tool(
            subagents, task_description, private_state_keys=self._private_state_keys, state_schema=state_schema
        )
        listing = "\n".join(
            _face._describe_subagent_for_tool(s["name"], s["description"], forked=_forked(s)) for s in subagents
        )
        # Without a prompt of its own the middleware leaves the system message alone.
        self.system_prompt: str | None = (
            f"{system_prompt}\n\nAvailable subagent types:\n\n{listing}" if system_prompt else system_prompt
        )
        self.tools = [task_tool]

    @property
    def private_state_keys(self) -> frozenset[str]:
        """The keys never handed to a subagent nor taken back from one."""
        return self._private_state_keys

    @private_state_keys.setter
    def private_state_keys(self, value: frozenset[str]) -> None:
        # The tool holds the keys: a new set makes a new tool.
        self._private_state_keys = value
        self.tools = [
            _build_task_tool(
                self._subagents,
                task_description=self._task_description,
                private_state_keys=value,
                state_schema=self._state_schema,
            )
        ]

    def _prompted(self, request: ModelRequest) -> ModelRequest:
        if self.system_prompt is None:
            return request
        return request.override(system_message=append_to_system_message(request.system_message, self.system_prompt))

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        """The request with the subagents' prompt appended to its system message."""
        return handler(self._prompted(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        """``wrap_model_call``, awaited."""
        return await handler(self._prompted(request))
