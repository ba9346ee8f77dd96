"""The summary call summarization makes inside the model node is reported as deepagents
reports it (LangChain's ``with_retry`` chain named after the model, tagged ``nostream``,
with ``lc_source``/``lc_internal_call`` metadata, and the chat model run inside it), to
LangChain's event stream and to callback handlers alike."""

from __future__ import annotations

import asyncio
import importlib

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel
from langchain.agents.middleware.internal_call_transformer import INTERNAL_CALL_METADATA_KEY, internal_call_metadata
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver

HISTORY = [("user", "a"), ("ai", "b"), ("user", "c"), ("ai", "d"), ("user", "e")]
#: The process's own internal-call token: both implementations must mark the call with it
#: (LangChain's stream transformer recognises internal calls by it).
TOKEN = internal_call_metadata()[INTERNAL_CALL_METADATA_KEY]


class FailingOnceModel(BaseChatModel):
    """Raises on call number ``fail_at`` (a retryable error, or with ``fatal`` one LangChain
    does not retry), and answers the other calls in turn."""

    replies: list
    fail_at: int = 1
    fatal: bool = False
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "failing-once"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.calls += 1
        if self.calls == self.fail_at:
            if self.fatal:
                from langchain_core.exceptions import ModelInvalidRequestError

                raise ModelInvalidRequestError("no summaries today")
            raise RuntimeError("flaky")
        reply = self.replies.pop(0)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply) if isinstance(reply, str) else reply)])


def _agent(module, model, saver=None, summarizer=None):
    mw = importlib.import_module(module.__name__ + ".middleware")
    backends = importlib.import_module(module.__name__ + ".backends")
    extra = {"summarizer": summarizer} if summarizer is not None else {}
    summ = mw.SummarizationMiddleware(
        backend=backends.StateBackend(), model=model, trigger=("messages", 3), keep=("messages", 1), **extra
    )
    return module.create_deep_agent(model=model, middleware=[summ], checkpointer=saver)


def _meta(meta):
    # The internal-call token is random per process: only whether it is LangChain's counts.
    keep = ("langgraph_node", "langgraph_step", "lc_source", "ls_provider", "ls_model_name")
    out = {k: meta[k] for k in keep if k in meta}
    if INTERNAL_CALL_METADATA_KEY in meta:
        out[INTERNAL_CALL_METADATA_KEY] = meta[INTERNAL_CALL_METADATA_KEY] == TOKEN
    return out


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "content") and hasattr(value, "type"):
        return (value.type, value.content)
    return value


def _event(ev):
    data = ev["data"]
    summary_io = None
    if ev["metadata"].get("lc_source") == "summarization":
        summary_io = {k: _plain(data[k]) for k in ("input", "output") if k in data}
    return (
        ev["event"],
        ev["name"],
        len(ev["parent_ids"]),
        sorted(ev.get("tags", [])),
        _meta(ev["metadata"]),
        summary_io,
    )


def _events(module, model, saver=None, summarizer=None):
    agent = _agent(module, model, saver, summarizer)
    config = {"configurable": {"thread_id": "t"}} if saver else None

    async def collect():
        return [_event(e) async for e in agent.astream_events({"messages": HISTORY}, config, version="v2")]

    return asyncio.run(collect())


def _summary_events(events):
    return [e for e in events if e[4].get("lc_source") == "summarization"]


@pytest.mark.parametrize("saver", [None, InMemorySaver], ids=["plain", "checkpointed"])
def test_summary_call_in_event_stream(saver):
    def run(module):
        model = ScriptedChatModel(["the summary", "done"])
        return _events(module, model, saver() if saver else None)

    ours, theirs = run(deepagents_rs), run(deepagents)
    # The retry chain and the chat model run inside it: start and end of each.
    assert len(_summary_events(theirs)) == 4
    assert ours == theirs


def test_summarizer_function_in_event_stream():
    def summarize(messages):
        return "custom summary"

    def run(module):
        return _events(module, ScriptedChatModel(["done"]), summarizer=summarize)

    ours, theirs = run(deepagents_rs), run(deepagents)
    assert [e[:2] for e in _summary_events(theirs)] == [("on_chain_start", "summarize"), ("on_chain_end", "summarize")]
    assert ours == theirs


def test_retried_summary_attempts_inside_one_chain():
    """A retryable failure: the second attempt runs in the same chain, tagged as
    ``RunnableRetry`` tags it."""

    def run(module):
        return _events(module, FailingOnceModel(replies=["the summary", "done"]))

    ours, theirs = run(deepagents_rs), run(deepagents)
    assert ["retry:attempt:2", "nostream"] in [sorted(e[3], reverse=True) for e in _summary_events(theirs)]
    assert ours == theirs


