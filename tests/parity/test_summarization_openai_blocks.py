"""Parity: AI messages tagged ``openai`` read as LangChain's ``content_blocks`` reads them (Chat
Completions strings, Responses API items, ``ChatOpenAI`` v0.3 messages), the generic reader's
converted blocks with LangChain's ``id`` and ``extras``, and whole summarization runs with such
messages compared with deepagents: which media are uploaded beside the history, the history,
the summary request, what a user's summarizer is handed and where the summary's trim cuts.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from deepagents_rs import _convert, _core
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.messages.tool import invalid_tool_call

from . import test_summarization_media as media
from .test_summarization import _SESSION, compare
from .test_summarization_provider_blocks import _history, _media, _run

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

PNG64 = media.b64(media.PNG)
GIF64 = media.b64(media.GIF)
CALL = {"name": "lookup", "args": {"q": "x"}, "id": "call_1"}
CALL2 = {"name": "lookup", "args": {"q": "ü"}, "id": "call_2"}
BAD = invalid_tool_call(name="lookup", args="{oops", id="call_bad", error="bad json")
_LC_ID = re.compile(r"lc_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def openai(content: Any, **kwargs: Any) -> AIMessage:
    metadata = {"model_provider": "openai", **kwargs.pop("response_metadata", {})}
    return AIMessage(content=content, response_metadata=metadata, **kwargs)


def same(ours: Any, theirs: Any) -> None:
    """Equal blocks, keys in the same order, LangChain's random ids (and history session ids)
    masked on both sides."""
    a, b = (_SESSION.sub("session_<id>", _LC_ID.sub("lc_<id>", json.dumps(x))) for x in (ours, theirs))
    assert a == b


RESPONSES_ITEMS: list[Any] = [
    "a bare string is skipped",
    {"type": "text", "text": "hi"},
    {"type": "text", "text": "hi", "index": 0, "id": "msg_1"},
    {"type": "text"},
    {
        "type": "text",
        "text": "cited",
        "annotations": [
            {"type": "url_citation", "url": "https://u", "title": "T", "start_index": 0, "end_index": 5, "extra": 1},
            {"type": "url_citation", "url": "https://v"},
            {"type": "file_citation", "file_id": "f1", "filename": "a.pdf", "index": 3, "start_index": 1},
            {"type": "file_citation"},
            {"type": "container_file_citation", "container_id": "c"},
            {"no": "type"},
        ],
    },
    {"type": "refusal", "refusal": "no", "id": "r1", "index": 2, "extras": {"k": 1}, "other": 2},
    {"type": "refusal"},
    {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "first"}, {"type": "summary_text", "text": "second", "index": 1}],
        "encrypted_content": "enc",
        "index": 0,
    },
    {"type": "reasoning", "id": "rs_2", "summary": [], "index": 1, "status": None},
    {"type": "reasoning", "id": "rs_3", "summary": []},
    {"type": "reasoning", "reasoning": "plain"},
    {"type": "reasoning", "summary": [{"text": "s"}], "reasoning": "r", "extra_a": 1, "extra_b": 2},
    {"type": "reasoning", "summary": [{"type": "summary_text"}], "index": "é"},
    {
        "type": "image_generation_call",
        "id": "ig_1",
        "result": PNG64,
        "output_format": "png",
        "status": "completed",
        "size": "1x1",
        "revised_prompt": "a cat",
        "index": 4,
    },
    {"type": "image_generation_call", "id": "ig_2", "result": ""},
    {"type": "image_generation_call", "result": PNG64},
    {
        "type": "function_call",
        "call_id": "call_1",
        "name": "lookup",
        "arguments": "{}",
        "id": "fc_1",
        "index": 5,
        "status": "completed",
    },
    {"type": "function_call", "call_id": "call_bad", "id": "fc_2", "namespace": "ns"},
    {"type": "function_call", "call_id": "nowhere"},
    {"type": "function_call"},
    {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "q", "sources": [{"url": "https://s"}]},
        "index": 6,
    },
    {"type": "web_search_call", "id": "ws_2", "status": "failed", "other": "o", "name": "renamed"},
    {"type": "web_search_call", "id": "ws_3", "status": "in_progress", "action": {"query": "q"}, "index": "x"},
    {"type": "web_search_call", "id": "ws_4"},
    {
        "type": "file_search_call",
        "id": "fs_1",
        "queries": ["a"],
        "results": [{"file_id": "f"}],
        "status": "completed",
        "index": 7,
        "extra": True,
    },
    {"type": "file_search_call", "id": "fs_2", "status": "searching"},
    {
        "type": "code_interpreter_call",
        "id": "ci_1",
        "code": "print(1)",
        "outputs": [{"type": "logs", "logs": "1"}],
        "status": "completed",
        "container_id": "c",
        "index": 8,
    },
    {"type": "code_interpreter_call", "id": "ci_2", "status": "failed", "outputs": None},
    {"type": "code_interpreter_call", "id": "ci_3", "status": "interpreting", "index": True},
    {
        "type": "mcp_call",
        "id": "mcp_1",
        "name": "t",
        "server_label": "srv",
        "arguments": '{"a": 1}',
        "output": "out",
        "index": 9,
        "approval_request_id": None,
    },
    {"type": "mcp_call", "id": "mcp_2", "arguments": "not json", "error": "boom"},
    {"type": "mcp_call", "id": "mcp_3", "arguments": "[1, 2]"},
    {"type": "mcp_call", "id": "mcp_4", "arguments": "", "extras": {"ignored": 1}},
    {"type": "mcp_list_tools", "id": "ml_1", "server_label": "srv", "tools": [{"name": "t"}], "index": 10, "other": 1},
    {"type": "mcp_list_tools", "id": "ml_2", "error": "e"},
    {"type": "mcp_approval_request", "id": "ar_1", "name": "t", "index": 11},
    {
        "type": "tool_search_call",
        "id": "ts_1",
        "execution": "server",
        "arguments": {"q": "x"},
        "status": "completed",
        "index": 12,
    },
    {"type": "tool_search_call", "id": "ts_2", "execution": "client"},
    {
        "type": "tool_search_output",
        "id": "to_1",
        "execution": "server",
        "tools": [{"name": "a"}],
        "status": "completed",
        "index": 13,
    },
    {"type": "tool_search_output", "id": "to_2", "execution": "server", "status": "in_progress", "index": 1.5},
    {"type": "tool_search_output", "id": "to_3", "execution": "server", "status": "failed", "index": False},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG64}},
    {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}, "index": 14},
    {"type": "image", "base64": PNG64, "mime_type": "image/png"},
    {"type": "tool_call", "name": "x", "args": {}, "id": "tc"},
    {"type": "computer_call", "id": "cc_1", "index": None},
    {"type": "custom"},
]

TOOL_OUTPUTS: list[Any] = [
    {"type": "web_search_call", "id": "ws_1", "status": "completed"},
    {"type": "code_interpreter_call", "id": "ci_1", "code": "1"},
    {"type": "image_generation_call", "id": "ig_1", "result": PNG64, "output_format": "png"},
    {"type": "mcp_list_tools", "id": "ml_1"},
    {"type": "text", "text": "a text output"},
    {"no": "type"},
    "junk",
]

OPENAI_MESSAGES: list[AIMessage] = [
    *[openai([item]) for item in RESPONSES_ITEMS],
    openai(RESPONSES_ITEMS, tool_calls=[CALL], invalid_tool_calls=[BAD]),
    # Chat Completions: a string.
    openai(""),
    openai("plain"),
    openai("", tool_calls=[CALL, CALL2]),
    openai("t", tool_calls=[CALL], additional_kwargs={"refusal": "I can't"}),
    openai("t", additional_kwargs={"refusal": ""}),
    # A list without v0.3 marks: tool calls the content does not hold are not added.
    openai([]),
    openai([{"type": "text", "text": "x"}], tool_calls=[CALL]),
    openai(
        [{"type": "web_search_call", "id": "ws_1", "status": "completed"}, {"type": "web_search_result", "id": "ws_1"}]
    ),
    # ChatOpenAI v0.3: reasoning, refusal, tool outputs and function call ids in additional_kwargs.
    openai(
        [{"type": "text", "text": "answer", "annotations": []}],
        additional_kwargs={"reasoning": {"id": "rs_1", "summary": [{"type": "summary_text", "text": "thought"}]}},
    ),
    openai(
        [{"type": "text", "text": "answer"}],
        additional_kwargs={"reasoning": {"type": "reasoning", "id": "rs_1", "summary": []}},
        id="msg_abc",
    ),
    openai(
        [{"type": "text", "text": "a"}, {"type": "weird", "index": 2}],
        tool_calls=[CALL, CALL2],
        additional_kwargs={"__openai_function_call_ids__": {"call_1": "fc_1"}},
    ),
    openai([{"type": "text", "text": "a"}], additional_kwargs={"refusal": "nope", "tool_outputs": TOOL_OUTPUTS}),
    openai([], additional_kwargs={"tool_outputs": []}, tool_calls=[CALL]),
    openai([{"type": "text", "text": "a", "id": "old"}], id="msg_1", response_metadata={"id": "resp_1"}),
    openai([{"type": "text", "text": "a"}], id="msg_1", response_metadata={"id": "chatcmpl_1"}),
    openai([{"type": "text", "text": "a"}], id="run_1", response_metadata={"id": "resp_1"}),
    openai(["s", {"type": "text", "text": "a"}], additional_kwargs={"reasoning": {"summary": []}}),
    openai([{"type": "text", "text": "x"}], response_metadata={"output_version": "v1"}),
]


@pytest.mark.parametrize("message", OPENAI_MESSAGES, ids=lambda m: type(m.content).__name__)
def test_openai_messages_read_as_langchain_reads_them(message: AIMessage) -> None:
    same(_core.content_blocks(_convert.to_core(message)), message.content_blocks)


# Blocks the generic reader converts, each with keys LangChain keeps as `extras` (and the
# random `id` its block constructors give): a message without a provider reader.
GENERIC_PARTS: list[Any] = [
    {
        "type": "image",
        "source_type": "base64",
        "data": PNG64,
        "mime_type": "image/png",
        "metadata": {"a": 1},
        "cache_control": {"type": "ephemeral"},
        "dropped": None,
    },
    {"type": "image", "source_type": "url", "url": "https://x/a.png", "mime_type": "", "k": 1},
    {"type": "image", "source_type": "id", "id": "img_1", "mime_type": "image/png"},
    {"type": "audio", "source_type": "url", "url": "https://x/a.wav"},
    {"type": "file", "source_type": "id", "id": "file_1", "mime_type": "application/pdf", "k": None},
    {"type": "file", "source_type": "id", "id": "file_1", "index": 3, "url": "https://x/f"},
    {"type": "file", "source_type": "text", "url": "hello", "filename": "a.txt", "mime_type": "text/markdown"},
    {"type": "audio", "source_type": "base64", "data": GIF64, "mime_type": "audio/wav"},
    {"type": "image_url", "image_url": {"url": "https://x/a.png", "detail": "high"}},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG64, "detail": "low"}, "detail": "auto"},
    {"type": "image_url", "image_url": {"url": "https://x/a.png", "other": 1}},
    {"type": "input_audio", "input_audio": {"data": GIF64, "format": "wav", "rate": 8000}, "id": "mine", "k": 2},
    {"type": "file", "file": {"file_id": "f1", "filename": "x.pdf"}, "index": 1},
    {"type": "file", "file": {"file_data": "data:application/pdf;base64," + PNG64, "filename": "a.pdf", "x": 1}},
    {"type": "file", "file": {"file_data": "data:application/pdf;base64," + PNG64}, "cache_control": {}},
    {"type": "file", "file": {"file_data": "https://not-data"}},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG64}, "cache_control": None},
    {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}, "k": 1},
    {"type": "document", "source": {"type": "url", "url": "https://x/a.pdf"}, "title": "T", "citations": {"on": 1}},
    {"type": "document", "source": {"type": "text", "data": "plain"}, "context": "c", "media_type": "text/csv"},
    {"type": "document", "source": {"type": "file", "file_id": "f"}, "title": "F"},
    {"type": "image", "source": {"type": "file", "file_id": "f"}},
    {"document": {"format": "pdf", "source": {"bytes": PNG64}, "name": "doc"}},
    {"type": "text", "text": "t", "id": "x", "extras": {"a": 1}},
]


@pytest.mark.parametrize("part", GENERIC_PARTS, ids=lambda p: str(p.get("type", "part")))
@pytest.mark.parametrize("make", [HumanMessage, lambda c: ToolMessage(c, tool_call_id="t"), AIMessage])
def test_generic_blocks_keep_langchains_ids_and_extras(part: Any, make: Any) -> None:
    message = make([part])
    same(_core.content_blocks(_convert.to_core(message)), message.content_blocks)


# --------------------------------------------------------------------------- whole runs


def _prompt(run: Any) -> str:
    return media.summary_prompts(run)[0]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_an_openai_reply_uploads_only_the_image_it_generated(mode: str) -> None:
    reply = openai(
        [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [
                    {"type": "summary_text", "text": "a <cat> first"},
                    {"type": "summary_text", "text": "then"},
                ],
            },
            # A Chat Completions data URL in a Responses reply is not read: nothing uploaded.
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + media.b64(media.JPG)}},
            {
                "type": "image_generation_call",
                "id": "ig_1",
                "result": GIF64,
                "output_format": "gif",
                "status": "completed",
            },
            {
                "type": "text",
                "text": "drawn, see the source",
                "annotations": [{"type": "url_citation", "url": "https://src", "title": "S", "start_index": 0}],
            },
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "cats"}},
        ]
    )
    _ref, rs = _run([reply], mode)
    stored = _media(rs)
    assert f"{media.PREFIX}{media.key(media.JPG)}.jpg" not in stored
    assert f"{media.PREFIX}{media.key(media.GIF)}.gif" in stored
    history = _history(rs)
    assert "<reasoning>a &lt;cat&gt; first</reasoning> <reasoning>then</reasoning>" in history
    assert f'<image url="{media.PREFIX}{media.key(media.GIF)}.gif" />' in history
    assert '<server_tool_call id="ws_1" name="web_search">{"query": "cats"}</server_tool_call>' in history
    assert '<server_tool_result tool_call_id="ws_1" status="success"></server_tool_result>' in history
    assert "drawn, see the source" in _prompt(rs)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_v03_openai_reply_shows_its_kept_reasoning_and_tool_outputs(mode: str) -> None:
    reply = openai(
        [
            {"type": "text", "text": "computed"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG64}},
        ],
        id="msg_1",
        additional_kwargs={
            "reasoning": {"id": "rs_1", "summary": [{"type": "summary_text", "text": "kept aside"}]},
            "tool_outputs": [
                {"type": "code_interpreter_call", "id": "ci_1", "code": "1 + 1", "outputs": [{"logs": "2"}]},
                {
                    "type": "image_generation_call",
                    "id": "ig_1",
                    "result": media.b64(media.JPG),
                    "output_format": "jpeg",
                },
            ],
        },
        response_metadata={"id": "resp_1"},
    )
    _ref, rs = _run([reply], mode)
    assert f"{media.PREFIX}{media.key(media.JPG)}.jpg" in _media(rs)
    history = _history(rs)
    assert "<reasoning>kept aside</reasoning>" in history
    assert '<server_tool_call id="ci_1" name="code_interpreter">{"code": "1 + 1"}</server_tool_call>' in history


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_chat_completions_reply_beside_media_is_read_as_its_text(mode: str) -> None:
    reply = openai("a refusal follows", additional_kwargs={"refusal": "I won't"})
    user = HumanMessage([{"type": "image", "base64": media.b64(media.JPG), "mime_type": "image/jpeg"}, "look"])
    _ref, rs = _run([user, reply], mode)
    assert f"{media.PREFIX}{media.key(media.JPG)}.jpg" in _media(rs)
    assert "a refusal follows" in _history(rs)


def _summarizer_runs(older: list[Any], mode: str = "invoke", **settings: Any) -> tuple[Any, dict[str, list[Any]]]:
    """Both implementations with a user's summarizer that keeps the blocks it is handed."""
    seen: dict[str, list[Any]] = {}
    turn = [HumanMessage("start"), *older, HumanMessage("go on")]
    runs = media.run_media(
        media.snapshots_then("done"), [turn], mode=mode, middleware=media.keeping_summarizer(seen, **settings)
    )
    compare(runs)
    return runs, seen


