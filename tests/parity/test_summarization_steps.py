"""Parity: `SummarizationMiddleware`'s private steps, called one by one or replaced.

deepagents' callers (its own tests, subclasses, the compact tool) call the middleware's
private steps (`_determine_cutoff_index`, `_create_summary`, `_offload_to_backend`, ...)
or replace them on an instance. Each step is run here on deepagents' middleware and on
deepagents_rs' (whose steps are the core's), with the same settings and inputs, and what
they answer, ask the model and write to the backend must be the same; a step replaced on
the instance must be what the middleware's own flow (`wrap_model_call`, the compact tool)
runs.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langchain.agents.middleware.types import ModelRequest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from .test_summarization import SummarizingModel, masked, view
from .test_summarization_face import _conversation, _history, _outcome

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

IMPLS = ("deepagents", "deepagents_rs")
_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _module(impl: str, name: str) -> Any:
    return importlib.import_module(f"{impl}.{name}")


def _backend(impl: str, root: Path) -> Any:
    (root / impl).mkdir(exist_ok=True)
    return _module(impl, "backends").FilesystemBackend(root_dir=str(root / impl), virtual_mode=True)


def _middleware(impl: str, root: Path, model: Any = None, **settings: Any) -> Any:
    settings = {"trigger": ("messages", 8), "keep": ("messages", 4), **settings}
    model = model if model is not None else SummarizingModel([], profile={"max_input_tokens": 4000})
    cls = _module(impl, "middleware.summarization").SummarizationMiddleware
    return cls(model, backend=_backend(impl, root), **settings)


def model_request(mw: Any, messages: list[Any]) -> ModelRequest:
    """A request to the middleware's model outside a graph, the state holding ``messages``."""
    return ModelRequest(
        model=mw.model,
        messages=messages,
        system_message=SystemMessage("You are helpful."),
        runtime=None,
        state={"messages": messages},
    )


def _both(fn: Any, root: Path, **settings: Any) -> dict[str, Any]:
    return {impl: fn(_middleware(impl, root, **settings), impl) for impl in IMPLS}


def _thinking_reply(i: int, provider: str | None) -> AIMessage:
    metadata = {"model_provider": provider} if provider else {}
    return AIMessage(
        content=[{"type": "thinking", "thinking": "hmm", "signature": "s"}, {"type": "text", "text": f"reply {i}"}],
        id=f"r{i}",
        response_metadata=metadata,
    )


_SUMMARY = HumanMessage(
    "Here is a summary of the conversation to date:\n\nold", additional_kwargs={"lc_source": "summarization"}
)
_EVENTS = [
    None,
    {"cutoff_index": 2, "summary_message": _SUMMARY, "file_path": None},
    {"cutoff_index": 1, "summary_message": _SUMMARY, "file_path": None, "created_at_index": 4},
    {"cutoff_index": 40, "summary_message": _SUMMARY, "file_path": None},
    {"unexpected": 1},
    {"cutoff_index": 0, "summary_message": _SUMMARY, "file_path": "/conversation_history/s.md"},
]


@pytest.mark.parametrize("event", range(len(_EVENTS)))
@pytest.mark.parametrize("provider", ["anthropic", "openai", None])
def test_apply_event_to_messages(event: int, provider: str | None) -> None:
    messages = [HumanMessage("q", id="h"), *(_thinking_reply(i, provider) for i in range(5))]
    seen = {}
    for impl in IMPLS:
        cls = _module(impl, "middleware.summarization").SummarizationMiddleware
        out = cls._apply_event_to_messages(messages, _EVENTS[event])
        seen[impl] = ([view(m) for m in out], [m is o for m, o in zip(messages, out, strict=False)], out is messages)
    assert seen["deepagents_rs"] == seen["deepagents"]


@pytest.mark.parametrize(
    ("event", "cutoff"),
    [
        (None, 0),
        (None, 5),
        ({"cutoff_index": 10}, 1),
        ({"cutoff_index": 0}, 3),
        ({}, 4),
        ({"cutoff_index": "x"}, 4),
        # Whatever a state holds is done in Python's arithmetic, as deepagents does it.
        ({"cutoff_index": 0}, 0),
        ({"cutoff_index": -3}, 1),
        ({"cutoff_index": 2}, -7),
        ({"cutoff_index": 2**70}, 2),
        ({"cutoff_index": True}, 3),
        ({"cutoff_index": 4}, 2.5),
    ],
)
def test_compute_state_cutoff(event: Any, cutoff: int) -> None:
    seen = {
        impl: _module(impl, "middleware.summarization").SummarizationMiddleware._compute_state_cutoff(event, cutoff)
        for impl in IMPLS
    }
    assert seen["deepagents_rs"] == seen["deepagents"]
    assert type(seen["deepagents_rs"]) is type(seen["deepagents"])


