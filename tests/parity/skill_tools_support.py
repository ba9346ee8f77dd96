"""What the skill tools parity tests share: skills and tools to read and call, and a run of
both implementations (deepagents, deepagents_rs) on the same scripted model, each with its
own ``SkillsMiddleware(tools=...)``, compared request by request (messages and tools, in
order), by the run's messages, the private record ``_skill_tools_disclosed`` in the
checkpointed state and the warnings logged.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from .harness import Both, Outcome, ScriptedChatModel, ai_tool_calls, assert_parity

IMPLS = ("deepagents", "deepagents_rs")
CRM_PATH = "/skills/crm/SKILL.md"


def skill_md(name: str, include: str | None, body: str = "Use the tools.\n") -> str:
    meta = f"metadata:\n  include_tools: {include}\n" if include is not None else ""
    return f"---\nname: {name}\ndescription: The {name} skill.\n{meta}---\n\n{body}"


def files(**texts: str) -> dict[str, Any]:
    return {path: {"content": text, "encoding": "utf-8"} for path, text in texts.items()}


@tool
def create_request(title: str) -> str:
    """Create a customer request."""
    return f"created {title}"


@tool
def list_requests() -> str:
    """List the customer requests."""
    return "no requests"


def read(path: str = CRM_PATH, **args: Any) -> AIMessage:
    return ai_tool_calls(("read_file", {"file_path": path, **args}))


def call(name: str, **args: Any) -> AIMessage:
    return ai_tool_calls((name, args))


@dataclass
class Run:
    """One implementation's run: the model's calls, the result or error, the state after it,
    what the resolver was asked (when the scenario's resolver keeps a log) and the warnings."""

    outcome: Outcome
    state: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def run_impl(
    impl: str,
    script: list[Any],
    *,
    skill_tools: Any = None,
    mode: str = "invoke",
    inp: dict[str, Any] | None = None,
    model: ScriptedChatModel | None = None,
    agent_tools: list[Any] | None = None,
    middleware: Callable[[Any], list[Any]] | None = None,
    caplog: pytest.LogCaptureFixture | None = None,
    context: Any = None,
    response_format: Any = None,
) -> Run:
    module = importlib.import_module(impl)
    backends = importlib.import_module(f"{impl}.backends")
    skills_mw = importlib.import_module(f"{impl}.middleware").SkillsMiddleware
    model = model if model is not None else ScriptedChatModel(list(script))
    kwargs: dict[str, Any] = {} if skill_tools is None else {"tools": skill_tools}
    mw = [skills_mw(backend=backends.StateBackend(), sources=["/skills/"], **kwargs)]
    if middleware is not None:
        mw = [*middleware(module), *mw]
    extra: dict[str, Any] = {} if context is None else {"context_schema": type(context)}
    if response_format is not None:
        extra["response_format"] = response_format
    agent = module.create_deep_agent(
        model=model, tools=agent_tools, middleware=mw, checkpointer=InMemorySaver(), **extra
    )
    run_kwargs: dict[str, Any] = {} if context is None else {"context": context}
    config = {"configurable": {"thread_id": "t"}}
    outcome = Outcome(impl=impl, model=model)
    if caplog is not None:
        caplog.clear()
    try:
        if mode == "invoke":
            outcome.result = agent.invoke(inp, config, **run_kwargs)
        else:
            outcome.result = asyncio.run(agent.ainvoke(inp, config, **run_kwargs))
    except Exception as exc:  # noqa: BLE001 - compared below
        outcome.error = exc
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] if caplog else []
    return Run(outcome=outcome, state=dict(agent.get_state(config).values), warnings=warnings)


def run_both(script: list[Any], skill_tools: Callable[[], Any] | None = None, **kwargs: Any) -> tuple[Run, Run]:
    """Both implementations, each with its own ``skill_tools()`` (a resolver keeps a log per
    run) and its own scripted model; the requests, results and records compared."""
    runs = [run_impl(impl, script, skill_tools=skill_tools() if skill_tools else None, **kwargs) for impl in IMPLS]
    ref, rs = runs
    assert_parity(Both(ref=ref.outcome, rs=rs.outcome))
    assert rs.state.get("_skill_tools_disclosed") == ref.state.get("_skill_tools_disclosed")
    assert rs.warnings == ref.warnings
    return ref, rs


def tool_names(run: Run) -> list[list[str]]:
    return [[t["function"]["name"] for t in c.tools] for c in run.outcome.calls]


def tool_results(run: Run) -> list[tuple[str, str, str]]:
    messages = run.outcome.unwrap()["messages"]
    return [(m.name, m.status, str(m.content)) for m in messages if m.type == "tool"]


def inp(*, pinned: list[str] | None = None, **texts: str) -> dict[str, Any]:
    out: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}], "files": files(**texts)}
    if pinned is not None:
        out["pinned_skills"] = pinned
    return out


CRM = {CRM_PATH: skill_md("crm", "create_request list_requests")}
