"""The Nemotron 3 Ultra profile's policy nudges: short user-role notes (named, so they are
never taken for the user's words) that point the model at the right tools before it acts.

On the first model call of a turn (request only, not kept in state): prefer the domain tools
for a request that is not about files, or the file tools for one that is. Before a model call
(kept in state, each at most once as its marker records): compact a long conversation that
turns to new work, act when the user says go, carry out a chained action after its lookups,
leave the filesystem after a dead-end search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, NotRequired

from langchain.agents.middleware.types import AgentMiddleware, AgentState, PrivateStateAttr
from langchain_core.messages import HumanMessage, ToolMessage

from deepagents_rs._nemotron import conversation as conv
from deepagents_rs._nemotron import patterns as pat
from deepagents_rs._nemotron import texts

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langchain.agents.middleware.types import ModelCallResult, ModelRequest
    from langgraph.runtime import Runtime

#: How many domain tools the preference nudge names.
_NAMED_DOMAIN_TOOLS = 12


class NemotronPolicyNudgeState(AgentState):
    """The markers of the nudges already given (a nudge is given once)."""

    nemotron_transition_nudged: NotRequired[Annotated[bool, PrivateStateAttr]]
    nemotron_action_nudged: NotRequired[Annotated[list[str], PrivateStateAttr]]
    nemotron_tool_chain_nudged: NotRequired[Annotated[bool, PrivateStateAttr]]
    nemotron_domain_tool_nudged: NotRequired[Annotated[bool, PrivateStateAttr]]


def _opening_request(request: ModelRequest[Any]) -> str | None:
    """The user's text when this is the turn's first model call (the turn holds only it)."""
    turn = conv.current_turn(conv.request_conversation(request))
    if len(turn) != 1 or not isinstance(turn[0], HumanMessage):
        return None
    return conv.text_of(turn[0])


def _with_note(request: ModelRequest[Any], content: str, source: str) -> ModelRequest[Any]:
    return request.override(messages=[*request.messages, HumanMessage(content=content, name=source)])


def _transition(state: dict[str, Any], messages: list[Any]) -> dict[str, Any] | None:
    """Once per thread: a long conversation whose latest request starts new work, or more file
    work after earlier file work, and no compaction since that request."""
    if state.get("nemotron_transition_nudged") or len(messages) < conv.TRANSITION_MIN_MESSAGES:
        return None
    users = conv.user_indexes(messages)
    if len(users) < conv.TRANSITION_MIN_USER_TURNS:
        return None
    latest = users[-1]
    if any(call.get("name") == "compact_conversation" for call in conv.tool_calls(messages[latest:])):
        return None
    text = conv.text_of(messages[latest])
    earlier_file_work = any(call.get("name") in conv.FILESYSTEM_TOOLS for call in conv.tool_calls(messages[:latest]))
    more_file_work = any(regex.search(text) for regex in (pat.FOLLOW_ON_WORK, pat.LARGE_READ, pat.FILE_REFERENCE))
    if not (pat.NEW_TASK.search(text) or (earlier_file_work and more_file_work)):
        return None
    return conv.nudge(texts.TRANSITION, conv.TRANSITION_NUDGE, nemotron_transition_nudged=True)


def _action_commit(state: dict[str, Any], messages: list[Any]) -> dict[str, Any] | None:
    """The user, after tools have run, says to act now; once per (position, request)."""
    if not messages or not conv.is_user_message(messages[-1]):
        return None
    text = conv.text_of(messages[-1])
    if not pat.ACTION_REQUEST.search(text) or not conv.tool_calls(messages[:-1]):
        return None
    done = list(state.get("nemotron_action_nudged") or [])
    key = f"{len(messages)}:{text[:200]}"
    if key in done:
        return None
    return conv.nudge(texts.ACTION_COMMIT, conv.ACTION_COMMIT_NUDGE, nemotron_action_nudged=[*done, key])


def _tool_chain(state: dict[str, Any], messages: list[Any]) -> dict[str, Any] | None:
    """Once per thread: the request chains an action after lookups, lookups have run, and no
    state-changing tool has."""
    if state.get("nemotron_tool_chain_nudged") or not messages or not isinstance(messages[-1], ToolMessage):
        return None
    turn = conv.current_turn(messages)
    if not pat.CHAINED_ACTION.search(conv.last_user_text(turn)):
        return None
    calls = conv.tool_calls(turn)
    if not calls or any(conv.is_mutation_tool(call.get("name", "")) for call in calls):
        return None
    return conv.nudge(texts.TOOL_CHAIN, conv.TOOL_CHAIN_NUDGE, nemotron_tool_chain_nudged=True)


def _domain_after_dead_end(state: dict[str, Any], messages: list[Any]) -> dict[str, Any] | None:
    """Once per thread: a file tool found nothing in a turn that has used domain tools."""
    if state.get("nemotron_domain_tool_nudged") or not messages or not isinstance(messages[-1], ToolMessage):
        return None
    last = messages[-1]
    if not conv.text_of(last).lower().startswith(conv.DEAD_END_PREFIXES):
        return None
    turn = conv.current_turn(messages)
    call = conv.call_of(turn, last)
    if call is None or call.get("name") not in conv.FILESYSTEM_TOOLS:
        return None
    if not any(conv.is_domain_tool(c.get("name", "")) for c in conv.tool_calls(turn)):
        return None
    return conv.nudge(texts.DOMAIN_TOOL_AFTER_DEAD_END, conv.DOMAIN_TOOL_NUDGE, nemotron_domain_tool_nudged=True)


class NemotronPolicyNudgeMiddleware(AgentMiddleware):
    """Adds short notes pointing the model at the tools and steps it tends to miss."""

    name = "NemotronPolicyNudgeMiddleware"
    state_schema = NemotronPolicyNudgeState

    @staticmethod
    def _should_prefer_domain_tools(request: ModelRequest[Any]) -> bool:
        """The turn opens with a request not about files, and both file and domain tools exist."""
        text = _opening_request(request)
        if text is None or pat.FILE_TASK.search(text):
            return False
        names = conv.request_tool_names(request)
        return any(n in conv.FILESYSTEM_TOOLS for n in names) and any(map(conv.is_domain_tool, names))

    @staticmethod
    def _should_prefer_filesystem_tools(request: ModelRequest[Any]) -> bool:
        """The turn opens asking for a file's content, and `read_file` exists."""
        text = _opening_request(request)
        return (
            text is not None
            and bool(pat.FILESYSTEM_ACCESS_REQUEST.search(text))
            and "read_file" in conv.request_tool_names(request)
        )

    @classmethod
    def _prepared(cls, request: ModelRequest[Any]) -> ModelRequest[Any]:
        if cls._should_prefer_domain_tools(request):
            domain = [name for name in conv.request_tool_names(request) if conv.is_domain_tool(name)]
            content = texts.DOMAIN_TOOL_PREFERENCE.format(tools=", ".join(domain[:_NAMED_DOMAIN_TOOLS]))
            request = _with_note(request, content, conv.DOMAIN_TOOL_PREFERENCE)
        if cls._should_prefer_filesystem_tools(request):
            request = _with_note(request, texts.FILESYSTEM_REQUEST, conv.FILESYSTEM_REQUEST_NUDGE)
        return request

    @staticmethod
    def _nudge(state: dict[str, Any]) -> dict[str, Any] | None:
        messages = list(state.get("messages") or [])
        checks = (_transition, _action_commit, _tool_chain, _domain_after_dead_end)
        return conv.merged([check(state, messages) for check in checks])

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelCallResult]
    ) -> ModelCallResult:
        """Calls the model, with the tool-preference note on a turn's first call when one applies."""
        return handler(self._prepared(request))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelCallResult]]
    ) -> ModelCallResult:
        """`wrap_model_call` under `ainvoke`."""
        return await handler(self._prepared(request))

    def before_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """The notes that apply now, added to the conversation, with their markers."""
        return self._nudge(state)

    async def abefore_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """`before_model` under `ainvoke`."""
        return self._nudge(state)
