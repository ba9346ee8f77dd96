"""Parity: `SummarizationMiddleware` as a LangChain `AgentMiddleware`, outside a deep agent.

The same middleware (deepagents' and deepagents_rs', with the same settings) goes into
LangChain's own `create_agent`, or has its `wrap_model_call` / `awrap_model_call` called
directly with a `ModelRequest` and a handler. The model's requests, the handler's requests,
the state each run ends with (the summarization event, its session id) and the history file
on the backend must be the same. deepagents_rs' middleware does the work in the core.
"""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Annotated, Any, NotRequired

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware.types import AgentMiddleware, AgentState, ExtendedModelResponse, ModelRequest
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from .test_summarization import SummarizingModel, calls_then, lookup, masked, view

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = ("deepagents", "deepagents_rs")


def _middleware(impl: str, model: Any, root: Path, **settings: Any) -> Any:
    """`impl`'s `SummarizationMiddleware` over a disk backend rooted at `root / impl`."""
    import importlib

    summarization = importlib.import_module(f"{impl}.middleware.summarization")
    backends = importlib.import_module(f"{impl}.backends")
    (root / impl).mkdir()
    backend = backends.FilesystemBackend(root_dir=str(root / impl), virtual_mode=True)
    return summarization.SummarizationMiddleware(model, backend=backend, **settings)


def _history(root: Path, impl: str) -> list[str]:
    """The history files the run wrote, masked (session ids and timestamps are random)."""
    return [masked(p.read_text()) for p in sorted((root / impl / "conversation_history").glob("*.md"))]


def _calls(model: SummarizingModel) -> list[Any]:
    return masked([[view(m) for m in c.messages] for c in model.calls])


def _event(state: dict) -> Any:
    event = state.get("_summarization_event")
    if event is None:
        return None
    return masked({**event, "summary_message": view(event["summary_message"])})


