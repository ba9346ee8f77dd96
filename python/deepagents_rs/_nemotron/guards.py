"""The Nemotron 3 Ultra profile's final-answer guards: when the agent is about to end, each
looks at the model's last answer and, once per thread, sends it back to the model with a note
when the answer asks redundant follow-up questions (`FollowupDisciplineMiddleware`), shows
entity IDs it never resolved (`EntityResolutionGuardMiddleware`, which also warns before the
answer), or drops what the action it took produced (`FinalAnswerGuardMiddleware`).

None fires when the user asked for an exact reply and got it, nor in a turn already looping.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any, NotRequired

from langchain.agents.middleware.types import AgentMiddleware, AgentState, PrivateStateAttr, hook_config
from langchain_core.messages import AIMessage, ToolMessage

from deepagents_rs._nemotron import conversation as conv
from deepagents_rs._nemotron import patterns as pat
from deepagents_rs._nemotron import texts
from deepagents_rs._nemotron.budget import result_summary

if TYPE_CHECKING:
    from collections.abc import Callable

    from langgraph.runtime import Runtime

#: More questions than this, answering a request with a cadence, is too many.
_MAX_FOLLOWUP_QUESTIONS = 2
#: Arguments of a state-changing call whose short values the answer must repeat.
_LITERAL_KEYS = ("title", "subject")
_LITERAL_LENGTHS = range(3, 81)


def _final_answer(state: dict[str, Any], marker: str) -> tuple[list[Any], AIMessage] | None:
    """The conversation and the model's final answer in it, when a guard marked `marker` may
    look at it (not fired yet, the turn not looping)."""
    messages = list(state.get("messages") or [])
    if state.get(marker) or not messages or conv.looping(messages):
        return None
    last = messages[-1]
    if not isinstance(last, AIMessage) or not conv.is_final_answer(last):
        return None
    return messages, last


def _send_back(content: str, source: str, marker: str) -> dict[str, Any]:
    return conv.nudge(content, source, jump_to="model", **{marker: True})


class _SendsBack(AgentMiddleware):
    """A guard run when the agent would end: once per thread (its `_marker` in state records
    it), and not in a looping turn, its `_check` of the conversation and the model's final
    answer may send the model back."""

    _marker: str
    _check: Callable[[list[Any], AIMessage], dict[str, Any] | None]

    def _nudge(self, state: dict[str, Any]) -> dict[str, Any] | None:
        found = _final_answer(state, self._marker)
        return None if found is None else self._check(*found)

    @hook_config(can_jump_to=["model"])
    def after_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """The note and the jump back to the model, or `None`."""
        return self._nudge(state)

    @hook_config(can_jump_to=["model"])
    async def aafter_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """`after_agent` under `ainvoke`."""
        return self._nudge(state)


class FollowupDisciplineState(AgentState):
    """Whether the follow-up guard has sent the model back already."""

    nemotron_followup_guard_fired: NotRequired[Annotated[bool, PrivateStateAttr]]


class FollowupDisciplineMiddleware(_SendsBack):
    """Sends a final follow-up question back once when it re-asks what the user gave or
    misses what is needed."""

    name = "FollowupDisciplineMiddleware"
    state_schema = FollowupDisciplineState

    @staticmethod
    def _needs_rewrite(user_text: str, final_text: str) -> bool:
        """Whether the answer re-asks what the request gave, or misses what it lacks."""
        recurring = pat.RECURRENCE.search(user_text) is not None
        if recurring and (
            pat.SCHEDULE_QUESTION.search(final_text) or conv.question_count(final_text) > _MAX_FOLLOWUP_QUESTIONS
        ):
            return True
        asks_scope = pat.SOURCE_SCOPE_QUESTION.search(final_text) is not None
        if asks_scope and pat.SOURCE_SCOPE_SUPPLIED.search(user_text):
            return True
        if (
            pat.ANALYSIS_REQUEST.search(user_text)
            and "data" in user_text.lower()
            and not pat.ANALYSIS_GOAL.search(final_text)
        ):
            return True
        if pat.SUPPORT_REQUEST.search(user_text) and not pat.SUPPORT_DOMAIN.search(final_text):
            return True
        asks_delivery_or_scope = asks_scope or pat.DELIVERY_QUESTION.search(final_text) is not None
        return recurring and pat.DELIVERY_CONTEXT.search(user_text) is not None and not asks_delivery_or_scope

    _marker = "nemotron_followup_guard_fired"

    @staticmethod
    def _check(messages: list[Any], last: AIMessage) -> dict[str, Any] | None:
        user_text, final_text = conv.last_user_text(messages[:-1]), conv.text_of(last)
        if conv.gives_requested_reply(user_text, final_text):
            return None
        if not FollowupDisciplineMiddleware._needs_rewrite(user_text, final_text):
            return None
        return _send_back(texts.FOLLOWUP_REWRITE, conv.FOLLOWUP_GUARD, FollowupDisciplineMiddleware._marker)


def _arg_id(call: dict[str, Any], entity: str) -> int | None:
    return conv.as_int((call.get("args") or {}).get(f"{entity}_id"))


def _current_ids(messages: list[Any]) -> dict[str, int]:
    """`get_current_X_id` results: the current X's ID, by X."""
    current: dict[str, int] = {}
    for call, value in conv.results(messages):
        name = call.get("name")
        found = pat.CURRENT_ID_TOOL.fullmatch(name) if isinstance(name, str) else None
        entity_id = conv.as_int(value) if found else None
        if found and entity_id is not None:
            current[found.group(1)] = entity_id
    return current


