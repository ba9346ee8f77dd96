"""The parts ``create_deep_agent`` assembles before the core is built: the model the core
calls, the state keys user middleware declares, LangChain's human-in-the-loop entry, a user
``FilesystemMiddleware``, the hooks' declared jumps. (The system message is the harness
profile's business: ``_harness``.)"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import _compat
from ._middleware_schema import declared_keys, reducer_defaults, schema_omissions
from ._model_spec import init_langchain_model, resolve_model_spec
from ._models import ModelAdapter
from ._native_models import native_settings
from ._tools import ToolAdapter


def _deprecation_category() -> type[Warning]:
    try:
        from deepagents_rs._langchain_private import LangChainDeprecationWarning
    except ModuleNotFoundError:
        return DeprecationWarning
    return LangChainDeprecationWarning


def _core_model(model: Any, tools: list[ToolAdapter]) -> Any:
    """What the core takes for a model: ``(provider, name, settings)`` for a native provider,
    or an adapter calling a LangChain chat model back (bound to ``tools``).

    A string resolves as deepagents resolves it (``init_chat_model`` with the provider
    profiles' kwargs): natively when the provider is native and every kwarg is one the
    native client takes, else through LangChain's ``init_chat_model``."""
    if isinstance(model, str):
        provider, model_name, kwargs = resolve_model_spec(model)
        settings = native_settings(provider, kwargs, model_name)
        if settings is not None:
            return (provider, model_name, settings)
        model = init_langchain_model(model, kwargs)
    if _compat.is_lc_chat_model(model):
        schema_tools = {a.name for a in tools if getattr(a, "is_schema_tool", False)}
        return ModelAdapter(model, {a.name: a.bindable for a in tools}, schema_tools)
    raise TypeError(f"model must be a 'provider:model' string or a LangChain BaseChatModel, got {type(model).__name__}")


class SchemaOf:
    """A ``state_schema`` where the state-key readers look for one (on a middleware)."""

    def __init__(self, schema: type) -> None:
        self.state_schema = schema


class StateKeys:
    """The state keys user middleware declares (their ``state_schema``s): which the graph
    takes as input, which it leaves out of its output, which are private (never passed to
    or from a subagent)."""

    def __init__(
        self, input: frozenset[str] = frozenset(), omit_output: frozenset[str] = frozenset({"jump_to"})
    ) -> None:
        self.input = input
        self.omit_output = omit_output
        self.private = frozenset()
        #: Keys the root's ``values`` stream never shows. LangGraph streams every channel
        #: there (private ones included, once written), not the output schema: only keys the
        #: graph has no channel for (``files`` without a state backend) and the ephemeral
        #: ``jump_to`` stay out.
        self.unstreamed: frozenset[str] = frozenset({"jump_to"})
        #: What the root's ``values`` stream shows for a reducer channel not written yet.
        self.stream_defaults: dict[str, Any] = {}
        #: The state's reducer channels (``_reducers.Reducers``), which a run without a
        #: thread starts with: their empty values, or the input folded onto them.
        self.reducers: Any = None
        #: Each key's place among the graph's channels (`_output_keys.channel_order`): the
        #: order of the keys of a result and of a ``values`` chunk.
        self.order: dict[str, int] = {}
        #: Each key sequence met, in `order` (`_output_keys.in_channel_order`'s cache).
        self.ordered: dict[tuple[str, ...], tuple[str, ...] | None] = {}

    @classmethod
    def of(cls, middleware: Sequence[Any]) -> StateKeys:
        if not middleware:
            return cls()
        omit_input, omit_output = schema_omissions(list(middleware))
        declared = declared_keys(list(middleware))
        keys = cls(
            input=frozenset(declared - omit_input - {"messages", "files", "jump_to"}),
            omit_output=frozenset(omit_output | {"jump_to"}),
        )
        keys.private = frozenset(omit_input & omit_output)
        keys.stream_defaults = reducer_defaults(list(middleware))
        return keys


def _human_in_the_loop(interrupt_on: dict | None) -> Any:
    """LangChain's ``HumanInTheLoopMiddleware`` for ``interrupt_on``, as deepagents adds it
    (only when some tool is listed)."""
    if not interrupt_on:
        return None
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    return HumanInTheLoopMiddleware(interrupt_on=dict(interrupt_on))


def _check_unique_middleware(middleware: Sequence[Any] | None) -> None:
    names = [m.name for m in middleware or ()]
    if len(names) != len(set(names)):
        # create_agent's own check, word for word.
        raise AssertionError("Please remove duplicate middleware instances.")


#: deepagents' error for a caller's `FilesystemMiddleware` whose rules are not the agent's.
PERMISSIONS_CONFLICT = (
    "FilesystemMiddleware permissions conflict with the agent permissions; "
    "use the same rules or omit middleware permissions."
)


def _split_filesystem(middleware: Sequence[Any], permissions: list[Any] | None) -> tuple[list[Any], Any]:
    """A user ``FilesystemMiddleware`` takes the default one's place (the core builds it);
    with agent permissions it inherits them, and conflicting rules raise as in deepagents."""
    from .middleware.filesystem import FilesystemMiddleware

    rest, override = [], None
    for m in middleware or ():
        if isinstance(m, FilesystemMiddleware):
            if permissions and m._permissions and m._permissions != permissions:
                raise ValueError(PERMISSIONS_CONFLICT)
            override = m
        else:
            rest.append(m)
    return rest, override


def _declared_jumps(middleware: Sequence[Any]) -> dict[str, list[str]]:
    """Each middleware hook node's declared jumps (``@hook_config(can_jump_to=...)``), read
    as LangChain's ``create_agent`` reads them."""
    from deepagents_rs._langchain_private import _get_can_jump_to

    from ._graph_edges import HOOKS

    return {f"{m.name}.{hook}": _get_can_jump_to(m, hook) for m in middleware or () for hook in HOOKS}


def face_parts(
    node_names: Sequence[str],
    holders: Sequence[Any],
    state_schema: type | None,
    middleware: Sequence[Any],
    tools_may_end: bool,
    files_channel: bool = True,
) -> tuple[Any, list]:
    """What the agent's graph face is drawn from: the state schemas of ``holders`` (the
    middleware and the agent's own entries) with the user's ``state_schema``, and the edges
    between the core's nodes (``tools_may_end``: a tools step can end the run;
    ``files_channel``: a ``StateBackend`` holds files)."""
    from ._graph_edges import agent_edges
    from ._graph_face import IS_GRAPH
    from ._threads import StateSchemas

    schemas: Any = [m.state_schema for m in holders if getattr(m, "state_schema", None) is not None]
    if state_schema is not None or not files_channel:
        schemas = StateSchemas(schemas, state_schema, files_channel)
    edges = agent_edges(node_names, _declared_jumps(middleware), tools_may_end) if IS_GRAPH else []
    return schemas, edges
