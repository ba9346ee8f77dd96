"""No Python on the tokio runtime's worker threads.

A worker that waits for the GIL stalls every run scheduled on it, so the core calls Python
only from threads of its own (``dars-python``, `src/python/python_calls.rs`) or the caller's.
A thread is named ``dars-worker`` once it runs as a worker and ``dars-blocking`` otherwise; each Python
callable of these runs (tools, middleware hooks, a LangChain model, a subagent) records the
OS name of the thread it runs on, and the core records the call site of any GIL acquisition
made on a worker (``_core._gil_on_workers``). Through ``invoke``, ``ainvoke``, ``stream``
and ``astream``, with a LangChain model and with the native client, no Python callable runs
on a worker, and the core takes no GIL there at all: under ``ainvoke`` and ``astream`` a
callback's coroutine is made, scheduled and read on the loop's own thread. An exception a
tool (sync or async), a ``wrap_tool_call`` hook or a backend raises is told apart where it
was raised (whether it pauses the run, whether it is ``NotImplementedError``), and one a
LangChain model, a ``wrap_model_call`` or a ``before_model`` hook raises is made the model
call's error there (whether it is an invalid request, a context overflow), so the core's
questions about it on a worker take no GIL either.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import deepagents_rs
import pytest
from deepagents_rs import _core, create_deep_agent
from deepagents_rs.backends.protocol import BackendProtocol, LsResult
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain.agents.middleware import AgentMiddleware
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from langgraph.graph import START, MessagesState, StateGraph
from sim.anthropic import SimAnthropic, text, tool_use

WORKER = "dars-worker"


def _thread_name() -> str:
    """The OS name of the calling thread (what tokio named it), not Python's."""
    return Path(f"/proc/self/task/{threading.get_native_id()}/comm").read_text().strip()


class Seen:
    """Where each Python callable ran: (what, OS thread name)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def note(self, what: str) -> None:
        with self._lock:
            self.calls.append((what, _thread_name()))

    def on_workers(self) -> list[tuple[str, str]]:
        return [c for c in self.calls if c[1].startswith(WORKER)]

    def kinds(self) -> set[str]:
        return {what for what, _ in self.calls}


def _tools(seen: Seen) -> list[Callable[..., Any]]:
    def echo(text: str) -> str:
        """Echo the text back."""
        seen.note("tool")
        return text

    async def aecho(text: str) -> str:
        """Echo the text back, asynchronously."""
        seen.note("async tool")
        return text

    return [echo, aecho]


def _middleware(seen: Seen) -> AgentMiddleware:
    class Watch(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            seen.note("before_model")

        async def abefore_model(self, state: Any, runtime: Any) -> None:
            seen.note("before_model")

        def after_model(self, state: Any, runtime: Any) -> None:
            seen.note("after_model")

        async def aafter_model(self, state: Any, runtime: Any) -> None:
            seen.note("after_model")

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            seen.note("wrap_model_call")
            return handler(request)

        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            seen.note("wrap_model_call")
            return await handler(request)

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            seen.note("wrap_tool_call")
            return handler(request)

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            seen.note("wrap_tool_call")
            return await handler(request)

    return Watch()


class WatchedModel(ScriptedChatModel):
    """The scripted LangChain model, noting where LangChain calls it."""

    seen: Any = None

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        self.seen.note("model")
        return super()._generate(*args, **kwargs)

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        self.seen.note("model")
        return await super()._agenerate(*args, **kwargs)


def _scripted(seen: Seen) -> WatchedModel:
    return WatchedModel(
        responses=[
            ai_tool_calls(("echo", {"text": "a"}), ("aecho", {"text": "b"})),
            ai_tool_calls(("task", {"description": "say hi", "subagent_type": "general-purpose"})),
            AIMessage(content="hi from the subagent"),
            AIMessage(content="done"),
        ],
        seen=seen,
    )


def _native_script(sim: SimAnthropic) -> None:
    sim.script(
        tool_use(("echo", {"text": "a"}, "toolu_1"), ("aecho", {"text": "b"}, "toolu_2")),
        tool_use(("task", {"description": "say hi", "subagent_type": "general-purpose"}, "toolu_3")),
        text("hi from the subagent"),
        text("done"),
    )


def _run(agent: Any, mode: str, key: str | None = "messages") -> Any:
    """The run's final state in ``mode`` (its ``key``; the whole state with ``key=None``)."""
    inputs = {"messages": [{"role": "user", "content": "go"}]}
    if mode == "invoke":
        result = agent.invoke(inputs)
    elif mode == "ainvoke":
        result = asyncio.run(agent.ainvoke(inputs))
    elif mode == "stream":
        result = [c for c in agent.stream(inputs, stream_mode="values")][-1]
    else:

        async def astream() -> Any:
            return [c async for c in agent.astream(inputs, stream_mode="values")][-1]

        result = asyncio.run(astream())
    return result if key is None else result[key]


