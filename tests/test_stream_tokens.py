"""Tokens reach the caller while the model is still producing them.

The model below yields its first chunk, then waits until the caller has seen that chunk
before it yields the rest. If chunks were only handed over once the call finished, the wait
would time out and the run would fail.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import deepagents_rs
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult


class GatedStreamingModel(BaseChatModel):
    gate: Any
    timeout: float = 10.0

    @property
    def _llm_type(self) -> str:
        return "gated"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage("Hello world"))])

    def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any):
        yield ChatGenerationChunk(message=AIMessageChunk(content="Hello"))
        if not self.gate.wait(self.timeout):
            raise TimeoutError("the caller never saw the first chunk while the model was streaming")
        yield ChatGenerationChunk(message=AIMessageChunk(content=" world"))


INPUT = {"messages": [{"role": "user", "content": "hi"}]}


def test_first_token_reaches_the_caller_while_the_model_streams():
    gate = threading.Event()
    agent = deepagents_rs.create_deep_agent(model=GatedStreamingModel(gate=gate))
    seen = []
    for message, meta in agent.stream(INPUT, stream_mode="messages"):
        if meta["langgraph_node"] == "model":
            seen.append(message.content)
            gate.set()
    assert seen[:2] == ["Hello", " world"]
    assert "".join(seen) == "Hello world"


def test_first_token_reaches_the_async_caller_while_the_model_streams():
    gate = threading.Event()
    agent = deepagents_rs.create_deep_agent(model=GatedStreamingModel(gate=gate))

    async def main() -> list[str]:
        seen = []
        async for message, meta in agent.astream(INPUT, stream_mode="messages"):
            if meta["langgraph_node"] == "model":
                seen.append(message.content)
                gate.set()
        return seen

    seen = asyncio.run(main())
    assert seen[:2] == ["Hello", " world"]
    assert "".join(seen) == "Hello world"


def test_the_final_message_is_the_merged_chunks():
    gate = threading.Event()
    gate.set()
    agent = deepagents_rs.create_deep_agent(model=GatedStreamingModel(gate=gate))
    chunks = [m for m, meta in agent.stream(INPUT, stream_mode="messages") if meta["langgraph_node"] == "model"]
    result_ids = {c.id for c in chunks}
    updates = list(agent.stream(INPUT, stream_mode=["messages", "updates"]))
    final = [d["model"]["messages"][-1] for mode, d in updates if mode == "updates" and "model" in d]
    assert final[0].content == "Hello world"
    assert len(result_ids) == 1 and next(iter(result_ids)).startswith("lc_run--")


@pytest.mark.parametrize("mode", ["updates", "values", "custom"])
def test_no_streaming_from_the_model_without_messages_mode(mode):
    gate = threading.Event()  # never set: a streamed call would time out
    agent = deepagents_rs.create_deep_agent(model=GatedStreamingModel(gate=gate, timeout=0.5))
    list(agent.stream(INPUT, stream_mode=mode))


@pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")
def test_v3_text_deltas_reach_the_caller_while_the_model_streams():
    """Under ``stream_events(version="v3")`` the model's content-block events come through
    the core as it makes them: the first text delta is read before the model goes on."""
    gate = threading.Event()
    agent = deepagents_rs.create_deep_agent(model=GatedStreamingModel(gate=gate))
    run = agent.stream_events(INPUT, version="v3")
    seen = []
    for stream in run.messages:
        for delta in stream.text:
            seen.append(delta)
            gate.set()
    assert seen == ["Hello", " world"]


@pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")
def test_v3_text_deltas_reach_the_async_caller_while_the_model_streams():
    gate = threading.Event()
    agent = deepagents_rs.create_deep_agent(model=GatedStreamingModel(gate=gate))

    async def main() -> list[str]:
        run = await agent.astream_events(INPUT, version="v3")
        seen = []
        async for stream in run.messages:
            async for delta in stream.text:
                seen.append(delta)
                gate.set()
        return seen

    assert asyncio.run(main()) == ["Hello", " world"]
