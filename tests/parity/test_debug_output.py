"""``create_deep_agent(debug=True)`` and LangGraph's ``print_mode``: the run prints its
updates and values as deepagents' graph prints them (ids aside)."""

from __future__ import annotations

import re

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langchain_core.messages import AIMessage

_IDS = re.compile(r"(id=|'id': |tool_call_id=|'created_at': |'modified_at': )'[^']*'")


def _printed(module, capsys, how):
    model = ScriptedChatModel(
        responses=[ai_tool_calls(("write_file", {"file_path": "/a.md", "content": "x"})), AIMessage("done")]
    )
    agent = module.create_deep_agent(model=model, debug=how == "debug")
    payload = {"messages": [("user", "go")]}
    if how == "debug":
        result = agent.invoke(payload)
    else:
        chunks = list(agent.stream(payload, stream_mode="updates", print_mode=["values"]))
        result = chunks[-1]
    out = capsys.readouterr().out
    return _IDS.sub(r"\1'<id>'", out).splitlines(), type(result).__name__


@pytest.mark.parametrize("how", ["debug", "print_mode"])
def test_printed_like_deepagents(capsys, how):
    ours = _printed(deepagents_rs, capsys, how)
    theirs = _printed(deepagents, capsys, how)
    assert ours == theirs
    assert any("[values]" in line for line in ours[0])
