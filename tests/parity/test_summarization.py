"""Parity: deepagents' default ``SummarizationMiddleware`` (the core's, in every stack).

Each scenario runs deepagents and deepagents_rs with the same scripted model (a profile
with ``max_input_tokens`` where the fraction defaults apply) and compares every request the
model got (the summary prompt call included), the state each run ends with (the private
summarization event and session id in the checkpoint), and the history file written to the
backend. Session ids and the history file's timestamps are random; they are masked.
"""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from pathlib import Path
from typing import Any

import deepagents
import deepagents.middleware.summarization
import deepagents_rs
import deepagents_rs.middleware.summarization
import pytest
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from .harness import ScriptedChatModel

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

_SESSION = re.compile(r"session_[0-9a-f]{32}")
_STAMP = re.compile(r"Summarized at \d{4}-\d\d-\d\dT[0-9:.]+\+00:00")
_IMPLS = (deepagents, deepagents_rs)


def masked(value: Any) -> Any:
    text = json.dumps(value, default=str, sort_keys=True)
    return json.loads(_STAMP.sub("Summarized at <time>", _SESSION.sub("session_<id>", text)))


def view(m: Any) -> dict[str, Any]:
    return {
        "type": m.type,
        "content": m.content,
        "tool_calls": [{k: tc[k] for k in ("name", "args", "id")} for tc in getattr(m, "tool_calls", [])],
        "tool_call_id": getattr(m, "tool_call_id", None),
        "additional_kwargs": m.additional_kwargs,
    }


class SummarizingModel(ScriptedChatModel):
    """Replays its script for the agent's calls and answers each summary prompt (a lone
    human message holding the transcript) with ``SUMMARY <n>``, keeping the prompts."""

    summaries: list[str] = Field(default_factory=list, exclude=True)

    def _next(self, messages: Any, stop: Any, kwargs: dict[str, Any]) -> ChatResult:
        if len(messages) == 1 and "\nMessages to summarize:\n" in str(messages[0].content):
            self.summaries.append(str(messages[0].content))
            reply = AIMessage(content=f"  SUMMARY {len(self.summaries)}\n")
            return ChatResult(generations=[ChatGeneration(message=reply)])
        return super()._next(messages, stop, kwargs)


def lookup(q: str) -> str:
    """Look something up."""
    return f"result for {q}: " + "lorem ipsum " * 300


def calls_then(n: int, *tail: Any, tool: str = "lookup", args: Any = None, ids: str = "c") -> list[Any]:
    """``n`` replies calling ``tool``, then ``tail``."""
    script: list[Any] = [
        AIMessage(
            content="", tool_calls=[{"name": tool, "args": args(i) if args else {"q": f"q{i}"}, "id": f"{ids}{i}"}]
        )
        for i in range(n)
    ]
    return [*script, *tail]


class Run:
    def __init__(self, impl: Any, model: ScriptedChatModel, agent: Any) -> None:
        self.impl, self.model, self.agent = impl, model, agent
        self.results: list[Any] = []


def run_both(
    script: list[Any],
    turns: list[str],
    *,
    profile: dict | None = None,
    mode: str = "invoke",
    checkpointer: bool = False,
    model_factory: Any = None,
    middleware_factory: Any = None,
    **kwargs: Any,
) -> list[Run]:
    runs = []
    for impl in _IMPLS:
        model = (model_factory or SummarizingModel)(list(script), **({"profile": profile} if profile else {}))
        extra = {"tools": [lookup], **kwargs}
        if middleware_factory is not None:
            extra["middleware"] = [middleware_factory(impl, model)]
        if checkpointer:
            extra["checkpointer"] = InMemorySaver()
        agent = impl.create_deep_agent(model=model, **extra)
        run = Run(impl, model, agent)
        config = {"configurable": {"thread_id": "t"}} if checkpointer else None
        for text in turns:
            inp = {"messages": [{"role": "user", "content": text}]}
            try:
                if mode == "invoke":
                    run.results.append(agent.invoke(inp, config=config))
                else:
                    run.results.append(asyncio.run(agent.ainvoke(inp, config=config)))
            except Exception as exc:  # noqa: BLE001 - compared below
                run.results.append(exc)
        runs.append(run)
    return runs