@pytest.mark.parametrize(
    "keep", [("messages", 4), ("messages", 1), ("tokens", 300), ("fraction", 0.05), ("tokens", 10**6)]
)
@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_determine_cutoff_and_partition(tmp_path: Path, keep: tuple, n: int) -> None:
    messages = _conversation(n)

    def run(mw: Any, _impl: str) -> Any:
        cutoff = mw._determine_cutoff_index(messages)
        older, kept = mw._partition_messages(messages, cutoff)
        return cutoff, [m.id for m in older], [m.id for m in kept]

    seen = _both(run, tmp_path, keep=keep)
    assert seen["deepagents_rs"] == seen["deepagents"]


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("n", [0, 2, 5])
@pytest.mark.parametrize("trim", [None, 4000, 50])
def test_create_summary(tmp_path: Path, mode: str, n: int, trim: int | None) -> None:
    messages = _conversation(n)

    def run(mw: Any, _impl: str) -> Any:
        if mode == "sync":
            text = mw._create_summary(messages)
        else:
            text = asyncio.run(mw._acreate_summary(messages))
        return text, mw.model.summaries

    seen = _both(run, tmp_path, trim_tokens_to_summarize=trim)
    assert seen["deepagents_rs"] == seen["deepagents"]


def test_create_summary_with_a_summarizer_function(tmp_path: Path) -> None:
    def summarizer(messages: list) -> str:
        return f"  {len(messages)} messages, the last {messages[-1].type}  "

    seen = _both(lambda mw, _: mw._create_summary(_conversation(3)), tmp_path, summarizer=summarizer)
    assert seen["deepagents_rs"] == seen["deepagents"]


