"""What the reference sends a LangChain callback handler, spelled out (the research sequence, the
config and name, a tool error); both implementations are held to it."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import pytest

from .callbacks_support import IMPLS, SCENARIOS, compact, normalize, run

# --------------------------------------------------------------------------------------------
# What the reference sends, spelled out; both implementations are held to it.


def _node(step: int, name: str, parent: str, *, extra: Sequence[str] = ()) -> list[tuple]:
    tags = sorted([f"graph:step:{step}", *extra])
    return [("on_chain_start", name, parent, tags), ("on_chain_end", name, parent, tags)]


def _model_node(step: int, parent: str, *, extra: Sequence[str] = ()) -> list[tuple]:
    tags = sorted([f"graph:step:{step}", *extra])
    inner = sorted(["seq:step:1", *extra])
    return [
        ("on_chain_start", "model", parent, tags),
        ("on_chat_model_start", "ScriptedChatModel", "model", inner),
        ("on_llm_end", "ScriptedChatModel", "model", inner),
        ("on_chain_end", "model", parent, tags),
    ]


def _tool_node(step: int, tool_name: str, parent: str, *, extra: Sequence[str] = (), inside: list | None = None):
    tags = sorted([f"graph:step:{step}", *extra])
    inner = sorted(["seq:step:1", *extra])
    return [
        ("on_chain_start", "tools", parent, tags),
        ("on_tool_start", tool_name, "tools", inner),
        *(inside or []),
        ("on_tool_end", tool_name, "tools", inner),
        ("on_chain_end", "tools", parent, tags),
    ]


def research_sequence(root: str = "LangGraph", extra: Sequence[str] = ()) -> list[tuple]:
    """The 42 events of the research fixture: ``(event, run, parent run, sorted tags)``."""
    root_tags = sorted(extra)
    sub = [
        ("on_chain_start", "researcher", "task", root_tags),
        *_node(1, "PatchToolCallsMiddleware.before_agent", "researcher", extra=extra),
        *_model_node(2, "researcher", extra=extra),
        *_tool_node(3, "my_tool", "researcher", extra=extra),
        *_model_node(4, "researcher", extra=extra),
        ("on_chain_end", "researcher", "task", root_tags),
    ]
    return [
        ("on_chain_start", root, None, root_tags),
        *_node(1, "PatchToolCallsMiddleware.before_agent", root, extra=extra),
        *_model_node(2, root, extra=extra),
        *_tool_node(3, "my_tool", root, extra=extra),
        *_model_node(4, root, extra=extra),
        *_tool_node(5, "task", root, extra=extra, inside=sub),
        *_model_node(6, root, extra=extra),
        *_node(7, "_ParentNotifierMiddleware.after_agent", root, extra=extra),
        ("on_chain_end", root, None, root_tags),
    ]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_research_sequence_spelled_out(impl: ModuleType) -> None:
    """The research fixture's events, and the metadata users filter on."""
    result = run(impl, SCENARIOS["research"])
    assert result.error is None, f"{impl.__name__} raised {result.error!r}"
    events = normalize(result.events)
    assert compact(events) == research_sequence()
    starts = [e for e in events if e["event"].endswith("_start")]
    meta = [
        (
            e["event"],
            e["metadata"].get("lc_agent_name"),
            e["metadata"].get("ls_integration"),
            "ls_agent_type" in e["metadata"],
        )
        for e in starts
    ]
    root, subagent = (None, "deepagents", False), ("researcher", "langchain_create_agent", False)
    model = ("langchain_chat_model", False)
    expected = (
        [("on_chain_start", *root)] * 3
        + [("on_chat_model_start", None, *model)]
        + [("on_chain_start", *root), ("on_tool_start", *root), ("on_chain_start", *root)]
        + [("on_chat_model_start", None, *model)]
        + [("on_chain_start", *root), ("on_tool_start", *root)]
        + [("on_chain_start", *subagent)] * 3
        + [("on_chat_model_start", "researcher", *model)]
        + [("on_chain_start", *subagent), ("on_tool_start", *subagent), ("on_chain_start", *subagent)]
        + [("on_chat_model_start", "researcher", *model)]
        + [("on_chain_start", *root)]
        + [("on_chat_model_start", None, *model)]
        + [("on_chain_start", *root)]
    )
    assert meta == expected
    nodes = [(e["name"], e["metadata"].get("langgraph_node"), e["metadata"].get("langgraph_step")) for e in starts]
    assert nodes[:3] == [
        ("LangGraph", None, None),
        ("PatchToolCallsMiddleware.before_agent", "PatchToolCallsMiddleware.before_agent", 1),
        ("model", "model", 2),
    ]
    # The subagent's root run inherits the node metadata of the parent's tools step.
    researcher = next(e for e in starts if e["name"] == "researcher")
    assert (researcher["metadata"]["langgraph_node"], researcher["metadata"]["langgraph_step"]) == ("tools", 5)
    assert researcher["serialized"] is None and researcher["data"]["inputs"]["messages"][0]["content"] == "research x"
    # Model replies carry their LLM run's id.
    llm_runs = [e["run"] for e in events if e["event"] == "on_chat_model_start"]
    replies = [
        e["data"]["response"]["generations"][0][0]["message"]["id"] for e in events if e["event"] == "on_llm_end"
    ]
    assert replies == [f"lc_run--#{r.split('#')[1]}-0" for r in llm_runs]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_config_and_name_spelled_out(impl: ModuleType) -> None:
    """``run_name`` renames the root only; tags and metadata reach every run, the subagent's
    too; ``name=`` renames the root and sets ``lc_agent_name`` outside the subagent."""
    result = run(impl, SCENARIOS["config"])
    assert result.error is None, f"{impl.__name__} raised {result.error!r}"
    events = normalize(result.events)
    assert compact(events) == research_sequence("custom", extra=["t1"])
    assert all(e["metadata"]["k"] == "v" for e in events if e["metadata"] is not None)
    named = run(impl, SCENARIOS["named"])
    assert named.error is None, f"{impl.__name__} raised {named.error!r}"
    events = normalize(named.events)
    assert compact(events) == research_sequence("named")
    agents = {(e["name"] or e["serialized"]["name"], e["metadata"]["lc_agent_name"]) for e in events if e["metadata"]}
    assert ("named", "named") in agents and ("researcher", "researcher") in agents


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
def test_tool_error_spelled_out(impl: ModuleType) -> None:
    result = run(impl, SCENARIOS["tool_error"])
    assert isinstance(result.error, ValueError) and str(result.error) == "kaboom 1"
    events = normalize(result.events)
    assert compact(events) == [
        ("on_chain_start", "LangGraph", None, []),
        *_node(1, "PatchToolCallsMiddleware.before_agent", "LangGraph"),
        *_model_node(2, "LangGraph"),
        ("on_chain_start", "tools", "LangGraph", ["graph:step:3"]),
        ("on_tool_start", "boom", "tools", ["seq:step:1"]),
        ("on_tool_error", "boom", "tools", ["seq:step:1"]),
        ("on_chain_error", "tools", "LangGraph", ["graph:step:3"]),
        ("on_chain_error", "LangGraph", None, []),
    ]
    errors = [e["data"]["error"] for e in events if e["event"].endswith("_error")]
    assert errors == [{"error": "ValueError", "message": "kaboom 1"}] * 3
    tool_error = next(e for e in events if e["event"] == "on_tool_error")
    assert tool_error["kwargs"] == ["tool_call_id"]