def compare(runs: list[Run], *, state: bool = False) -> list[Any]:
    ref, rs = runs
    ref_calls = [[view(m) for m in c.messages] for c in ref.model.calls]
    rs_calls = [[view(m) for m in c.messages] for c in rs.model.calls]
    assert len(rs_calls) == len(ref_calls)
    assert masked(rs.model.summaries) == masked(ref.model.summaries)
    for i, (a, b) in enumerate(zip(ref_calls, rs_calls, strict=True)):
        assert masked(b) == masked(a), f"model call {i} differs"
    for a, b in zip(ref.results, rs.results, strict=True):
        if isinstance(a, Exception) or isinstance(b, Exception):
            assert type(b) is type(a), (a, b)
            assert str(b) == str(a)
            continue
        assert sorted(b) == sorted(a)
        assert masked([view(m) for m in b["messages"]]) == masked([view(m) for m in a["messages"]])
        assert masked(b.get("files")) == masked(a.get("files")) or _same_files(a.get("files"), b.get("files"))
    if state:
        config = {"configurable": {"thread_id": "t"}}
        sa, sb = ref.agent.get_state(config).values, rs.agent.get_state(config).values
        assert sorted(sb) == sorted(sa)
        ea, eb = sa.get("_summarization_event"), sb.get("_summarization_event")
        assert (ea is None) == (eb is None)
        if ea is not None:
            assert type(eb["summary_message"]) is type(ea["summary_message"])
            assert masked({**eb, "summary_message": view(eb["summary_message"])}) == masked(
                {**ea, "summary_message": view(ea["summary_message"])}
            )
            assert _SESSION.fullmatch(sb["_summarization_session_id"])
    return ref.results


def _same_files(a: Any, b: Any) -> bool:
    """Files equal but for timestamps and session ids (several history files, each under a
    random session id, are compared as a sorted list)."""

    def strip(files: Any) -> Any:
        return sorted(
            json.dumps(masked([k, {f: v for f, v in d.items() if f not in ("created_at", "modified_at")}]))
            for k, d in (files or {}).items()
        )

    return strip(a) == strip(b)


def summary_calls(run: Run) -> list[str]:
    return run.model.summaries


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_fraction_defaults_summarize_once_and_keep_the_raw_history(mode: str) -> None:
    script = calls_then(8, "done")
    runs = run_both(script, ["go"], profile={"max_input_tokens": 9000}, mode=mode)
    compare(runs)
    _ref, rs = runs
    assert len(summary_calls(rs)) == 1
    # The state keeps every message; the model saw the summary and the kept tail.
    assert len(rs.model.calls[-1].messages) < len(rs.results[0]["messages"]) - 6
    assert "<summary>\nSUMMARY 1\n</summary>" in str(rs.model.calls[-1].messages[1].content)
    history = [k for k in rs.results[0]["files"] if k.startswith("/conversation_history/")]
    assert len(history) == 1


def test_chained_summaries_across_turns_on_a_checkpointed_thread() -> None:
    script = [*calls_then(8, "turn one done"), *calls_then(8, "turn two done", ids="d")]
    runs = run_both(script, ["first", "second"], profile={"max_input_tokens": 9000}, checkpointer=True)
    compare(runs, state=True)
    _ref, rs = runs
    assert len(summary_calls(rs)) >= 2
    # A later summary is asked over the earlier summary message too.
    assert "SUMMARY 1" in summary_calls(rs)[1]
    # One history file per thread, appended to, without the summary messages.
    files = rs.results[-1]["files"]
    (path,) = [k for k in files if k.startswith("/conversation_history/")]
    assert files[path]["content"].count("## Summarized at ") == len(summary_calls(rs))
    assert "SUMMARY 1" not in files[path]["content"]