def test_a_summarizer_is_handed_the_blocks_with_langchains_ids_and_extras() -> None:
    user = HumanMessage([media.media_message().content[1], *GENERIC_PARTS])
    reply = openai(RESPONSES_ITEMS, tool_calls=[CALL], invalid_tool_calls=[BAD])
    _runs, seen = _summarizer_runs([user, reply])
    ref, rs = seen["deepagents"], seen["deepagents_rs"]
    same(rs, ref)
    assert any(isinstance(b, dict) and b.get("extras") == {"detail": "high"} for b in rs[0][1])


@pytest.mark.parametrize("limit", [60, 75, 90, 105, 120, 135])
def test_the_summary_trim_counts_ids_and_extras_as_langchain_does(limit: int) -> None:
    """The trim before the summary measures non-text blocks by their ``repr``: a converted
    block's ``id`` and ``extras`` move where it cuts."""
    parts = [
        {"type": "image", "base64": PNG64, "mime_type": "image/png"},
        {"type": "file", "source_type": "id", "id": "file_1", "purpose": "assistants"},
        {"type": "file", "file": {"file_id": "f2", "filename": "x.pdf"}},
        {"type": "document", "source": {"type": "text", "data": "notes"}, "context": "meeting", "title": "M"},
    ]
    older = [HumanMessage(parts), openai("noted"), HumanMessage(parts[1:] + ["again"]), openai("ok")]
    _runs, seen = _summarizer_runs(older, trim_tokens_to_summarize=limit)
    same(seen["deepagents_rs"], seen["deepagents"])
