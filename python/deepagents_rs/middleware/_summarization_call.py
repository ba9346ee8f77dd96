"""`SummarizationMiddleware.wrap_model_call` outside a deepagents_rs agent: the core's entry
(`_core.SummarizationCall`) runs around the caller's `handler`. This module only converts:
LangChain's `ModelRequest` to the core's request, the entry's inner call to a call of the
handler (with the request the entry made), and the entry's state writes to the
`ExtendedModelResponse` LangChain composes."""

from __future__ import annotations

from typing import Any

from .. import _convert
from .._excluded_middleware import class_name
from .._models import _input_profile, _ls_params

#: The state keys the entry reads.
_STATE_KEYS = ("_summarization_event", "_summarization_session_id", "files")


class PromptedModel:
    """A summary model that is no LangChain chat model, only something with `invoke` /
    `ainvoke` answering an object with `.text` (as LangChain's summarization calls its
    model): the core asks it with the summary prompt as a string."""

    prompt_caching = False
    streams_sync = False
    streams_async = False
    to_message = staticmethod(_convert.from_core)

    def __init__(self, model: Any) -> None:
        self.model = model
        self.model_id = f"{getattr(model, '_llm_type', type(model).__name__)}:{type(model).__name__}"
        self.ls_params = _ls_params(model)
        self.input_profile = _input_profile(model)
        self.model_classes = [class_name(c) for c in type(model).__mro__]

    @staticmethod
    def _prompt(messages: list[Any]) -> str:
        # The core asks with one human message holding the whole prompt.
        return messages[-1].content

    @staticmethod
    def _reply(reply: Any) -> dict:
        return {"type": "ai", "content": reply.text}

    def invoke(self, system: Any, messages: list[Any], *_: Any, **__: Any) -> dict:
        return self._reply(self.model.invoke(self._prompt(messages)))

    async def ainvoke(self, system: Any, messages: list[Any], *_: Any, **__: Any) -> dict:
        return self._reply(await self.model.ainvoke(self._prompt(messages)))


def _tool_spec(tool: Any) -> tuple[str, str, dict, dict | None, bool]:
    """`(name, description, parameters, json_dict, defer_loading)` of a request's tool: the
    dict a JSON-spec tool is given as (counted as it is), None for a tool object."""
    from .._tools import to_adapter

    adapter = to_adapter(tool)
    json_dict = None if adapter.executable else adapter.bindable
    return adapter.name, adapter.description, adapter.parameters, json_dict, adapter.defer_loading


def _core_request(request: Any, state_keys: tuple[str, ...] = _STATE_KEYS) -> tuple[dict, list[Any]]:
    """The request as the entry takes it (with the state's `state_keys`), and its messages
    (the handler gets back those the entry passes on unchanged)."""
    messages = list(request.messages)
    state = request.state if isinstance(request.state, dict) else {}
    system = request.system_message
    return {
        "system": None if system is None else _convert.to_core(system),
        "messages": [_convert.to_core(m) for m in messages],
        "tools": [_tool_spec(t) for t in request.tools or ()],
        "model_settings": dict(request.model_settings or {}),
        "state": {k: state[k] for k in state_keys if k in state},
    }, messages


class _Responder:
    """The entry's inner call: the handler on the request with the entry's messages (and its
    tools, when it changed them: `tool_of(name, defer_loading, description)` gives each back
    as a tool)."""

    def __init__(self, request: Any, handler: Any, messages: list[Any], tool_of: Any = None) -> None:
        self.request = request
        self.handler = handler
        self.messages = messages
        self.tool_of = tool_of
        self.called = False
        self.response: Any = None

    def _request(self, system: Any, messages: list[Any], tools: Any) -> Any:
        changes: dict[str, Any] = {}
        if tools is not None and self.tool_of is not None:
            changes["tools"] = [self.tool_of(*spec) for spec in tools]
        if not (system is True and messages == list(range(len(self.messages)))):
            changes["messages"] = [self.messages[m] if isinstance(m, int) else _convert.from_core(m) for m in messages]
        if system is not True:  # not the caller's own system message
            changes["system_message"] = None if system is None else _convert.from_core(system)
        # Passed on as it came when nothing changed.
        return self.request.override(**changes) if changes else self.request

    def call(self, system: Any, messages: list[Any], tools: Any = None) -> list:
        self.response = self.handler(self._request(system, messages, tools))
        self.called = True
        # The entry passes the reply through as it is: the handler's own object is
        # what the caller gets.
        return []

    async def acall(self, system: Any, messages: list[Any], tools: Any = None) -> list:
        self.response = await self.handler(self._request(system, messages, tools))
        self.called = True
        return []