def _relations(messages: list[Any]) -> dict[tuple[str, int, str], int]:
    """`get_X_Y(X_id=a)` results that are an ID: (X, a, Y) to that Y's ID (names and titles aside)."""
    bound: dict[tuple[str, int, str], int] = {}
    for call, value in conv.results(messages):
        name = call.get("name", "")
        if not isinstance(name, str) or pat.DISPLAY_TOOL_ANY.fullmatch(name):
            continue
        found = pat.RELATION_TOOL.fullmatch(name)
        if found is None:
            continue
        source, target = found.groups()
        source_id, target_id = _arg_id(call, source), conv.as_int(value)
        if source_id is not None and target_id is not None:
            bound[(source, source_id, target)] = target_id
    return bound


def _displayed(messages: list[Any]) -> set[tuple[str, int]]:
    """The entities whose name or title was looked up (`get_X_name(X_id=a)`)."""
    shown: set[tuple[str, int]] = set()
    for call in conv.tool_calls(messages):
        found = pat.DISPLAY_TOOL.fullmatch(call.get("name", ""))
        entity_id = _arg_id(call, found.group(1)) if found else None
        if found and entity_id is not None:
            shown.add((found.group(1), entity_id))
    return shown


def _unresolved_branches(messages: list[Any], user_lower: str, numbers: set[str]) -> list[str]:
    """For each "current X" the user asks about: each Y of X the user names must be looked up
    from the current X, and its ID resolved to a name; and any ID the answer shows must be."""
    current = _current_ids(messages)
    if not current:
        return []
    bound, shown = _relations(messages), _displayed(messages)
    missing: list[str] = []
    for source, source_id in current.items():
        if f"current {source}" not in user_lower:
            continue
        targets = {t for s, _, t in bound if s == source and re.search(rf"\b{re.escape(t)}\b", user_lower)}
        for target in sorted(targets):
            target_id = bound.get((source, source_id, target))
            fields = {"target": target, "source": source, "source_id": source_id, "target_id": target_id}
            if target_id is None:
                missing.append(texts.ENTITY_MISSING_LOOKUP.format(**fields))
            elif (target, target_id) not in shown:
                missing.append(texts.ENTITY_MISSING_FROM_CURRENT.format(**fields))
    for (source, source_id, target), target_id in bound.items():
        if str(target_id) in numbers and (target, target_id) not in shown:
            missing.append(
                texts.ENTITY_MISSING_FROM.format(target=target, target_id=target_id, source=source, source_id=source_id)
            )
    return missing


def _unresolved_displays(messages: list[Any], user_lower: str, numbers: set[str]) -> list[str]:
    """Each entity the user asks about ("which X", "that X") that a lookup took by ID: its ID
    must be resolved to a name when the answer shows the ID or the user refers to it."""
    shown = _displayed(messages)
    missing: list[str] = []
    for call in conv.tool_calls(messages):
        name = call.get("name", "")
        found = pat.ENTITY_TOOL.fullmatch(name)
        if found is None or pat.DISPLAY_TOOL_ANY.fullmatch(name):
            continue
        entity = found.group(1)
        asked = re.search(rf"\b(?:which|what)\s+(?:\w+\s+){{0,4}}{re.escape(entity)}\b", user_lower) is not None
        referred = any(
            phrase in user_lower
            for phrase in (f"that {entity}", f"{entity} with", f"{entity} whose", f"selected {entity}")
        )
        entity_id = _arg_id(call, entity) if asked or referred else None
        if entity_id is not None and (str(entity_id) in numbers or referred) and (entity, entity_id) not in shown:
            missing.append(texts.ENTITY_MISSING_DISPLAY.format(entity=entity, entity_id=entity_id))
    return missing


def _lookups_for(missing: list[str]) -> str:
    """The lookup that resolves each missing item, once each, `; `-separated."""
    steps: list[str] = []
    for item in missing:
        lookup = pat.MISSING_LOOKUP.fullmatch(item)
        relation = pat.MISSING_RELATION.fullmatch(item)
        display = pat.MISSING_DISPLAY.fullmatch(item)
        if lookup is not None:
            target, source, source_id = lookup.groups()
            steps.append(texts.ENTITY_STEP_RELATION.format(source=source, target=target, source_id=source_id))
        elif relation is not None or display is not None:
            entity, entity_id = (relation or display).groups()[:2]
            steps.append(texts.ENTITY_STEP_DISPLAY.format(entity=entity, entity_id=entity_id))
    return "; ".join(dict.fromkeys(steps))


