"""A LangGraph ``Command`` a tool returned, read as the core's data: the call's answer, the
state keys it writes, the messages written around that answer, and where it goes.

LangGraph's tool node checks the command (the words of its errors are kept: users match
on them), then the graph applies its update as the call's write and its ``goto`` as
branches: each node named, and each ``Send``'s node on its own state, runs in the next
step beside the tools edge's destination (`destinations` in `src/agent/routing.rs`); this
module only converts.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Self

from . import _task_channels

#: The key a tool's state update carries when the tool answered with a LangGraph `Command`
#: (read and dropped by the core, `src/python/tools.rs`).
COMMAND_MARKER = "__deepagents_rs_command__"

#: Where a run's config carries the state keys (graph channels) of the agent and of its
#: subagents, by the ``(ls_integration, lc_agent_name)`` of their runs' metadata.
STATE_KEYS_KEY = "__deepagents_rs_state_keys"

#: What a call writes when it returned no `Command`: its message alone.
NO_WRITE = {"before": [], "after": [], "removed": [], "unanswered": False, "goto": [], "sends": []}

#: LangGraph's `END`: a `goto` to it adds no branch.
_END = "__end__"


def command_output(command: Any, tool_name: str, tool_call_id: str, config: dict | None) -> tuple:
    """``(content, status, artifact, update, write)`` for the core (see
    ``src/python/tools.rs``), or LangGraph's error for a command its tool node refuses."""
    from langchain_core.messages import ToolMessage
    from langgraph.types import Command

    messages, rest, checked = _update_parts(command, tool_name)
    if checked:
        for m in messages:
            if isinstance(m, ToolMessage) and m.tool_call_id == tool_call_id:
                m.name = tool_name
    if command.graph == Command.PARENT and not _in_subagent(config):
        raise _parent_command(command, messages, checked, config)
    goto, sends = _goto(command)
    if command.graph == Command.PARENT:
        # The parent's `task` call writes it in place of its answer (the core ends the
        # subagent's run at this step and hands the command up).
        return _in_place_of_answer(messages, rest, (goto, sends), to_parent=True)
    answer = next(
        (i for i, m in enumerate(messages) if isinstance(m, ToolMessage) and m.tool_call_id == tool_call_id),
        None,
    )
    if answer is None and checked and command.graph is None and not _removes_all(messages):
        # LangGraph's tool node refuses it with these words; its example is the one for a
        # node given tool calls, as the model's edge sends each call to the tools node.
        raise ValueError(
            f"Expected to have a matching ToolMessage in Command.update for tool '{tool_name}', got: "
            f"{messages}. Every tool call (LLM requesting to call a tool) in the message history MUST have "
            "a corresponding ToolMessage. You can fix it by modifying the tool to return "
            '`Command(update=[ToolMessage("Success", tool_call_id=tool_call_id), ...], ...)`.'
        )
    from . import _convert

    rest = _declared_only(rest, config)
    given_as_object = answer is not None and _given_as_object(command, answer)
    messages, removed = _split_removals(messages)
    rest[COMMAND_MARKER] = True
    if answer is None:
        # Nothing answers the call: the core writes the other messages only.
        write = {
            "before": [_convert.to_core(m) for m in messages],
            "after": [],
            "removed": removed,
            "unanswered": True,
            "goto": goto,
            "sends": sends,
        }
        return "", "success", None, rest, write
    # Its place among the messages kept.
    answer = next(i for i, m in enumerate(messages) if isinstance(m, ToolMessage) and m.tool_call_id == tool_call_id)
    message = messages[answer]
    write = {
        "before": [_convert.to_core(m) for m in messages[:answer]],
        "after": [_convert.to_core(m) for m in messages[answer + 1 :]],
        "removed": removed,
        "unanswered": False,
        "goto": goto,
        "sends": sends,
        # Named after the tool only when given as a message object (`checked` names those).
        "answer": {
            "id": message.id,
            "name": message.name if given_as_object else None,
            "response_metadata": message.response_metadata,
            "additional_kwargs": message.additional_kwargs,
        },
    }
    return message.content, message.status, message.artifact, rest, write


def _given_as_object(command: Any, index: int) -> bool:
    """Whether the update's ``index``-th message was a message object (LangGraph names the
    converted message, which is the update's own only then)."""
    from langchain_core.messages import BaseMessage

    update = command.update
    listed = update.get("messages", []) if isinstance(update, dict) else []
    listed = listed if isinstance(listed, list) else [listed]
    return index < len(listed) and isinstance(listed[index], BaseMessage)


