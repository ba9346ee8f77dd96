"""Parity: ``UnsupportedContentMiddleware`` (in every deepagents stack) gates input blocks by
the model's profile: an image, audio, video or PDF block the profile refuses (only an
explicit ``False`` refuses), in a human message or a ``read_file`` result (tool messages have
their own image and PDF fields), reaches the model as deepagents' notice, in the request only;
an inline non-PDF document is refused unless an OpenAI Responses model takes its type. A
message with a block replaced goes with all its blocks in LangChain's standard form.

Both implementations run the same script on a scripted model with the profile under test;
every model request and the final state are compared (LangChain's ``lc_<uuid>`` ids of
converted blocks masked).
"""

from __future__ import annotations

import base64
import importlib
import json
import re
from typing import Any

import pytest
from fake_models import ScriptedChatModel, ai_tool_calls, normalize_messages

IMPLS = ("deepagents", "deepagents_rs")
B64 = base64.b64encode(b"\x00\x01bytes").decode()
_LC_ID = re.compile(r"lc_[0-9a-f-]{36}")

#: Files a `read_file` call returns as media blocks.
FILES = {
    "/pic.png": "image",
    "/song.mp3": "audio",
    "/clip.mp4": "video",
    "/paper.pdf": "file",
    "/notes.docx": "file",
}

USER_BLOCKS = [
    "a plain string block",
    {"type": "text", "text": "look"},
    {"type": "image", "base64": B64, "mime_type": "image/png"},
    {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{B64}"}},
    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
    {"type": "input_audio", "input_audio": {"data": B64, "format": "wav"}},
    {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": B64}},
    {"type": "file", "base64": B64, "mime_type": "application/pdf"},
    {"type": "video", "url": "https://example.com/v.mp4"},
]

PROFILES = {
    "text_only": {"image_inputs": False, "audio_inputs": False, "video_inputs": False, "pdf_inputs": False},
    "no_media_in_tools": {
        "image_inputs": True,
        "pdf_inputs": True,
        "image_tool_message": False,
        "pdf_tool_message": False,
    },
    "claude_like": {"image_inputs": True, "audio_inputs": False, "video_inputs": False, "pdf_inputs": True},
    "silent": {},
    "none": None,
}


def _masked(value: Any) -> Any:
    return json.loads(_LC_ID.sub("lc_<id>", json.dumps(value, default=str)))


def _run(impl: str, profile: dict | None, reads: list[str]) -> dict[str, Any]:
    module = importlib.import_module(impl)
    script = [ai_tool_calls(*(("read_file", {"file_path": p}) for p in reads)), "done"] if reads else ["done"]
    model = ScriptedChatModel(script, profile=profile) if profile is not None else ScriptedChatModel(script)
    agent = module.create_deep_agent(model=model)
    files = {p: {"content": B64, "encoding": "base64"} for p in FILES}
    out = agent.invoke({"messages": [{"role": "user", "content": list(USER_BLOCKS)}], "files": files})
    return {
        "requests": _masked([normalize_messages(c.messages, ids="drop") for c in model.calls]),
        "state": _masked(normalize_messages(out["messages"], ids="drop")),
    }


@pytest.mark.parametrize("profile", list(PROFILES))
def test_blocks_the_profile_refuses_reach_the_model_as_notices(profile: str) -> None:
    ref, rs = (_run(impl, PROFILES[profile], sorted(FILES)) for impl in IMPLS)
    assert rs == ref
    notices = json.dumps(ref["requests"]).count("was not attached because this model does not support")
    # Per request: the human message's refused blocks (twice: both requests), then the refused
    # reads (the second request; audio and video reads are JSON text, as LangGraph makes them).
    expected = {"text_only": 7 * 2 + 3, "no_media_in_tools": 3, "claude_like": 2 * 2 + 1, "silent": 1, "none": 1}
    assert notices == expected[profile]
    # The thread keeps what was sent.
    assert "was not attached" not in json.dumps(ref["state"])


def test_an_openai_responses_model_takes_inline_documents_of_its_types() -> None:
    pytest.importorskip("langchain_openai")
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_openai import ChatOpenAI

    seen: list[Any] = []

    class Recording(ChatOpenAI):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            seen.append(normalize_messages(messages, ids="drop"))
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="done"))])

    results = []
    for impl in IMPLS:
        module = importlib.import_module(impl)
        seen.clear()
        model = Recording(model="gpt-5", api_key="sk-test", use_responses_api=True)
        agent = module.create_deep_agent(model=model)
        blocks = [
            {"type": "file", "base64": B64, "mime_type": "text/markdown"},
            {"type": "file", "base64": B64, "mime_type": "application/zip"},
        ]
        agent.invoke({"messages": [{"role": "user", "content": blocks}]})
        results.append(_masked(list(seen)))
    assert results[1] == results[0]
    sent = json.dumps(results[0])
    assert "text/markdown" in sent and "application/zip" in sent and sent.count("was not attached") == 1
