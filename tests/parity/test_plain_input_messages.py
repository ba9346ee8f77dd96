"""Parity: plain input message dicts (``{"role": ..., "content": "<str>"}``), which the core
reads itself, come out of a run (and reach the model) as LangGraph's coercion makes them:
the same message types and fields, each with a fresh uuid4 id; a str subclass or a lone
surrogate as content is kept as given; other input forms beside them are unchanged."""

from __future__ import annotations

import importlib
import json
import uuid
from typing import Any

import pytest
from fake_models import ScriptedChatModel
from langchain_core.messages import HumanMessage


class Text(str):
    pass


def _inputs() -> list[Any]:
    return [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "two"},
        {"role": "human", "content": "three"},
        {"role": "ai", "content": ""},
        {"role": "user", "content": Text("a subclass")},
        {"role": "user", "content": "lone \udc80 surrogate"},
        {"role": "user", "content": "with a name", "name": "ann"},
        ("user", "a tuple"),
        HumanMessage(content="an object", id="given-id"),
        # Keys and roles equal to the literals but other objects (JSON's), the keys the
        # other way round, a str subclass as key or as role: read as the dict's lookups read.
        json.loads('{"role": "assistant", "content": "from JSON"}'),
        {"content": "content first", "role": "system"},
        {Text("role"): "user", "content": "a subclass key"},
        {"role": Text("assistant"), "content": "a subclass role"},
        {"role": "user", "content": "last"},
    ]


def _fields(message: Any) -> dict[str, Any]:
    out = message.model_dump()
    out.pop("id")
    out["content_type"] = type(message.content).__name__
    out["class"] = type(message).__name__
    return out


def _run(impl: str, mode: str) -> tuple[list[Any], list[Any]]:
    model = ScriptedChatModel(["done"])
    agent = importlib.import_module(impl).create_deep_agent(model=model)
    inputs = {"messages": _inputs()}
    if mode == "invoke":
        out = agent.invoke(inputs)
    else:
        import asyncio

        out = asyncio.run(agent.ainvoke(inputs))
    return out["messages"], list(model.calls[0].messages)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_plain_input_messages_are_langgraphs(mode: str) -> None:
    ref, ref_seen = _run("deepagents", mode)
    ours, seen = _run("deepagents_rs", mode)
    assert [_fields(m) for m in ours] == [_fields(m) for m in ref]
    # What the model was handed (after the agent's system prompt).
    assert [_fields(m) for m in seen[1:]] == [_fields(m) for m in ref_seen[1:]]
    # Every dict got its own uuid4; the object kept its id; the tuple got none here or there.
    for ours_m, ref_m, given in zip(ours, ref, _inputs()):
        if isinstance(given, dict):
            assert uuid.UUID(ours_m.id).version == 4 and str(uuid.UUID(ours_m.id)) == ours_m.id
        else:
            assert (ours_m.id is None) == (ref_m.id is None)
    dict_ids = [m.id for m, g in zip(ours, _inputs()) if isinstance(g, dict)]
    assert len(set(dict_ids)) == len(dict_ids)
    assert ours[9].id == "given-id"
    # The model saw the ids the result carries.
    assert [m.id for m in seen[1:]] == [m.id for m in ours[: len(seen) - 1]]