def _result(outcome: dict, responder: _Responder) -> Any:
    """The handler's response, with the entry's state writes as a `Command`."""
    update: dict[str, Any] = {}
    files: dict[str, Any] = dict(outcome["files"] or {})
    for command in outcome["commands"]:
        update.update(command["extra"])
        if command["messages"]:
            update["messages"] = [_convert.from_core(m) for m in command["messages"]]
        files.update(command["files"] or {})
    if files:
        update["files"] = files
    if not update:
        return responder.response
    from langchain.agents.middleware.types import ExtendedModelResponse
    from langgraph.types import Command

    return ExtendedModelResponse(model_response=responder.response, command=Command(update=update))


def _config(request: Any) -> Any:
    return _runtime_config(getattr(request, "runtime", None))


def _state_outside_graph() -> Any:
    from ..backends.protocol import BackendProtocol

    class _StateOutsideGraph(BackendProtocol):
        """A `StateBackend` where the graph has no `files` channel to reach (or no graph runs):
        each operation fails as deepagents' `StateBackend` fails there, so the history is
        not saved (and the user is warned), as with deepagents."""

        def _fail(self, *_: Any, **__: Any) -> Any:
            from ..backends._store_state_texts import STATE_OUTSIDE_GRAPH

            raise RuntimeError(STATE_OUTSIDE_GRAPH)

        read = download_files = write = edit = upload_files = ls = glob = grep = _fail

    return _StateOutsideGraph()


def _state_reachable() -> bool:
    """Whether a `StateBackend` reaches a `files` channel here: a LangGraph node of a graph
    that has one (read as deepagents' `StateBackend` reads it)."""
    try:
        from deepagents_rs._langgraph_private import CONFIG_KEY_READ
    except ModuleNotFoundError:  # no LangGraph, no graph (an unsupported one raises)
        return False
    try:
        from langgraph.config import get_config

        get_config()["configurable"][CONFIG_KEY_READ]("files", True)
    except Exception:  # noqa: BLE001 - any failure is deepagents' failing read
        return False
    return True


def entry(face: Any, request: Any) -> Any:
    """The core entry of a middleware face for the request's store (its runtime's), made
    when first needed and kept on the face. A `StateBackend` is the core's own when the
    graph has the `files` channel it writes (the entry's writes go to it in the update)."""
    from ..backends.state import StateBackend

    store = getattr(getattr(request, "runtime", None), "store", None)
    summarization = getattr(face, "_summarization", face)
    outside = type(summarization._backend) is StateBackend and not _state_reachable()
    # Steps replaced on the middleware since the entry was made make it again.
    from ._summarization_steps import replaced_steps

    key = (outside, replaced_steps(summarization))
    made = getattr(face, "_call", None)
    if made is None or made[0] is not store or made[1] != key:
        from .._core import SummarizationCall

        backend = _state_outside_graph() if outside else None
        made = face._call = (store, key, SummarizationCall(face._core_config(store, backend=backend)))
    return made[2]


def compact_tool(face: Any) -> Any:
    """The `compact_conversation` tool of a `SummarizationToolMiddleware`, as a LangChain
    tool: the core compacts the state the tool runtime shows."""
    from langchain.tools import ToolRuntime
    from langchain_core.tools import StructuredTool

    from .._core import COMPACT_DESCRIPTION

    def run(runtime: ToolRuntime) -> Any:
        return face._run_compact(runtime)

    async def arun(runtime: ToolRuntime) -> Any:
        return await face._arun_compact(runtime)

    # The runtime is injected by its type, which these annotations (strings in this
    # module) must name as objects.
    for fn in (run, arun):
        fn.__annotations__ = {"runtime": ToolRuntime, "return": Any}
    return StructuredTool.from_function(
        name="compact_conversation", description=COMPACT_DESCRIPTION, func=run, coroutine=arun
    )


def _runtime_config(runtime: Any) -> Any:
    config = getattr(runtime, "config", None)
    return config if isinstance(config, dict) else None


def _with_written(outcome: dict, written: dict[str, Any]) -> dict:
    """The entry's outcome with what a replaced step's state backend wrote."""
    if written:
        outcome = dict(outcome)
        outcome["files"] = {**written, **(outcome["files"] or {})}
    return outcome


def wrap(call: Any, request: Any, handler: Any) -> Any:
    from ._summarization_steps import flow_files

    raw, messages = _core_request(request)
    responder = _Responder(request, handler, messages)
    with flow_files(raw["state"].get("files")) as files:
        outcome = call.run(raw, responder, False, _config(request))
    return _result(_with_written(outcome, files["written"]), responder)


async def awrap(call: Any, request: Any, handler: Any) -> Any:
    from ._summarization_steps import flow_files

    raw, messages = _core_request(request)
    responder = _Responder(request, handler, messages)
    with flow_files(raw["state"].get("files")) as files:
        outcome = await call.run(raw, responder, True, _config(request))
    return _result(_with_written(outcome, files["written"]), responder)
