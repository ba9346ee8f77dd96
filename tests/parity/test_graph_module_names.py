"""Parity: the names ``deepagents.graph`` and ``deepagents.middleware.subagents`` offer besides
``create_deep_agent``: the deprecated ``get_default_model()`` (warned once per process) and
``BASE_AGENT_PROMPT`` (warned at every read), ``GENERAL_PURPOSE_SUBAGENT``, and the subagent
response-format config key (in ``middleware.subagents``), side by side."""

from __future__ import annotations

import importlib
import warnings

import pytest

ROOTS = ("deepagents", "deepagents_rs")


def _warned(read):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = read()
    return value, [(w.category.__name__, str(w.message)) for w in caught]


def _default_model(root):
    graph = importlib.import_module(f"{root}.graph")
    first, first_warnings = _warned(graph.get_default_model)
    second, second_warnings = _warned(graph.get_default_model)
    return type(first).__name__, first.model, type(second).__name__, first_warnings, second_warnings


def test_get_default_model(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    # Each package warns once per process: reset both flags so the first call here warns.
    monkeypatch.setattr(importlib.import_module("deepagents_rs.graph"), "_default_model_warned", False)
    ref_target = importlib.import_module("deepagents.graph").get_default_model
    cell = dict(zip(ref_target.__code__.co_freevars, ref_target.__closure__ or (), strict=False)).get("warned")
    if cell is not None:
        cell.cell_contents = False
    ref, ours = (_default_model(root) for root in ROOTS)
    assert ours == ref
    assert ref[:3] == ("ChatAnthropic", "claude-sonnet-4-6", "ChatAnthropic")
    assert ref[3] and ref[3][0][0] == "LangChainDeprecationWarning" and ref[4] == []


def test_base_agent_prompt_is_deprecated_but_readable():
    ref, ours = (
        _warned(lambda m=root: [importlib.import_module(f"{m}.graph").BASE_AGENT_PROMPT] * 1) for root in ROOTS
    )
    assert ours == ref
    assert ref[0][0].startswith("You are a deep agent") and len(ref[1]) == 1


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("graph", "GENERAL_PURPOSE_SUBAGENT"),
        ("middleware.subagents", "GENERAL_PURPOSE_SUBAGENT"),
        ("middleware.subagents", "SUBAGENT_RESPONSE_FORMAT_CONFIG_KEY"),
    ],
)
def test_shared_names(module, name):
    ref, ours = (getattr(importlib.import_module(f"{root}.{module}"), name) for root in ROOTS)
    assert ours == ref


def test_unknown_names_still_raise():
    for root in ROOTS:
        with pytest.raises(AttributeError, match="no attribute 'NOPE'"):
            importlib.import_module(f"{root}.graph").NOPE  # noqa: B018


def _files_graph_run(root):
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph

    state = importlib.import_module(f"{root}.middleware.filesystem").FilesystemState
    writes = iter(
        [{"/a": {"content": "1", "encoding": "utf-8"}}, {"/a": None, "/b": {"content": "2", "encoding": "utf-8"}}]
    )

    def step(_state):
        return {"files": next(writes)}

    graph = StateGraph(state).add_node("step", step).add_edge(START, "step").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    first = graph.invoke({"messages": []}, config)
    second = graph.invoke({"messages": []}, config)
    return first["files"], second["files"], sorted(graph.get_input_jsonschema()["properties"])


def test_filesystem_state():
    """`middleware.filesystem.FilesystemState` (and `FileData` there): the same keys, and
    `files` merged across steps (a `None` value deletes) as deepagents' channel merges them."""
    ref, ours = (_files_graph_run(root) for root in ROOTS)
    assert ours == ref
    assert ref[1] == {"/b": {"content": "2", "encoding": "utf-8"}}
    assert importlib.import_module("deepagents_rs.middleware.filesystem").FileData is not None
