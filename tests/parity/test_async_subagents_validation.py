"""Async subagents (``AsyncSubAgent`` specs, ``AsyncSubAgentMiddleware``) without a server,
deepagents and deepagents_rs side by side: the validation errors for bad specs, the middleware's
own validation and prompt, a user middleware with an unreachable server."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest

langgraph_sdk = pytest.importorskip("langgraph_sdk")

import deepagents
import deepagents_rs
from langchain_core.utils.function_calling import convert_to_openai_tool

from .async_subagents_support import Director, _call, _calls, _Ids, _message

pytestmark = [
    pytest.mark.timeout(300),
    # Both implementations keep their SDK clients for the agent's life, as deepagents does;
    # an async client's connections outlive the event loop of `asyncio.run`, and are closed by
    # the garbage collector (collected at the end of each run, under this filter).
    pytest.mark.filterwarnings("ignore:unclosed transport:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
]

# -- without a server -------------------------------------------------------------------------

SPEC = {"name": "r", "description": "d", "graph_id": "g", "url": "http://127.0.0.1:9"}


@pytest.mark.parametrize(
    "specs",
    [
        [SPEC, dict(SPEC)],
        [{**SPEC, "update_strategy": "later"}],
        [{**SPEC, "mode": "shared"}],
    ],
)
def test_validation_errors(specs):
    errors = []
    for impl in (deepagents, deepagents_rs):
        with pytest.raises(ValueError) as info:
            impl.create_deep_agent(model=Director(), subagents=specs)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_middleware_validation_and_prompt():
    for impl in (deepagents, deepagents_rs):
        with pytest.raises(ValueError, match="At least one async subagent must be specified"):
            impl.AsyncSubAgentMiddleware(async_subagents=[])
    specs = [SPEC, {**SPEC, "name": "f", "mode": "fork", "update_strategy": "enqueue"}]
    with pytest.warns(Warning):
        theirs = deepagents.AsyncSubAgentMiddleware(async_subagents=specs, system_prompt="Delegate.")
    with pytest.warns(Warning):
        ours = deepagents_rs.AsyncSubAgentMiddleware(async_subagents=specs, system_prompt="Delegate.")
    assert ours.system_prompt == theirs.system_prompt
    assert ours.name == theirs.name == "AsyncSubAgentMiddleware"
    assert [convert_to_openai_tool(t) for t in ours.tools] == [convert_to_openai_tool(t) for t in theirs.tools]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_user_middleware_and_unreachable_server(mode):
    """The middleware given by the caller (with a system prompt), and the tools' answers when
    the server cannot be reached or a spec without `url` is used from `invoke`."""
    specs = [SPEC, {"name": "local", "description": "On this deployment.", "graph_id": "g"}]

    def make(impl: Any) -> tuple[Director, Any]:
        model = Director(
            turns=[
                _calls(
                    _call("start_async_task", {"description": "t", "subagent_type": "r"}, "a"),
                    _call("list_async_tasks", {}, "b"),
                    _call("update_async_task", {"task_id": "nope", "message": "m"}, "c"),
                    _call("cancel_async_task", {"task_id": "nope"}, "d"),
                ),
                "ok",
            ]
        )
        mw = impl.AsyncSubAgentMiddleware(async_subagents=specs[:1], system_prompt="Use them.")
        return model, impl.create_deep_agent(model=model, middleware=[mw])

    views = []
    for impl in (deepagents, deepagents_rs):
        model, agent = make(impl)
        inp = {"messages": [{"role": "user", "content": "go"}]}
        result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
        ids = _Ids()
        views.append(
            {
                "messages": [_message(m, ids) for m in result["messages"]],
                "calls": [[_message(m, ids) for m in c["messages"]] for c in model.calls],
                "tools": [c["tools"] for c in model.calls],
                "keys": sorted(result),
            }
        )
    del agent
    gc.collect()
    assert views[1] == views[0]
    assert views[1]["messages"][2]["content"].startswith("Failed to launch async subagent 'r': ")

    # A spec without `url` needs the async path: `invoke` answers with deepagents' error.
    answers = []
    for impl in (deepagents, deepagents_rs):
        model = Director(
            turns=[_calls(_call("start_async_task", {"description": "t", "subagent_type": "local"}, "a")), "ok"]
        )
        agent = impl.create_deep_agent(model=model, subagents=specs)
        answers.append(agent.invoke({"messages": [{"role": "user", "content": "go"}]})["messages"][2].content)
    assert answers[0] == answers[1]
    assert "has no url configured" in answers[1]
