"""Parity: a user's own ``token_counter`` in ``SummarizationMiddleware``.

Each scenario runs deepagents and deepagents_rs with the same scripted model and a counter of
the test's own, and compares every request the model got (the summary prompts included),
what each run ended with, and every call the counter got: the messages it was handed (the
system message first when a whole request is counted), and the tools when it takes them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from .test_summarization import (
    _IMPLS,
    OverflowingModel,
    Run,
    SummarizingModel,
    calls_then,
    compact_call,
    compare,
    lookup,
    masked,
    run_both,
)

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


def chars(messages: list) -> int:
    """Characters of the messages' contents: a counter with no ``tools`` parameter."""
    return sum(len(str(m.content)) for m in messages)


def words_with_tools(messages: list, tools: Any = None) -> int:
    """Words of the contents, and LangChain's count of the tools' schemas."""
    words = sum(len(str(m.content).split()) for m in messages)
    return words + (count_tokens_approximately([], tools=tools) if tools else 0)


def quarter_chars(messages: list) -> float:
    """A counter answering fractions of a token."""
    return chars(messages) / 4


def thousand_per_message(messages: list) -> int:
    """So many tokens a message that a trigger fires at a known length."""
    return 1000 * len(messages)


class Recorder:
    """Calls ``counter`` and keeps what each call was handed."""

    def __init__(self, counter: Any, *, fail_when: Any = None) -> None:
        self.counter, self.fail_when = counter, fail_when
        self.calls: list[Any] = []

    def entry(self, messages: list, tools: Any) -> Any:
        shown = [[type(m).__name__, str(m.content), getattr(m, "tool_call_id", None)] for m in messages]
        if tools is None:
            return [shown, None]
        return [shown, [[t.name, count_tokens_approximately([], tools=[t])] for t in tools]]

    def check(self, messages: list) -> None:
        if self.fail_when is not None and self.fail_when(messages, self.calls):
            raise ValueError("the counter gave up")


class WithTools(Recorder):
    def __call__(self, messages: list, tools: Any = None) -> Any:
        self.calls.append(self.entry(messages, tools))
        self.check(messages)
        return self.counter(messages, tools=tools)


class WithoutTools(Recorder):
    def __call__(self, messages: list) -> Any:
        self.calls.append(self.entry(messages, None))
        self.check(messages)
        return self.counter(messages)


def counted_by(make_counter: Any, **settings: Any) -> tuple[Any, list[Recorder]]:
    """A middleware factory of each implementation's ``SummarizationMiddleware`` with a
    recording counter, and the recorders (deepagents' first)."""
    recorders: list[Recorder] = []

    def make(impl: Any, model: Any) -> Any:
        recorders.append(make_counter())
        cls = impl.middleware.summarization.SummarizationMiddleware
        return cls(model=model, backend=impl.backends.StateBackend(), token_counter=recorders[-1], **settings)

    return make, recorders


def summarized(run: Any) -> bool:
    """Whether the model was shown a summary in place of the older history."""
    return any(m.additional_kwargs.get("lc_source") == "summarization" for c in run.model.calls for m in c.messages)


def same_counts(recorders: list[Recorder]) -> None:
    ref, rs = recorders
    assert ref.calls, "the counter was never asked"
    assert len(rs.calls) == len(ref.calls)
    for i, (a, b) in enumerate(zip(ref.calls, rs.calls, strict=True)):
        assert masked(b) == masked(a), f"counter call {i} differs"


