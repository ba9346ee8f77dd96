"""How the Nemotron 3 Ultra profile's middleware reads a conversation: message text, the
current turn, tool calls paired with their results, and which tools are domain tools and which
of those change state.

The turn begins at the user's latest message; the profile's own nudges are user messages too,
told apart by their `name`, so they never start a turn or count as the user's words.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from deepagents_rs._nemotron import patterns as pat
from deepagents_rs.profiles.harness._nvidia_nemotron_3_ultra import _FILESYSTEM_TOOLS as FILESYSTEM_TOOLS

#: The `name` each nudge is sent under.
FINAL_GUARD = "nemotron_final_answer_guard"
TRANSITION_NUDGE = "nemotron_transition_nudge"
FOLLOWUP_GUARD = "nemotron_followup_guard"
ENTITY_GUARD = "nemotron_entity_guard"
ACTION_COMMIT_NUDGE = "nemotron_action_commit_nudge"
TOOL_CHAIN_NUDGE = "nemotron_tool_chain_nudge"
FILESYSTEM_REQUEST_NUDGE = "nemotron_filesystem_request_nudge"
DOMAIN_TOOL_PREFERENCE = "nemotron_domain_tool_preference"
DOMAIN_TOOL_NUDGE = "nemotron_domain_tool_nudge"
BUDGET_GUARD = "nemotron_progress_budget"
NUDGE_NAMES = frozenset(
    (
        FINAL_GUARD,
        TRANSITION_NUDGE,
        FOLLOWUP_GUARD,
        ENTITY_GUARD,
        ACTION_COMMIT_NUDGE,
        TOOL_CHAIN_NUDGE,
        FILESYSTEM_REQUEST_NUDGE,
        DOMAIN_TOOL_PREFERENCE,
        DOMAIN_TOOL_NUDGE,
        BUDGET_GUARD,
    )
)

#: deepagents' own tools: scaffolding, never the application's domain tools.
HARNESS_TOOLS = frozenset((*FILESYSTEM_TOOLS, "compact_conversation", "execute", "task", "write_todos"))
#: A tool name whose first word is one of these only reads.
READ_VERBS = frozenset(["count", "describe", "fetch", "find", "get", "list", "lookup", "read", "retrieve", "search"])
#: A tool name with one of these words changes state.
# Kept as sentences: a list of 33 one-word lines hides which words are there.
MUTATION_VERBS = frozenset(
    "activate approve archive assign book cancel charge close create deactivate delete disable enable escalate grant "  # noqa: SIM905
    "invite notify pay post publish refund reject remove reserve revoke schedule send submit terminate transfer "
    "update upgrade write".split()
)
#: Results that tell the model nothing (an empty search, an error).
DEAD_END_PREFIXES = ("no files found", "no matches found", "error:")

#: How long a conversation must be, in messages and user turns, before a transition nudge.
TRANSITION_MIN_MESSAGES = 6
TRANSITION_MIN_USER_TURNS = 2
#: Past these, a turn is looping: the final-answer guards stay quiet rather than send it back.
REPAIR_MAX_MODEL_CALLS = 8
REPAIR_MAX_TOOL_RESULTS = 28


def text_of(message: Any) -> str:
    """A message's text: its string content, or its parts' `text` fields joined."""
    content = message.content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def is_user_message(message: Any) -> bool:
    """A user message the user wrote (not one of the profile's nudges)."""
    return isinstance(message, HumanMessage) and getattr(message, "name", None) not in NUDGE_NAMES


def user_indexes(messages: list[Any]) -> list[int]:
    return [i for i, message in enumerate(messages) if is_user_message(message)]


def last_user_text(messages: list[Any]) -> str:
    indexes = user_indexes(messages)
    return text_of(messages[indexes[-1]]) if indexes else ""


def current_turn(messages: list[Any]) -> list[Any]:
    """The messages from the user's latest one on (all of them when the user has not spoken)."""
    indexes = user_indexes(messages)
    return messages[indexes[-1] :] if indexes else messages


def tool_calls(messages: list[Any]) -> list[dict[str, Any]]:
    return [call for message in messages if isinstance(message, AIMessage) for call in message.tool_calls or []]


def model_turns(messages: list[Any]) -> int:
    return sum(isinstance(message, AIMessage) for message in messages)


def tool_result_count(messages: list[Any]) -> int:
    return sum(isinstance(message, ToolMessage) for message in messages)


def looping(messages: list[Any]) -> bool:
    return model_turns(messages) >= REPAIR_MAX_MODEL_CALLS or tool_result_count(messages) >= REPAIR_MAX_TOOL_RESULTS


def call_of(messages: list[Any], result: ToolMessage) -> dict[str, Any] | None:
    """The latest tool call among `messages` that `result` answers."""
    return next((call for call in reversed(tool_calls(messages)) if call.get("id") == result.tool_call_id), None)


def result_value(text: str) -> object:
    """A tool result's value: its JSON when it parses, else its stripped text (`None` if empty)."""
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def results(messages: list[Any]) -> list[tuple[dict[str, Any], object]]:
    """Each tool result whose call is among `messages`, with that call, in the results' order."""
    by_id = {call["id"]: call for call in tool_calls(messages) if isinstance(call.get("id"), str)}
    return [
        (by_id[message.tool_call_id], result_value(text_of(message)))
        for message in messages
        if isinstance(message, ToolMessage) and message.tool_call_id in by_id
    ]


def as_int(value: object) -> int | None:
    """An integer value, or a string of digits as one; anything else (booleans too) is `None`."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def is_domain_tool(name: str) -> bool:
    """A tool of the application, not deepagents' scaffolding nor a `__`-private one."""
    return bool(name) and name not in HARNESS_TOOLS and not name.startswith("__")


def is_mutation_tool(name: str) -> bool:
    """A domain tool whose name has a state-changing verb and does not start with a reading one."""
    if not is_domain_tool(name):
        return False
    words = [word.lower() for word in pat.NAME_TOKEN.findall(name.replace("_", " "))]
    return bool(words) and words[0] not in READ_VERBS and not MUTATION_VERBS.isdisjoint(words)


def tool_name(tool: object) -> str | None:
    """The name of a tool as a request carries it: a tool object, or a dict (OpenAI's shape too)."""
    if not isinstance(tool, dict):
        name = getattr(tool, "name", None)
        return name if isinstance(name, str) else None
    if isinstance(tool.get("name"), str):
        return tool["name"]
    function = tool.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        return function["name"]
    return None


def request_tool_names(request: Any) -> list[str]:
    return [name for name in map(tool_name, request.tools or []) if name]


def request_conversation(request: Any) -> list[Any]:
    """The whole conversation behind a model request: its state's messages when it has them (a
    request's own may be trimmed), else the request's."""
    state = request.state or {}
    messages = state.get("messages") if isinstance(state, dict) else None
    return messages if isinstance(messages, list) else list(request.messages or [])


def is_final_answer(message: AIMessage) -> bool:
    """A model message with text and no tool calls (the budget's stand-in answer aside)."""
    return getattr(message, "name", None) != BUDGET_GUARD and not message.tool_calls and bool(text_of(message).strip())


def _normalized_reply(text: str) -> str:
    return pat.WHITESPACE.sub(" ", text.strip().strip("\"'`").strip(" .!?")).strip()


def gives_requested_reply(user_text: str, final_text: str) -> bool:
    """Whether the user asked for an exact reply ("reply with exactly: OK") and got it."""
    wanted = {_normalized_reply(m.group(1)) for regex in pat.EXACT_REPLIES for m in regex.finditer(user_text)}
    wanted.discard("")
    return _normalized_reply(final_text) in wanted


def question_count(text: str) -> int:
    return max(text.count("?"), len(pat.QUESTION_START.findall(text)))


def nudge(content: str, source: str, **updates: Any) -> dict[str, Any]:
    """A state update adding `content` as a user message named `source`, with `updates`."""
    return {"messages": [HumanMessage(content=content, name=source)], **updates}


def merged(updates: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """Several nudges as one update: their messages in order, their other keys together."""
    present = [update for update in updates if update is not None]
    if not present:
        return None
    out: dict[str, Any] = {"messages": [m for update in present for m in update.get("messages", [])]}
    for update in present:
        out.update((key, value) for key, value in update.items() if key != "messages")
    return out
