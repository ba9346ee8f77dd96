"""Shared pieces of the harness-profile parity tests: the scripted models, middleware and profiles
each implementation gets built from its own classes."""

from __future__ import annotations

from typing import Any

import deepagents
import deepagents_rs
from langchain.agents.middleware import AgentMiddleware, ModelRequest
from langchain_core.messages import SystemMessage
from langchain_core.tools import tool

from .profile_support import BOTH, Impl, compare, isolated_profiles, outcome  # noqa: F401 - autouse fixture

IMPLS = {"deepagents": deepagents, "deepagents_rs": deepagents_rs}


SCRIPTED = "scriptedchatmodel"


def profile(impl: str, **fields: Any) -> Any:
    return IMPLS[impl].HarnessProfile(**fields)


def register(impl: str, key: str, **fields: Any) -> None:
    IMPLS[impl].register_harness_profile(key, profile(impl, **fields))


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


class Notes(AgentMiddleware):
    """Profile middleware with a model-call effect (a prompt section), a tool, and a hook node."""

    def __init__(self, text: str = "NOTES") -> None:
        super().__init__()
        self.text = text

        @tool
        def note(entry: str) -> str:
            """Write a note."""
            return f"noted {entry}"

        self.tools = [note]

    def _with_notes(self, request: ModelRequest) -> ModelRequest:
        blocks = list(request.system_message.content_blocks) if request.system_message is not None else []
        return request.override(system_message=SystemMessage(content=[*blocks, {"type": "text", "text": self.text}]))

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(self._with_notes(request))

    async def awrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return await handler(self._with_notes(request))

    def after_model(self, state: Any, runtime: Any) -> None:
        return None


class Stamp(AgentMiddleware):
    """User middleware (a prompt section) that a profile may exclude by class."""

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(request.override(system_message=SystemMessage(content="stamped")))

    async def awrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return await handler(request.override(system_message=SystemMessage(content="stamped")))


def task(description: str, subagent_type: str, call_id: str = "t1") -> tuple:
    return ("task", {"description": description, "subagent_type": subagent_type}, call_id)


def graph_shape(impl: str, **kwargs: Any) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """The compiled graph's nodes and edges (sorted: each implementation adds them in its own
    order), which say which middleware hooks run and in what order."""
    graph = IMPLS[impl].create_deep_agent(**kwargs).get_graph()
    return sorted(graph.nodes), sorted((e.source, e.target, e.conditional) for e in graph.edges)
