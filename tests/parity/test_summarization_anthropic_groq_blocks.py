"""Parity: AI messages tagged ``anthropic``, ``bedrock`` (a Claude model) and ``groq`` read as
LangChain's ``content_blocks`` reads them, and whole summarization runs with such replies
compared with deepagents: which media are uploaded beside the history, what the history says.
"""

from __future__ import annotations

from typing import Any

import pytest
from deepagents_rs import _convert, _core
from langchain_core.messages import AIMessage

from . import test_summarization_media as media
from .test_summarization_provider_blocks import _history, _media, _run

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

CALL = {"name": "lookup", "args": {"q": "x"}, "id": "t1"}
CALL2 = {"name": "lookup", "args": {"q": "y"}, "id": "t2"}
PNG_SOURCE = {"type": "base64", "media_type": "image/png", "data": media.b64(media.PNG)}
GIF_URL = "data:image/gif;base64," + media.b64(media.GIF)


def tagged(provider: str, content: Any, model: str = "claude-sonnet", **kwargs: Any) -> AIMessage:
    metadata = {"model_provider": provider, "model_name": model, **kwargs.pop("response_metadata", {})}
    return AIMessage(content=content, response_metadata=metadata, **kwargs)


ANTHROPIC_ITEMS: list[Any] = [
    "a bare string is skipped",
    {"type": "text", "text": "hi", "index": 0},
    {
        "type": "text",
        "text": "cited",
        "citations": [
            {
                "type": "web_search_result_location",
                "cited_text": "c",
                "url": "https://u",
                "title": "T",
                "encrypted_index": "e",
            },
            {"type": "web_search_result_location", "url": "https://u"},
            {"type": "char_location", "cited_text": "c", "document_title": "D", "start_char_index": 1},
            {"type": "page_location", "cited_text": "c", "title": "P"},
            {"type": "search_result_location", "title": "no text"},
            {"type": "other"},
        ],
    },
    {"type": "refusal", "refusal": "no", "extras": {"k": 1}, "index": 2},
    {"type": "refusal"},
    {"type": "thinking", "thinking": "let me see", "signature": "sig", "index": 1},
    {"type": "thinking"},
    {"type": "redacted_thinking", "data": "xx", "index": 4},
    {"type": "image", "source": PNG_SOURCE},
    {"type": "image", "base64": media.b64(media.GIF), "mime_type": "image/gif"},
    {"type": "image_url", "image_url": {"url": GIF_URL}},
    {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "eA=="}},
    {"type": "server_tool_use", "name": "code_execution", "input": {"code": "1"}, "id": "s1", "index": 5},
    {"type": "server_tool_use", "name": "web_search", "input": {}, "partial_json": '{"query": "q"}', "id": "s2"},
    {"type": "server_tool_use", "name": "web_search", "input": {}, "partial_json": "[1]", "id": "s3", "caller": "c"},
    {"type": "server_tool_use", "input": {}, "partial_json": "{bad", "id": "s4"},
    {"type": "mcp_tool_use", "name": "search", "input": {"a": 1}, "id": "m1", "server_name": "srv", "index": 6},
    {"type": "mcp_tool_use", "input": {}, "partial_json": '{"b": 2}', "id": "m2"},
    {"type": "web_search_tool_result", "tool_use_id": "s2", "content": [{"type": "web_search_result", "url": "u"}]},
    {"type": "code_execution_tool_result", "tool_use_id": "s1", "content": {"error_code": "unavailable"}, "index": 7},
    {"type": "mcp_tool_result", "tool_use_id": "m1", "content": [], "is_error": True, "extras": {"x": 1}},
    {"type": "input_json_delta", "partial_json": "{}"},
    {"no_type": True},
]


def anthropic_messages(provider: str, model: str = "claude-sonnet") -> list[AIMessage]:
    def msg(content: Any, **kwargs: Any) -> AIMessage:
        return tagged(provider, content, model, **kwargs)

    return [
        msg(ANTHROPIC_ITEMS),
        *[msg([item]) for item in ANTHROPIC_ITEMS],
        msg("plain reply"),
        msg(""),
        msg("", tool_calls=[CALL]),
        msg(
            [{"type": "tool_use", "name": "lookup", "input": {"q": "z"}, "id": "t1", "index": 1, "caller": "k"}],
            tool_calls=[CALL],
        ),
        msg(
            [{"type": "tool_use", "name": "other", "input": {}, "id": "t2", "toolset_name": "ts"}],
            tool_calls=[CALL, CALL2],
        ),
        msg([{"type": "tool_use", "name": "other", "input": {"k": 1}, "id": "t9"}], tool_calls=[CALL, CALL2]),
        msg([{"type": "tool_use", "name": "other"}]),
        msg(
            [{"type": "text", "text": "sorry"}],
            response_metadata={"stop_reason": "refusal", "stop_details": {"explanation": "why", "category": "cyber"}},
        ),
        msg([], response_metadata={"stop_reason": "refusal", "stop_details": "not a dict"}),
        msg([{"type": "refusal", "refusal": "r"}], response_metadata={"stop_reason": "refusal"}),
        msg([{"type": "thinking", "thinking": "t"}], additional_kwargs={"reasoning_content": "ignored"}),
    ]