def _run_agent(model: Any, mw: Any, turns: tuple[str, ...], mode: str) -> dict:
    """LangChain's `create_agent` with `mw`, run for `turns` on one thread: its state."""
    agent = create_agent(model, tools=[lookup], middleware=[mw], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    for turn in turns:
        inp = {"messages": [{"role": "user", "content": turn}]}
        if mode == "invoke":
            agent.invoke(inp, config=config)
        else:
            asyncio.run(agent.ainvoke(inp, config=config))
    return agent.get_state(config).values


def test_the_middleware_is_a_langchain_agent_middleware() -> None:
    from deepagents_rs.middleware.summarization import SummarizationMiddleware

    model = SummarizingModel([])
    mw = SummarizationMiddleware(model, backend=None, trigger=("messages", 4))
    assert isinstance(mw, AgentMiddleware)
    assert mw.name == "SummarizationMiddleware"
    assert mw.tools == []
    assert mw.state_schema.__name__ == "SummarizationState"
    import deepagents.middleware.summarization as reference
    import deepagents_rs.middleware.summarization as ours

    for name in ("SummarizationMiddleware", "SummarizationToolMiddleware"):
        assert getattr(ours, name).trace_policy == getattr(reference, name).trace_policy


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_in_langchains_create_agent(tmp_path: Path, mode: str) -> None:
    """Three turns of a tool-calling conversation: summaries, history file, event."""
    seen = {}
    for impl in IMPLS:
        script = calls_then(3, "done 1", *calls_then(2, "done 2", ids="d"), "done 3")
        model = SummarizingModel(script)
        mw = _middleware(impl, model, tmp_path, trigger=("messages", 6), keep=("messages", 3))
        state = _run_agent(model, mw, ("first", "second", "third"), mode)
        seen[impl] = {
            "calls": _calls(model),
            "summaries": masked(model.summaries),
            "messages": masked([view(m) for m in state["messages"]]),
            "event": _event(state),
            "session": state.get("_summarization_session_id") is not None,
            "history": _history(tmp_path, impl),
        }
    assert seen["deepagents"]["summaries"], "the scenario must summarize"
    assert seen["deepagents_rs"] == seen["deepagents"]


def _request(messages: list[Any], state: dict | None = None, *, model: Any = None) -> ModelRequest:
    return ModelRequest(
        model=model,
        messages=messages,
        system_message=SystemMessage("You are helpful."),
        runtime=None,
        state={"messages": messages, **(state or {})},
    )


def _conversation(n: int) -> list[Any]:
    out: list[Any] = []
    for i in range(n):
        out.append(HumanMessage(f"question {i}", id=f"h{i}"))
        out.append(AIMessage("", id=f"a{i}", tool_calls=[{"name": "lookup", "args": {"q": str(i)}, "id": f"c{i}"}]))
        out.append(ToolMessage(f"answer {i} " + "word " * 50, tool_call_id=f"c{i}", id=f"t{i}"))
    return out


def _outcome(result: Any) -> Any:
    """What a `wrap_model_call` result says: its type, the response, the state update."""
    if not isinstance(result, ExtendedModelResponse):
        return {"type": type(result).__name__, "response": view(result)}
    update = dict(result.command.update)
    if "_summarization_event" in update:
        update["_summarization_event"] = _event(update)
    if "_summarization_session_id" in update:
        update["_summarization_session_id"] = "<session>"
    if "messages" in update:
        update["messages"] = masked([view(m) for m in update["messages"]])
    return {"type": "ExtendedModelResponse", "response": view(result.model_response), "update": update}


def _direct(impl: str, root: Path, mode: str, messages: list[Any], state: dict | None, fail_first: bool) -> dict:
    model = SummarizingModel([])
    # An overflow with no trigger met: the provider's error is what summarizes.
    trigger = ("messages", 100) if fail_first else ("messages", 8)
    mw = _middleware(impl, model, root, trigger=trigger, keep=("messages", 4))
    handed: list[Any] = []

    def answer(request: ModelRequest) -> AIMessage:
        handed.append(masked([view(m) for m in request.messages]))
        if fail_first and len(handed) == 1:
            raise ContextOverflowError("prompt is too long: 250000 tokens > 200000 maximum")
        return AIMessage("reply", id="r")

    async def aanswer(request: ModelRequest) -> AIMessage:
        return answer(request)

    request = _request(messages, state, model=model)
    if mode == "sync":
        result = mw.wrap_model_call(request, answer)
    else:
        result = asyncio.run(mw.awrap_model_call(request, aanswer))
    return {
        "outcome": _outcome(result),
        "handed": handed,
        "summaries": masked(model.summaries),
        "history": _history(root, impl),
    }


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    "scenario",
    ["below_trigger", "summarizes", "after_an_event", "overflow_recovers"],
)
def test_wrap_model_call_directly(tmp_path: Path, mode: str, scenario: str) -> None:
    messages = _conversation(2 if scenario == "below_trigger" else 4)
    state = None
    if scenario == "after_an_event":
        summary = HumanMessage(
            "Here is a summary of the conversation to date:\n\nold", additional_kwargs={"lc_source": "summarization"}
        )
        state = {
            "_summarization_event": {"cutoff_index": 3, "summary_message": summary, "file_path": None},
            "_summarization_session_id": "session_0123456789abcdef0123456789abcdef",
        }
        messages = _conversation(5)
    seen = {impl: _direct(impl, tmp_path, mode, messages, state, scenario == "overflow_recovers") for impl in IMPLS}
    if scenario != "below_trigger":
        assert seen["deepagents"]["summaries"], "the scenario must summarize"
    assert seen["deepagents_rs"] == seen["deepagents"]


def test_the_handlers_messages_are_the_callers_objects(tmp_path: Path) -> None:
    """Messages the middleware passes on unchanged reach the handler as the caller's own
    objects (a handler may compare them by identity, as with deepagents)."""
    model = SummarizingModel([])
    mw = _middleware("deepagents_rs", model, tmp_path, trigger=("messages", 8), keep=("messages", 4))
    messages = _conversation(4)
    handed: list[Any] = []
    mw.wrap_model_call(_request(messages, model=model), lambda r: handed.append(r) or AIMessage("x"))
    kept = handed[0].messages[1:]
    assert all(any(k is m for m in messages) for k in kept)


def test_handler_errors_propagate_as_they_are(tmp_path: Path) -> None:
    seen = {}
    for impl in IMPLS:
        model = SummarizingModel([])
        mw = _middleware(impl, model, tmp_path, trigger=("messages", 100))

        def fail(_: ModelRequest) -> Any:
            raise KeyError("boom")

        with pytest.raises(KeyError) as caught:
            mw.wrap_model_call(_request(_conversation(1), model=model), fail)
        seen[impl] = str(caught.value)
    assert seen["deepagents_rs"] == seen["deepagents"]


def _tool_middleware(impl: str, model: Any, root: Path, system_prompt: str | None = None) -> Any:
    import importlib

    summarization = importlib.import_module(f"{impl}.middleware.summarization")
    inner = _middleware(impl, model, root, trigger=("messages", 8), keep=("messages", 2))
    return summarization.SummarizationToolMiddleware(inner, system_prompt=system_prompt)