MODES = ["invoke", "ainvoke", "stream", "astream"]
EXPECTED = {"tool", "async tool", "before_model", "after_model", "wrap_model_call", "wrap_tool_call"}


def _check(seen: Seen, messages: list[Any]) -> None:
    assert messages[-1].content == "done"
    assert EXPECTED <= seen.kinds(), seen.calls
    assert seen.on_workers() == []
    assert _core._gil_on_workers() == []


@pytest.mark.parametrize("mode", MODES)
def test_langchain_model_runs_no_python_on_workers(mode: str) -> None:
    seen = Seen()
    agent = create_deep_agent(model=_scripted(seen), tools=_tools(seen), middleware=[_middleware(seen)])
    _core._gil_on_workers()
    messages = _run(agent, mode)
    assert "model" in seen.kinds()
    _check(seen, messages)


@pytest.mark.parametrize("mode", MODES)
def test_native_model_runs_no_python_on_workers(sim: SimAnthropic, mode: str) -> None:
    seen = Seen()
    _native_script(sim)
    agent = create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=_tools(seen), middleware=[_middleware(seen)])
    _core._gil_on_workers()
    _check(seen, _run(agent, mode))


class WatchedBackend(BackendProtocol):
    """A user's backend: the core calls it through the Python adapter."""

    def __init__(self, seen: Seen) -> None:
        self.seen = seen

    def ls(self, path: str) -> LsResult:
        self.seen.note("backend")
        return LsResult(entries=[{"path": "/notes.txt", "is_dir": False}])


def _graph(seen: Seen) -> Any:
    """A compiled LangGraph graph as a subagent (deepagents' CompiledSubAgent)."""

    def reply(state: MessagesState) -> dict[str, Any]:
        seen.note("compiled subagent")
        return {"messages": [AIMessage(content="from the graph")]}

    async def areply(state: MessagesState) -> dict[str, Any]:
        return reply(state)

    graph = StateGraph(MessagesState)
    graph.add_node("reply", RunnableLambda(reply, afunc=areply))
    graph.add_edge(START, "reply")
    return graph.compile()


@pytest.mark.parametrize("mode", MODES)
def test_compiled_subagent_and_user_backend_run_no_python_on_workers(mode: str) -> None:
    seen = Seen()
    model = WatchedModel(
        responses=[
            ai_tool_calls(("ls", {"path": "/"})),
            ai_tool_calls(("task", {"description": "answer", "subagent_type": "graph"})),
            AIMessage(content="done"),
        ],
        seen=seen,
    )
    agent = create_deep_agent(
        model=model,
        backend=WatchedBackend(seen),
        subagents=[{"name": "graph", "description": "A graph.", "runnable": _graph(seen)}],
    )
    _core._gil_on_workers()
    messages = _run(agent, mode)
    assert messages[-1].content == "done"
    assert "/notes.txt" in messages[2].content
    assert messages[4].content == "from the graph"
    assert {"model", "backend", "compiled subagent"} <= seen.kinds(), seen.calls
    assert seen.on_workers() == []
    assert _core._gil_on_workers() == []


def _asks(question: str) -> str:
    """Ask a human."""
    from langgraph.types import interrupt

    return f"human said {interrupt({'question': question})}"


def _explodes(text: str) -> str:
    """Fail."""
    raise ValueError(f"bad value {text}")


async def _aasks(question: str) -> str:
    """Ask a human, asynchronously."""
    from langgraph.types import interrupt

    return f"human said {interrupt({'question': question})}"


