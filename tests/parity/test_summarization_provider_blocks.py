"""Parity: messages read as LangChain's ``content_blocks`` reads them, provider by provider.

The summarization's media offload reads each summarized message through
``message.content_blocks``: an AI message tagged ``model_provider="google_genai"`` /
``"google_vertexai"`` / ``"bedrock_converse"`` goes through that provider's reader, and every
message through the generic reader (whose last passes read Google GenAI parts). The core's
reading (``_core.content_blocks``) is compared with LangChain's on many shapes, and whole
runs with such messages are compared with deepagents: the requests, the history file, the
media uploaded.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from typing import Any, ClassVar

import pytest
from deepagents_rs import _convert, _core
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from . import test_summarization_media as media
from .test_summarization import compare

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

_LC_ID = re.compile(r"lc_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
WEBP = b"RIFF\x1a\x00\x00\x00WEBPVP8 rest of it"
APNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + bytes(13) + b"CRC!" + b"\x00\x00\x00\x08acTL" + bytes(12)
JPEG = b"\xff\xd8\xff\xe0 jpeg"
OPAQUE = b"no known signature here"


def ids_masked(blocks: Any) -> Any:
    """Citation ids are random uuids on both sides."""
    return json.loads(_LC_ID.sub("lc_<id>", json.dumps(blocks)))


def genai(content: Any, *, provider: str = "google_genai", **kwargs: Any) -> AIMessage:
    metadata = {"model_provider": provider, **kwargs.pop("response_metadata", {})}
    return AIMessage(content=content, response_metadata=metadata, **kwargs)


def converse(content: Any, **kwargs: Any) -> AIMessage:
    metadata = {"model_provider": "bedrock_converse", "model_name": "anthropic.claude-3"}
    return AIMessage(content=content, response_metadata=metadata, **kwargs)


CALL = {"name": "lookup", "args": {"q": "x"}, "id": "t1"}
CALL2 = {"name": "lookup", "args": {"q": "y"}, "id": "t2"}
GROUNDING = {
    "web_search_queries": ["who won"],
    "grounding_chunks": [
        {"web": {"uri": "https://a.example", "title": "A"}},
        {"maps": {"uri": "https://maps.example", "title": "M", "placeId": "p1"}, "web": {"uri": "https://w"}},
    ],
    "grounding_supports": [
        {"segment": {"start_index": 0, "end_index": 5, "text": "Spain"}, "grounding_chunk_indices": [0, 1, 7]},
        {"segment": {"text": "won"}, "grounding_chunk_indices": [-1], "confidence_scores": [0.5]},
        {"grounding_chunk_indices": []},
    ],
}

GENAI_ITEMS: list[Any] = [
    "plain words",
    {"type": "text", "text": "hi", "index": 0},
    {"type": "thinking", "thinking": "let me see", "signature": "sig"},
    {"type": "thinking", "thinking": "no signature", "index": 3},
    {"type": "thinking"},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64," + media.b64(media.PNG)}},
    {"type": "image_url", "image_url": {"url": "data:image/gif;base64," + media.b64(media.GIF) + "\nnext line"}},
    {"type": "image_url", "image_url": {"url": media.b64(media.PNG)}, "index": 1},
    {"type": "image_url", "image_url": {"url": media.b64(media.GIF)}},
    {"type": "image_url", "image_url": {"url": media.b64(WEBP)}},
    {"type": "image_url", "image_url": {"url": media.b64(APNG)}},
    {"type": "image_url", "image_url": {"url": media.b64(JPEG)}},
    {"type": "image_url", "image_url": {"url": media.b64(OPAQUE)}},
    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
    {"type": "image_url", "image_url": {"url": "aGk"}},
    {"type": "function_call", "name": "lookup", "args": {"q": "z"}, "id": "f1"},
    {"type": "function_call"},
    {"type": "file_data", "file_uri": "gs://b/f.pdf", "mime_type": "application/pdf"},
    {"type": "file_data", "file_uri": "gs://b/g"},
    {"type": "executable_code", "executable_code": "print(1)", "language": "python", "id": "e1"},
    {"type": "executable_code"},
    {"type": "code_execution_result", "code_execution_result": "1", "outcome": 1, "tool_call_id": "e1"},
    {"type": "code_execution_result", "code_execution_result": "boom", "outcome": 2},
    {"type": "code_execution_result", "outcome": None},
    {"type": "code_execution_result"},
    {"type": "image", "base64": media.b64(media.PNG), "mime_type": "image/png"},
    {"type": "custom", "value": 1},
    {"type": "custom", "index": 9},
]

GENAI_MESSAGES: list[AIMessage] = [
    *[genai([item]) for item in GENAI_ITEMS],
    genai(GENAI_ITEMS),
    genai(GENAI_ITEMS, provider="google_vertexai"),
    genai("just text"),
    genai(""),
    genai("", tool_calls=[CALL]),
    genai([{"type": "function_call", "name": "lookup", "args": {"q": "x"}, "id": "t1"}], tool_calls=[CALL, CALL2]),
    genai("grounded answer", response_metadata={"grounding_metadata": GROUNDING}),
    genai(["first", {"type": "text", "text": "second"}], response_metadata={"grounding_metadata": GROUNDING}),
    genai([{"type": "thinking", "thinking": "t"}], response_metadata={"grounding_metadata": GROUNDING}),
    genai("", response_metadata={"finish_reason": "SAFETY", "finish_message": "blocked"}),
    genai("x", response_metadata={"finish_reason": "FinishReason.PROHIBITED_CONTENT"}),
    genai("x", response_metadata={"finish_reason": "STOP", "prompt_feedback": {"block_reason": "OTHER"}}),
    genai([], response_metadata={"prompt_feedback": {"block_reason": "BLOCKED_REASON_UNSPECIFIED"}}),
    genai(["a"], response_metadata={"finish_reason": "BLOCKLIST", "prompt_feedback": {"block_reason": "SAFETY"}}),
]

CONVERSE_MESSAGES: list[AIMessage] = [
    converse(""),
    converse("", tool_calls=[CALL]),
    converse("", additional_kwargs={"k": 1}),
    converse("hello"),
    converse(["a bare string", {"type": "text", "text": "kept", "index": 0}]),
    converse(
        [
            {
                "type": "text",
                "text": "cited",
                "citations": [
                    {"title": "T", "source_content": [{"text": "a"}, {"text": "b"}], "location": {"x": 1}},
                    {"source_content": ["not a dict"], "index": 2},
                ],
            }
        ]
    ),
    converse(
        [
            {"type": "reasoning_content", "reasoning_content": {"text": "think", "signature": "s"}, "index": 0},
            {"type": "reasoning_content", "reasoning_content": {"redacted_content": "xx"}, "extra": True},
            {"type": "reasoning_content", "index": 4, "other": "o"},
            {"type": "reasoning_content", "reasoning_content": {}},
        ]
    ),
    converse([{"type": "tool_use", "id": "t1", "name": "lookup", "input": {"q": "x"}, "index": 1}], tool_calls=[CALL]),
    converse(
        [{"type": "tool_use", "id": "t2", "name": "lookup", "input": {"q": "y"}}, {"type": "tool_use", "id": "zz"}],
        tool_calls=[CALL, CALL2],
    ),
    converse([{"type": "tool_use", "name": "lookup", "input": {"q": "w"}}]),
    converse(
        [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": media.b64(media.PNG)}},
            {"type": "image", "base64": media.b64(media.PNG), "mime_type": "image/png"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + media.b64(media.PNG)}, "index": 5},
            {"image": {"format": "png", "source": {"bytes": media.b64(media.PNG)}}},
        ]
    ),
]

# Google GenAI parts read by the generic reader (any message without a provider reader).
GENAI_PARTS: list[Any] = [
    {"text": "a part"},
    {"text": ""},
    {"document": {"format": "pdf", "source": {"bytes": media.b64(b"%PDF-1.4")}, "name": "doc", "context": "c"}},
    {"document": {"format": "txt", "source": {"text": "plain"}}},
    {"document": {"format": "docx", "source": {"bytes": "eA=="}}},
    {"document": {"format": "pdf", "source": {}}},
    {"document": {"source": {"bytes": "eA=="}}},
    {"image": {"format": "png", "source": {"bytes": media.b64(media.PNG)}, "caption": "cap"}},
    {"image": {"format": "jpeg", "source": {"s3Location": {"uri": "s3://b/k"}}}},
    {"image": {"format": "png", "source": {"bytes": media.b64(media.PNG)}}, "other": 1},
    {"type": "file_data", "file_uri": "gs://b/f", "mime_type": "text/csv"},
    {"type": "file_data"},
    {"type": "function_call", "name": "lookup", "args": {"q": 1}},
    {"type": "function_call", "args": {}},
    {"type": "executable_code", "executable_code": "x = 1"},
    {"type": "code_execution_result", "code_execution_result": "ok", "outcome": 1.0},
    {"type": "code_execution_result", "outcome": 3},
    {"type": "image", "source_type": "base64", "data": media.b64(media.PNG), "mime_type": "image/png"},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": media.b64(media.PNG)}},
]

GENERIC_MESSAGES: list[Any] = [
    HumanMessage(GENAI_PARTS),
    *[HumanMessage([part]) for part in GENAI_PARTS],
    ToolMessage(GENAI_PARTS, tool_call_id="t1"),
    AIMessage(GENAI_PARTS, tool_calls=[CALL]),
    AIMessage("", additional_kwargs={"reasoning_content": ""}),
    AIMessage([{"type": "thinking", "thinking": "t"}], response_metadata={"model_provider": "unknown"}),
]


@pytest.mark.parametrize(
    "message",
    [*GENAI_MESSAGES, *CONVERSE_MESSAGES, *GENERIC_MESSAGES],
    ids=lambda m: f"{m.type}-{m.response_metadata.get('model_provider', '') if m.type == 'ai' else ''}",
)
def test_content_blocks_match_langchain(message: Any) -> None:
    assert ids_masked(_core.content_blocks(_convert.to_core(message))) == ids_masked(message.content_blocks)


# --------------------------------------------------------------------------- whole runs


def _files(run: Any) -> dict[str, Any]:
    return run.results[0].get("files", {})


def _history(run: Any) -> str:
    (path,) = [k for k in _files(run) if k.startswith("/conversation_history/session_")]
    content = _files(run)[path]["content"]
    return "\n".join(content) if isinstance(content, list) else content


def _media(run: Any) -> set[str]:
    return {k for k in _files(run) if k.startswith(media.PREFIX)}


def _run(older: list[Any], mode: str) -> list[Any]:
    """Both implementations on a turn whose input holds ``older`` and then a question, with
    a summary after six calls keeping two messages."""
    turn = [HumanMessage("start"), *older, HumanMessage("go on")]
    runs = media.run_media(
        media.snapshots_then("done"),
        [turn],
        mode=mode,
        middleware=media.own(lambda a: a.backends.StateBackend(), trigger=("messages", 6), keep=("messages", 2)),
    )
    compare(runs)
    return runs


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_gemini_reply_with_media_keeps_its_thinking_in_the_history(mode: str) -> None:
    reply = genai(
        [
            {"type": "thinking", "thinking": "drawing a <cat>", "signature": "sig"},
            {"type": "image_url", "image_url": {"url": "data:image/gif;base64," + media.b64(media.GIF)}},
            {"type": "executable_code", "executable_code": "draw()", "id": "e1"},
            "here it is",
        ]
    )
    runs = _run([reply], mode)
    _ref, rs = runs
    history = _history(rs)
    assert "<reasoning>drawing a &lt;cat&gt;</reasoning>" in history
    assert f'<image url="{media.PREFIX}{media.key(media.GIF)}.gif" />' in history
    assert '<server_tool_call id="e1" name="code_interpreter">' in history
    assert f"{media.PREFIX}{media.key(media.GIF)}.gif" in _media(rs)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_gemini_reply_with_raw_base64_is_stored_under_its_sniffed_type(mode: str) -> None:
    reply = genai(
        [
            {"type": "image_url", "image_url": {"url": media.b64(JPEG)}},
            {"type": "image_url", "image_url": {"url": media.b64(OPAQUE)}},
            {"type": "thinking", "thinking": "t"},
        ]
    )
    runs = _run([reply], mode)
    # Beside the snapshots' media.PNG and media.GIF: the JPEG by its signature, the rest as bytes.
    assert _media(runs[1]) == {
        f"{media.PREFIX}{media.key(media.PNG)}.png",
        f"{media.PREFIX}{media.key(media.GIF)}.gif",
        f"{media.PREFIX}{media.key(JPEG)}.jpg",
        f"{media.PREFIX}{media.key(OPAQUE)}.bin",
    }


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_converse_reply_uploads_none_of_its_media(mode: str) -> None:
    reply = converse(
        [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": media.b64(media.PNG)}},
            {"type": "image", "base64": media.b64(media.GIF), "mime_type": "image/gif"},
            {"type": "reasoning_content", "reasoning_content": {"text": "hmm", "signature": "s"}},
            {"type": "text", "text": "a picture"},
        ]
    )
    runs = _run([reply], mode)
    _ref, rs = runs
    # Only the snapshots' media.own images (a tool result, no provider reader) are uploaded.
    assert _media(rs) == {f"{media.PREFIX}{media.key(media.PNG)}.png", f"{media.PREFIX}{media.key(media.GIF)}.gif"}
    assert "a picture" in _history(rs)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_genai_parts_in_a_user_message_are_uploaded(mode: str) -> None:
    user = HumanMessage(
        [
            {"image": {"format": "webp", "source": {"bytes": media.b64(WEBP)}}},
            {"document": {"format": "pdf", "source": {"bytes": media.b64(b"%PDF-1.4 doc")}}},
            {"text": "see these"},
        ]
    )
    runs = _run([user], mode)
    stored = _media(runs[1])
    assert f"{media.PREFIX}{media.key(WEBP)}.webp" in stored
    assert f"{media.PREFIX}{media.key(b'%PDF-1.4 doc')}.pdf" in stored


# --------------------------------------------------------------------------- async gather


def overlap_backend(impl: Any) -> Any:
    """A state backend whose history write waits (up to 3 s) for the summary call to have
    started, and records whether it had."""

    class Waiting(impl.backends.StateBackend):
        seen: ClassVar[list[bool]] = []

        async def awrite(self, file_path: str, content: str) -> Any:
            if file_path.endswith(".md"):
                deadline = time.monotonic() + 3
                while not SUMMARY_ASKED.is_set() and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)
                Waiting.seen.append(SUMMARY_ASKED.is_set())
            return await super().awrite(file_path, content)

    return Waiting()


SUMMARY_ASKED = threading.Event()


def test_under_ainvoke_the_summary_is_asked_while_the_history_is_written(monkeypatch: Any) -> None:
    from .test_summarization import SummarizingModel

    original = SummarizingModel._next

    def marking(self: Any, messages: Any, stop: Any, kwargs: dict[str, Any]) -> Any:
        if len(messages) == 1 and "\nMessages to summarize:\n" in str(messages[0].content):
            SUMMARY_ASKED.set()
        return original(self, messages, stop, kwargs)

    monkeypatch.setattr(SummarizingModel, "_next", marking)
    backends: list[Any] = []

    def backend(impl: Any) -> Any:
        SUMMARY_ASKED.clear()
        backends.append(overlap_backend(impl))
        return backends[-1]

    runs = media.run_media(
        media.snapshots_then("done"),
        [HumanMessage("start")],
        mode="ainvoke",
        middleware=media.own(backend, trigger=("messages", 6), keep=("messages", 2)),
    )
    compare(runs)
    assert [type(b).seen for b in backends] == [[True], [True]]


def test_under_ainvoke_a_warning_made_an_error_comes_after_the_summary(tmp_path: Any) -> None:
    runs = media.run_media(
        media.snapshots_then("done"),
        [HumanMessage([{"type": "image", "base64": media.b64(b"%PDF-1.4"), "mime_type": "application/pdf"}])],
        mode="ainvoke",
        middleware=media.own(media.failing_backend(tmp_path), trigger=("messages", 6), keep=("messages", 2)),
        warning_filter="error",
    )
    ref, rs = runs
    (a,), (b,) = ref.results, rs.results
    assert isinstance(a, UserWarning) and type(b) is type(a)
    # deepagents gathers the history write and the summary, then warns.
    assert len(media.summary_prompts(ref)) == 1
    assert media.summary_prompts(rs) == media.summary_prompts(ref)
