"""A conversation holding a reply as LangChain's v1 content blocks (what LangGraph's v3
stream makes every reply) sends, in the next request, what it sends when the reply keeps
its provider's own blocks; the v1 blocks are LangChain's own reading of those blocks
(``content_blocks``). Shapes the simulated APIs do not stream (citations, refusals, server
tools) are read back here, on both native clients, against deepagents' clients."""

from __future__ import annotations

import json
from typing import Any

import deepagents
import deepagents_rs
from langchain_core.messages import AIMessage, HumanMessage
from sim.anthropic import SimAnthropic
from sim.anthropic import text as anthropic_text
from sim.openai import SimOpenAI
from sim.openai import text as openai_text

IMPLS = (deepagents, deepagents_rs)


def _v1(reply: AIMessage) -> AIMessage:
    """The reply as LangChain's v1 message (its blocks read by LangChain's translator)."""
    return reply.model_copy(
        update={
            "content": reply.content_blocks,
            "response_metadata": {**reply.response_metadata, "output_version": "v1"},
        }
    )


def _sent(sim: Any, module: Any, model: str, reply: AIMessage, path: str) -> tuple[bytes, Any]:
    """The request a run after ``reply`` sends: raw bytes and parsed body."""
    sim.reset()
    sim.script(openai_text("ok") if isinstance(sim, SimOpenAI) else anthropic_text("ok"))
    agent = module.create_deep_agent(model=model, system_prompt="Be brief.")
    agent.invoke({"messages": [HumanMessage("look it up"), reply, HumanMessage("thanks")]})
    (request,) = [r for r in sim.requests if r.path.endswith(path)]
    return request.raw, request.body


_URL_CITATION = {"end_index": 3, "start_index": 0, "title": "T", "type": "url_citation", "url": "https://example.com"}

# A Responses reply as the native client keeps it (the SDK's key orders, which LangChain's
# reading back restores).
OPENAI_REPLY = [
    {"id": "ws_1", "action": {"type": "search", "query": "weather"}, "status": "completed", "type": "web_search_call"},
    {"type": "text", "text": "See this.", "annotations": [_URL_CITATION], "id": "msg_1"},
    {"type": "refusal", "refusal": "Not that part.", "id": "msg_1"},
]

# More shapes LangChain reads back in its own key orders: compared with deepagents only.
OPENAI_MORE = [
    {"id": "fs_1", "queries": ["q"], "status": "completed", "type": "file_search_call", "results": [{"file_id": "f"}]},
    {
        "id": "ci_1",
        "code": "print(1)",
        "container_id": "c",
        "outputs": [],
        "status": "completed",
        "type": "code_interpreter_call",
    },
    {"id": "mcp_1", "arguments": '{"x":1}', "name": "lookup", "server_label": "s", "type": "mcp_call", "output": "1"},
    {
        "type": "text",
        "text": "Filed.",
        "annotations": [{"file_id": "file_1", "filename": "f.txt", "index": 2, "type": "file_citation"}],
        "id": "msg_2",
    },
]


def _openai_reply(blocks: list) -> AIMessage:
    return AIMessage(content=blocks, id="resp_1", response_metadata={"model_provider": "openai", "model_name": "gpt-5"})


def test_openai_v1_reply_sends_the_same_request(openai_sim: SimOpenAI) -> None:
    """Citations back to annotations, a refusal, a web search call: our bytes are the same
    with the v1 reply as with OpenAI's blocks; deepagents sends the same items."""
    reply = _openai_reply(OPENAI_REPLY)
    assert [b["type"] for b in _v1(reply).content] == ["server_tool_call", "server_tool_result", "text", "refusal"]
    ours_plain, _ = _sent(openai_sim, deepagents_rs, "openai:gpt-5", reply, "/responses")
    ours_v1, body = _sent(openai_sim, deepagents_rs, "openai:gpt-5", _v1(reply), "/responses")
    assert ours_v1 == ours_plain
    _, ref = _sent(openai_sim, deepagents, "openai:gpt-5", _v1(reply), "/responses")
    assert body["input"] == ref["input"]
    assert [i["type"] for i in body["input"]] == ["message", "message", "web_search_call", "message", "message"]


def test_openai_v1_server_tools_and_file_citations_as_deepagents(openai_sim: SimOpenAI) -> None:
    """File search, code interpreter and MCP calls, and file citations, read back from v1
    as ``ChatOpenAI`` reads them."""
    reply = _v1(_openai_reply(OPENAI_MORE))
    views = {m.__name__: _sent(openai_sim, m, "openai:gpt-5", reply, "/responses")[1]["input"] for m in IMPLS}
    assert views["deepagents_rs"] == views["deepagents"]
    kinds = [i["type"] for i in views["deepagents"]]
    assert kinds[2:5] == ["file_search_call", "code_interpreter_call", "mcp_call"]


_SEARCH = [
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "weather"}},
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [
            {"type": "web_search_result", "url": "https://example.com", "title": "T", "encrypted_content": "e"}
        ],
    },
    {
        "text": "Sunny.",
        "type": "text",
        "citations": [
            {
                "cited_text": "sunny",
                "encrypted_index": "ei",
                "title": "T",
                "type": "web_search_result_location",
                "url": "https://example.com",
            }
        ],
    },
]


def test_anthropic_v1_citations_and_server_tools_send_the_same_request(sim: SimAnthropic) -> None:
    """Anthropic: v1 text ``annotations`` back to ``citations``, ``server_tool_call`` /
    ``server_tool_result`` back to ``server_tool_use`` / ``web_search_tool_result``: our
    bytes are the same with the v1 reply; deepagents sends the same turn."""
    reply = AIMessage(content=_SEARCH, id="msg_1", response_metadata={"model_provider": "anthropic"})
    v1 = _v1(reply)
    assert [b["type"] for b in v1.content] == ["server_tool_call", "server_tool_result", "text"]
    ours_plain, _ = _sent(sim, deepagents_rs, "anthropic:claude-sonnet-4-5", reply, "/messages")
    ours_v1, body = _sent(sim, deepagents_rs, "anthropic:claude-sonnet-4-5", v1, "/messages")
    assert ours_v1 == ours_plain
    _, ref = _sent(sim, deepagents, "anthropic:claude-sonnet-4-5", v1, "/messages")
    assert body["messages"] == ref["messages"]
    assert json.loads(ours_v1)["messages"][1]["content"][2]["citations"][0]["cited_text"] == "sunny"