GROQ_TOOLS: list[Any] = [
    {"type": "search", "arguments": '{"query": "weather"}', "output": "sunny", "name": "search", "index": 0},
    {"type": "python", "arguments": '{"code": "print("hi")"}', "output": "hi"},
    {"type": "python", "arguments": "not json at all", "output": "skipped whole"},
    {"type": "function", "name": "python", "arguments": "print(1)", "output": "1"},
    {"type": "function", "name": "other", "arguments": "oops", "output": "gone"},
    {"type": "browser", "arguments": "[1, 2]", "output": "list args: result only"},
    {"type": "search", "output": "no arguments"},
    {"type": "search", "arguments": '{"q": 1}'},
]


def groq_messages() -> list[AIMessage]:
    def msg(content: Any, **kwargs: Any) -> AIMessage:
        return tagged("groq", content, "llama", **kwargs)

    return [
        msg("an answer"),
        msg(""),
        msg([{"type": "image_url", "image_url": {"url": GIF_URL}}, {"type": "text", "text": "list content"}]),
        msg("with reasoning", additional_kwargs={"reasoning_content": "thought"}),
        msg("", additional_kwargs={"reasoning_content": ""}),
        msg("x", additional_kwargs={"reasoning_content": 3}),
        msg("tools", additional_kwargs={"executed_tools": GROQ_TOOLS}),
        *[msg("t", additional_kwargs={"executed_tools": [tool]}) for tool in GROQ_TOOLS],
        msg("", additional_kwargs={"executed_tools": []}),
        msg("calls", tool_calls=[CALL, CALL2]),
        msg([{"type": "text", "text": "t"}], tool_calls=[CALL]),
    ]


MESSAGES: list[AIMessage] = [
    *anthropic_messages("anthropic"),
    *anthropic_messages("bedrock", "us.anthropic.Claude-3-5"),
    # Bedrock for a model other than Claude is read the generic way.
    tagged(
        "bedrock",
        [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "x"}],
        "amazon.nova",
        tool_calls=[CALL],
    ),
    tagged("bedrock", [{"type": "image", "source": PNG_SOURCE}], "amazon.nova"),
    tagged("bedrock", [{"type": "text", "text": "x"}], "claude", tool_calls=[CALL, CALL2]),
    tagged(
        "bedrock", [{"type": "tool_use", "id": "t2", "name": "lookup", "input": {}}], "claude", tool_calls=[CALL, CALL2]
    ),
    *groq_messages(),
]


@pytest.mark.parametrize(
    "message",
    MESSAGES,
    ids=lambda m: f"{m.response_metadata['model_provider']}-{m.response_metadata['model_name']}",
)
def test_content_blocks_match_langchain(message: AIMessage) -> None:
    assert _core.content_blocks(_convert.to_core(message)) == message.content_blocks


# --------------------------------------------------------------------------- whole runs

SNAPSHOT_MEDIA = {f"{media.PREFIX}{media.key(media.PNG)}.png", f"{media.PREFIX}{media.key(media.GIF)}.gif"}
JPEG = b"\xff\xd8\xff\xe0 jpeg of a reply"


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.parametrize(("provider", "model"), [("anthropic", "claude-sonnet"), ("bedrock", "anthropic.claude-v2")])
def test_an_anthropic_reply_uploads_none_of_its_images(provider: str, model: str, mode: str) -> None:
    reply = tagged(
        provider,
        [
            {"type": "thinking", "thinking": "drawing a <cat>", "signature": "sig"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": media.b64(JPEG)}},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + media.b64(JPEG)}},
            {"type": "server_tool_use", "name": "code_execution", "input": {"code": "draw()"}, "id": "s1"},
            {"type": "text", "text": "here it is"},
        ],
        model,
    )
    _ref, rs = _run([reply], mode)
    # Only the snapshots' own images (a tool result, no provider reader) are uploaded.
    assert _media(rs) == SNAPSHOT_MEDIA
    # Nothing replaced: the message is written from its text, without its thinking.
    history = _history(rs)
    assert '<message type="ai">here it is</message>' in history
    assert "drawing a" not in history


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_bedrock_reply_of_another_model_is_read_the_generic_way(mode: str) -> None:
    reply = tagged(
        "bedrock",
        [{"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": media.b64(JPEG)}}],
        "amazon.nova",
    )
    _ref, rs = _run([reply], mode)
    assert _media(rs) == {*SNAPSHOT_MEDIA, f"{media.PREFIX}{media.key(JPEG)}.jpg"}


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_groq_reply_with_list_content_uploads_nothing(mode: str) -> None:
    reply = tagged(
        "groq",
        [
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + media.b64(JPEG)}},
            {"type": "text", "text": "a list"},
        ],
        "llama",
        additional_kwargs={"reasoning_content": "pondering <x>"},
    )
    _ref, rs = _run([reply], mode)
    assert _media(rs) == SNAPSHOT_MEDIA
    assert '<message type="ai">a list</message>' in _history(rs)