async def _aexplodes(text: str) -> str:
    """Fail, asynchronously."""
    raise ValueError(f"bad value {text}")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("tool", "args", "raised"),
    [
        pytest.param(_asks, {"question": "ok?"}, "GraphInterrupt", id="interrupt"),
        pytest.param(_explodes, {"text": "x"}, "ValueError", id="error"),
        pytest.param(_aasks, {"question": "ok?"}, "GraphInterrupt", id="async-interrupt"),
        pytest.param(_aexplodes, {"text": "x"}, "ValueError", id="async-error"),
    ],
)
def test_a_tools_exception_is_told_apart_off_the_workers(
    mode: str, tool: Callable[..., Any], args: dict[str, str], raised: str
) -> None:
    """Whether a tool's exception pauses the run (LangGraph's interrupt) is asked on the tokio
    worker that awaited the call; it was told where the exception was raised, holding the GIL
    (``errors.rs``' ``Raised``): on the drainer for a sync tool, on the run's loop (the private
    one under ``invoke``) for an async tool's coroutine. So no GIL is taken on the worker for
    it."""
    model = ScriptedChatModel([ai_tool_calls((tool.__name__, args)), AIMessage(content="done")])
    agent = create_deep_agent(model=model, tools=[tool])
    _core._gil_on_workers()
    with pytest.raises(Exception) as info:
        _run(agent, mode)
    assert type(info.value).__name__ == raised
    assert _core._gil_on_workers() == []


def test_the_runtime_names_its_workers_apart() -> None:
    """The check above can fail: the workers carry their own name, and a sync tool under
    ``invoke`` runs on the core's Python-calling threads, named otherwise."""
    seen = Seen()
    agent = create_deep_agent(model=_scripted(seen), tools=_tools(seen))
    _run(agent, "invoke")
    names = [p.read_text().strip() for p in Path("/proc/self/task").glob("*/comm")]
    assert WORKER in names
    assert dict(seen.calls)["tool"] == "dars-python"


def _raising_wrapper(how: str) -> AgentMiddleware:
    def fail() -> None:
        if how == "interrupt":
            from langgraph.types import interrupt

            interrupt({"question": "may I?"})
        raise ValueError("the wrapper refuses")

    class Refuse(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            fail()

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            fail()

    return Refuse()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("how", "raised"), [("interrupt", "GraphInterrupt"), ("error", "ValueError")])
def test_a_tool_wrappers_exception_is_told_apart_off_the_workers(mode: str, how: str, raised: str) -> None:
    """A ``wrap_tool_call`` middleware that raises (or calls ``interrupt()``): its exception is
    told apart where the hook ran (the drainer, or the loop's thread under ``ainvoke``)."""
    seen = Seen()
    model = ScriptedChatModel([ai_tool_calls(("echo", {"text": "a"})), AIMessage(content="done")])
    agent = create_deep_agent(model=model, tools=_tools(seen)[:1], middleware=[_raising_wrapper(how)])
    _core._gil_on_workers()
    with pytest.raises(Exception) as info:
        _run(agent, mode)
    assert type(info.value).__name__ == raised
    assert _core._gil_on_workers() == []


class RefusingModel(ScriptedChatModel):
    """A LangChain model whose ``_generate`` raises; ``_agenerate`` is LangChain's own (the
    sync one in an executor)."""

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("the model refuses")

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        return await BaseChatModel._agenerate(self, *args, **kwargs)


class ARefusingModel(ScriptedChatModel):
    """A LangChain model whose ``_agenerate`` raises (and ``_generate``, for ``invoke``)."""

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("the model refuses")

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("the model refuses, asynchronously")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("model_class", [RefusingModel, ARefusingModel], ids=["sync", "async"])
def test_a_models_exception_is_told_apart_off_the_workers(mode: str, model_class: type[ScriptedChatModel]) -> None:
    """A LangChain model that raises: its exception is made the core's model error (told
    whether it is LangChain's invalid-request or context-overflow error) where it was caught,
    holding the GIL (the drainer, or the loop's thread under ``ainvoke``)."""
    agent = create_deep_agent(model=model_class([AIMessage(content="done")]))
    _core._gil_on_workers()
    with pytest.raises(ValueError, match="the model refuses"):
        _run(agent, mode)
    assert _core._gil_on_workers() == []