@pytest.mark.parametrize(
    ("make_counter", "settings", "mode"),
    [
        # Keep by tokens: the cutoff's search; the default trim of the older history.
        (lambda: WithoutTools(chars), {"trigger": ("tokens", 9000), "keep": ("tokens", 2500)}, "invoke"),
        (lambda: WithoutTools(chars), {"trigger": ("tokens", 9000), "keep": ("tokens", 2500)}, "ainvoke"),
        # The tools with the whole request; the trim cutting a message to its last lines.
        (
            lambda: WithTools(words_with_tools),
            {"trigger": ("tokens", 3000), "keep": ("tokens", 500), "trim_tokens_to_summarize": 700},
            "invoke",
        ),
        # Fractions of a token, compared as they are.
        (lambda: WithoutTools(quarter_chars), {"trigger": ("tokens", 2250), "keep": ("tokens", 600)}, "invoke"),
        # Old arguments truncated by a token keep.
        (
            lambda: WithoutTools(chars),
            {
                "trigger": ("tokens", 20000),
                "keep": ("messages", 3),
                "truncate_args_settings": {"trigger": ("tokens", 3000), "keep": ("tokens", 4000), "max_length": 30},
            },
            "invoke",
        ),
    ],
    ids=["chars", "chars-async", "words-and-tools", "fractions", "truncate-args"],
)
def test_a_users_counter_decides_when_and_where_to_summarize(make_counter: Any, settings: Any, mode: str) -> None:
    factory, recorders = counted_by(make_counter, **settings)
    runs = run_both(calls_then(10, "done"), ["go"], middleware_factory=factory, mode=mode)
    compare(runs)
    same_counts(recorders)
    assert summarized(runs[1]), "the conversation was never summarized"


def words(messages: list) -> int:
    return sum(len(str(m.content).split()) for m in messages)


def test_the_trimmed_history_keeps_the_last_lines_of_a_long_brief() -> None:
    # The brief alone is over the summary's budget: the counter is asked of its last lines
    # (as LangChain shows them: newest first) and the summary is asked of those.
    brief = "\n".join(f"line {i} of the brief" for i in range(200))
    script = calls_then(6, "done", tool="ls", args=lambda i: {"path": f"/d{i}"})
    factory, recorders = counted_by(
        lambda: WithoutTools(words), trigger=("messages", 10), keep=("messages", 2), trim_tokens_to_summarize=300
    )
    runs = run_both(script, [brief], middleware_factory=factory)
    compare(runs)
    same_counts(recorders)
    prompt = runs[1].model.summaries[0]
    assert "line 199 of the brief" in prompt
    assert "line 0 of the brief" not in prompt


def test_a_counter_of_large_numbers_summarizes_at_a_known_length() -> None:
    # 1,000 tokens a message (the system message among them): the trigger's 5,000 is first
    # reached by the third request (the system message and five messages).
    factory, recorders = counted_by(
        lambda: WithoutTools(thousand_per_message), trigger=("tokens", 5000), keep=("messages", 2)
    )
    runs = run_both(calls_then(4, "done"), ["go"], middleware_factory=factory)
    compare(runs)
    same_counts(recorders)
    rs = runs[1]
    assert rs.model.summaries
    # The third request is the first over the trigger: it is the first to show a summary.
    shown = [any(m.additional_kwargs.get("lc_source") for m in c.messages) for c in rs.model.calls]
    assert shown[:3] == [False, False, True]


def test_the_factory_passes_the_counter_with_the_models_defaults() -> None:
    # No profile: deepagents' defaults of 170,000 tokens and six messages kept.
    recorders: list[Recorder] = []

    def make(impl: Any, model: Any) -> Any:
        recorders.append(WithoutTools(lambda messages: 40_000 * len(messages)))
        mod = impl.middleware.summarization
        return mod.create_summarization_middleware(model, impl.backends.StateBackend(), token_counter=recorders[-1])

    runs = run_both(calls_then(8, "done"), ["go"], middleware_factory=make)
    compare(runs)
    same_counts(recorders)
    assert runs[1].model.summaries


