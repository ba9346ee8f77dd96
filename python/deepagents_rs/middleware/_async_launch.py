"""What launching an async subagent sends: its thread's metadata, run options and messages."""

from __future__ import annotations

import dataclasses
import json
import urllib.parse
from collections.abc import Mapping
from copy import deepcopy
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, convert_to_messages
from pydantic import BaseModel

from . import _async_subagent_texts as texts
from ._async_outcomes import _text
from ._async_tasks import (
    _BLOB_PAYLOADS_KEY,
    _BLOB_REF_KEY,
    _NEST_UNDER_PARENT,
    _PARENT_KEY,
    _SUMMARIZATION_EVENT_KEY,
    AsyncSubAgent,
)

# -- what a launch sends ----------------------------------------------------------------------


def _parent_of(config: Mapping[str, Any], spec: AsyncSubAgent) -> dict[str, str]:
    """This agent as the subagent's runs know it: its thread, and (for a subagent on this
    deployment that may notify it) its assistant."""
    configurable = config.get("configurable") or {}
    metadata = config.get("metadata") or {}
    parent: dict[str, str] = {}
    if configurable.get("thread_id"):
        parent["thread_id"] = str(configurable["thread_id"])
    assistant = metadata.get("assistant_id") or configurable.get("assistant_id")
    if assistant and not spec.get("url") and spec.get("notify_parent") is not False:
        parent["assistant_id"] = str(assistant)
    return parent


def _thread_metadata(spec: AsyncSubAgent, config: Mapping[str, Any]) -> dict[str, str]:
    parent = _parent_of(config, spec)
    metadata = {"subagent_name": spec["name"]}
    if "thread_id" in parent:
        metadata["parent_thread_id"] = parent["thread_id"]
    if "assistant_id" in parent:
        metadata["parent_assistant_id"] = parent["assistant_id"]
    return metadata


def _trace_headers(spec: AsyncSubAgent) -> dict[str, str]:
    """LangSmith headers for a subagent on this deployment while tracing is on, else none."""
    if spec.get("url"):
        return {}
    from langsmith.run_helpers import get_current_run_tree

    tree = get_current_run_tree()
    if tree is None or not tree.trace_id:
        return {}
    baggage = [v for k, v in (spec.get("headers") or {}).items() if k.lower() == "baggage" and v]
    baggage.append(f"langsmith-metadata={urllib.parse.quote(json.dumps({_NEST_UNDER_PARENT: True}))}")
    if tree.session_name:
        baggage.append(f"langsmith-project={urllib.parse.quote(tree.session_name)}")
    return {"langsmith-trace": tree.dotted_order, "baggage": ",".join(baggage)}


def _plain_context(context: Any) -> dict[str, Any] | None:
    """A run context as JSON data for another run, without the parent reference."""
    data: Any = context
    if isinstance(context, BaseModel):
        data = context.model_dump(mode="json")
    elif dataclasses.is_dataclass(context) and not isinstance(context, type):
        data = dataclasses.asdict(context)
    plain = {str(k): v for k, v in data.items() if k != _PARENT_KEY} if isinstance(data, Mapping) else {}
    return plain or None


def _run_options(spec: AsyncSubAgent, runtime: Any) -> dict[str, Any]:
    """``runs.create``'s options: trace headers, the webhook, and this run's context (a
    subagent on this deployment) or else the parent reference."""
    options: dict[str, Any] = {"headers": _trace_headers(spec)}
    if spec.get("webhook"):
        options["webhook"] = spec["webhook"]
    context = None if spec.get("url") else _plain_context(runtime.context)
    if context is not None:
        options["context"] = context
    else:
        parent = _parent_of(runtime.config or {}, spec)
        if parent:
            options["config"] = {"configurable": {_PARENT_KEY: parent}}
    return options


def _effective_history(state: Mapping[str, Any]) -> list[Any]:
    """The conversation as the model sees it (after a summary), without the turn calling the
    tool."""
    history = list(state.get("messages") or [])
    if history and isinstance(history[-1], AIMessage) and history[-1].tool_calls:
        history.pop()
    event = state.get(_SUMMARIZATION_EVENT_KEY)
    if isinstance(event, Mapping) and "summary_message" in event and "cutoff_index" in event:
        cutoff = event["cutoff_index"]
        summary = event["summary_message"]
        summary = convert_to_messages([summary])[0] if isinstance(summary, dict) else summary
        history = [summary, *history[cutoff:]] if cutoff <= len(history) else [summary]
    return history


def _task_messages(spec: AsyncSubAgent, state: Mapping[str, Any], description: str) -> list[dict[str, Any]]:
    """The launch's input: the task alone, or (a fork) the conversation then the task."""
    if spec.get("mode") != "fork":
        return [{"role": "user", "content": description}]
    messages = [*_effective_history(state), HumanMessage(content=texts.FORK_PREAMBLE + description)]
    messages = deepcopy(
        [m.model_copy(update={"artifact": None}) if isinstance(m, ToolMessage) else m for m in messages]
    )
    messages = _with_media(messages, state.get(_BLOB_PAYLOADS_KEY) or {})
    return [m.model_dump(exclude={"artifact": True, "additional_kwargs": {"lc_evicted_to"}}) for m in messages]


def _with_media(messages: list[Any], payloads: Mapping[str, str]) -> list[Any]:
    """The messages with the media the file tools offloaded put back (a block naming its
    payload's digest, ``deepagents_blob``), from the run's payload cache; a payload not there
    becomes deepagents' notice."""

    def restored(block: Any) -> Any:
        if not isinstance(block, dict) or _BLOB_REF_KEY not in block:
            return block
        digest = block[_BLOB_REF_KEY]
        payload = payloads.get(digest) if isinstance(digest, str) else None
        if payload is None:
            return _text(texts.MISSING_BLOB)
        kept = {k: v for k, v in block.items() if k != _BLOB_REF_KEY}
        kept["base64"] = payload
        return kept

    out = []
    for m in messages:
        content = m.content
        if isinstance(content, list) and any(isinstance(b, dict) and _BLOB_REF_KEY in b for b in content):
            m = m.model_copy(update={"content": [restored(b) for b in content]})
        out.append(m)
    return out


def _describe(spec: AsyncSubAgent) -> str:
    return f"- {spec['name']}: {spec['description']}{texts.FORK_SUFFIX if spec.get('mode') == 'fork' else ''}"