def _refusing_model_middleware(hook: str) -> AgentMiddleware:
    def fail(*args: Any) -> Any:
        raise ValueError(f"the {hook} hook refuses")

    async def afail(*args: Any) -> Any:
        fail()

    refuse = type("Refuse", (AgentMiddleware,), {hook: fail, f"a{hook}": afail})
    return refuse()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", ["wrap_model_call", "before_model"])
def test_a_model_hooks_exception_is_told_apart_off_the_workers(mode: str, hook: str) -> None:
    """A ``wrap_model_call`` middleware (or a ``before_model`` hook) that raises: its exception
    becomes the model call's error where the hook ran."""
    agent = create_deep_agent(
        model=ScriptedChatModel([AIMessage(content="done")]), middleware=[_refusing_model_middleware(hook)]
    )
    _core._gil_on_workers()
    with pytest.raises(ValueError, match=f"the {hook} hook refuses"):
        _run(agent, mode)
    assert _core._gil_on_workers() == []


class NoDeleteBackend(WatchedBackend):
    """A user's backend whose ``delete`` raises ``NotImplementedError``."""

    def delete(self, path: str) -> Any:
        self.seen.note("delete")
        raise NotImplementedError("no deleting here")


@pytest.mark.parametrize("mode", MODES)
def test_a_backends_not_implemented_is_told_apart_off_the_workers(mode: str) -> None:
    """A routed backend raising ``NotImplementedError`` from ``delete``: the composite answers
    deepagents' refusal, having been told the kind where the backend ran."""
    from deepagents_rs.backends import CompositeBackend, StateBackend

    seen = Seen()
    model = ScriptedChatModel([ai_tool_calls(("delete", {"file_path": "/u/notes.txt"})), AIMessage(content="done")])
    backend = CompositeBackend(default=StateBackend(), routes={"/u/": NoDeleteBackend(seen)})
    agent = create_deep_agent(model=model, backend=backend)
    _core._gil_on_workers()
    messages = _run(agent, mode)
    assert "delete" in seen.kinds()
    assert messages[2].content == "Error: deletion is not supported for '/u/notes.txt'."
    assert _core._gil_on_workers() == []


# --------------------------------------------------------------------------- summarization


class SummarizingModel(WatchedModel):
    """The watched model answering each summary prompt (a lone human message holding the
    transcript) with ``SUMMARY <n>`` outside its script."""

    summaries: int = 0

    def _next(self, messages: Any, stop: Any, kwargs: dict[str, Any]) -> Any:
        if len(messages) == 1 and "\nMessages to summarize:\n" in str(messages[0].content):
            self.summaries += 1
            reply = AIMessage(content=f"SUMMARY {self.summaries}")
            return ChatResult(generations=[ChatGeneration(message=reply)])
        return super()._next(messages, stop, kwargs)


def lookup(q: str) -> str:
    """Look something up."""
    return f"result for {q}: " + "lorem ipsum " * 300


def _lookups(n: int) -> list[Any]:
    return [*(ai_tool_calls(("lookup", {"q": f"q{i}"}, f"c{i}")) for i in range(n)), AIMessage(content="done")]


def _module(impl: Any, name: str) -> Any:
    return importlib.import_module(f"{impl.__name__}.{name}")


def _dict_backend(impl: Any, seen: Seen) -> Any:
    """A user's backend (of ``impl``'s protocol) keeping files in a dict: the history file
    goes to it through the Python adapter."""
    protocol = _module(impl, "backends.protocol")

    class DictBackend(protocol.BackendProtocol):
        def __init__(self) -> None:
            self.files: dict[str, str] = {}

        def download_files(self, paths: list[str]) -> list[Any]:
            seen.note("backend")
            return [
                protocol.FileDownloadResponse(path=p, content=self.files[p].encode(), error=None)
                if p in self.files
                else protocol.FileDownloadResponse(path=p, content=None, error="file_not_found")
                for p in paths
            ]

        def write(self, file_path: str, content: str) -> Any:
            seen.note("backend")
            self.files[file_path] = content
            return protocol.WriteResult(path=file_path)

        def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> Any:
            seen.note("backend")
            self.files[file_path] = new_string
            return protocol.EditResult(path=file_path, occurrences=1)

    return DictBackend()


