"""A middleware call's result as the core takes it: with what its task wrote (sent keys, backend
files, a wrapper's writes), tool outputs as the handler hands them, hook ``messages`` writes."""

from __future__ import annotations

import uuid
from typing import Any

from . import _convert


def _with_sent(result: Any, channels: Any) -> Any:
    """A hook's result with what it wrote through its task's ``__pregel_send`` (its returned
    keys win, as LangGraph applies them after the writes made during the call)."""
    if channels is None or not channels.writes or not (result is None or isinstance(result, dict)):
        return result
    return channels.update(result)


def _with_wrapper_writes(result: tuple, channels: Any, inner: list[dict]) -> tuple:
    """A tool call wrapper's result with what it wrote through its task's channels (a
    ``StateBackend``'s files among them) under what the call writes: the wrapper and the
    tool share the call's task, whose writes LangGraph applies together. A wrapper that
    answers with a plain message keeps the tool's own writes (``inner``: the handler's raw
    results, the last one's), which a returned ``Command`` carries itself. The messages the
    task sent (the tool's among them: they share the task's writes) come before the answer."""
    if channels is None or not (channels.files.pending or channels.writes):
        return result
    from ._tool_commands import with_sent_messages

    message, files, update, write = result
    if update is not None and channels.writes:
        # The wrapper's own `Command` with the task's writes (a tool's write came with its
        # own result, checked there).
        channels.check_single_writes(update)
    if files is None and update is None and inner:
        files, update = inner[-1].get("files"), channels.returned(inner[-1].get("extra"))
    if channels.files.pending:
        files = {**channels.files.updates(), **(files or {})}
    earlier = channels.earlier(update)
    if channels.writes:
        update = {k: v for k, v in (channels.update(update) or {}).items() if k != "messages"} or None
    return message, files, update, with_sent_messages(write, channels.writes, earlier)


def _with_backend_files(result: tuple[Any, dict] | None, files: Any) -> tuple[Any, dict] | None:
    """A hook's result with what a ``StateBackend`` wrote during it: the node's write to
    ``files`` (the hook's own ``files`` after it, as LangGraph applies the task's writes)."""
    if not files.pending:
        return result
    if result is None:
        # The backend's write alone is the node's update.
        return {"files": files.updates()}, {"files": files.updates()}
    reported, delta = result
    delta["files"] = {**files.updates(), **(delta.get("files") or {})}
    return reported, delta


def _with_model_files(out: dict, files: Any) -> dict:
    """A model wrapper's response with what a ``StateBackend`` wrote during it, written by
    the model node before its reply."""
    if files.pending:
        out["files_before"] = files.updates()
    return out


def _as_message(m: Any) -> Any:
    return _convert.from_core(m) if isinstance(m, dict) else m


def _tool_output(raw: dict) -> Any:
    """What the tool node's ``execute`` hands a ``wrap_tool_call`` handler: the ToolMessage,
    or the ``Command`` a tool like ``task`` answered with."""
    message = _convert.from_core(raw["message"])
    if not raw.get("command"):
        return message
    from langgraph.types import Command

    from ._stream import with_removals

    write = raw.get("write") or {}
    if write.get("unanswered"):
        messages = [_convert.from_core(m) for m in write["before"]]
    else:
        before = [_convert.from_core(m) for m in write.get("before", ())]
        messages = [*before, message, *(_convert.from_core(m) for m in write.get("after", ()))]
    update: dict[str, Any] = {"messages": with_removals(messages, write.get("removed"))}
    if raw.get("files") is not None:
        update["files"] = raw["files"]
    update.update(raw.get("extra") or {})
    from langgraph.types import Send

    goto = [*(write.get("goto") or ()), *(Send(node, arg) for node, arg in write.get("sends") or ())]
    if write.get("to_parent"):
        # A subagent's command for its parent, as the tool returned it.
        return Command(graph=Command.PARENT, update=update, goto=goto)
    if write.get("unanswered") and update == {"messages": []}:
        # The tool's command had no update.
        return Command(update=None, goto=goto)
    return Command(update=update, goto=goto)


def _messages_write(value: Any, before: list[Any]) -> dict:
    """A hook's ``messages`` as the core's write, as deepagents' ``messages`` channel takes
    it: new messages get an id (LangGraph stamps written messages) and are appended; a write
    that removes messages or replaces one by id becomes the whole new list, the messages
    already there keeping theirs (none given to those without)."""
    from langchain_core.messages import RemoveMessage, convert_to_messages

    from ._messages_reducer import merge

    items = value if isinstance(value, list) else [value]
    new = convert_to_messages(items)
    for m in new:
        if m.id is None and not isinstance(m, RemoveMessage):
            m.id = str(uuid.uuid4())
    existing = {m.id for m in before if m.id is not None}
    if any(isinstance(m, RemoveMessage) or m.id in existing for m in new):
        merged = merge(list(before), [new])
        return {"messages": [_convert.to_core(m) for m in merged], "replace": True}
    return {"messages": [_convert.to_core(m) for m in new]}