def _update_parts(command: Any, tool_name: str) -> tuple[list, dict, bool]:
    """The update's messages (as message objects), its other keys, and whether the tool
    node checked it (a dict update; a list is refused as the node refuses it for a dict
    input; no update is not checked)."""
    from langchain_core.messages import convert_to_messages

    update = command.update
    if isinstance(update, dict):
        update = copy.deepcopy(update)
        messages = convert_to_messages(update.pop("messages", []))
        return messages, update, True
    if isinstance(update, list):
        # LangGraph's words: deepagents' graph hands its tool node the state as a dict.
        raise ValueError(  # noqa: TRY004 - LangGraph's ValueError, which callers catch
            "Tools can provide a list of messages in Command.update only when using list of messages as "
            f"ToolNode input, got: {update} for tool '{tool_name}'"
        )
    if update is not None:
        # deepagents' filesystem middleware, around every tool call of a deep agent, reads
        # any other update as a dict (`update.get`) and fails with Python's words.
        raise AttributeError(f"'{type(update).__name__}' object has no attribute 'get'")
    return [], {}, False


def _goto(command: Any) -> tuple[list[str], list[tuple[str, Any]]]:
    """The command's ``goto``: the nodes named (the end left out: LangGraph adds no branch
    for it), and its ``Send``s as ``(node, state)``, each running ``node`` in the next step
    on a state of its own."""
    from langgraph.types import Send

    goto = command.goto
    targets = [goto] if isinstance(goto, (str, Send)) else list(goto or ())
    sends = []
    for t in targets:
        if isinstance(t, Send):
            if not isinstance(t.arg, dict):
                # The agent's nodes take its state, a dict; LangGraph would hand them the
                # value as it is and the node would fail on it.
                raise TypeError(
                    f"Send({t.node!r}, ...) to a node of the agent takes the agent's state as a dict, "
                    f"got {type(t.arg).__name__}"
                )
            sends.append((t.node, _send_state(t.arg)))
    return [t for t in targets if not isinstance(t, Send) and t != _END], sends


def _send_state(arg: dict) -> dict:
    """A ``Send``'s state for the core: its messages as the core's (LangGraph hands the node
    the state as it is, so they get no ids)."""
    if "messages" not in arg:
        return dict(arg)
    from langchain_core.messages import convert_to_messages

    from . import _convert

    messages = arg["messages"]
    messages = convert_to_messages(messages if isinstance(messages, list) else [messages])
    return {**arg, "messages": [_convert.to_core(m) for m in messages]}


def _removes_all(messages: list) -> bool:
    from langchain_core.messages import RemoveMessage
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    return len(messages) == 1 and messages[0] == RemoveMessage(id=REMOVE_ALL_MESSAGES)


def with_sent_messages(write: dict | None, writes: list[tuple[str, Any]], earlier: list | None = None) -> dict | None:
    """``write`` (a call's, or none) with the messages its task sent through
    ``__pregel_send`` (``writes``) before the call's own: LangGraph applies the writes made
    during the call before what the call returns; and with the task's ``earlier`` writes of
    keys it wrote again (`TaskChannels.earlier`), which a key's reducer takes too."""
    if earlier:
        write = {**(write or NO_WRITE), "sent": earlier}
    sent = [m for channel, v in writes if channel == "messages" for m in (v if isinstance(v, list) else [v])]
    if not sent:
        return write
    from langchain_core.messages import convert_to_messages

    from . import _convert

    messages, removed = _split_removals(convert_to_messages(sent))
    out = dict(write or NO_WRITE)
    out["before"] = [*(_convert.to_core(m) for m in messages), *out.get("before", ())]
    out["removed"] = [*removed, *((i + len(messages), mid) for i, mid in out.get("removed") or ())]
    return out


def _split_removals(messages: list) -> tuple[list, list[tuple[int, str]]]:
    """The update's messages without its ``RemoveMessage``s, and those as the core's
    ``(index, id)``: each stands before the ``index``-th message kept (the core's reducer
    applies them in that order, `StateDelta::reduce_write`)."""
    from langchain_core.messages import RemoveMessage

    kept: list = []
    removed: list[tuple[int, str]] = []
    for m in messages:
        if isinstance(m, RemoveMessage):
            removed.append((len(kept), m.id))
        else:
            kept.append(m)
    return kept, removed


def _declared_only(update: dict, config: dict | None) -> dict:
    """The update's keys the calling agent's state has: LangGraph ignores a write to a
    channel the graph does not have."""
    config = config or {}
    keys = graph_keys(config.get("configurable") or {}, config.get("metadata"))
    if keys is None:
        return update
    return {k: v for k, v in update.items() if k in keys}


class GraphKeys(frozenset):
    """The state channels of one of deepagents' graphs; ``last_value``: those that take one
    write per step (LangGraph's ``LastValue``: a key with no reducer); ``reducers``: the
    channels of those with one (`_reducers.Reducers`, or None)."""

    last_value: frozenset[str]
    reducers: Any

    def __new__(cls, keys: Any, last_value: frozenset[str] = frozenset(), reducers: Any = None) -> Self:
        out = super().__new__(cls, keys)
        out.last_value = last_value
        out.reducers = reducers
        return out


def last_value_keys(schema: type) -> frozenset[str]:
    """The keys of ``schema`` whose LangGraph channel is a ``LastValue`` (written at most once
    per step, else LangGraph's ``InvalidUpdateError``)."""
    from langgraph.channels.last_value import LastValue

    from deepagents_rs._langgraph_private import _get_channels

    return frozenset(key for key, channel in _get_channels(schema)[0].items() if type(channel) is LastValue)