def test_a_context_overflow_with_a_users_counter() -> None:
    factory, recorders = counted_by(lambda: WithTools(words_with_tools), keep=("tokens", 1500))
    runs = run_both(calls_then(12, "done"), ["go"], middleware_factory=factory, model_factory=OverflowingModel)
    compare(runs)
    same_counts(recorders)
    assert summarized(runs[1])
    # The tool results the refused request ended with were clipped and offloaded.
    assert any(k.startswith("/large_tool_results/") for k in runs[1].results[0]["files"])


def test_a_tail_the_counter_gives_no_tokens_is_not_clipped() -> None:
    # Tool results count nothing: after the provider's refusal the tail stays as it was, and
    # the retry is refused as deepagents refuses it.
    def no_tool_tokens(messages: list) -> int:
        return sum(len(str(m.content)) for m in messages if not isinstance(m, ToolMessage))

    factory, recorders = counted_by(lambda: WithoutTools(no_tool_tokens), keep=("messages", 30))
    runs = run_both(calls_then(12, "done"), ["go"], middleware_factory=factory, model_factory=OverflowingModel)
    compare(runs)
    same_counts(recorders)
    rs = runs[1]
    assert isinstance(rs.results[0], ContextOverflowError)
    assert str(rs.results[0]).startswith("Model input still does not fit after recovery")


class RefusesFirstSummaryPrompt(SummarizingModel):
    """Says the first summary prompt is too long (LangChain does not retry that)."""

    refused: int = 0

    def _next(self, messages: Any, stop: Any, kwargs: dict[str, Any]) -> Any:
        if len(messages) == 1 and "\nMessages to summarize:\n" in str(messages[0].content) and not self.refused:
            self.refused += 1
            raise ContextOverflowError("prompt is too long")
        return super()._next(messages, stop, kwargs)


def test_a_summary_prompt_too_long_is_cut_by_the_users_count() -> None:
    # The retry keeps the transcript's head and tail within half of what the counter says
    # the transcript is.
    factory, recorders = counted_by(
        lambda: WithoutTools(chars), trigger=("messages", 8), keep=("messages", 2), trim_tokens_to_summarize=None
    )
    runs = run_both(calls_then(6, "done"), ["go"], middleware_factory=factory, model_factory=RefusesFirstSummaryPrompt)
    compare(runs)
    same_counts(recorders)
    (first, *_) = runs[1].model.summaries
    assert "[... middle of conversation omitted ...]" in first


def test_a_subagents_own_summarization_counts_with_its_counter() -> None:
    recorders: list[Recorder] = []

    def make_agent(impl: Any, model: Any) -> Any:
        recorders.append(WithoutTools(thousand_per_message))
        summarization = impl.middleware.summarization.SummarizationMiddleware(
            model=model,
            backend=impl.backends.StateBackend(),
            trigger=("tokens", 6000),
            keep=("messages", 2),
            token_counter=recorders[-1],
        )
        digger = {"name": "digger", "description": "Digs.", "system_prompt": "Dig.", "middleware": [summarization]}
        return impl.create_deep_agent(model=model, tools=[lookup], subagents=[digger])

    delegate = AIMessage(
        content="", tool_calls=[{"name": "task", "args": {"description": "dig", "subagent_type": "digger"}, "id": "t1"}]
    )
    runs = []
    for impl in _IMPLS:
        model = SummarizingModel([delegate, *calls_then(6, "dug"), "all done"])
        run = Run(impl, model, make_agent(impl, model))
        run.results.append(run.agent.invoke({"messages": [{"role": "user", "content": "go"}]}))
        runs.append(run)
    compare(runs)
    same_counts(recorders)
    assert runs[1].model.summaries


# --------------------------------------------------------------------------- a counter that raises


def is_system_first(messages: list) -> bool:
    """A whole request: the system message comes first."""
    return bool(messages) and isinstance(messages[0], SystemMessage)


