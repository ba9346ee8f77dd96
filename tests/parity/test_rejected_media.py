"""Parity: a model that refuses a request because of a file just read.

deepagents' ``FilesystemMiddleware`` catches LangChain's ``ModelInvalidRequestError`` from the
model call, replaces the media ``read_file`` returned since the last reply with a note, calls
the model once more, and writes the replaced tool messages to the state. deepagents_rs does
the same, for a LangChain model raising it and for its native providers' 400s.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from langchain_core.exceptions import ModelInvalidRequestError
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from .fs_support import api
from .harness import ai_tool_calls, norm

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

PNG = base64.b64encode(
    base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
).decode()
FILES = {"/pic.png": {"content": PNG, "encoding": "base64"}, "/notes.txt": {"content": "hi\n", "encoding": "utf-8"}}


def _has_image(messages: list[BaseMessage]) -> bool:
    return any(
        isinstance(m.content, list) and any(isinstance(b, dict) and b.get("type") == "image" for b in m.content)
        for m in messages
    )


class TextOnlyModel(BaseChatModel):
    """Reads a file, then refuses any request carrying an image, as a text-only model does."""

    calls: list[list[BaseMessage]] = []  # noqa: RUF012 - per-instance, reset in __init__
    script: list[AIMessage] = []  # noqa: RUF012

    def __init__(self, script: list[AIMessage], **kw: Any) -> None:
        super().__init__(**kw)
        self.calls = []
        self.script = list(script)

    @property
    def _llm_type(self) -> str:
        return "text-only"

    def bind_tools(self, tools: Any, **kwargs: Any) -> TextOnlyModel:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.calls.append(list(messages))
        if _has_image(messages):
            raise ModelInvalidRequestError("this model does not take images")
        return ChatResult(generations=[ChatGeneration(message=self.script.pop(0))])


def _run(impl: str, script: list[AIMessage]) -> tuple[dict[str, Any], TextOnlyModel]:
    a = api(impl)
    model = TextOnlyModel(script)
    agent = a.create_deep_agent(model=model)
    result = agent.invoke({"messages": [{"role": "user", "content": "look"}], "files": FILES})
    return result, model


def test_a_refused_image_is_replaced_and_the_call_retried() -> None:
    script = [ai_tool_calls(("read_file", {"file_path": "/pic.png"}, "r1")), AIMessage("I could not see it.")]
    (ref, ref_model), (rs, rs_model) = (_run(i, script) for i in ("deepagents", "deepagents_rs"))
    assert [norm(c) for c in rs_model.calls] == [norm(c) for c in ref_model.calls]
    assert norm(rs["messages"]) == norm(ref["messages"])
    # deepagents: three calls (the refused one, then the retry without the image); the
    # state's tool message is the note.
    assert len(ref_model.calls) == 3
    tool = next(m for m in ref["messages"] if isinstance(m, ToolMessage))
    assert tool.content.startswith("Unsupported content.")


def test_without_media_the_error_is_raised() -> None:
    class Refuses(TextOnlyModel):
        def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
            self.calls.append(list(messages))
            if len(self.calls) > 1:
                raise ModelInvalidRequestError("no")
            return ChatResult(generations=[ChatGeneration(message=self.script.pop(0))])

    errors = {}
    for impl in ("deepagents", "deepagents_rs"):
        a = api(impl)
        model = Refuses([ai_tool_calls(("read_file", {"file_path": "/notes.txt"}, "r1"))])
        with pytest.raises(ModelInvalidRequestError) as info:
            a.create_deep_agent(model=model).invoke({"messages": [{"role": "user", "content": "x"}], "files": FILES})
        errors[impl] = (str(info.value), len(model.calls))
    assert errors["deepagents_rs"] == errors["deepagents"]


def test_the_native_client_retries_a_400_without_the_image(monkeypatch: pytest.MonkeyPatch) -> None:
    import deepagents_rs
    from sim.anthropic import Reply, SimAnthropic, text, tool_use

    with SimAnthropic() as sim:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", sim.base_url)
        bad = {"type": "error", "error": {"type": "invalid_request_error", "message": "Could not process image"}}
        sim.script(
            tool_use(("read_file", {"file_path": "/pic.png"}, "toolu_1")), Reply(status=400, body=bad), text("ok")
        )
        agent = deepagents_rs.create_deep_agent(model="anthropic:claude-sonnet-4-6")
        result = agent.invoke({"messages": [{"role": "user", "content": "look"}], "files": FILES})
    assert result["messages"][-1].text == "ok"
    refused, retried = sim.requests[1].body, sim.requests[2].body
    assert "image" in str(refused["messages"][-1]) and "image" not in str(retried["messages"][-1])
    assert "Unsupported content." in str(retried["messages"][-1])
    tool = next(m for m in result["messages"] if isinstance(m, ToolMessage))
    assert tool.content.startswith("Unsupported content.")