def test_old_write_file_arguments_are_cut_in_the_request_only() -> None:
    big = "line of text\n" * 400
    script = calls_then(22, "done", tool="write_file", args=lambda i: {"file_path": f"/f{i}.txt", "content": big})
    runs = run_both(script, ["write"])
    compare(runs)
    _ref, rs = runs
    last = rs.model.calls[-1].messages
    cut = [
        m
        for m in last
        if m.type == "ai" and m.tool_calls and m.tool_calls[0]["args"]["content"].endswith("(argument truncated)")
    ]
    assert cut, "old write_file arguments were not truncated"
    # The state keeps the whole arguments.
    kept = [m for m in rs.results[0]["messages"] if m.type == "ai" and m.tool_calls]
    assert all(m.tool_calls[0]["args"]["content"] == big for m in kept)


def test_history_goes_to_a_filesystem_backend(tmp_path: Path) -> None:
    script = calls_then(8, "done")
    runs = []
    for impl in _IMPLS:
        root = tmp_path / impl.__name__
        root.mkdir()
        model = SummarizingModel(list(script), profile={"max_input_tokens": 9000})
        backend = impl.backends.FilesystemBackend(root_dir=str(root), virtual_mode=True)
        agent = impl.create_deep_agent(model=model, tools=[lookup], backend=backend)
        run = Run(impl, model, agent)
        run.results.append(agent.invoke({"messages": [{"role": "user", "content": "go"}]}))
        runs.append(run)
    compare(runs)
    texts = []
    for impl in _IMPLS:
        (history,) = (tmp_path / impl.__name__ / "conversation_history").iterdir()
        texts.append(_STAMP.sub("<time>", history.read_text()))
    assert texts[0] == texts[1]


class OverflowingModel(SummarizingModel):
    """Refuses any request over ``limit`` characters as a provider would."""

    limit: int = 40_000

    def _next(self, messages: Any, stop: Any, kwargs: dict[str, Any]) -> ChatResult:
        if sum(len(str(m.content)) for m in messages) > self.limit:
            raise ContextOverflowError("prompt is too long: 200000 tokens > 100000 maximum")
        return super()._next(messages, stop, kwargs)


def test_a_context_overflow_summarizes_and_retries_at_once() -> None:
    script = calls_then(12, "done")
    runs = run_both(script, ["go"], model_factory=OverflowingModel)
    compare(runs)
    _ref, rs = runs
    assert summary_calls(rs), "no summary was made"
    # The tool results the rejected request ended with were clipped and offloaded.
    assert any(k.startswith("/large_tool_results/") for k in rs.results[0]["files"])


def test_an_input_over_the_budget_raises_context_overflow() -> None:
    # The tool schemas and system prompt alone are over 95% of a 1,000-token window.
    runs = run_both(["never"], ["hi"], profile={"max_input_tokens": 1000})
    ref, rs = runs
    assert isinstance(ref.results[0], ContextOverflowError)
    compare(runs)
    assert not rs.model.calls


def test_an_isolated_subagent_summarizes_with_its_own_history() -> None:
    inner = calls_then(8, "sub done")
    script = [
        AIMessage(
            content="",
            tool_calls=[
                {"name": "task", "args": {"description": "dig", "subagent_type": "general-purpose"}, "id": "t1"}
            ],
        ),
        *inner,
        "all done",
    ]
    runs = run_both(script, ["delegate"], profile={"max_input_tokens": 9000})
    compare(runs)
    _ref, rs = runs
    assert len(summary_calls(rs)) == 1
    # The subagent's summary stays in the subagent: the parent's next call sees its own turn.
    assert rs.model.calls[-1].messages[1].content == "delegate"


# --------------------------------------------------------------------------- a user's own


def own(**settings: Any) -> Any:
    """A factory of each implementation's ``SummarizationMiddleware(model, backend, ...)``."""

    def make(impl: Any, model: Any) -> Any:
        cls = impl.middleware.summarization.SummarizationMiddleware
        return cls(model=model, backend=impl.backends.StateBackend(), **settings)

    return make


