"""Skill tools past a plain read, through both implementations: a read summarized out of
the conversation, the agent's deferred tool a skill lists, the general-purpose subagent with
the user's ``SkillsMiddleware``, and a model that takes tools mid-conversation (deepagents
hands it the tools as provider blocks in a system message after the read).
"""

from __future__ import annotations

import importlib
import json
import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import Field

from .harness import MODES, Both, ScriptedChatModel, ai_tool_calls, assert_parity, call_view, norm
from .skill_tools_support import (
    CRM,
    CRM_PATH,
    IMPLS,
    call,
    create_request,
    inp,
    list_requests,
    read,
    run_both,
    run_impl,
    skill_md,
    tool_names,
    tool_results,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

_SESSION = re.compile(r"session_[0-9a-f]{32}")

# --------------------------------------------------------------------------------------------
# The read leaves the conversation
# --------------------------------------------------------------------------------------------


def test_a_read_summarized_away_takes_its_tools_with_it() -> None:
    def summarization(module: Any) -> list[Any]:
        summarizer = importlib.import_module(f"{module.__name__}.middleware.summarization").SummarizationMiddleware
        backend = importlib.import_module(f"{module.__name__}.backends").StateBackend()
        return [
            summarizer(model=model_for[module.__name__], backend=backend, trigger=("messages", 7), keep=("messages", 2))
        ]

    script = [
        read(),
        call("create_request", title="a"),
        call("list_requests"),
        call("list_requests"),
        call("list_requests"),
        call("create_request", title="b"),
        AIMessage(content="done"),
    ]
    model_for = {impl: SummarizingModel(list(script)) for impl in IMPLS}
    runs = [
        run_impl(
            impl,
            script,
            skill_tools=[create_request, list_requests],
            model=model_for[impl],
            middleware=summarization,
            inp=inp(**CRM),
        )
        for impl in IMPLS
    ]
    ref, rs = runs
    # The history file's session id is random.
    masked = [
        [_SESSION.sub("session_<id>", json.dumps(call_view(c), default=str)) for c in r.outcome.calls] for r in runs
    ]
    assert masked[1] == masked[0]
    assert norm(rs.outcome.unwrap()["messages"])[-3:] == norm(ref.outcome.unwrap()["messages"])[-3:]
    assert rs.state["_skill_tools_disclosed"] == ref.state["_skill_tools_disclosed"] == {}
    names = tool_names(rs)
    assert rs.outcome.model.summaries, "no summary was made"
    assert "create_request" in names[1] and "create_request" not in names[-1]
    assert tool_results(rs)[-1][:2] == ("create_request", "error")


class SummarizingModel(ScriptedChatModel):
    """Answers a summary prompt with a fixed summary, replaying its script otherwise."""

    summaries: list[str] = Field(default_factory=list, exclude=True)

    def _next(self, messages: Any, stop: Any, kwargs: dict[str, Any]) -> Any:
        from langchain_core.outputs import ChatGeneration, ChatResult

        if len(messages) == 1 and "Messages to summarize:" in str(messages[0].content):
            self.summaries.append(str(messages[0].content))
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="SUMMARY"))])
        return super()._next(messages, stop, kwargs)


# --------------------------------------------------------------------------------------------
# The agent's deferred tool
# --------------------------------------------------------------------------------------------


class ExtrasRecordingModel(ScriptedChatModel):
    """Keeps the ``extras`` of each tool object it is bound with (``defer_loading`` among
    them), which the OpenAI tool dicts it records leave out."""

    bound_extras: list[dict[str, Any]] = Field(default_factory=list, exclude=True)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.bound_extras.append({t.name: dict(t.extras or {}) for t in tools if isinstance(t, BaseTool)})
        return super().bind_tools(tools, **kwargs)


def _changes(values: list[Any]) -> list[Any]:
    return [v for i, v in enumerate(values) if i == 0 or values[i - 1] != v]


def test_a_deferred_agent_tool_a_skill_lists_is_sent_with_its_schema() -> None:
    deferred = StructuredTool.from_function(
        lambda: "searched", name="deep_search", description="Search deeply.", extras={"defer_loading": True}
    )
    skills = {CRM_PATH: skill_md("crm", "deep_search create_request")}
    script = [read(), call("deep_search"), AIMessage(content="done")]
    runs = []
    for impl in IMPLS:
        model = ExtrasRecordingModel(list(script))
        runs.append(
            run_impl(impl, script, skill_tools=[create_request], model=model, agent_tools=[deferred], inp=inp(**skills))
        )
    ref, rs = runs
    assert_parity(Both(ref=ref.outcome, rs=rs.outcome))
    # deepagents binds on every call, deepagents_rs once per tool list: what changes counts.
    ref_extras, rs_extras = ([e["deep_search"] for e in r.outcome.model.bound_extras] for r in runs)
    assert _changes(rs_extras) == _changes(ref_extras)
    assert rs_extras[0] == {"defer_loading": True} and rs_extras[-1] == {}
    # Not a skill tool: the record holds the skill tool only.
    assert (
        rs.state["_skill_tools_disclosed"]
        == ref.state["_skill_tools_disclosed"]
        == {"create_request": "create_request"}
    )
    assert tool_results(rs)[1] == ("deep_search", "success", "searched")


