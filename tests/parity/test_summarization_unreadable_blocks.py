"""Parity: a message LangChain's ``content_blocks`` cannot read, in the summarized part.

deepagents reads every summarized message through ``message.content_blocks`` while it
uploads inline media, and nothing catches what a reader raises there: the run fails with
that exception (a Gemini ``image_url`` without a URL, text without ``text`` from Converse or
Anthropic, a Gemini part whose ``source`` is not a mapping, a Groq tool whose arguments are
not text). The core's reading raises the same exception (type and text) as LangChain's, and
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
}

READABLE: dict[str, Any] = {
    "image source text": part("image", "abc"),
    "image source list": part("image", [1]),
    "csv source a number": part("document", 5, "csv"),
    "gemini url base64": genai([{"type": "image_url", "image_url": {"url": media.b64(media.GIF)}}]),
    "groq tools empty": groq([]),
    "groq empty arguments": groq([{"type": "search", "arguments": "", "output": "o"}]),
    "anthropic text with citations and no text": tagged([{"type": "text", "citations": [{"type": "x"}]}], "anthropic"),
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
