"""LangChain's ``create_agent`` on the core: an agent whose chain is the caller's middleware
alone, none of deepagents' own (no file tools, no ``task``, no summarization). deepagents
builds its rubric grader this way; so does deepagents_rs, on its own loop."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import _convert
from ._assembly import SchemaOf, StateKeys, _check_unique_middleware, _core_model, face_parts
from ._core import CoreAgent
from ._middleware import core_entries
from ._middleware_schema import declared_keys
from ._structured import make_response_format, tools_may_end, with_schema_tool
from ._tools import to_adapter


def create_plain_agent(
    model: Any,
    *,
    system_prompt: str | None = None,
    tools: Sequence[Any] = (),
    middleware: Sequence[Any] = (),
    name: str | None = None,
    response_format: Any = None,
    state_schema: type | None = None,
    context_schema: type | None = None,
) -> Any:
    """The compiled agent (a ``DeepAgent`` face over a plain core), run like any other."""
    from ._deep_agent import DeepAgent

    adapters = [to_adapter(t) for t in tools]
    adapters = [a for a in adapters if a.executable] + [a for a in adapters if not a.executable]
    # The model is offered the agent's tools and its middleware's.
    offered = [*adapters, *(t for m in middleware for t in (getattr(m, "tools", None) or ()))]
    structured = make_response_format(response_format, model=model, tools=offered, all_tools=True)
    core_model = _core_model(model, with_schema_tool(adapters, structured))
    if name and not isinstance(core_model, tuple):
        core_model.agent_name = name
    _check_unique_middleware(middleware)
    bindables = {a.name: a.bindable for a in adapters}
    schema_holders = [*middleware, *([SchemaOf(state_schema)] if state_schema is not None else [])]
    schema = StateKeys.of(schema_holders)
    core = CoreAgent(
        core_model,
        adapters,
        _convert.system_to_core(system_prompt),
        name or None,
        None,
        structured,
        core_entries(middleware, bindables, response_format=response_format),
        sorted(schema.private),
        plain=True,
    )
    # LangChain's agent state has a `files` channel only when a middleware declares one (a
    # `FilesystemMiddleware`): without it the plain agent keeps no files.
    files_channel = "files" in declared_keys(list(schema_holders))
    if not files_channel:
        schema.omit_output = schema.omit_output | {"files"}
        schema.unstreamed = schema.unstreamed | {"files"}
    may_end = tools_may_end(structured, adapters)
    state_schemas, edges = face_parts(
        core.node_names, middleware, state_schema, middleware, may_end, files_channel=files_channel
    )
    agent = DeepAgent(
        core,
        name=name,
        model=model,
        schema=schema,
        state_schemas=state_schemas,
        edges=edges,
        context_schema=context_schema,
    )
    # Its runs carry LangChain's agent metadata (LangChain's `create_agent` graph), not
    # deepagents'.
    agent.config["metadata"] = {"ls_integration": "langchain_create_agent", "lc_agent_name": name}
    return agent