# --------------------------------------------------------------------------------------------
# Subagents
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_the_general_purpose_subagent_takes_the_users_skills_middleware_with_its_tools(mode: str) -> None:
    """The user's ``SkillsMiddleware`` takes the general-purpose subagent's skills slot too, so
    a skill the subagent reads discloses the tools there; the main agent's record is its own."""
    script = [
        call("task", description="file it", subagent_type="general-purpose"),
        read(),
        call("create_request", title="sub"),
        AIMessage(content="sub done"),
        call("create_request", title="main"),
        AIMessage(content="done"),
    ]
    _, rs = run_both(script, lambda: [create_request], mode=mode, inp=inp(**CRM))
    names = tool_names(rs)
    assert names[2][-1] == "create_request" and "create_request" not in names[4]
    assert [r[:2] for r in tool_results(rs)] == [("task", "success"), ("create_request", "error")]
    assert rs.state["_skill_tools_disclosed"] == {}


# --------------------------------------------------------------------------------------------
# A model that takes tools mid-conversation
# --------------------------------------------------------------------------------------------


def _recording(provider: str, script: list[AIMessage]) -> Any:
    """A ``ChatAnthropic`` for Claude Opus 5 or a Responses ``ChatOpenAI`` for GPT-5 (whose profiles
    take tools mid-conversation) answering from a script, keeping what each call was sent."""
    from langchain_core.outputs import ChatGeneration, ChatResult

    if provider == "anthropic":
        base, kwargs = importlib.import_module("langchain_anthropic").ChatAnthropic, {"model": "claude-opus-5"}
    else:
        # Only the Responses API takes tools mid-conversation.
        base, kwargs = (
            importlib.import_module("langchain_openai").ChatOpenAI,
            {"model": "gpt-5", "use_responses_api": True},
        )

    class Recording(base):  # type: ignore[misc, valid-type]
        sent: list[Any] = Field(default_factory=list, exclude=True)

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            self.sent.append(
                {
                    "messages": [(m.type, m.content) for m in messages],
                    "tools": [t.get("name") or t["function"]["name"] for t in kwargs.get("tools", [])],
                }
            )
            reply = script[len(self.sent) - 1].model_copy(deep=True)
            return ChatResult(generations=[ChatGeneration(message=reply)])

        async def _agenerate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            return self._generate(messages, stop, run_manager, **kwargs)

    return Recording(api_key="sk-test-not-a-real-key", **kwargs)


def _with_ids(script: list[AIMessage]) -> list[AIMessage]:
    for i, m in enumerate(script):
        for k, tc in enumerate(m.tool_calls):
            tc["id"] = f"toolu_{i}_{k}"
    return script


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("mode", MODES)
def test_a_model_taking_tools_mid_conversation_gets_them_there(mode: str, provider: str) -> None:
    pytest.importorskip(f"langchain_{provider}")
    script = _with_ids(
        [
            ai_tool_calls(("read_file", {"file_path": CRM_PATH}), ("ls", {"path": "/"})),
            call("create_request", title="x"),
            AIMessage(content="done"),
        ]
    )
    sent = {}
    for impl in IMPLS:
        model = _recording(provider, script)
        run = run_impl(
            impl, script, skill_tools=[create_request, list_requests], model=model, mode=mode, inp=inp(**CRM)
        )
        sent[impl] = (model.sent, run)
    (ref_sent, ref), (rs_sent, rs) = sent.values()
    assert rs_sent == ref_sent
    assert rs.state["_skill_tools_disclosed"] == ref.state["_skill_tools_disclosed"]
    assert tool_results(rs) == tool_results(ref)
    # Not in the tools: in a system message after the read's batch of results.
    assert "create_request" not in rs_sent[1]["tools"]
    kind, blocks = rs_sent[1]["messages"][-1]
    assert kind == "system"
    if provider == "anthropic":
        names = [b["tool"]["definition"]["name"] for b in blocks]
    else:
        names = [t["name"] for b in blocks for t in b["tools"]]
    assert names == ["create_request", "list_requests"]
    assert tool_results(rs)[-1] == ("create_request", "success", "created x")