@pytest.mark.parametrize(
    "settings",
    [
        # A small keep and the constructor's default trim (4,000 tokens of older history).
        {"trigger": ("messages", 6), "keep": ("messages", 2)},
        # AND within a dict, OR across a list; keep by tokens.
        {"trigger": [{"messages": 30, "tokens": 1}, {"messages": 8, "tokens": 3000}], "keep": ("tokens", 2500)},
        {"trigger": ("tokens", 6000), "keep": ("messages", 3), "trim_tokens_to_summarize": None},
        {
            "trigger": ("messages", 7),
            "keep": ("messages", 4),
            "summary_prompt": "Sum up, briefly.\nMessages to summarize:\n{messages}\n-- {{end}} --\n",
            "truncate_args_settings": {"trigger": ("messages", 3), "keep": ("messages", 2), "max_length": 10},
        },
    ],
    ids=["messages", "clauses", "tokens-untrimmed", "prompt-and-truncation"],
)
def test_a_users_summarization_middleware_replaces_the_default(settings: dict[str, Any]) -> None:
    script = calls_then(10, "done")
    runs = run_both(script, ["go"], middleware_factory=own(**settings))
    compare(runs)
    assert summary_calls(runs[1]), "no summary was made"


def test_a_summarizer_model_writes_the_summaries() -> None:
    summarizers = []

    def make(impl: Any, model: Any) -> Any:
        summarizers.append(SummarizingModel([]))
        cls = impl.middleware.summarization.SummarizationMiddleware
        return cls(
            model=model,
            backend=impl.backends.StateBackend(),
            trigger=("messages", 6),
            keep=("messages", 2),
            summarizer=summarizers[-1],
        )

    runs = run_both(calls_then(6, "done"), ["go"], middleware_factory=make)
    compare(runs)
    ref_summarizer, rs_summarizer = summarizers
    assert rs_summarizer.summaries, "the summarizer was not asked"
    assert masked(rs_summarizer.summaries) == masked(ref_summarizer.summaries)
    assert not runs[1].model.summaries


@pytest.mark.parametrize(
    "kwargs",
    [
        {"history_path_prefix": "/h"},
        {"trigger": ("fraction", 0.5)},
        {"keep": ("fraction", 0.5)},
        {"keep": ("messages", 0)},
        {"keep": ("pages", 3)},
        {"trigger": ("fraction", 1.5)},
        {"trigger": {"messages": True}},
        {"trigger": {"messages": 2.5}},
        {"trigger": {"pages": 3}},
        {"trigger": {}},
        {"trigger": "often"},
        {"trigger": [("messages", 3), "often"]},
    ],
)
def test_bad_settings_raise_as_deepagents_raises(kwargs: dict[str, Any]) -> None:
    errors = []
    for impl in _IMPLS:
        cls = impl.middleware.summarization.SummarizationMiddleware
        with pytest.raises(Exception) as info:
            cls(model=SummarizingModel([]), backend=impl.backends.StateBackend(), **kwargs)
        errors.append(info.value)
    ref, rs = errors
    assert type(rs) is type(ref)
    assert str(rs) == str(ref)


def test_the_default_prompt_and_defaults_are_deepagents() -> None:
    from deepagents.middleware import summarization as ref
    from deepagents_rs.middleware import summarization as rs

    assert rs.DEEPAGENTS_DEFAULT_SUMMARY_PROMPT == ref.DEEPAGENTS_DEFAULT_SUMMARY_PROMPT
    for profile in (None, {"max_input_tokens": 50_000}):
        model = SummarizingModel([], **({"profile": profile} if profile else {}))
        assert rs.compute_summarization_defaults(model) == ref.compute_summarization_defaults(model)
    made = rs.create_summarization_middleware(SummarizingModel([]), rs_backend := deepagents_rs.backends.StateBackend())
    assert made.trigger == ("tokens", 170000) and made.keep == ("messages", 6)
    assert made.trim_tokens_to_summarize is None and made._backend is rs_backend


# --------------------------------------------------------------------------- compact_conversation


class RefusingSummarizer(SummarizingModel):
    """Refuses every summary prompt with an error LangChain does not retry."""

    def _next(self, messages: Any, stop: Any, kwargs: dict[str, Any]) -> ChatResult:
        from langchain_core.exceptions import ModelInvalidRequestError

        raise ModelInvalidRequestError("no summaries today")


