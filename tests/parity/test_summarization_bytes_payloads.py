"""Parity: Python ``bytes`` in messages and state, through a summarizing run.

Each place reads ``bytes`` as LangChain or deepagents does there: LangChain's Gemini readers
base64-encode them (a part's ``source.bytes``, a reply's ``additional_kwargs["audio"]``) and
raise where a pattern meets them (a Gemini ``image_url``); deepagents' f-string writes a v1
``base64`` / v0 ``data`` payload as its ``str()`` (``b'...'``); LangChain's token counter
measures a block holding them by its ``repr``; every other reader passes them through as
``bytes``. Bytes the core does not read (``additional_kwargs``, a tool's artifact, a custom
state key) come back as the same ``bytes``, in the result and in every checkpoint.
"""

from __future__ import annotations

import asyncio
import re
import warnings
from typing import Any, NotRequired

import deepagents
import deepagents_rs
import pytest
from deepagents_rs import _convert, _core
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from . import test_summarization_media as media
from .test_summarization import _SESSION, SummarizingModel, calls_then, compare
from .test_summarization_provider_blocks import _media, _run, converse, genai

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

_LC_ID = re.compile(r"lc_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def masked(value: Any) -> Any:
    """LangChain's random block ids and session ids masked; ``bytes`` kept ``bytes`` (json
    would lose them)."""
    if isinstance(value, str):
        return _SESSION.sub("session_<id>", _LC_ID.sub("lc_<id>", value))
    if isinstance(value, dict):
        return {k: masked(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [masked(v) for v in value]
    return value


def _outcome(read: Any) -> Any:
    try:
        return "read", masked(read())
    except Exception as exc:  # noqa: BLE001 - compared
        return type(exc).__name__, str(exc)


def gemini_part(**part: Any) -> HumanMessage:
    return HumanMessage([part])


READ = {
    # LangChain's Gemini input reader: bytes base64-encoded, text kept.
    "gemini image bytes": gemini_part(image={"format": "png", "source": {"bytes": media.PNG}}),
    "gemini image bytes with extras": gemini_part(image={"format": "gif", "source": {"bytes": media.GIF}, "name": "g"}),
    "gemini image empty bytes": gemini_part(image={"format": "png", "source": {"bytes": b""}}),
    "gemini image text bytes": gemini_part(image={"format": "png", "source": {"bytes": media.b64(media.PNG)}}),
    "gemini pdf bytes": gemini_part(document={"format": "pdf", "source": {"bytes": media.PDF}}),
    "gemini txt document": gemini_part(document={"format": "txt", "source": {"text": "plain"}}),
    "gemini source is bytes": gemini_part(image={"format": "png", "source": b"bytes"}),
    "gemini text bytes": gemini_part(text=b"hello"),
    # A Gemini reply: audio in additional_kwargs, an image_url holding bytes.
    "gemini reply audio": genai("listen", additional_kwargs={"audio": media.WAV}),
    "gemini reply audio empty content": genai("", additional_kwargs={"audio": media.WAV}),
    "gemini reply audio in a list": genai(
        ["listen", {"type": "thinking", "thinking": "t"}], additional_kwargs={"audio": media.WAV}
    ),
    "gemini reply empty audio": genai("listen", additional_kwargs={"audio": b""}),
    "gemini reply text audio": genai("listen", additional_kwargs={"audio": media.b64(media.WAV)}),
    "vertex reply audio": genai("listen", provider="google_vertexai", additional_kwargs={"audio": media.WAV}),
    "gemini reply image_url bytes": genai([{"type": "image_url", "image_url": {"url": b"data:image/png;base64,AAAA"}}]),
    "gemini reply call with bytes": genai(
        [{"type": "function_call", "name": "f", "args": {"blob": b"\x00\x01"}, "id": "f1"}]
    ),
    # Readers that pass bytes through.
    "v1 base64 bytes": HumanMessage([{"type": "image", "base64": media.PNG, "mime_type": "image/png"}]),
    "v0 data bytes": HumanMessage(
        [{"type": "image", "source_type": "base64", "data": media.GIF, "mime_type": "image/gif"}]
    ),
    "anthropic source bytes": HumanMessage(
        [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": media.PNG}}]
    ),
    "chat completions audio bytes": HumanMessage(
        [{"type": "input_audio", "input_audio": {"data": media.WAV, "format": "wav"}}]
    ),
    "chat completions image_url bytes": HumanMessage(
        [{"type": "image_url", "image_url": {"url": b"data:image/png;base64,AA=="}}]
    ),
    "chat completions file bytes": HumanMessage(
        [{"type": "file", "file": {"file_data": b"data:application/pdf;base64,AA=="}}]
    ),
    "unknown block with bytes": HumanMessage([{"type": "blob", "payload": b"\x00'\"\\"}]),
    "converse reply image bytes": converse(
        [{"type": "image", "image": {"format": "png", "source": {"bytes": media.PNG}}}]
    ),
    "ai v1 file bytes": AIMessage([{"type": "file", "base64": media.PDF, "mime_type": "application/pdf"}]),
}


@pytest.mark.parametrize("message", READ.values(), ids=READ.keys())
def test_the_core_reads_bytes_as_langchain(message: Any) -> None:
    ours = _outcome(lambda: _core.content_blocks(_convert.to_core(message)))
    theirs = _outcome(lambda: message.content_blocks)
    assert ours == theirs


RUNS = {
    "user v1 base64": READ["v1 base64 bytes"],
    "user v0 data": READ["v0 data bytes"],
    "ai v1 base64": READ["ai v1 file bytes"],
    "gemini image bytes": READ["gemini image bytes"],
    "gemini pdf bytes": READ["gemini pdf bytes"],
    "gemini reply audio": READ["gemini reply audio"],
    "anthropic source bytes": READ["anthropic source bytes"],
    "unknown block with bytes": READ["unknown block with bytes"],
    "gemini reply image_url bytes": READ["gemini reply image_url bytes"],
}


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.parametrize("message", RUNS.values(), ids=RUNS.keys())
def test_bytes_payloads_are_stored_and_shown_as_deepagents_does(message: Any, mode: str) -> None:
    ref, rs = _run([message], mode)  # compares the requests, summary prompts, files, state
    (a,), (b,) = ref.results, rs.results
    if isinstance(a, Exception):  # LangChain's reader raised: the run fails as deepagents'
        assert (type(b), str(b)) == (type(a), str(a))
    else:
        assert _media(rs) == _media(ref)


def test_gemini_part_bytes_are_uploaded_as_their_content() -> None:
    ref, rs = _run([READ["gemini image bytes"], READ["gemini reply audio"]], "invoke")
    assert f"{media.PREFIX}{media.key(media.PNG)}.png" in _media(rs)
    assert any(media.key(media.WAV) in path for path in _media(rs))
    assert _media(rs) == _media(ref)


@pytest.mark.parametrize("trigger", [3000, 5000, 7000, 9000, 11000])
def test_a_block_holding_bytes_is_counted_by_its_repr(trigger: int) -> None:
    """LangChain's counter measures the block by ``repr(b'...')`` (four characters a NUL
    byte): the step that summarizes is the same at every threshold."""
    blob = HumanMessage([{"type": "blob", "payload": bytes(4000) + b"'\"\\"}])
    runs = media.run_media(
        calls_then(3, AIMessage("done")),
        [[HumanMessage("start"), blob, HumanMessage("go on")]],
        middleware=media.own(lambda a: a.backends.StateBackend(), trigger=("tokens", trigger), keep=("messages", 2)),
    )
    compare(runs)
    ref, rs = runs
    assert len(rs.model.summaries) == len(ref.model.summaries)


# ------------------------------------------------------------ bytes the core carries


@tool(response_format="content_and_artifact")
def fetch(name: str) -> tuple[str, bytes]:
    """Fetch a named blob."""
    return f"fetched {name} " + "padding " * 200, b"\x89artifact\x00" + name.encode()


def _schema(module: Any) -> Any:
    class BlobState(module.DeepAgentState):
        blob: NotRequired[bytes]
        blobs: NotRequired[dict[str, Any]]

    return BlobState


def _exact(m: Any) -> Any:
    """A message with everything that may hold bytes, compared with ``==`` (types kept)."""
    return (
        type(m).__name__,
        m.content,
        m.additional_kwargs,
        [{k: tc[k] for k in ("name", "args", "id")} for tc in getattr(m, "tool_calls", [])],
        getattr(m, "artifact", None),
    )


def _state(values: dict[str, Any]) -> Any:
    out = {k: v for k, v in values.items() if k not in ("messages", "_summarization_session_id", "files")}
    event = out.pop("_summarization_event", None)
    if event is not None:
        out["_summarization_event"] = {**event, "summary_message": _exact(event["summary_message"])}
    return masked(out), masked([_exact(m) for m in values["messages"]])


def _carry(module: Any, mode: str) -> Any:
    script = [*calls_then(5, AIMessage("done"), tool="fetch", args=lambda i: {"name": f"n{i}"})]
    model = SummarizingModel(script)
    cls = module.middleware.summarization.SummarizationMiddleware
    middleware = cls(model=model, backend=module.backends.StateBackend(), trigger=("messages", 6), keep=("messages", 2))
    agent = module.create_deep_agent(
        model=model, tools=[fetch], middleware=[middleware], state_schema=_schema(module), checkpointer=InMemorySaver()
    )
    config = {"configurable": {"thread_id": "t"}}
    inp = {
        "messages": [
            HumanMessage(
                [{"type": "text", "text": "start"}, {"type": "image", "base64": media.GIF, "mime_type": "image/gif"}],
                additional_kwargs={"raw": b"\x00kw", "nested": [{"b": b"\xff"}]},
            ),
            HumanMessage("go"),
        ],
        "blob": b"\x00state\xff",
        "blobs": {"a": [b"x", "b'x'"], "text": "\x00bytes:not bytes"},
    }
    with warnings.catch_warnings(record=True) as caught:  # the GIF's str() does not decode
        warnings.simplefilter("always", UserWarning)
        result = agent.invoke(inp, config) if mode == "invoke" else asyncio.run(agent.ainvoke(inp, config))
    history = [_state(s.values) for s in agent.get_state_history(config)]
    shown = [masked(str(w.message)) for w in caught if w.category is UserWarning]
    return _state(result), history, model.summaries, shown


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_bytes_the_core_does_not_read_come_back_unchanged(mode: str) -> None:
    ours, theirs = _carry(deepagents_rs, mode), _carry(deepagents, mode)
    (state, messages), history, summaries, shown = ours
    assert shown == theirs[3]
    assert state["blob"] == b"\x00state\xff"
    assert state["blobs"] == {"a": [b"x", "b'x'"], "text": "\x00bytes:not bytes"}
    assert messages[0][2] == {"raw": b"\x00kw", "nested": [{"b": b"\xff"}]}
    assert [m[4] for m in messages if m[0] == "ToolMessage"] == [
        b"\x89artifact\x00n" + str(i).encode() for i in range(5)
    ]
    assert "_summarization_event" in history[0][0]  # summarized (a private key: not in the result)
    assert masked(summaries) == masked(theirs[2])
    assert (state, messages) == theirs[0]
    assert history == theirs[1]