class EntityResolutionGuardState(AgentState):
    """Whether the entity guard has warned (before an answer) and sent the model back."""

    nemotron_entity_pre_nudged: NotRequired[Annotated[bool, PrivateStateAttr]]
    nemotron_entity_guard_fired: NotRequired[Annotated[bool, PrivateStateAttr]]


class EntityResolutionGuardMiddleware(_SendsBack):
    """Warns once before the answer, and sends a final answer back once, while entity IDs
    the user asked about are not resolved to names through their own lookups."""

    name = "EntityResolutionGuardMiddleware"
    state_schema = EntityResolutionGuardState

    @staticmethod
    def _missing_resolutions(messages: list[Any], user_text: str, final_text: str) -> list[str]:
        user_lower = user_text.lower()
        numbers = set(pat.LONG_NUMBER.findall(final_text))
        missing = _unresolved_branches(messages, user_lower, numbers) + _unresolved_displays(
            messages, user_lower, numbers
        )
        return list(dict.fromkeys(missing))

    @staticmethod
    def _before_nudge(state: dict[str, Any]) -> dict[str, Any] | None:
        """Once per thread, after a tool result: what the model must resolve before answering."""
        messages = list(state.get("messages") or [])
        if state.get("nemotron_entity_pre_nudged") or not messages or not isinstance(messages[-1], ToolMessage):
            return None
        missing = EntityResolutionGuardMiddleware._missing_resolutions(messages, conv.last_user_text(messages), "")
        if not missing:
            return None
        content = texts.ENTITY_BEFORE_ANSWER.format(missing=", ".join(missing), steps=_lookups_for(missing))
        return conv.nudge(content, conv.ENTITY_GUARD, nemotron_entity_pre_nudged=True)

    _marker = "nemotron_entity_guard_fired"

    @staticmethod
    def _check(messages: list[Any], last: AIMessage) -> dict[str, Any] | None:
        earlier = messages[:-1]
        missing = EntityResolutionGuardMiddleware._missing_resolutions(
            earlier, conv.last_user_text(earlier), conv.text_of(last)
        )
        if not missing:
            return None
        content = texts.ENTITY_FINAL_ANSWER.format(missing=", ".join(missing), steps=_lookups_for(missing))
        return _send_back(content, conv.ENTITY_GUARD, EntityResolutionGuardMiddleware._marker)

    def before_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """The warning listing the lookups still needed, or `None`."""
        return self._before_nudge(state)

    async def abefore_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """`before_model` under `ainvoke`."""
        return self._before_nudge(state)


def _action_literals(calls: list[dict[str, Any]]) -> list[str]:
    """The literals the answer must repeat from state-changing calls: version strings (`v1.2.3`)
    in any argument, and short titles and subjects; first occurrence first."""
    literals: list[str] = []
    for call in calls:
        if not conv.is_mutation_tool(call.get("name", "")):
            continue
        args = call.get("args") or {}
        for value in args.values():
            if isinstance(value, str):
                literals += pat.VERSION_LITERAL.findall(value)
        for key in _LITERAL_KEYS:
            value = args.get(key)
            if isinstance(value, str) and len(value) in _LITERAL_LENGTHS:
                literals.append(value)
    return list(dict.fromkeys(literals))


class FinalAnswerGuardState(AgentState):
    """Whether the final-answer guard has sent the model back already."""

    nemotron_final_guard_fired: NotRequired[Annotated[bool, PrivateStateAttr]]


class FinalAnswerGuardMiddleware(_SendsBack):
    """Sends a final answer back once when it drops a literal of the action taken or says
    only "done" about it."""

    name = "FinalAnswerGuardMiddleware"
    state_schema = FinalAnswerGuardState

    _marker = "nemotron_final_guard_fired"

    @staticmethod
    def _check(messages: list[Any], last: AIMessage) -> dict[str, Any] | None:
        earlier, final_text = messages[:-1], conv.text_of(last)
        if conv.gives_requested_reply(conv.last_user_text(earlier), final_text):
            return None
        marker = FinalAnswerGuardMiddleware._marker
        dropped = [v for v in _action_literals(conv.tool_calls(earlier)) if v.lower() not in final_text.lower()]
        if dropped:
            return _send_back(
                texts.FINAL_MISSING_LITERALS.format(literals=", ".join(dropped)), conv.FINAL_GUARD, marker
            )
        mutation = next(
            (r for r in reversed(conv.results(earlier)) if conv.is_mutation_tool(r[0].get("name", ""))), None
        )
        if mutation is None or not pat.VAGUE_COMPLETION.fullmatch(final_text.strip()):
            return None
        summary = result_summary(mutation[1])
        if not summary:
            return None
        content = texts.FINAL_VAGUE_MUTATION.format(tool=mutation[0].get("name", "tool"), result=summary)
        return _send_back(content, conv.FINAL_GUARD, marker)