@pytest.mark.parametrize("summarizer", [False, True], ids=["model", "summarizer"])
def test_compact_conversation_summary_call_inside_its_tool_run(summarizer):
    """The tool's summary call runs inside the tool's run, not the node's."""

    def summarize(messages):
        return "custom summary"

    def run(module):
        mod = importlib.import_module(module.__name__ + ".middleware.summarization")
        backends = importlib.import_module(module.__name__ + ".backends")
        call = AIMessage("", tool_calls=[{"name": "compact_conversation", "args": {}, "id": "k1"}])
        model = ScriptedChatModel([call, *([] if summarizer else ["the summary"]), "done"])
        extra = {"summarizer": summarize} if summarizer else {}
        summ = mod.SummarizationMiddleware(
            backend=backends.StateBackend(), model=model, trigger=("messages", 8), keep=("messages", 1), **extra
        )
        agent = module.create_deep_agent(model=model, middleware=[mod.SummarizationToolMiddleware(summ)])
        history = [*HISTORY, ("ai", "f"), ("user", "g")]

        async def collect():
            return [_event(e) async for e in agent.astream_events({"messages": history}, version="v2")]

        return asyncio.run(collect())

    ours, theirs = run(deepagents_rs), run(deepagents)
    summary = _summary_events(theirs)
    assert summary and all(e[3] == ["nostream"] for e in summary)
    assert ours == theirs


class Recorder(BaseCallbackHandler):
    """Chain and chat-model starts with their tags and metadata, and their ends."""

    def __init__(self):
        self.seen = []

    def on_chain_start(self, serialized, inputs, *, tags=None, metadata=None, **kwargs):
        self.seen.append(("chain_start", kwargs.get("name"), sorted(tags or []), _meta(metadata or {})))

    def on_chat_model_start(self, serialized, messages, *, tags=None, metadata=None, **kwargs):
        name = kwargs.get("name") or (serialized or {}).get("name")
        prompt = [m.content for m in messages[0]] if (metadata or {}).get("lc_source") else None
        self.seen.append(("chat_model_start", name, sorted(tags or []), _meta(metadata or {}), prompt))

    def on_llm_end(self, response, **kwargs):
        self.seen.append(("llm_end", response.generations[0][0].message.content))

    def on_chain_end(self, outputs, **kwargs):
        self.seen.append(("chain_end",))

    def on_chain_error(self, error, **kwargs):
        self.seen.append(("chain_error", type(error).__name__, str(error)))

    def on_llm_error(self, error, **kwargs):
        self.seen.append(("llm_error", type(error).__name__, str(error)))


def test_failed_summary_call_reported_as_failed():
    """``compact_conversation`` asks a model that refuses: the chat model run and the retry
    chain end in the model's error (one attempt: the error is not retried), the run goes on."""

    def run(module):
        mod = importlib.import_module(module.__name__ + ".middleware.summarization")
        backends = importlib.import_module(module.__name__ + ".backends")
        call = AIMessage("", tool_calls=[{"name": "compact_conversation", "args": {}, "id": "k1"}])
        model = FailingOnceModel(replies=[call, "carried on"], fail_at=2, fatal=True)
        summ = mod.SummarizationMiddleware(
            backend=backends.StateBackend(), model=model, trigger=("messages", 8), keep=("messages", 1)
        )
        agent = module.create_deep_agent(model=model, middleware=[mod.SummarizationToolMiddleware(summ)])
        handler = Recorder()
        agent.invoke({"messages": [*HISTORY, ("ai", "f"), ("user", "g")]}, {"callbacks": [handler]})
        return handler.seen

    ours, theirs = run(deepagents_rs), run(deepagents)
    errors = [s for s in theirs if s[0].endswith("_error")]
    assert [e[0] for e in errors] == ["llm_error", "chain_error"]
    assert ours == theirs


@pytest.mark.parametrize("saver", [None, InMemorySaver], ids=["plain", "checkpointed"])
def test_summary_call_seen_by_callback_handler(saver):
    def run(module):
        handler = Recorder()
        agent = _agent(module, ScriptedChatModel(["the summary", "done"]), saver() if saver else None)
        config = {"callbacks": [handler], "configurable": {"thread_id": "t"}}
        agent.invoke({"messages": HISTORY}, config)
        return handler.seen

    ours, theirs = run(deepagents_rs), run(deepagents)
    assert any(s[0] == "chat_model_start" and s[3].get("lc_source") == "summarization" for s in theirs)
    assert ours == theirs


@pytest.fixture
def openai_sim(monkeypatch):
    from sim.openai import SimOpenAI

    with SimOpenAI(min_cache_tokens=256) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        yield server


@pytest.mark.parametrize(
    ("server", "provider", "model", "chat_class"),
    [
        ("sim", "anthropic", "anthropic:claude-sonnet-4-5", "ChatAnthropic"),
        ("openai_sim", "openai", "openai:gpt-5.4", "ChatOpenAI"),
    ],
    ids=["anthropic", "openai"],
)
def test_native_client_summary_call_traced(request, server, provider, model, chat_class):
    """A native client's summary call is reported as LangChain's chat model class behind
    ``with_retry`` is (on the simulated provider servers)."""
    simulator = request.getfixturevalue(server)
    text = importlib.import_module(f"sim.{provider}").text

    def run(module):
        simulator.script(text("the summary"), text("done"))
        handler = Recorder()
        _agent(module, model).invoke({"messages": HISTORY}, {"callbacks": [handler]})
        return [s for s in handler.seen if s[0] not in ("chain_end", "llm_end")]

    ours, theirs = run(deepagents_rs), run(deepagents)
    assert ("chain_start", chat_class) in [s[:2] for s in theirs]
    assert ours == theirs