class _RefusingBackend:
    """A backend whose writes fail (as deepagents' tests' mocks fail them)."""

    def download_files(self, paths: list[str]) -> list[Any]:
        raise OSError("unreachable")

    def write(self, path: str, content: str) -> Any:
        return SimpleNamespace(error="permission denied")

    async def adownload_files(self, paths: list[str]) -> list[Any]:
        return self.download_files(paths)

    async def awrite(self, path: str, content: str) -> Any:
        return self.write(path, content)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_offload_to_backend_appends_to_the_session_file(tmp_path: Path, mode: str) -> None:
    messages = [_SUMMARY, *_conversation(2)]

    def run(mw: Any, impl: str) -> Any:
        paths = []
        for part in (messages[:4], messages[4:]):
            if mode == "sync":
                paths.append(mw._offload_to_backend(mw._backend, part, "session_x"))
            else:
                paths.append(asyncio.run(mw._aoffload_to_backend(mw._backend, part, "session_x")))
        refused = mw._offload_to_backend(_RefusingBackend(), messages, "session_x")
        other = _backend(impl, tmp_path / "other")  # another backend than the middleware's
        elsewhere = mw._offload_to_backend(other, messages[:2], "session_y")
        return paths, refused, elsewhere, mw._get_history_path("s"), _history(tmp_path, impl)

    (tmp_path / "other").mkdir()
    seen = _both(run, tmp_path)
    assert seen["deepagents"][0] == ["/conversation_history/session_x.md"] * 2
    assert seen["deepagents_rs"] == seen["deepagents"]
    assert [p.read_text() for p in sorted((tmp_path / "other").rglob("*.md"))] != []


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_offload_inline_media(tmp_path: Path, mode: str) -> None:
    b64 = base64.b64encode(_PNG).decode()
    messages = [
        HumanMessage(
            [{"type": "image", "base64": b64, "mime_type": "image/png"}, {"type": "text", "text": "see"}], id="m"
        ),
        HumanMessage([{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64}"}}], id="n"),
        HumanMessage([{"type": "image_url", "image_url": {"url": "data:image/png;base64,abc"}}], id="bad"),
        *_conversation(1),
    ]
    plain = _conversation(2)

    def run(mw: Any, impl: str) -> Any:
        if mode == "sync":
            out, failed = mw._offload_inline_media(mw._backend, messages)
            same, none_failed = mw._offload_inline_media(mw._backend, plain)
        else:
            out, failed = asyncio.run(mw._aoffload_inline_media(mw._backend, messages))
            same, none_failed = asyncio.run(mw._aoffload_inline_media(mw._backend, plain))
        stored = sorted(str(p.relative_to(tmp_path / impl)) for p in (tmp_path / impl).rglob("*") if p.is_file())
        return [view(m) for m in out], failed, same is plain, none_failed, stored

    seen = _both(run, tmp_path)
    assert seen["deepagents"][1] == 1, "the undecodable block becomes the failed placeholder"
    assert seen["deepagents"][4], "the media must be stored"
    assert seen["deepagents_rs"] == seen["deepagents"]


class _Opaque:
    """A counter whose signature cannot be read."""

    def __init__(self, fn: Any) -> None:
        self._fn = fn

    @property
    def __signature__(self) -> Any:
        raise ValueError("no signature")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)


@tool
def _noop(x: int) -> int:
    """Do nothing with x."""
    return x


_COUNTERS = {
    "default": None,
    "takes_tools": lambda messages, *, tools=None: len(messages) * 10 + len(tools or []),
    "no_tools": lambda messages: len(messages),
    "opaque_takes": _Opaque(lambda messages, *, tools=None: 99 if tools is not None else 7),
    "opaque_refuses": _Opaque(lambda messages: 7),
}


@pytest.mark.parametrize("counter", list(_COUNTERS))
@pytest.mark.parametrize("with_system", [False, True])
@pytest.mark.parametrize(
    "tools", [None, [], [_noop], [_noop, {"type": "function", "function": {"name": "f", "parameters": {}}}]]
)
def test_count_tokens(tmp_path: Path, counter: str, with_system: bool, tools: Any) -> None:
    settings = {} if _COUNTERS[counter] is None else {"token_counter": _COUNTERS[counter]}
    system = SystemMessage("You are helpful. " * 20) if with_system else None

    def run(mw: Any, _impl: str) -> Any:
        return mw._counter_accepts_tools, mw._count_tokens(_conversation(3), system, tools)

    seen = _both(run, tmp_path, **settings)
    assert seen["deepagents_rs"] == seen["deepagents"]


def test_summary_message_and_session_steps(tmp_path: Path) -> None:
    def run(mw: Any, _impl: str) -> Any:
        built = [
            view(m) for p in ("/conversation_history/s.md", None) for m in mw._build_new_messages_with_path("S", p)
        ]
        messages = [_SUMMARY, HumanMessage("x", additional_kwargs={"lc_source": "summarization"}), *_conversation(1)]
        return (
            built,
            [mw._is_summary_message(m) for m in messages],
            [view(m) for m in mw._filter_summary_messages(messages)],
            mw._get_session_id({"_summarization_session_id": "session_kept"}),
            mw._get_session_id({"_summarization_session_id": ""})[:8],
            mw._get_profile_limits(),
        )

    seen = _both(run, tmp_path)
    assert seen["deepagents_rs"] == seen["deepagents"]


def _usage(total: int, provider: str = "scripted") -> AIMessage:
    return AIMessage(
        "r",
        usage_metadata={"input_tokens": 0, "output_tokens": 0, "total_tokens": total},
        response_metadata={"model_provider": provider},
    )


@pytest.mark.parametrize(
    "trigger",
    [
        ("tokens", 1000),
        ("fraction", 0.5),
        ("messages", 6),
        {"tokens": 1000, "messages": 4},
        [("messages", 40), ("tokens", 3000)],
    ],
)
@pytest.mark.parametrize("total", [None, 400, 600, 1500])
@pytest.mark.parametrize("provider", ["scripted", "other"])
def test_is_eligible_for_compaction(tmp_path: Path, trigger: Any, total: int | None, provider: str) -> None:
    messages = [*_conversation(1), HumanMessage("x")] if total is None else [*_conversation(1), _usage(total, provider)]

    def run(mw: Any, impl: str) -> Any:
        tool_mw = _module(impl, "middleware.summarization").SummarizationToolMiddleware(mw)
        return tool_mw._is_eligible_for_compaction(messages)

    seen = _both(run, tmp_path, trigger=trigger)
    assert seen["deepagents_rs"] == seen["deepagents"]


def _runtime(messages: list[Any], state: dict | None = None) -> Any:
    return SimpleNamespace(
        state={"messages": messages, **(state or {})}, tool_call_id="tc", config={"configurable": {}}
    )


def _command(command: Any) -> Any:
    update = dict(command.update)
    update["messages"] = [view(m) for m in update["messages"]]
    if "_summarization_event" in update:
        event = dict(update["_summarization_event"])
        event["summary_message"] = view(event["summary_message"])
        update["_summarization_event"] = event
    return masked(update)


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("replace", ["nothing", "summary", "failing_summary", "offload", "failing_offload", "cutoff"])
def test_compact_tool_runs_the_steps_as_replaced(tmp_path: Path, mode: str, replace: str) -> None:
    messages = _conversation(4)
    prior = {"_summarization_event": {"cutoff_index": 2, "summary_message": _SUMMARY, "file_path": None}}

    def run(mw: Any, impl: str) -> Any:
        tool_mw = _module(impl, "middleware.summarization").SummarizationToolMiddleware(mw)
        calls: list[Any] = []

        def summary(msgs: list) -> str:
            calls.append(("summary", [m.id for m in msgs]))
            if replace == "failing_summary":
                raise RuntimeError("model unavailable")
            return "replaced summary"

        async def asummary(msgs: list) -> str:
            return summary(msgs)

        def offload(backend: Any, msgs: list, session_id: str) -> str | None:
            calls.append(("offload", backend is mw._backend, [m.id for m in msgs]))
            if replace == "failing_offload":
                raise ConnectionError("sandbox unreachable")
            return "/elsewhere.md"

        async def aoffload(backend: Any, msgs: list, session_id: str) -> str | None:
            return offload(backend, msgs, session_id)

        if replace in ("summary", "failing_summary"):
            mw._create_summary, mw._acreate_summary = summary, asummary
        if replace in ("offload", "failing_offload"):
            mw._offload_to_backend, mw._aoffload_to_backend = offload, aoffload
        if replace == "cutoff":
            mw._determine_cutoff_index = lambda msgs: 3
        runtime = _runtime(messages, prior)
        result = tool_mw._run_compact(runtime) if mode == "sync" else asyncio.run(tool_mw._arun_compact(runtime))
        return _command(result), calls, mw.model.summaries, _history(tmp_path, impl)

    seen = _both(run, tmp_path)
    assert seen["deepagents_rs"] == seen["deepagents"]


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("replace", ["summary", "offload", "both"])
def test_wrap_model_call_runs_the_steps_as_replaced(tmp_path: Path, mode: str, replace: str) -> None:
    """A summary and a history offload replaced on the instance are what the middleware's
    own summarization runs (the replacement may call the original back)."""
    messages = _conversation(4)

    def run(mw: Any, impl: str) -> Any:
        calls: list[Any] = []
        original_summary, original_asummary = mw._create_summary, mw._acreate_summary
        original_offload, original_aoffload = mw._offload_to_backend, mw._aoffload_to_backend

        def summary(msgs: list) -> str:
            calls.append(("summary", [m.id for m in msgs]))
            return "wrapped: " + original_summary(msgs)

        async def asummary(msgs: list) -> str:
            calls.append(("asummary", [m.id for m in msgs]))
            return "wrapped: " + await original_asummary(msgs)

        def offload(backend: Any, msgs: list, session_id: str) -> str | None:
            calls.append(("offload", backend is mw._backend, [m.id for m in msgs]))
            return original_offload(backend, msgs, session_id)

        async def aoffload(backend: Any, msgs: list, session_id: str) -> str | None:
            calls.append(("aoffload", backend is mw._backend, [m.id for m in msgs]))
            return await original_aoffload(backend, msgs, session_id)

        if replace in ("summary", "both"):
            mw._create_summary, mw._acreate_summary = summary, asummary
        if replace in ("offload", "both"):
            mw._offload_to_backend, mw._aoffload_to_backend = offload, aoffload
        handed: list[Any] = []

        def answer(request: ModelRequest) -> AIMessage:
            handed.append(masked([view(m) for m in request.messages]))
            return AIMessage("reply", id="r")

        async def aanswer(request: ModelRequest) -> AIMessage:
            return answer(request)

        request = model_request(mw, messages)
        result = (
            mw.wrap_model_call(request, answer)
            if mode == "sync"
            else asyncio.run(mw.awrap_model_call(request, aanswer))
        )
        return _outcome(result), handed, calls, masked(mw.model.summaries), _history(tmp_path, impl)

    seen = _both(run, tmp_path)
    assert seen["deepagents"][2], "the replaced steps must run"
    assert seen["deepagents_rs"] == seen["deepagents"]


def test_a_state_backend_keeps_the_compacted_history_in_the_update() -> None:
    """Run outside a graph, a `StateBackend` cannot keep the history (deepagents' fails the
    write); the compact tool still compacts, its summary naming no file."""
    seen = {}
    for impl in IMPLS:
        summarization = _module(impl, "middleware.summarization")
        model = SummarizingModel([])
        mw = summarization.SummarizationMiddleware(
            model, backend=_module(impl, "backends").StateBackend(), trigger=("messages", 4), keep=("messages", 2)
        )
        tool_mw = summarization.SummarizationToolMiddleware(mw)
        seen[impl] = _command(tool_mw._run_compact(_runtime([*_conversation(3), ToolMessage("x", tool_call_id="c2")])))
    assert seen["deepagents_rs"] == seen["deepagents"]
