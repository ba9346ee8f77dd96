"""``TaskNamespaces``: a followed subagent's items reach the caller under its task's
namespace, held until the task names it when the core started it first."""

from __future__ import annotations

from deepagents_rs._task_namespaces import TaskNamespaces


def _start(core: str, call_id: str) -> tuple:
    return ("routes", (core,), ("__start__", "subagent", (call_id, {}, ["model"], "general-purpose")))


def _chunk(core: str) -> tuple:
    meta = {"checkpoint_ns": core, "langgraph_checkpoint_ns": f"{core}|model:1", "langgraph_node": "model"}
    return ("messages", (core,), ("chunk", meta, True))


def _task(ns: str) -> dict:
    return {"configurable": {"checkpoint_ns": ns}}


def test_named_before_its_start() -> None:
    names = TaskNamespaces()
    assert names.name("call_1", _task("tools:task1")) == []
    assert names.accept(_start("tools:core1", "call_1"))[1] == ("tools:task1",)
    mode, ns, (message, meta, is_chunk) = names.accept(_chunk("tools:core1"))
    assert mode == "messages" and ns == ("tools:task1",) and message == "chunk" and is_chunk
    assert meta["checkpoint_ns"] == "tools:task1" and meta["langgraph_checkpoint_ns"] == "tools:task1|model:1"
    # The root's items, and an item of the graph's own, pass as they are or renamed.
    root = ("updates", (), ("model", {}, True))
    assert names.accept(root) is root
    assert names.renamed(("updates", ("tools:core1",), ("__interrupt__", (), False)))[1] == ("tools:task1",)


def test_held_until_named_in_order() -> None:
    names = TaskNamespaces()
    assert names.accept(_start("tools:core2", "call_2")) is None
    assert names.accept(_chunk("tools:core2")) is None
    nested = ("updates", ("tools:core2", "tools:inner"), ("model", {}, True))
    assert names.accept(nested) is None
    released = names.name("call_2", _task("tools:parent|tools:task2"))
    assert [item[1] for item in released] == [("tools:task2",), ("tools:task2",), ("tools:task2", "tools:inner")]
    assert names.accept(_chunk("tools:core2"))[1] == ("tools:task2",)
    assert names.release() == []


def test_never_named_released_as_the_core_named_it() -> None:
    names = TaskNamespaces()
    start = _start("tools:core3", "call_3")
    assert names.accept(start) is None
    assert names.release() == [start]
    # A task without a checkpoint namespace names nothing.
    assert names.name("call_4", {"configurable": {}}) == []
