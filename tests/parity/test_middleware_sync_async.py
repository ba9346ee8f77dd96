"""User middleware through both implementations: sync and async hooks under ``invoke`` and
``ainvoke``, and a hook missing for the run mode."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from langchain.agents.middleware import AgentMiddleware, before_model, wrap_model_call, wrap_tool_call
from langchain_core.messages import HumanMessage

from .harness import MODES
from .middleware_support import (
    Named,
    check,
    lookup,
    msgs,
    request_view,
    response_view,
    run_pair,
    runtime_view,
    tool_request_view,
    tool_result_view,
    tool_then_answer,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


class AsyncAllHooks(Named):
    """The async hooks only."""

    async def abefore_agent(self, state, runtime):
        self.log.append((self.name, "abefore_agent", msgs(state["messages"]), runtime_view(runtime)))

    async def abefore_model(self, state, runtime):
        self.log.append((self.name, "abefore_model", msgs(state["messages"])))
        return {"messages": [HumanMessage("async reminder")]}

    async def aafter_model(self, state, runtime):
        self.log.append((self.name, "aafter_model", msgs(state["messages"])))

    async def aafter_agent(self, state, runtime):
        self.log.append((self.name, "aafter_agent", msgs(state["messages"])))

    async def awrap_model_call(self, request, handler):
        self.log.append((self.name, "awrap_model_call:in", request_view(request)))
        response = await handler(request)
        self.log.append((self.name, "awrap_model_call:out", response_view(response)))
        return response

    async def awrap_tool_call(self, request, handler):
        self.log.append((self.name, "awrap_tool_call:in", tool_request_view(request)))
        result = await handler(request)
        self.log.append((self.name, "awrap_tool_call:out", tool_result_view(result)))
        return result


# --------------------------------------------------------------------------------------------
# Sync and async
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["ainvoke", "astream"])
def test_async_hooks_under_ainvoke(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [AsyncAllHooks(c.log)]}, mode=mode)
    _, log = check(both)
    assert [e[1] for e in log] == [
        "abefore_agent",
        "abefore_model",
        "awrap_model_call:in",
        "awrap_model_call:out",
        "aafter_model",
        "awrap_tool_call:in",
        "awrap_tool_call:out",
        "abefore_model",
        "awrap_model_call:in",
        "awrap_model_call:out",
        "aafter_model",
        "aafter_agent",
    ]


class BothFlavours(Named):
    """Sync and async versions of every hook: invoke uses the sync ones, ainvoke the async ones."""

    def before_agent(self, state, runtime):
        self.log.append("before_agent")

    async def abefore_agent(self, state, runtime):
        self.log.append("abefore_agent")

    def before_model(self, state, runtime):
        self.log.append("before_model")

    async def abefore_model(self, state, runtime):
        self.log.append("abefore_model")

    def after_model(self, state, runtime):
        self.log.append("after_model")

    async def aafter_model(self, state, runtime):
        self.log.append("aafter_model")

    def after_agent(self, state, runtime):
        self.log.append("after_agent")

    async def aafter_agent(self, state, runtime):
        self.log.append("aafter_agent")

    def wrap_model_call(self, request, handler):
        self.log.append("wrap_model_call")
        return handler(request)

    async def awrap_model_call(self, request, handler):
        self.log.append("awrap_model_call")
        return await handler(request)

    def wrap_tool_call(self, request, handler):
        self.log.append("wrap_tool_call")
        return handler(request)

    async def awrap_tool_call(self, request, handler):
        self.log.append("awrap_tool_call")
        return await handler(request)


@pytest.mark.parametrize("mode", MODES)
def test_sync_or_async_hooks_by_run_mode(mode: str) -> None:
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [BothFlavours(c.log)]}, mode=mode)
    _, log = check(both)
    prefix = "a" if mode == "ainvoke" else ""
    assert log[:3] == [f"{prefix}before_agent", f"{prefix}before_model", f"{prefix}wrap_model_call"]


class SyncNodeHooksOnly(Named):
    def before_agent(self, state, runtime):
        self.log.append("before_agent")

    def before_model(self, state, runtime):
        self.log.append("before_model")

    def after_model(self, state, runtime):
        self.log.append("after_model")

    def after_agent(self, state, runtime):
        self.log.append("after_agent")


def test_sync_node_hooks_run_under_ainvoke() -> None:
    both = run_pair(["done"], lambda c: {"middleware": [SyncNodeHooksOnly(c.log)]}, mode="ainvoke")
    _, log = check(both)
    assert log == ["before_agent", "before_model", "after_model", "after_agent"]


class OnlyAbeforeModel(Named):
    async def abefore_model(self, state, runtime):
        return None


class OnlyAafterModel(Named):
    async def aafter_model(self, state, runtime):
        return None


class OnlyAbeforeAgent(Named):
    async def abefore_agent(self, state, runtime):
        return None


class OnlyAafterAgent(Named):
    async def aafter_agent(self, state, runtime):
        return None


class OnlyAwrapModelCall(Named):
    async def awrap_model_call(self, request, handler):
        return await handler(request)


class OnlyAwrapToolCall(Named):
    async def awrap_tool_call(self, request, handler):
        return await handler(request)


class OnlyWrapModelCall(Named):
    def wrap_model_call(self, request, handler):
        return handler(request)


class OnlyWrapToolCall(Named):
    def wrap_tool_call(self, request, handler):
        return handler(request)


async def _async_before_model(state, runtime):
    return None


async def _async_wrap_model_call(request, handler):
    return await handler(request)


def _sync_wrap_tool_call(request, handler):
    return handler(request)


MISMATCHED: dict[str, tuple[str, Callable[[list], AgentMiddleware]]] = {
    "abefore_model": ("invoke", OnlyAbeforeModel),
    "aafter_model": ("invoke", OnlyAafterModel),
    "abefore_agent": ("invoke", OnlyAbeforeAgent),
    "aafter_agent": ("invoke", OnlyAafterAgent),
    "awrap_model_call": ("invoke", OnlyAwrapModelCall),
    "awrap_tool_call": ("invoke", OnlyAwrapToolCall),
    "decorated_async_before_model": ("invoke", lambda log: before_model(_async_before_model)),
    "decorated_async_wrap_model_call": ("invoke", lambda log: wrap_model_call(_async_wrap_model_call)),
    "wrap_model_call_under_ainvoke": ("ainvoke", OnlyWrapModelCall),
    "wrap_tool_call_under_ainvoke": ("ainvoke", OnlyWrapToolCall),
    "decorated_sync_wrap_tool_call_under_ainvoke": ("ainvoke", lambda log: wrap_tool_call(_sync_wrap_tool_call)),
}


@pytest.mark.parametrize("case", list(MISMATCHED))
def test_hook_missing_for_the_run_mode_raises(case: str) -> None:
    mode, make = MISMATCHED[case]
    both = run_pair(tool_then_answer(), lambda c: {"tools": [lookup], "middleware": [make(c.log)]}, mode=mode)
    check(both, error=True)
    error = both.ref.error
    if case.startswith(("abefore", "aafter", "decorated_async_before")):
        assert isinstance(error, TypeError) and str(error).startswith("No synchronous function provided to ")
    else:
        assert isinstance(error, NotImplementedError)
