"""`FilesystemMiddleware` outside a deepagents_rs agent (LangChain's `create_agent`, or its
methods called directly): its tools, `wrap_model_call` and `wrap_tool_call`. The core's
filesystem entry (`_core.EntryCall`) runs the tools, writes the system-prompt section and
moves large results to files; this module converts LangChain's requests, state and
messages to what the entry takes, and reads and writes a state backend's `files` through
the running graph, as deepagents' `StateBackend` does.

Needs LangChain (it is imported only from the face's methods)."""

from __future__ import annotations

import json
from typing import Any

from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool
from langgraph.types import Command

from .. import _convert
from ..backends._store_state_texts import STATE_OUTSIDE_GRAPH, STATE_WITHOUT_CHANNELS
from ._entry_call import entry
from ._filesystem_schemas import args_schema
from ._summarization_call import _runtime_config

#: The state keys the entry reads around a model call: the files, the offloaded payloads.
STATE_KEYS = ("files", "_blob_payloads")


def _graph_keys(config: Any) -> tuple[Any, Any] | None:
    """LangGraph's read and send of the running task, or None outside a graph."""
    from deepagents_rs._langgraph_private import CONFIG_KEY_READ, CONFIG_KEY_SEND

    configurable = (config or {}).get("configurable") or {}
    if CONFIG_KEY_READ not in configurable:
        return None
    return configurable[CONFIG_KEY_READ], configurable[CONFIG_KEY_SEND]


def _current_config() -> Any:
    from langgraph.config import get_config

    try:
        return get_config()
    except RuntimeError:
        return None


def _files(face: Any, config: Any) -> Any:
    """The graph's `files`, this step's writes included (None when the backend keeps none,
    or no graph runs: a call that never reaches the state backend, an `execute` say, runs
    outside a graph as deepagents' does; one that writes fails in `_send_files`)."""
    keys = _graph_keys(config) if face._uses_state else None
    return None if keys is None else keys[0]("files", True)


def _send_files(config: Any, written: Any) -> None:
    """A state backend's writes, sent to the graph's `files` as deepagents' `StateBackend`
    sends them (merged by the channel's reducer when the step ends)."""
    if written:
        keys = _graph_keys(config)
        if keys is None:
            raise RuntimeError(STATE_OUTSIDE_GRAPH if config is None else STATE_WITHOUT_CHANNELS)
        keys[1]([("files", written)])


def core_tools(face: Any) -> list[Any]:
    """The face's tools: each runs in the core, as its entry offers it, with deepagents'
    pydantic input schema (whose JSON is the core's parameters) where it has one."""
    call = entry(face, None)
    return [
        _tool(face, name, description, args_schema(name, face._video_enabled) or json.loads(parameters))
        for name, description, parameters in call.tool_specs()
    ]


def _tool(face: Any, name: str, description: str, parameters: Any) -> Any:
    def run(runtime: ToolRuntime, **args: Any) -> Any:
        """Run the file tool in the core."""
        config = runtime.config or _current_config()
        call = {"name": name, "args": args, "id": runtime.tool_call_id}
        out = entry(face, runtime).call_tool(call, _files(face, config), False, config)
        return _tool_message(out, config)

    async def arun(runtime: ToolRuntime, **args: Any) -> Any:
        """Run the file tool in the core."""
        config = runtime.config or _current_config()
        call = {"name": name, "args": args, "id": runtime.tool_call_id}
        out = await entry(face, runtime).call_tool(call, _files(face, config), True, config)
        return _tool_message(out, config)

    return StructuredTool(name=name, description=description, args_schema=parameters, func=run, coroutine=arun)


def _tool_message(out: dict, config: Any) -> Any:
    """The call's answer: its tool message, or (a video read) a `Command` writing the tool
    message and the message carrying the frames, as deepagents' tool returns them."""
    _send_files(config, out["files"])
    written = out.get("messages")
    if written is None:
        return _unsaved(out["message"])
    return Command(update={"messages": [_unsaved(m) for m in written]})


def _unsaved(message: dict) -> Any:
    """A core message as LangChain's, without the id the graph's reducer gives it."""
    converted = _convert.from_core(message)
    converted.id = None
    return converted


def tool_of(face: Any, request: Any) -> Any:
    """How the model-call handler gets each tool the entry passes on: the request's own by
    name, with the description the entry gave it."""
    from ._summarization_call import _tool_spec

    own = {_tool_spec(t)[0]: t for t in request.tools or ()}

    def of(name: str, deferred: bool, description: str) -> Any:
        tool = own[name]
        if isinstance(tool, StructuredTool) and tool.description != description:
            return tool.model_copy(update={"description": description})
        return tool

    return of


def refusal(face: Any, request: Any) -> Any:
    """The entry's answer in place of the handler's (a parallel mutation of one path), or None."""
    state = request.state if isinstance(request.state, dict) else {}
    messages = [_convert.to_core(m) for m in state.get("messages", ())]
    text = entry(face, request.runtime).refusal(request.tool_call, messages)
    if text is None:
        return None
    call = request.tool_call
    return ToolMessage(content=text, name=call["name"], tool_call_id=call["id"], status="error")


def _config_of(request: Any) -> Any:
    return _runtime_config(getattr(request, "runtime", None)) or _current_config()


def _messages_of(result: Any) -> list[Any] | None:
    """A command's messages (none when it writes none), or None when it has no update or
    its messages are no list."""
    update = result.update
    if update is None:
        return None
    messages = update.get("messages", [])
    return list(messages) if isinstance(messages, list) else None


def _with_messages(result: Any, messages: list[Any]) -> Any:
    """The command with `messages` in its update (its `resume` left out, as deepagents does)."""
    return Command(graph=result.graph, update={**result.update, "messages": messages}, goto=result.goto)


def after_tool(face: Any, name: str, result: Any, config: Any) -> Any:
    """`result` (a `ToolMessage`, or a `Command` and its tool messages) as the entry leaves it."""
    call = entry(face, None)
    files = lambda: _files(face, config)

    def one(message: Any) -> Any:
        if not isinstance(message, ToolMessage):
            return message
        out = call.after_tool(_convert.to_core(message), name, False, files(), config)
        return _replaced(message, out, config)

    return _each(result, one)


async def aafter_tool(face: Any, name: str, result: Any, config: Any) -> Any:
    """`after_tool` under `ainvoke`."""
    call = entry(face, None)
    if isinstance(result, ToolMessage):
        out = await call.after_tool(_convert.to_core(result), name, True, _files(face, config), config)
        return _replaced(result, out, config)
    messages = _messages_of(result) if isinstance(result, Command) else None
    if messages is None:
        return result
    kept = []
    for message in messages:
        if isinstance(message, ToolMessage):
            out = await call.after_tool(_convert.to_core(message), name, True, _files(face, config), config)
            message = _replaced(message, out, config)
        kept.append(message)
    return _with_messages(result, kept)


def _each(result: Any, one: Any) -> Any:
    if isinstance(result, ToolMessage):
        return one(result)
    messages = _messages_of(result) if isinstance(result, Command) else None
    if messages is None:
        return result
    return _with_messages(result, [one(m) for m in messages])


def _replaced(message: Any, out: dict, config: Any) -> Any:
    _send_files(config, out["files"])
    if out["message"] is None:
        return message
    replaced = _convert.from_core(out["message"])
    return message.model_copy(update={"content": replaced.content})
