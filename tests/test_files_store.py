"""``create_deep_agent(store=...)``: the store a ``StoreBackend`` without its own uses, and
the one tools find on LangGraph's runtime, as in deepagents."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_models import ScriptedChatModel, ai_tool_calls

pytest.importorskip("langgraph")

import deepagents_rs
from deepagents_rs.backends import StoreBackend
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.config import get_store
from langgraph.store.memory import InMemoryStore


@tool
def count_items() -> str:
    """Count the items in the store."""
    return str(len(get_store().search(("filesystem",))))


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_store_backend_uses_the_agents_store(mode: str) -> None:
    store = InMemoryStore()
    model = ScriptedChatModel(
        [
            ai_tool_calls(("write_file", {"file_path": "/notes.md", "content": "kept\n"})),
            ai_tool_calls(("count_items", {})),
            AIMessage(content="done"),
        ]
    )
    agent = deepagents_rs.create_deep_agent(
        model=model, tools=[count_items], backend=StoreBackend(namespace=lambda _runtime: ("filesystem",)), store=store
    )
    inp = {"messages": [{"role": "user", "content": "go"}]}
    result = agent.invoke(inp) if mode == "invoke" else await agent.ainvoke(inp)
    tools = [m for m in result["messages"] if m.type == "tool"]
    assert [m.content for m in tools] == ["Updated file /notes.md", "1"]
    item = store.get(("filesystem",), "/notes.md")
    assert item is not None and item.value["content"] == "kept\n"
    # The store holds the files; the state has no `files` key, as in deepagents.
    assert "files" not in result


def test_store_backend_without_a_store_fails_as_in_deepagents() -> None:
    model = ScriptedChatModel([ai_tool_calls(("ls", {"path": "/"})), AIMessage(content="done")])
    agent = deepagents_rs.create_deep_agent(
        model=model, backend=StoreBackend(namespace=lambda _runtime: ("filesystem",))
    )
    with pytest.raises(Exception, match="StoreBackend"):
        agent.invoke({"messages": [{"role": "user", "content": "go"}]})