def out_of_order(messages: list, _calls: list) -> bool:
    """Whether a tool result comes before the call it answers: only the trimming of the
    history to summarize counts messages newest first."""
    for i, m in enumerate(messages):
        if isinstance(m, ToolMessage):
            later = [tc["id"] for x in messages[i + 1 :] if isinstance(x, AIMessage) for tc in x.tool_calls]
            if m.tool_call_id in later:
                return True
    return False


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_counter_that_raises_fails_the_run_and_keeps_the_state(mode: str) -> None:
    # The third whole-request count raises: the run ends with the counter's error, and the
    # thread keeps what the first steps wrote.
    def third_request(messages: list, calls: list) -> bool:
        return is_system_first(messages) and sum(c[0][0][0] == "SystemMessage" for c in calls) >= 3

    factory, recorders = counted_by(lambda: WithoutTools(chars, fail_when=third_request), trigger=("tokens", 100_000))
    runs = run_both(calls_then(4, "done"), ["go"], middleware_factory=factory, checkpointer=True, mode=mode)
    compare(runs, state=True)
    same_counts(recorders)
    ref, rs = runs
    assert isinstance(rs.results[0], ValueError) and str(rs.results[0]) == "the counter gave up"
    config = {"configurable": {"thread_id": "t"}}
    kept = rs.agent.get_state(config).values["messages"]
    assert len(kept) == len(ref.agent.get_state(config).values["messages"]) == 5


def test_a_counter_that_raises_while_trimming_summarizes_the_last_messages() -> None:
    factory, recorders = counted_by(
        lambda: WithoutTools(chars, fail_when=out_of_order), trigger=("messages", 22), keep=("messages", 2)
    )
    runs = run_both(calls_then(12, "done"), ["go"], middleware_factory=factory)
    compare(runs)
    same_counts(recorders)
    (prompt,) = runs[1].model.summaries
    # The older history is 21 messages: only the last 15 are in the prompt.
    assert len(re.findall(r'<message type="', prompt)) == 15


def test_a_counter_that_raises_in_the_compact_tool_fails_the_run() -> None:
    def compacting(messages: list, _calls: list) -> bool:
        last = messages[-1] if messages else None
        return isinstance(last, AIMessage) and any(tc["name"] == "compact_conversation" for tc in last.tool_calls)

    recorders: list[Recorder] = []

    def make(impl: Any, model: Any) -> Any:
        recorders.append(WithoutTools(chars, fail_when=compacting))
        mod = impl.middleware.summarization
        summarization = mod.SummarizationMiddleware(
            model=model,
            backend=impl.backends.StateBackend(),
            # Never on its own; the tool may compact from 15 messages on.
            trigger=("messages", 30),
            keep=("tokens", 2000),
            token_counter=recorders[-1],
        )
        return mod.SummarizationToolMiddleware(summarization)

    script = calls_then(7, compact_call(1), "carried on", ids="c")
    runs = run_both(script, ["go"], middleware_factory=make, checkpointer=True)
    compare(runs, state=True)
    same_counts(recorders)
    assert isinstance(runs[1].results[0], ValueError)


def test_the_counter_is_kept_and_the_default_is_langchains() -> None:
    for impl in _IMPLS:
        cls = impl.middleware.summarization.SummarizationMiddleware
        own = cls(model=SummarizingModel([]), backend=impl.backends.StateBackend(), token_counter=chars)
        assert own.token_counter is chars
        default = cls(model=SummarizingModel([]), backend=impl.backends.StateBackend())
        assert default.token_counter.func is count_tokens_approximately
        assert default.token_counter.keywords == {"use_usage_metadata_scaling": True}


def test_a_counter_answering_no_number_fails_as_deepagents() -> None:
    factory, _ = counted_by(lambda: WithoutTools(lambda messages: None), trigger=("tokens", 10))
    runs = run_both(calls_then(1, "done"), ["go"], middleware_factory=factory)
    ref, rs = runs
    assert isinstance(ref.results[0], TypeError)
    assert isinstance(rs.results[0], TypeError)
    assert "token_counter" in str(rs.results[0])
