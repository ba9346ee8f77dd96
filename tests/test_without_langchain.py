"""deepagents_rs without langchain-core: plain function tools get schemas from their
signatures, and results are the package's own light message classes.

Runs in a subprocess whose import system refuses ``langchain*`` and ``langgraph*``, so the
fallback paths run for real even though the test environment has LangChain installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from sim.anthropic import SimAnthropic, text, tool_use

SCRIPT = textwrap.dedent(
    """
    import importlib.abc, json, sys

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0].startswith(("langchain", "langgraph")):
                raise ImportError(f"blocked for this test: {name}")
            return None

    sys.meta_path.insert(0, Refuse())

    from typing import Literal
    from deepagents_rs import create_deep_agent, messages

    def add(a: int, b: int = 1, mode: Literal["fast", "slow"] = "fast") -> int:
        \"\"\"Add two integers.\"\"\"
        return a + b

    agent = create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[add])
    result = agent.invoke({"messages": [{"role": "user", "content": "2+3?"}]})
    out = {
        "classes": [type(m).__name__ for m in result["messages"]],
        "light": all(isinstance(m, messages.BaseMessage) for m in result["messages"]),
        "tool": [result["messages"][2].content, result["messages"][2].status, result["messages"][2].name],
        "tool_calls": result["messages"][1].tool_calls,
        "final": result["messages"][-1].text,
        "loaded": sorted(m for m in sys.modules if m.startswith(("langchain", "langgraph"))),
    }
    try:
        create_deep_agent(model="anthropic:claude-sonnet-4-5", tools=[lambda x: x])
    except ValueError as e:
        out["no_doc"] = str(e)
    print(json.dumps(out))
    """
)


def test_runs_without_langchain(sim: SimAnthropic) -> None:
    sim.script(
        tool_use(("add", {"a": "2", "b": 3}, "toolu_1")),
        tool_use(("add", {"a": "two"}, "toolu_2")),
        text("5"),
    )
    import os

    env = {**os.environ, "ANTHROPIC_BASE_URL": sim.base_url, "ANTHROPIC_API_KEY": "sk-test"}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["loaded"] == []
    assert out["light"] is True
    assert out["classes"] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage", "ToolMessage", "AIMessage"]
    # "2" was coerced to 2, as pydantic (and LangChain) coerce.
    assert out["tool"] == ["5", "success", "add"]
    assert out["tool_calls"] == [{"name": "add", "args": {"a": "2", "b": 3}, "id": "toolu_1", "type": "tool_call"}]
    assert out["final"] == "5"
    assert out["no_doc"] == "Function must have a docstring if description not provided."
    # The schema the model saw: derived from the signature, titles removed, like LangChain's.
    # The file tools and `task` come first; the user's tool is last.
    tool = sim.requests[0].body["tools"][-1]
    assert tool == {
        "name": "add",
        "input_schema": {
            "properties": {
                "a": {"type": "integer"},
                "b": {"default": 1, "type": "integer"},
                "mode": {"default": "fast", "enum": ["fast", "slow"], "type": "string"},
            },
            "required": ["a"],
            "type": "object",
        },
        "description": "Add two integers.",
        "cache_control": {"type": "ephemeral", "ttl": "5m"},
    }
    # The second call fails validation: an error result in LangGraph's wording, and the run goes on.
    error = sim.requests[2].body["messages"][-1]["content"][0]
    assert error["is_error"] is True
    assert error["content"].startswith("Error invoking tool 'add' with kwargs {'a': 'two'} with error:\n a: ")
