"""Parity: ``UnsupportedContentMiddleware`` passed in ``middleware`` takes the place of the one
``create_deep_agent`` adds (deepagents keeps one entry of a name), in the main agent's stack
and a declarative subagent's, and still replaces a non-PDF document read inline with deepagents'
notice. Both implementations run the same script; the graph's nodes and every model request
are compared."""

from __future__ import annotations

import base64
from typing import Any

import deepagents
import deepagents_rs
import pytest
from deepagents.middleware import UnsupportedContentMiddleware as Reference
from deepagents_rs.middleware import UnsupportedContentMiddleware as Ours
from fake_models import ScriptedChatModel, ai_tool_calls, normalize_messages

DOCX = base64.b64encode(b"PK\x03\x04 not really a docx").decode()


def run(impl: Any, face: type, where: str) -> tuple[list[str], list[Any], Any]:
    model = ScriptedChatModel(
        [
            ai_tool_calls(("task", {"description": "read it", "subagent_type": "reader"}, "call_T")),
            ai_tool_calls(("read_file", {"file_path": "/brief.docx"}, "call_R")),
            "read",
            "done",
        ]
    )
    reader = {"name": "reader", "description": "Reads.", "system_prompt": "Read."}
    if where == "subagent":
        reader["middleware"] = [face()]
    agent = impl.create_deep_agent(model=model, subagents=[reader], middleware=[face()] if where == "main" else ())
    files = {"/brief.docx": {"content": DOCX, "encoding": "base64"}}
    result = agent.invoke({"messages": [("user", "go")], "files": files})
    nodes = sorted(agent.get_graph().nodes)
    return nodes, [normalize_messages(c.messages, ids="drop") for c in model.calls], result["messages"][-1].content


@pytest.mark.parametrize("where", ["main", "subagent"])
def test_a_passed_unsupported_content_middleware_takes_the_defaults_place(where: str) -> None:
    ref = run(deepagents, Reference, where)
    ours = run(deepagents_rs, Ours, where)
    assert ours == ref
    # The document read inline reached the model as deepagents' notice.
    assert "was not attached because this model does not support" in str(ours[1][2])


def test_its_trace_policy_is_deepagents() -> None:
    assert type(Ours.trace_policy) is type(Reference.trace_policy)
    assert Ours().name == Reference().name == "UnsupportedContentMiddleware"
    assert Ours().tools == []
