"""``context_schema`` and ``invoke(..., context=...)``: the run's context reaches tools
(``ToolRuntime``, ``get_runtime()``), middleware hooks and dynamic prompts as in deepagents,
coerced to the schema as LangGraph coerces it, through every way of running the agent."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware, dynamic_prompt
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import get_runtime


@dataclass
class Caller:
    user_id: str
    tier: str = "free"


#: Every answer `whoami` gave, wherever it ran (a subagent's calls stay in the subagent).
ANSWERS: list[str] = []


@tool
def whoami(runtime: ToolRuntime[Caller]) -> str:
    """Say who is asking."""
    ctx = runtime.context
    answer = f"{type(ctx).__name__}:{ctx.user_id}:{ctx.tier} / {get_runtime().context.user_id}"
    ANSWERS.append(answer)
    return answer


@dynamic_prompt
def greet(request) -> str:
    return f"You serve {request.runtime.context.user_id}."


class Seen(AgentMiddleware):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list = []

    def before_model(self, state, runtime):
        self.seen.append(runtime.context)


def _run(module, how):
    model = ScriptedChatModel(responses=[ai_tool_calls(("whoami", {})), AIMessage("done")])
    seen = Seen()
    agent = module.create_deep_agent(
        model=model,
        tools=[whoami],
        middleware=[greet, seen],
        context_schema=Caller,
        checkpointer=InMemorySaver() if how == "thread" else None,
    )
    payload = {"messages": [("user", "who am I?")]}
    config = {"configurable": {"thread_id": "t"}} if how == "thread" else None
    context = {"user_id": "ada", "tier": "pro"}
    if how == "ainvoke":
        result = asyncio.run(agent.ainvoke(payload, config, context=context))
    elif how == "stream":
        result = [c for m, c in agent.stream(payload, config, context=context, stream_mode=["values"])][-1]
    else:
        result = agent.invoke(payload, config, context=context)
    tools = [m.content for m in result["messages"] if m.type == "tool"]
    systems = [call.messages[0].content for call in model.calls]
    return tools, systems, seen.seen


@pytest.mark.parametrize("how", ["invoke", "ainvoke", "stream", "thread"])
def test_context_reaches_tools_middleware_and_prompts(how):
    ours, theirs = _run(deepagents_rs, how), _run(deepagents, how)
    assert ours == theirs
    assert ours[0] == ["Caller:ada:pro / ada"]
    assert ours[2] == [Caller("ada", "pro")] * 2


def test_context_schema_is_the_graphs():
    ours = deepagents_rs.create_deep_agent(model=ScriptedChatModel(responses=[]), context_schema=Caller)
    theirs = deepagents.create_deep_agent(model=ScriptedChatModel(responses=[]), context_schema=Caller)
    assert ours.get_context_jsonschema() == theirs.get_context_jsonschema()
    assert ours.context_schema is Caller


def _subagent_run(module):
    model = ScriptedChatModel(
        responses=[
            ai_tool_calls(("task", {"description": "ask who", "subagent_type": "general-purpose"})),
            ai_tool_calls(("whoami", {})),
            AIMessage("it is ada"),
            AIMessage("done"),
        ]
    )
    agent = module.create_deep_agent(model=model, tools=[whoami], context_schema=Caller)
    ANSWERS.clear()
    result = agent.invoke({"messages": [("user", "who?")]}, context={"user_id": "ada"})
    return [m.content for m in result["messages"] if m.type == "tool"], list(ANSWERS)


def test_subagents_share_the_context():
    ours = _subagent_run(deepagents_rs)
    assert ours == _subagent_run(deepagents)
    assert ours == (["it is ada"], ["Caller:ada:free / ada"])


def _store_run(module, user):
    from langgraph.store.memory import InMemoryStore

    store = InMemoryStore()
    backend = module.backends.StoreBackend(namespace=lambda rt: ("users", rt.context.user_id))
    model = ScriptedChatModel(
        responses=[ai_tool_calls(("write_file", {"file_path": "/me.md", "content": user})), AIMessage("saved")]
    )
    agent = module.create_deep_agent(model=model, backend=backend, store=store, context_schema=Caller)
    agent.invoke({"messages": [("user", "save")]}, context={"user_id": user})
    return sorted((item.namespace, item.key) for item in store.search(("users",)))


def test_store_namespaces_read_the_context():
    """A `StoreBackend` namespace factory reads the run's context (one store per user)."""
    ours = _store_run(deepagents_rs, "ada")
    assert ours == _store_run(deepagents, "ada")
    assert ours == [(("users", "ada"), "/me.md")]


def _compiled_subagent_run(module, checkpointed, asynchronous):
    from langchain.agents import create_agent

    child = create_agent(
        model=ScriptedChatModel(responses=[ai_tool_calls(("whoami", {})), AIMessage("it is ada")]),
        tools=[whoami],
        context_schema=Caller,
        name="asker",
    )
    model = ScriptedChatModel(
        responses=[ai_tool_calls(("task", {"description": "ask who", "subagent_type": "asker"})), AIMessage("done")]
    )
    agent = module.create_deep_agent(
        model=model,
        context_schema=Caller,
        subagents=[{"name": "asker", "description": "Asks.", "runnable": child}],
        checkpointer=InMemorySaver() if checkpointed else None,
    )
    ANSWERS.clear()
    payload, config = {"messages": [("user", "who?")]}, {"configurable": {"thread_id": "t"}}
    call = agent.ainvoke if asynchronous else agent.invoke
    result = call(payload, config, context={"user_id": "ada"})
    result = asyncio.run(result) if asynchronous else result
    return [m.content for m in result["messages"] if m.type == "tool"], list(ANSWERS)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("checkpointed", [False, True], ids=["plain", "checkpointed"])
def test_compiled_subagents_get_the_context(checkpointed, asynchronous):
    """A `CompiledSubAgent`'s tools read the caller's context, on a checkpointed thread too
    (where the `task` call runs in the thread graph's task)."""
    ours = _compiled_subagent_run(deepagents_rs, checkpointed, asynchronous)
    assert ours == _compiled_subagent_run(deepagents, checkpointed, asynchronous)
    assert ours == (["it is ada"], ["Caller:ada:free / ada"])