def test_the_compact_tool_is_a_langchain_tool(tmp_path: Path) -> None:
    seen = {}
    for impl in IMPLS:
        mw = _tool_middleware(impl, SummarizingModel([]), tmp_path)
        [tool] = mw.tools
        seen[impl] = (
            isinstance(mw, AgentMiddleware),
            tool.name,
            tool.description,
            tool.tool_call_schema.model_json_schema(),
        )
    assert seen["deepagents_rs"] == seen["deepagents"]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.parametrize("early", [False, True])
def test_compact_tool_in_langchains_create_agent(tmp_path: Path, mode: str, early: bool) -> None:
    """The model compacts the conversation itself (or asks too early: nothing to compact),
    with the tool middleware's prompt text in every request."""
    seen = {}
    for impl in IMPLS:
        n = 0 if early else 3
        script = [
            *calls_then(n, ids="c"),
            *calls_then(1, "done", tool="compact_conversation", args=lambda _: {}, ids="k"),
        ]
        model = SummarizingModel(script)
        mw = _tool_middleware(impl, model, tmp_path, system_prompt="Compact when it grows.")
        state = _run_agent(model, mw, ("go",), mode)
        seen[impl] = {
            "calls": _calls(model),
            "systems": [c.messages[0].content for c in model.calls if c.messages[0].type == "system"],
            "tools": [c.tool_names for c in model.calls],
            "summaries": masked(model.summaries),
            "messages": masked([view(m) for m in state["messages"]]),
            "event": _event(state),
            "history": _history(tmp_path, impl),
        }
    assert bool(seen["deepagents"]["summaries"]) is not early
    assert seen["deepagents_rs"] == seen["deepagents"]


@pytest.mark.parametrize("system_prompt", [None, "Compact when it grows."])
def test_the_tool_middlewares_wrap_model_call(tmp_path: Path, system_prompt: str | None) -> None:
    seen = {}
    for impl in IMPLS:
        mw = _tool_middleware(impl, SummarizingModel([]), tmp_path, system_prompt)
        handed: list[Any] = []
        messages = _conversation(1)
        request = _request(messages)
        result = mw.wrap_model_call(request, lambda r, handed=handed: handed.append(r) or AIMessage("x"))
        seen[impl] = (view(result), [view(r.system_message) for r in handed], handed[0].messages == messages)
    assert seen["deepagents_rs"] == seen["deepagents"]


def _merge_files(left: dict | None, right: dict | None) -> dict:
    """A `files` channel's reducer: paths merged, `None` deletes."""
    out = dict(left or {})
    for path, data in (right or {}).items():
        if data is None:
            out.pop(path, None)
        else:
            out[path] = data
    return out


class _FilesState(AgentState):
    files: Annotated[NotRequired[dict[str, Any]], _merge_files]


@pytest.mark.parametrize("files_channel", [True, False])
def test_state_backend_in_langchains_create_agent(files_channel: bool) -> None:
    """A `StateBackend` keeps the history in the graph's `files` channel; a graph without
    one cannot keep it (the summary then names no file, and the user is warned)."""
    import importlib

    seen = {}
    for impl in IMPLS:
        summarization = importlib.import_module(f"{impl}.middleware.summarization")
        backends = importlib.import_module(f"{impl}.backends")
        model = SummarizingModel(calls_then(4, "done"))
        mw = summarization.SummarizationMiddleware(
            model, backend=backends.StateBackend(), trigger=("messages", 6), keep=("messages", 2)
        )
        schema = {"state_schema": _FilesState} if files_channel else {}
        agent = create_agent(model, tools=[lookup], middleware=[mw], checkpointer=InMemorySaver(), **schema)
        config = {"configurable": {"thread_id": "t"}}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            agent.invoke({"messages": [{"role": "user", "content": "go"}]}, config=config)
        state = agent.get_state(config).values
        files = state.get("files") or {}
        seen[impl] = {
            "calls": _calls(model),
            "event": _event(state),
            "files": masked(
                {
                    path: "\n".join(data["content"]) if isinstance(data["content"], list) else data["content"]
                    for path, data in files.items()
                }
            ),
            "warnings": sorted({str(w.message) for w in caught if issubclass(w.category, UserWarning)}),
        }
    assert bool(seen["deepagents"]["files"]) is files_channel
    assert seen["deepagents_rs"] == seen["deepagents"]
