"""What an async subagent's run answered, and the notification messages that report it."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import convert_to_messages

from . import _async_subagent_texts as texts
from ._async_tasks import _MAX_RESULT_CHARS, _MEDIA, _NOTIFICATION_KEY, _NOTIFIED, _WAITING, AsyncTask, _status_of

# -- what a task's subagent answered ----------------------------------------------------------


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _final_content(values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The subagent's last message as standard content blocks."""
    messages = values.get("messages") or []
    if not messages:
        return [_text(texts.NO_OUTPUT)]
    try:
        return list(convert_to_messages(messages[-1:])[0].content_blocks)
    except ValueError:
        last = messages[-1]
        return [_text(str(last.get("content", "") if isinstance(last, Mapping) else last))]


def _interrupts(thread: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    pending = [item for items in ((thread or {}).get("interrupts") or {}).values() for item in items]
    return [{"id": item["id"], "value": item["value"]} for item in pending]


def _check_result(run: Mapping[str, Any], thread_id: str, thread: Mapping[str, Any] | None) -> dict[str, Any]:
    status = _status_of(run, thread)
    result: dict[str, Any] = {"status": status, "thread_id": thread_id}
    if status == "pending":
        result["note"] = texts.PENDING_NOTE
    elif status == "success":
        values = (thread or {}).get("values")
        result["result"] = _final_content(values if isinstance(values, Mapping) else {})
    elif status == "error":
        result["error"] = str(run.get("error")) if run.get("error") else texts.RUN_ERROR
    elif status == _WAITING:
        result["interrupts"] = _interrupts(thread)
        result["note"] = texts.WAITING_NOTE
    return result


def _check_output(result: dict[str, Any]) -> Any:
    """A check result as tool content: JSON, the answer's text in ``result``; an answer with
    media follows the status JSON as its own blocks."""
    blocks = result.get("result")
    if not isinstance(blocks, list):
        return json.dumps(result)
    if all(b["type"] not in _MEDIA for b in blocks):
        return json.dumps({**result, "result": "".join(b["text"] for b in blocks if b["type"] == "text")})
    head = {k: v for k, v in result.items() if k != "result"}
    answer = [_text(b["text"]) if b["type"] == "text" else dict(b) for b in blocks if b["type"] in _MEDIA | {"text"}]
    return [_text(json.dumps(head)), *answer]


# -- notifications ----------------------------------------------------------------------------


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_RESULT_CHARS else text[:_MAX_RESULT_CHARS] + texts.CLIPPED


def _header(event: Mapping[str, Any]) -> dict[str, Any]:
    return _text(
        texts.NOTIFICATION_HEADER.format(
            task_id=_escape(event["task_id"]),
            agent_name=_escape(event["agent_name"]),
            status=_escape(event["status"]),
        )
    )


def _notification_content(update: Mapping[str, Any]) -> list[dict[str, Any]]:
    blocks = [_header(update)]
    if "result" in update:
        body = [
            _text(_escape(_clip(b["text"]))) if b["type"] == "text" else dict(b)
            for b in update["result"]
            if b["type"] == "text" or b["type"] in _MEDIA
        ]
        blocks += [_text("<result>\n"), *body, _text("\n</result>\n")]
    details = {k: update[k] for k in ("error", "interrupts") if k in update}
    if details:
        blocks.append(_text(f"<details>{_escape(_clip(json.dumps(details, default=str)))}</details>\n"))
    blocks.append(_text(texts.NOTIFICATION_CLOSE + texts.NEXT_STEP[update["status"]]))
    return blocks


def _event(task_id: str, agent_name: str, status: str, run_id: str | None, **details: Any) -> dict[str, Any]:
    event = {"task_id": task_id, "agent_name": agent_name, "status": status, **details}
    if run_id:
        event["run_id"] = run_id
    return event


def _notification(update: Mapping[str, Any]) -> dict[str, Any]:
    """A task update as the user-role message the model reads, marked with its event."""
    marker = {k: update[k] for k in ("task_id", "agent_name", "status", "run_id") if k in update}
    return {"role": "user", "content": _notification_content(update), _NOTIFICATION_KEY: marker}


def _outcome_update(task: AsyncTask, run: Mapping[str, Any], thread: Any, status: str) -> dict[str, Any] | None:
    """The update a check's outcome is reported with, or ``None`` when it is not worth one."""
    if status not in _NOTIFIED:
        return None
    found = _check_result(run, task["thread_id"], thread)
    details: dict[str, Any] = {"interrupts": found["interrupts"]} if "interrupts" in found else {}
    if status == "success":
        details["result"] = found["result"]
    elif status == "error":
        details["error"] = texts.NOTIFICATION_FAILED
    return _event(task["task_id"], task["agent_name"], status, run.get("run_id", task["run_id"]), **details)


def _marker(message: Any) -> dict[str, Any] | None:
    event = (getattr(message, "additional_kwargs", None) or {}).get(_NOTIFICATION_KEY)
    return event if isinstance(event, dict) else None


def _superseded_content(message: Any, event: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An earlier run's notification with a closing that says so."""
    content = message.content
    last = content[-1] if isinstance(content, list) and content else None
    if isinstance(last, dict) and str(last.get("text", "")).startswith("</task-notification>"):
        body = [b for b in content[:-1] if isinstance(b, dict)]
    else:
        body = [_header(event)]
    return [*body, _text(texts.SUPERSEDED)]