def _steps_middleware(impl: Any, seen: Seen, **settings: Any) -> Any:
    """``impl``'s ``SummarizationMiddleware`` with its summary and history steps replaced on a
    subclass: the core's entry calls them back."""

    class OwnSteps(_module(impl, "middleware.summarization").SummarizationMiddleware):
        def _create_summary(self, messages: list[Any]) -> str:
            seen.note("summary step")
            return f"{len(messages)} messages, by the subclass"

        async def _acreate_summary(self, messages: list[Any]) -> str:
            return self._create_summary(messages)

        def _offload_to_backend(self, backend: Any, messages: list[Any], session_id: str) -> str | None:
            seen.note("offload step")
            return "/own/history.md"

        async def _aoffload_to_backend(self, backend: Any, messages: list[Any], session_id: str) -> str | None:
            return self._offload_to_backend(backend, messages, session_id)

    return OwnSteps(**settings)


def _summarizing_agent(impl: Any, how: str, model: SummarizingModel, seen: Seen) -> Any:
    """An agent of ``impl`` (deepagents or deepagents_rs) whose summarization calls the
    Python callable ``how`` names."""

    def summarizer(messages: list[Any]) -> str:
        seen.note("summarizer")
        return f"{len(messages)} messages, the first a {messages[0].type} message"

    def counter(messages: list[Any]) -> int:
        seen.note("token_counter")
        return sum(len(str(m.content)) for m in messages) // 4

    own = _module(impl, "middleware.summarization").SummarizationMiddleware
    state = {"model": model, "backend": _module(impl, "backends").StateBackend()}
    by_messages = {"trigger": ("messages", 6), "keep": ("messages", 2)}
    if how == "model":
        return impl.create_deep_agent(model=model, tools=[lookup])
    if how == "backend":
        return impl.create_deep_agent(model=model, tools=[lookup], backend=_dict_backend(impl, seen))
    if how == "summarizer":
        middleware = own(**state, **by_messages, summarizer=summarizer)
    elif how == "steps":
        middleware = _steps_middleware(impl, seen, **state, **by_messages)
    elif how == "token_counter":
        middleware = own(**state, trigger=("tokens", 3000), keep=("messages", 2), token_counter=counter)
    else:
        # Outside a deep agent: the middleware in LangChain's own agent.
        from langchain.agents import create_agent

        middleware = own(model=model, backend=_dict_backend(impl, seen), **by_messages)
        return create_agent(model=model, tools=[lookup], middleware=[middleware])
    return impl.create_deep_agent(model=model, tools=[lookup], middleware=[middleware])


def _summary_shown(model: SummarizingModel) -> str:
    """The first summary message the model was shown, its random session id masked."""
    for call in model.calls:
        for m in call.messages:
            if m.additional_kwargs.get("lc_source") == "summarization":
                return re.sub(r"session_[0-9a-f]{32}", "session_<id>", str(m.content))
    raise AssertionError("the model was never shown a summary")


