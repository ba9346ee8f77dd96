"""Parity: a message LangChain's ``content_blocks`` cannot read, in the summarized part.

deepagents reads every summarized message through ``message.content_blocks`` while it
uploads inline media, and nothing catches what a reader raises there: the run fails with
that exception (a Gemini ``image_url`` without a URL, text without ``text`` from Converse or
Anthropic, a Gemini part whose ``source`` is not a mapping, a Groq tool whose arguments are
not text, OpenAI items LangChain's Responses reader cannot walk). The core's reading raises the same exception (type and text) as LangChain's, and
whole runs fail as deepagents' do, after the same uploads of the messages read before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from deepagents_rs import _convert, _core
from langchain_core.messages import AIMessage, HumanMessage

from . import test_summarization_media as media
from .test_summarization import compare
from .test_summarization_provider_blocks import _run, genai

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


def tagged(content: Any, provider: str, **kwargs: Any) -> AIMessage:
    metadata = {"model_provider": provider, **kwargs.pop("response_metadata", {})}
    return AIMessage(content=content, response_metadata=metadata, **kwargs)


def groq(tools: Any) -> AIMessage:
    return tagged("ran it", "groq", additional_kwargs={"executed_tools": tools})


def openai(content: Any, **kwargs: Any) -> AIMessage:
    return tagged(content, "openai", **kwargs)


def openai_v03(**kwargs: Any) -> AIMessage:
    """A v0.3 ``ChatOpenAI`` reply: what it kept in ``additional_kwargs`` goes back in."""
    calls = [{"name": "f", "args": {}, "id": "c1"}]
    return openai([{"type": "text", "text": "x"}], additional_kwargs=kwargs, tool_calls=calls)


def openai_text(annotations: Any) -> AIMessage:
    return openai([{"type": "text", "text": "x", "annotations": annotations}])


def reasoning(**fields: Any) -> AIMessage:
    return openai([{"type": "reasoning", "id": "rs_1", **fields}])


SERVER_ITEMS = [
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "mcp_call",
    "mcp_list_tools",
]


def part(kind: str, source: Any, fmt: str = "png") -> HumanMessage:
    return HumanMessage([{kind: {"format": fmt, "source": source}}])


UNREADABLE: dict[str, Any] = {
    "gemini empty url": genai([{"type": "image_url", "image_url": {"url": ""}}]),
    "gemini no url": genai([{"type": "image_url", "image_url": {}}]),
    "gemini no image_url": genai([{"type": "image_url"}]),
    "gemini image_url text": genai([{"type": "image_url", "image_url": "data:image/png;base64,AAAA"}]),
    "gemini url a number": genai([{"type": "image_url", "image_url": {"url": 7}}]),
    "vertex empty url": genai([{"type": "image_url", "image_url": {"url": None}}], provider="google_vertexai"),
    "converse text without text": tagged([{"type": "text"}], "bedrock_converse"),
    "anthropic text without text": tagged([{"type": "text", "index": 0}], "anthropic"),
    "bedrock claude text without text": tagged(
        [{"type": "text"}], "bedrock", response_metadata={"model_name": "claude"}
    ),
    "groq number arguments": groq([{"type": "search", "arguments": 5}]),
    "groq mapping arguments": groq([{"type": "search", "arguments": {"q": "x"}}]),
    "groq list arguments": groq([{"type": "python", "arguments": ["x"], "output": "o"}]),
    "groq tool not a mapping": groq(["search"]),
    "groq tools a mapping": groq({"search": {}}),
    "groq tools a number": groq(3),
    "image source None": part("image", None),
    "image source a number": part("image", 5),
    "image source a float": part("image", 1.5),
    "image source true": part("image", True),
    "image source text naming bytes": part("image", "raw bytes"),
    "image source list naming bytes": part("image", ["bytes"]),
    "image bytes a number": part("image", {"bytes": 5}),
    "image bytes a list": part("image", {"bytes": [1, 2]}),
    "pdf source a number": part("document", 5, "pdf"),
    "pdf bytes None": part("document", {"bytes": None}, "pdf"),
    "txt source None": part("document", None, "txt"),
    "txt source text naming text": part("document", "some text", "txt"),
    "openai summary with extras": reasoning(summary=[{"type": "summary_text", "text": "a"}], extras={"k": 1}),
    "openai empty summary with extras": reasoning(summary=[], foo=1, extras={}),
    "openai summary text": reasoning(summary="abc"),
    "openai summary mapping": reasoning(summary={"text": "a"}),
    "openai summary a number": reasoning(summary=5),
    "openai summary true": reasoning(summary=True),
    "openai summary part text": reasoning(summary=[{"text": "a"}, "b"]),
    "openai summary part None": reasoning(summary=[None]),
    "openai annotations text": openai_text("abc"),
    "openai annotations a number": openai_text(5),
    "openai annotations None": openai_text(None),
    "openai annotations mapping": openai_text({"a": 1}),
    "openai annotation a list": openai_text([[1]]),
    "openai url_citation without url": openai_text([{"type": "url_citation", "title": "t"}]),
    "openai kwargs reasoning text": openai_v03(reasoning="abc"),
    "openai kwargs reasoning a list": openai_v03(reasoning=[1]),
    "openai kwargs reasoning a number": openai_v03(reasoning=5),
    "openai kwargs reasoning summary with extras": openai_v03(reasoning={"summary": [{"text": "a"}], "extras": {}}),
    "openai tool_outputs a number": openai_v03(tool_outputs=5),
    "openai tool_outputs None": openai_v03(tool_outputs=None),
    "openai call ids text": openai_v03(__openai_function_call_ids__="abc"),
    "openai call ids a list": openai_v03(__openai_function_call_ids__=[1]),
    **{f"openai {kind} without id": openai([{"type": kind}]) for kind in SERVER_ITEMS},
    "openai tool_search_call without id": openai([{"type": "tool_search_call", "execution": "server"}]),
    "openai tool_search_output without id": openai([{"type": "tool_search_output", "execution": "server"}]),
    "openai read item then one without id": openai([{"type": "web_search_call", "id": "w"}, {"type": "mcp_call"}]),
}

READABLE: dict[str, Any] = {
    "image source text": part("image", "abc"),
    "image source list": part("image", [1]),
    "csv source a number": part("document", 5, "csv"),
    "gemini url base64": genai([{"type": "image_url", "image_url": {"url": media.b64(media.GIF)}}]),
    "groq tools empty": groq([]),
    "groq empty arguments": groq([{"type": "search", "arguments": "", "output": "o"}]),
    "anthropic text with citations and no text": tagged([{"type": "text", "citations": [{"type": "x"}]}], "anthropic"),
    "openai summary None": reasoning(summary=None),
    "openai annotations empty text": openai_text(""),
    "openai annotation without type": openai_text([{"a": 1}]),
    "openai kwargs reasoning text naming type": openai_v03(reasoning="a type"),
    "openai tool_outputs text": openai_v03(tool_outputs="abc"),
    "openai tool_outputs mapping": openai_v03(tool_outputs={"a": 1}),
    "openai call ids None": openai_v03(__openai_function_call_ids__=None),
    "openai call ids a mapping": openai_v03(__openai_function_call_ids__={"c1": "fc_1"}),
    "openai call ids a number without calls": openai(
        [{"type": "text", "text": "x"}], additional_kwargs={"__openai_function_call_ids__": 5}
    ),
    "openai client tool_search_call without id": openai([{"type": "tool_search_call"}]),
    "openai v0 image with its own id": openai(
        [{"type": "image", "source_type": "base64", "data": "AAAA", "mime_type": "image/png", "id": "i1"}]
    ),
    "openai image with no source": openai([{"type": "image"}]),
}


def _outcome(read: Any) -> Any:
    try:
        return "read", read()
    except Exception as exc:  # noqa: BLE001 - compared
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("message", [*UNREADABLE.values(), *READABLE.values()], ids=[*UNREADABLE, *READABLE])
def test_the_core_reads_or_raises_as_langchain(message: Any) -> None:
    ours = _outcome(lambda: _core.content_blocks(_convert.to_core(message)))
    theirs = _outcome(lambda: message.content_blocks)
    assert ours == theirs
    assert (ours[0] == "read") == (message in READABLE.values())


RUN_CASES = [
    "gemini empty url",
    "converse text without text",
    "anthropic text without text",
    "groq mapping arguments",
    "openai summary with extras",
    "openai url_citation without url",
    "openai tool_outputs a number",
]
# (A user message with a Gemini part deepagents cannot read fails its run before the first
# model call, outside the summarization; not compared here.)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.parametrize("case", RUN_CASES)
def test_a_run_summarizing_it_fails_as_deepagents_fails(case: str, mode: str) -> None:
    ref, rs = _run([UNREADABLE[case]], mode)
    (a,), (b,) = ref.results, rs.results
    assert isinstance(a, Exception), a
    assert (type(b), str(b)) == (type(a), str(a))


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_media_read_before_it_are_uploaded_first(tmp_path: Path, mode: str) -> None:
    """The messages before the unreadable one have their media on the backend already."""
    roots = {}

    def backend(impl: Any) -> Any:
        root = tmp_path / impl.__name__
        root.mkdir()
        roots[impl.__name__] = root
        return impl.backends.FilesystemBackend(root_dir=str(root), virtual_mode=True)

    turn = [
        HumanMessage("start"),
        HumanMessage([{"type": "image", "base64": media.b64(media.JPG), "mime_type": "image/jpeg"}]),
        UNREADABLE["converse text without text"],
        HumanMessage([{"type": "image", "base64": media.b64(media.WAV), "mime_type": "audio/wav"}]),
        HumanMessage("go on"),
    ]
    runs = media.run_media(
        media.snapshots_then("done"),
        [turn],
        mode=mode,
        middleware=media.own(backend, trigger=("messages", 6), keep=("messages", 2)),
    )
    compare(runs)
    assert isinstance(runs[0].results[0], KeyError)
    ours, theirs = media.disk_tree(roots["deepagents_rs"]), media.disk_tree(roots["deepagents"])
    assert ours == theirs
    assert f"conversation_history/media/{media.key(media.JPG)}.jpg" in ours
    assert f"conversation_history/media/{media.key(media.WAV)}.bin" not in ours
