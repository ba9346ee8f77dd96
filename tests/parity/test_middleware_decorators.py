"""User middleware through both implementations: the decorator forms (``@before_model``,
``@wrap_model_call``, ...), sync and async, and ``@dynamic_prompt``."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents.middleware import (
    ModelRequest,
    after_agent,
    after_model,
    before_agent,
    before_model,
    dynamic_prompt,
    wrap_model_call,
    wrap_tool_call,
)
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from .harness import MODES, ai_tool_calls
from .middleware_support import Ctx, check, lookup, msgs, mw_tool, ref_nodes, run_pair, tool_then_answer

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

# --------------------------------------------------------------------------------------------
# Decorators
# --------------------------------------------------------------------------------------------


def _decorated(c: Ctx) -> dict[str, Any]:
    log = c.log

    @before_agent
    def greet(state, runtime):
        log.append(("greet", msgs(state["messages"])))
        return {"messages": [HumanMessage("hello from greet")]}

    @before_model(can_jump_to=["end"])
    def gatekeeper(state, runtime):
        log.append(("gatekeeper", len(state["messages"])))

    @after_model(name="Auditor")
    def audit(state, runtime):
        log.append(("Auditor", msgs(state["messages"][-1:])))

    @after_agent(name="Farewell")
    def farewell(state, runtime):
        log.append(("Farewell", len(state["messages"])))
        return {"messages": [AIMessage("bye")]}

    @wrap_model_call(name="Prompter")
    def prompter(request, handler):
        log.append(("Prompter", request.system_prompt))
        return handler(request.override(system_message=SystemMessage("decorated prompt")))

    @wrap_tool_call(tools=[mw_tool])
    def tool_guard(request, handler):
        log.append(("tool_guard", request.tool_call["name"]))
        return handler(request)

    middleware = [greet, gatekeeper, audit, farewell, prompter, tool_guard]
    log.append(("names", [(type(m).__name__, m.name) for m in middleware]))
    return {"tools": [lookup], "middleware": middleware}


@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_decorator_forms(mode: str) -> None:
    # Sync functions: @wrap_model_call / @wrap_tool_call define only the sync hook (ainvoke raises).
    script = [ai_tool_calls(("mw_tool", {"text": "t"}, "c1")), "done"]
    both = run_pair(script, _decorated, mode=mode)
    _, log = check(both)
    assert log[0] == (
        "names",
        [
            ("greet", "greet"),
            ("gatekeeper", "gatekeeper"),
            ("Auditor", "Auditor"),
            ("Farewell", "Farewell"),
            ("Prompter", "Prompter"),
            ("tool_guard", "tool_guard"),
        ],
    )
    if mode == "stream":
        assert ref_nodes(both) == [
            "PatchToolCallsMiddleware.before_agent",
            "greet.before_agent",
            "gatekeeper.before_model",
            "model",
            "Auditor.after_model",
            "tools",
            "gatekeeper.before_model",
            "model",
            "Auditor.after_model",
            "Farewell.after_agent",
            "_ParentNotifierMiddleware.after_agent",
        ]


def _decorated_async(c: Ctx) -> dict[str, Any]:
    log = c.log

    @before_model
    async def async_gate(state, runtime):
        log.append(("async_gate", len(state["messages"])))
        return {"messages": [HumanMessage("async gate says hi")]}

    @wrap_model_call
    async def async_wrap(request, handler):
        log.append(("async_wrap", msgs(request.messages)))
        return await handler(request)

    @wrap_tool_call
    async def async_tool_wrap(request, handler):
        log.append(("async_tool_wrap", request.tool_call["args"]))
        return await handler(request)

    @dynamic_prompt
    async def async_prompt(request: ModelRequest) -> str:
        return f"async prompt over {len(request.messages)} messages"

    return {"tools": [lookup], "middleware": [async_gate, async_wrap, async_tool_wrap, async_prompt]}


@pytest.mark.parametrize("mode", ["ainvoke", "astream"])
def test_async_decorator_forms(mode: str) -> None:
    both = run_pair(tool_then_answer(), _decorated_async, mode=mode)
    check(both)


def _dynamic(c: Ctx) -> dict[str, Any]:
    @dynamic_prompt
    def per_turn(request: ModelRequest) -> str:
        c.log.append(("per_turn", request.system_prompt, msgs(request.messages)))
        return f"Turn with {len(request.messages)} messages (was {request.system_prompt!r})"

    @dynamic_prompt
    def as_message(request: ModelRequest) -> SystemMessage:
        return SystemMessage(content=f"{request.system_prompt} + second prompt")

    return {"tools": [lookup], "middleware": [per_turn, as_message], "system_prompt": "Base prompt."}


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_prompt(mode: str) -> None:
    both = run_pair(tool_then_answer(), _dynamic, mode=mode)
    check(both)
    assert both.ref.calls[1].messages[0].content == "Turn with 3 messages (was 'Base prompt.') + second prompt"