def compact_tool(*, summarizer: Any = None, system_prompt: str | None = None, **settings: Any) -> Any:
    def make(impl: Any, model: Any) -> Any:
        mod = impl.middleware.summarization
        extra = {"summarizer": summarizer()} if summarizer else {}
        summarization = mod.SummarizationMiddleware(
            model=model, backend=impl.backends.StateBackend(), **settings, **extra
        )
        return mod.SummarizationToolMiddleware(summarization, system_prompt=system_prompt)

    return make


def compact_call(i: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": "compact_conversation", "args": {}, "id": f"k{i}"}])


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_the_model_compacts_the_conversation_with_the_tool(mode: str) -> None:
    script = [compact_call(0), *calls_then(5, compact_call(1), "looked, compacted", ids="c")]
    factory = compact_tool(trigger=("messages", 8), keep=("messages", 2), system_prompt="Compact when done.")
    runs = run_both(script, ["go"], middleware_factory=factory, checkpointer=True, mode=mode)
    compare(runs, state=True)
    rs = runs[1]
    tool_results = [m.content for m in rs.results[0]["messages"] if m.type == "tool" and m.tool_call_id.startswith("k")]
    # The first call is too early (under half of the trigger); the second compacts.
    assert tool_results[0] == "Nothing to compact yet \u2014 conversation is within the token budget."
    assert tool_results[1].startswith("Conversation compacted. Summarized ")
    assert len(summary_calls(rs)) == 1
    # The next model call sees the summary; the system prompt has the tool's text.
    last = rs.model.calls[-1].messages
    assert last[1].additional_kwargs == {"lc_source": "summarization"}
    assert "Compact when done." in str(last[0].content)


def test_a_failing_summary_leaves_the_conversation_as_it_was() -> None:
    script = [*calls_then(5, compact_call(1), "carried on", ids="c")]
    factory = compact_tool(trigger=("messages", 8), keep=("messages", 2), summarizer=lambda: RefusingSummarizer([]))
    runs = run_both(script, ["go"], middleware_factory=factory, checkpointer=True)
    compare(runs, state=True)
    rs = runs[1]
    (result,) = [m.content for m in rs.results[0]["messages"] if m.type == "tool" and m.tool_call_id == "k1"]
    assert result.startswith("Compaction failed: an error occurred while generating the summary (")
    assert "no summaries today" in result
    state = rs.agent.get_state({"configurable": {"thread_id": "t"}}).values
    assert "_summarization_event" not in state


def test_native_models_have_the_limits_langchain_gives_their_chat_models() -> None:
    # deepagents reads a `ChatAnthropic`'s / `ChatOpenAI`'s profile and `max_tokens`; the core
    # runs these models natively and must default the same.
    from deepagents_rs._summarization import model_facts
    from langchain_anthropic import ChatAnthropic
    from langchain_anthropic.data._profiles import _PROFILES as ANTHROPIC
    from langchain_openai import ChatOpenAI
    from langchain_openai.data._profiles import _PROFILES as OPENAI

    for name in [*ANTHROPIC, "claude-unknown-1"]:
        lc = ChatAnthropic(model=name, api_key="k")
        facts = model_facts(("anthropic", name, {}))
        assert facts["max_input_tokens"] == (lc.profile or {}).get("max_input_tokens"), name
        assert facts["output_attrs"] == {"max_tokens": lc.max_tokens}, name
        assert facts["chars_per_token"] == 3.3
    for name in [*OPENAI, "gpt-unknown-1"]:
        lc = ChatOpenAI(model=name, api_key="k")
        facts = model_facts(("openai", name, {}))
        assert facts["max_input_tokens"] == (lc.profile or {}).get("max_input_tokens"), name
        assert facts["output_attrs"] == {}
        assert facts["chars_per_token"] == 4.0


def summarize_by_count(messages: list) -> str:
    """A summarizer that is a plain function of the messages."""
    return f"  {len(messages)} messages, the first a {messages[0].type} message  "


async def asummarize_by_count(messages: list) -> str:
    return summarize_by_count(messages)


@pytest.mark.parametrize(
    ("summarizer", "mode"),
    [(summarize_by_count, "invoke"), (summarize_by_count, "ainvoke"), (asummarize_by_count, "ainvoke")],
    ids=["sync-invoke", "sync-ainvoke", "async-ainvoke"],
)
def test_a_summarizer_function_writes_the_summary_from_the_messages(summarizer: Any, mode: str) -> None:
    runs = run_both(
        calls_then(6, "done"),
        ["go"],
        mode=mode,
        middleware_factory=own(trigger=("messages", 6), keep=("messages", 2), summarizer=summarizer),
    )
    compare(runs)
    rs = runs[1]
    assert not rs.model.summaries  # the model is not asked
    seen = [str(m.content) for c in rs.model.calls for m in c.messages if m.additional_kwargs.get("lc_source")]
    assert seen and "messages, the first a human message</summary>" in seen[0].replace("\n", "")


def test_a_summarizer_answering_no_text_fails_the_run_as_deepagents() -> None:
    runs = run_both(
        calls_then(6, "done"),
        ["go"],
        middleware_factory=own(trigger=("messages", 6), keep=("messages", 2), summarizer=lambda messages: 42),
    )
    compare(runs)
    assert isinstance(runs[1].results[0], TypeError)


def _fork_runs(parent_script: list[Any], child_script: list[Any], middleware: Any = None) -> list[Run]:
    """Both implementations: a parent on ``parent_script`` delegating to a fork whose model
    (a 9,000-token input limit) plays ``child_script``; ``middleware(impl, parent)`` gives the
    parent's own middleware. The runs are compared, the parent's calls too."""
    runs = []
    for impl in _IMPLS:
        parent = SummarizingModel(list(parent_script))
        child = SummarizingModel(list(child_script), profile={"max_input_tokens": 9000})
        fork = {"name": "digger", "description": "Digs.", "mode": "fork", "model": child}
        extra = {"middleware": [middleware(impl, parent)]} if middleware else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agent = impl.create_deep_agent(model=parent, tools=[lookup], subagents=[fork], **extra)
        run = Run(impl, child, agent)
        run.results.append(agent.invoke({"messages": [{"role": "user", "content": "go"}]}))
        run.parent = parent
        runs.append(run)
    compare(runs)
    ref, rs = runs
    assert masked([[view(m) for m in c.messages] for c in rs.parent.calls]) == masked(
        [[view(m) for m in c.messages] for c in ref.parent.calls]
    )
    return runs


_TASK = {"name": "task", "args": {"description": "dig", "subagent_type": "digger"}, "id": "t1"}


def test_a_fork_of_another_model_summarizes_by_that_models_limits() -> None:
    # The caller's model has no profile (170,000-token trigger); the fork's has a 9,000-token
    # input limit, so the fork summarizes while the caller never does.
    _ref, rs = _fork_runs([AIMessage(content="", tool_calls=[_TASK]), "all done"], calls_then(8, "dug"))
    assert len(summary_calls(rs)) == 1
    assert not rs.parent.summaries


def test_a_fork_after_a_summary_sees_the_compacted_conversation_and_has_its_own_session() -> None:
    # The parent summarizes on its fifth call (trigger 8, keep 2) and delegates on that
    # call's reply: the fork starts from the summary and the kept messages, and summarizes
    # again into a history file of its own.
    def own(impl: Any, parent: Any) -> Any:
        return impl.middleware.summarization.SummarizationMiddleware(
            model=parent, backend=impl.backends.StateBackend(), trigger=("messages", 8), keep=("messages", 2)
        )

    parent_script = [*calls_then(4), AIMessage(content="", tool_calls=[_TASK]), "all done"]
    ref, rs = _fork_runs(parent_script, calls_then(8, "dug", ids="f"), middleware=own)
    # The fork's summaries are asked of the model its summarization was given, as deepagents does.
    assert masked(rs.parent.summaries) == masked(ref.parent.summaries) and rs.parent.summaries
    assert any(m.additional_kwargs.get("lc_source") == "summarization" for m in rs.model.calls[0].messages)
    sessions = [[k for k in r.results[0]["files"] if k.startswith("/conversation_history/")] for r in (ref, rs)]
    assert len(sessions[1]) == len(sessions[0]) == 2