def graph_keys(configurable: Mapping, metadata: Mapping | None) -> frozenset[str] | None:
    """The state channels of the graph whose task has ``configurable`` and ``metadata`` (the
    agent's or a subagent's), when the run carries them."""
    sets = _task_channels.own_value(configurable, STATE_KEYS_KEY)
    metadata = metadata or {}
    return (sets or {}).get((metadata.get("ls_integration"), metadata.get("lc_agent_name")))


def _in_subagent(config: dict | None) -> bool:
    """Whether the call is a subagent's (its task runs under its parent's task)."""
    from ._stream import RUN_NS_KEY

    metadata = (config or {}).get("metadata") or {}
    # Inside a parent graph's task the run's own tasks continue that task's namespace (the
    # run's namespace, less its own last segment): only deeper ones are a subagent's.
    from ._task_channels import own_value

    run_ns = str(own_value((config or {}).get("configurable") or {}, RUN_NS_KEY) or "")
    return str(metadata.get("langgraph_checkpoint_ns", "")).count("|") > run_ns.count("|")


def _parent_command(command: Any, messages: list, checked: bool, config: dict | None) -> BaseException:
    """LangGraph's ``ParentCommand`` for ``graph=Command.PARENT`` outside a subagent: its
    tool node raises it, and the graph's runner addresses it to the graph that ran this one,
    the caller's (its ``checkpoint_ns``; none for a graph run on its own, which then gets
    the exception)."""
    from dataclasses import replace

    from langgraph.errors import ParentCommand

    update = command.update
    if checked:
        update = {**copy.deepcopy(update), "messages": messages} if "messages" in update else copy.deepcopy(update)
    # A graph embedding this one runs it as one task (the first node's, whose namespace
    # ends the run's): the command is addressed to the task's graph.
    from ._stream import RUN_NS_KEY
    from ._task_channels import with_own

    configurable = with_own((config or {}).get("configurable") or {})
    # The run's namespace, not the tool task's own (`tools:<id>`, under the run's graph).
    namespace = str(configurable.get(RUN_NS_KEY, configurable.get("checkpoint_ns")) or "")
    parent = namespace.rsplit("|", 1)[0] if "|" in namespace else ""
    return ParentCommand(replace(command, update=update, graph=parent))


def refuse_list(result: list, tool_name: str, tool_call_id: str, is_async: bool) -> BaseException:
    """A tool's list of ``Command``s and ``ToolMessage``s: LangGraph's tool node checks it
    (one message must answer the call), then deepagents' filesystem middleware, which
    wraps every tool call of a deep agent to evict large results, fails on it. The error
    each raises, in that order."""
    from langchain_core.messages import ToolMessage
    from langgraph.types import Command

    if not all(isinstance(r, (Command, ToolMessage)) for r in result):
        return TypeError(
            f"Tool {tool_name} returned a list with invalid element types: expected all Command or ToolMessage"
        )
    answers = 0
    for item in result:
        if isinstance(item, ToolMessage):
            answers += item.tool_call_id == tool_call_id
        elif isinstance(item.update, dict):
            answers += sum(
                isinstance(m, ToolMessage) and m.tool_call_id == tool_call_id for m in item.update.get("messages", [])
            )
    if answers != 1:
        return ValueError(
            f"Tool {tool_name} returned a list with {answers} messages bound to tool_call_id {tool_call_id!r}; "
            "expected exactly one terminating ToolMessage."
        )
    for item in result:
        if isinstance(item, Command):
            _update_parts(item, tool_name)
    hook = "_aintercept_large_tool_result" if is_async else "_intercept_large_tool_result"
    return AssertionError(f"Unreachable code reached in {hook}: for tool_result of type {type(result)}")


def parent_output(command: Any) -> tuple:
    """A ``ParentCommand`` out of a compiled subagent, addressed to the graph that ran it:
    the ``task`` call's output for the core, written in place of the call's answer (LangGraph's
    runner applies it as the writes of the task that ran the subgraph, unchecked)."""
    from langchain_core.messages import convert_to_messages

    pairs = command._update_as_tuples()
    messages = [m for key, value in pairs if key == "messages" for m in convert_to_messages(_as_list(value))]
    rest = {key: value for key, value in pairs if key != "messages"}
    return _in_place_of_answer(messages, rest, _goto(command))


def _in_place_of_answer(messages: list, rest: dict, goto: tuple, to_parent: bool = False) -> tuple:
    """The tool output for a command written in place of the call's answer: its messages
    (removals apart) and other keys, the call left unanswered."""
    from . import _convert

    kept, removed = _split_removals(messages)
    rest[COMMAND_MARKER] = True
    write = {
        "before": [_convert.to_core(m) for m in kept],
        "after": [],
        "removed": removed,
        "unanswered": True,
        "goto": goto[0],
        "sends": goto[1],
    }
    if to_parent:
        write["to_parent"] = True
    return "", "success", None, rest, write


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]
