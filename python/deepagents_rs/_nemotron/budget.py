"""The Nemotron 3 Ultra profile's step budget: once a turn has used too many model calls or
tool results, or repeats one tool call, the model is not called again; the turn ends with an
answer made of the tool results gathered so far."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import AIMessage

from deepagents_rs._nemotron import conversation as conv
from deepagents_rs._nemotron import patterns as pat
from deepagents_rs._nemotron import texts

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langchain.agents.middleware.types import ModelCallResult, ModelRequest

#: How many results the stand-in answer lists, and how long each may be.
_MAX_LISTED_RESULTS = 12
_MAX_RESULT_CHARS = 500


def result_summary(value: object) -> str:
    """A tool result on one line: JSON for structures, cut to `_MAX_RESULT_CHARS` with `...`."""
    if isinstance(value, dict | list):
        text = json.dumps(value, sort_keys=True, default=str)
    else:
        text = "" if value is None else str(value)
    text = pat.WHITESPACE.sub(" ", text).strip()
    if len(text) <= _MAX_RESULT_CHARS:
        return text
    return text[: _MAX_RESULT_CHARS - 3].rstrip() + "..."


def _informative(value: object) -> bool:
    text = result_summary(value).lower()
    return bool(text) and not text.startswith(conv.DEAD_END_PREFIXES)


def _longest_repeat(messages: list[Any]) -> int:
    """The longest run of identical consecutive tool calls (same name and arguments)."""
    longest = run = 0
    previous = None
    for call in conv.tool_calls(messages):
        key = f"{call.get('name', '')}:{json.dumps(call.get('args') or {}, sort_keys=True, default=str)}"
        run = run + 1 if key == previous else 1
        previous = key
        longest = max(longest, run)
    return longest


def _stand_in_answer(messages: list[Any], reason: str) -> str:
    """The turn's informative results first (the rest fill up to the listed number), without
    repeating a tool's identical result."""
    found = conv.results(messages)
    if not found:
        return texts.BUDGET_NO_RESULTS.format(reason=reason)
    listed = [entry for entry in found if _informative(entry[1])]
    if len(listed) < _MAX_LISTED_RESULTS:
        listed += [entry for entry in found if entry not in listed]
    rows: dict[tuple[str, str], str] = {}
    for call, value in listed[:_MAX_LISTED_RESULTS]:
        tool, summary = call.get("name") or "tool", result_summary(value)
        rows.setdefault((tool, summary), texts.BUDGET_ROW.format(tool=tool, result=summary))
    return texts.BUDGET_WITH_RESULTS.format(rows="\n".join(rows.values()))


class NemotronProgressBudgetMiddleware(AgentMiddleware):
    """Ends a turn that has spent its budget of model calls, tool results or identical repeated
    calls, with the results gathered so far instead of another model call."""

    name = "NemotronProgressBudgetMiddleware"

    def __init__(
        self, *, max_model_calls: int = 16, max_tool_results: int = 48, max_repeated_tool_calls: int = 3
    ) -> None:
        # Public attributes, as deepagents has them (callers tune a built instance).
        self.max_tool_results, self.max_model_calls = max_tool_results, max_model_calls
        self.max_repeated_tool_calls = max_repeated_tool_calls

    @staticmethod
    def _messages(request: ModelRequest[Any]) -> list[Any]:
        return conv.request_conversation(request)

    def _exceeded_reason(self, messages: list[Any]) -> str | None:
        """Which budget the turn has spent, in words, or `None`."""
        turns = conv.model_turns(messages)
        if turns >= self.max_model_calls:
            return f"{turns} model turns"
        results = conv.tool_result_count(messages)
        if results >= self.max_tool_results:
            return f"{results} tool results"
        repeats = _longest_repeat(messages)
        if repeats >= self.max_repeated_tool_calls:
            return f"{repeats} repeated identical tool calls"
        return None

    def _stop(self, request: ModelRequest[Any]) -> AIMessage | None:
        turn = conv.current_turn(self._messages(request))
        reason = self._exceeded_reason(turn)
        if reason is None:
            return None
        return AIMessage(
            content=_stand_in_answer(turn, reason),
            name=conv.BUDGET_GUARD,
            response_metadata={"nemotron_progress_budget_reason": reason},
        )

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelCallResult]
    ) -> ModelCallResult:
        """The model's reply, or the stand-in answer when the turn's budget is spent."""
        stop = self._stop(request)
        return handler(request) if stop is None else stop

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelCallResult]]
    ) -> ModelCallResult:
        """`wrap_model_call` under `ainvoke`."""
        stop = self._stop(request)
        return await handler(request) if stop is None else stop