SUMMARIZATION = {
    "model": {"model"},
    "backend": {"model", "backend"},
    "summarizer": {"summarizer"},
    "steps": {"summary step", "offload step"},
    "token_counter": {"model", "token_counter"},
    "outside": {"model", "backend"},
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("how", list(SUMMARIZATION))
def test_summarization_runs_no_python_on_workers(mode: str, how: str) -> None:
    """Summarization triggering in a run: the summary written by the LangChain model, a
    user's ``summarizer`` or a subclass's ``_create_summary``, the history going to a user's
    backend or to a subclass's ``_offload_to_backend``, the conversation measured by a user's
    ``token_counter``, and the middleware in LangChain's ``create_agent``. Each callable's
    result is read (and an exception made the call's error) where it ran, so no GIL is taken
    on a worker; the summary the model is shown is deepagents'."""
    import deepagents

    shown = {}
    for impl in (deepagents, deepagents_rs):
        seen = Seen()
        model = SummarizingModel(responses=_lookups(8), seen=seen, profile={"max_input_tokens": 9000})
        agent = _summarizing_agent(impl, how, model, seen)
        _core._gil_on_workers()
        messages = _run(agent, mode)
        assert messages[-1].content == "done"
        shown[impl.__name__] = _summary_shown(model)
        if impl is deepagents_rs:
            assert SUMMARIZATION[how] <= seen.kinds(), seen.calls
            assert seen.on_workers() == []
            assert _core._gil_on_workers() == []
    assert shown["deepagents_rs"] == shown["deepagents"]


def _failing_backend(impl: Any, seen: Seen) -> Any:
    """The dict backend whose writes all fail: the history offload fails and warns."""
    protocol = _module(impl, "backends.protocol")

    class FailingBackend(type(_dict_backend(impl, seen))):
        def write(self, file_path: str, content: str) -> Any:
            seen.note("backend")
            return protocol.WriteResult(error=f"{file_path}: disk full")

    return FailingBackend()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("where", ["deep agent", "outside"])
def test_a_failed_offloads_warning_is_issued_off_the_workers(mode: str, where: str) -> None:
    """The history offload failing: deepagents' ``UserWarning`` (its text, its category) is
    issued where the run's Python runs (the loop's thread under ``ainvoke`` / ``astream``,
    the core's Python threads under ``invoke`` / ``stream``), so the caller's
    ``pytest.warns`` sees it and no GIL is taken on a worker."""
    import deepagents

    warned = {}
    for impl in (deepagents, deepagents_rs):
        seen = Seen()
        model = SummarizingModel(responses=_lookups(8), seen=seen, profile={"max_input_tokens": 9000})
        backend = _failing_backend(impl, seen)
        if where == "outside":
            from langchain.agents import create_agent

            own = _module(impl, "middleware.summarization").SummarizationMiddleware
            middleware = own(model=model, backend=backend, trigger=("messages", 6), keep=("messages", 2))
            agent = create_agent(model=model, tools=[lookup], middleware=[middleware])
        else:
            agent = impl.create_deep_agent(model=model, tools=[lookup], backend=backend)
        _core._gil_on_workers()
        with pytest.warns(UserWarning, match="Offloading conversation history") as record:
            messages = _run(agent, mode)
        assert messages[-1].content == "done"
        warned[impl.__name__] = sorted(
            (w.category.__name__, str(w.message)) for w in record if "Offloading" in str(w.message)
        )
        if impl is deepagents_rs:
            assert {"model", "backend"} <= seen.kinds(), seen.calls
            assert seen.on_workers() == []
            assert _core._gil_on_workers() == []
    assert warned["deepagents_rs"] == warned["deepagents"]


# --------------------------------------------------------------------------- structured output


def _answer_schema(seen: Seen) -> type:
    """A pydantic schema whose validator notes where it runs (before the value is parsed,
    so a value that fails is noted too)."""
    from pydantic import BaseModel, field_validator

    class Answer(BaseModel):
        value: int

        @field_validator("value", mode="before")
        @classmethod
        def _noted(cls, v: Any) -> Any:
            seen.note("validate")
            return v

    return Answer


STRUCTURED = {
    # ToolStrategy: a call that fails validation (a retry), two schema calls at once (the
    # adapter's `multiple`), then one that parses.
    "tool": [
        ai_tool_calls(("Answer", {"value": "not a number"})),
        ai_tool_calls(("Answer", {"value": 1}), ("Answer", {"value": 2})),
        ai_tool_calls(("Answer", {"value": 3})),
    ],
    # ProviderStrategy (a model whose profile takes native structured output): the reply's
    # text parsed.
    "native": [AIMessage(content='{"value": 3}')],
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("strategy", list(STRUCTURED))
def test_structured_output_is_parsed_off_the_workers(mode: str, strategy: str) -> None:
    """The response format's parsing (pydantic validation, LangChain's retry texts and
    errors) runs where the run's Python runs: the loop's thread under ``ainvoke`` /
    ``astream``, the core's Python threads under ``invoke`` / ``stream``; the response is
    the user's own object."""
    seen = Seen()
    schema = _answer_schema(seen)
    profile = {"structured_output": True} if strategy == "native" else None
    model = WatchedModel(responses=STRUCTURED[strategy], seen=seen, profile=profile)
    agent = create_deep_agent(model=model, response_format=schema)
    _core._gil_on_workers()
    result = _run(agent, mode, key=None)
    assert result["structured_response"] == schema(value=3)
    assert type(result["structured_response"]) is schema
    if strategy == "tool":
        texts = [m.content for m in result["messages"] if m.type == "tool"]
        assert "Failed to parse data to Answer" in texts[0]
        assert "multiple structured responses (Answer, Answer)" in texts[1]
    assert "validate" in seen.kinds(), seen.calls
    assert seen.on_workers() == []
    assert _core._gil_on_workers() == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", ["refused", "unparsed"])
def test_a_structured_outputs_error_is_made_off_the_workers(mode: str, case: str) -> None:
    """A union on a native model (LangChain refuses it as the provider's format when the
    model is called) and a native reply that is not JSON (LangChain's error, ending the
    run): each error is the adapter's, made where the run's Python runs."""
    from pydantic import BaseModel

    class Yes(BaseModel):
        yes: bool

    class No(BaseModel):
        no: bool

    schema: Any = Yes | No if case == "refused" else Yes
    model = ScriptedChatModel(["not json"], profile={"structured_output": True})
    agent = create_deep_agent(model=model, response_format=schema)
    _core._gil_on_workers()
    with pytest.raises(Exception) as info:
        _run(agent, mode)
    said = "Native structured output expected valid JSON" if case == "unparsed" else "Unsupported schema type"
    assert said in str(info.value), info.value
    assert len(model.calls) == (0 if case == "refused" else 1)
    assert _core._gil_on_workers() == []


# --------------------------------------------------------------------------- skills


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_skills_load_and_skill_tools_run_no_python_on_workers(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    """``SkillsMiddleware``: the load's warnings (a ``SKILL.md`` without frontmatter is
    skipped), the skill-tool resolver (asked on each model call after a read, and before
    the tool runs), the resolver's checks of the request's model (``rejected_schemas``,
    ``inline_blocks``) and its warning for a tool it no longer returns: all Python, none of
    it on a worker."""
    from deepagents_rs.backends import StateBackend
    from deepagents_rs.middleware import SkillsMiddleware
    from langchain_core.tools import StructuredTool

    seen = Seen()
    asked: list[str] = []
    lookup = StructuredTool.from_function(lambda: "found", name="crm_lookup", description="Look it up.")

    def resolve(name: str, runtime: Any) -> list[Any]:
        seen.note("resolver")
        asked.append(name)
        # Forgets the tool once it was disclosed: the call to it warns.
        return [lookup] if len(asked) == 1 else []

    crm = "---\nname: crm\ndescription: The crm skill.\nmetadata:\n  include_tools: crm\n---\n\nUse it.\n"
    files = {
        "/skills/crm/SKILL.md": {"content": crm, "encoding": "utf-8"},
        "/skills/bare/SKILL.md": {"content": "no frontmatter here\n", "encoding": "utf-8"},
    }
    model = WatchedModel(
        responses=[
            ai_tool_calls(("read_file", {"file_path": "/skills/crm/SKILL.md"})),
            ai_tool_calls(("crm_lookup", {})),
            AIMessage(content="done"),
        ],
        seen=seen,
    )
    skills = SkillsMiddleware(backend=StateBackend(), sources=["/skills/"], tools=resolve)
    agent = create_deep_agent(model=model, middleware=[skills])
    _core._gil_on_workers()
    inputs = {"messages": [{"role": "user", "content": "go"}], "files": files}
    with caplog.at_level(logging.WARNING):
        if mode == "invoke":
            messages = agent.invoke(inputs)["messages"]
        else:
            messages = asyncio.run(agent.ainvoke(inputs))["messages"]
    assert messages[-1].content == "done"
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("/skills/bare/SKILL.md" in text for text in logged), logged
    assert any("no longer returns it" in text for text in logged), logged
    assert asked[:2] == ["crm", "crm"]
    assert seen.on_workers() == []
    assert _core._gil_on_workers() == []


# --------------------------------------------------------------------------- host reads in the core's steps


def test_a_native_reply_under_v3_events_is_made_off_the_workers(sim: SimAnthropic) -> None:
    """Under ``stream_events(version="v3")`` a native client's reply is the message the host
    makes of the call's chunks (``_native_events.v1_reply``): made on the core's Python
    threads, not on the worker that ran the model call."""
    sim.script(tool_use(("echo", {"text": "a"}, "toolu_1"), text="Echoing."), text("done"))
    agent = create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=_tools(Seen())[:1])
    _core._gil_on_workers()
    run = agent.stream_events({"messages": [{"role": "user", "content": "go"}]}, version="v3")
    for _ in run.messages:
        pass
    assert run.output["messages"][-1].content[0]["text"] == "done"
    assert _core._gil_on_workers() == []


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_video_reads_and_glob_read_the_hosts_settings_off_the_workers(mode: str, tmp_path: Path) -> None:
    """``read_file`` of a video (frames sampled by the host's extractor, the size limit read
    from ``MAX_VIDEO_INPUT_BYTES``, a clip the extractor refuses told apart where it raised)
    and ``glob`` (its timeout read from ``GLOB_TIMEOUT``): each host read made off the
    workers, on a filesystem middleware built from its Python configuration."""
    pytest.importorskip("av")
    from deepagents_rs.backends import FilesystemBackend
    from deepagents_rs.middleware import FilesystemMiddleware
    from langchain.agents import create_agent
    from parity.video_support import clip

    (tmp_path / "walk.mp4").write_bytes(clip(seconds=2))
    (tmp_path / "broken.mp4").write_bytes(b"not a video at all")
    model = ScriptedChatModel(
        [
            ai_tool_calls(
                ("read_file", {"file_path": "/walk.mp4"}),
                ("read_file", {"file_path": "/broken.mp4"}),
                ("glob", {"pattern": "*.mp4"}),
            ),
            AIMessage(content="done"),
        ]
    )
    backend = FilesystemBackend(root_dir=tmp_path, virtual_mode=True)
    agent = create_agent(model, middleware=[FilesystemMiddleware(backend=backend)])
    _core._gil_on_workers()
    messages = _run(agent, mode)
    assert messages[-1].content == "done"
    walk, broken, found = (m.content for m in messages if m.type == "tool")
    assert walk.startswith("Read video /walk.mp4: sampled 1 frame."), walk
    assert broken.startswith("Error reading video /broken.mp4: Failed to open video payload"), broken
    assert "/walk.mp4" in str(found), found
    assert _core._gil_on_workers() == []


class ToolErrors(BaseCallbackHandler):
    """A callback handler that keeps what ``on_tool_error`` was given."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = []

    def on_tool_error(self, error: BaseException, **kwargs: Any) -> None:
        self.errors.append(error)


@pytest.mark.parametrize("mode", MODES)
def test_a_traced_tools_failure_is_made_off_the_workers(mode: str) -> None:
    """A failing tool under callbacks: the tracer's ``on_tool_error`` gets the exception the
    tool raised, the same object the caller gets; it is built in the tracer's own call (off the
    workers), not when the core reports the failure on a worker."""
    model = ScriptedChatModel([ai_tool_calls(("_explodes", {"text": "x"})), AIMessage(content="done")])
    agent = create_deep_agent(model=model, tools=[_explodes]).with_config({"callbacks": [heard := ToolErrors()]})
    _core._gil_on_workers()
    with pytest.raises(ValueError, match="bad value x") as info:
        _run(agent, mode)
    assert heard.errors == [info.value]
    assert _core._gil_on_workers() == []


@pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")
def test_a_failing_subagent_under_v3_events_is_told_apart_off_the_workers() -> None:
    """A subagent whose model fails, under ``astream_events`` v3: the ``task`` tool's failure
    is asked whether it pauses the run on a worker; it was told where the subagent's error
    became a Python exception."""
    model = ScriptedChatModel(
        [
            ai_tool_calls(("task", {"description": "answer", "subagent_type": "refuser"})),
            AIMessage(content="done"),
        ]
    )
    refuser = RefusingModel([AIMessage(content="never")])
    agent = create_deep_agent(
        model=model,
        subagents=[{"name": "refuser", "description": "Refuses.", "system_prompt": "No.", "model": refuser}],
    )

    async def main() -> None:
        run = await agent.astream_events({"messages": [{"role": "user", "content": "go"}]}, version="v3")
        async for _ in run:
            pass

    _core._gil_on_workers()
    with pytest.raises(ValueError, match="the model refuses"):
        asyncio.run(main())
    assert _core._gil_on_workers() == []
