"""Human-in-the-loop against deepagents: `interrupt_on`, every decision, parallel calls,
streams, errors, and runs without a checkpointer. Both implementations run the same script
on savers of their own; results, snapshots and the checkpoints written are compared."""

from __future__ import annotations

import asyncio
from typing import Any

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel, ai_tool_calls
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from thread_support import IMPLS, THREAD, _value, dump, first_difference, my_tool, snapshot


def interrupts(value: Any) -> list[Any]:
    """Interrupt payloads, without their ids (drawn from each thread's own task ids)."""
    return [(i.value, i.response_schema) for i in value]


def run_with(impl: Any, script: list[Any], decisions: list[Any] | None, **create: Any) -> tuple[Any, Any, Any]:
    saver = InMemorySaver()
    agent = impl.create_deep_agent(
        model=ScriptedChatModel(script), tools=[my_tool], checkpointer=saver, interrupt_on={"my_tool": True}, **create
    )
    first = agent.invoke({"messages": [("user", "go")]}, THREAD)
    stopped = {
        **_value({k: v for k, v in first.items() if k != "__interrupt__"}),
        "__interrupt__": interrupts(first["__interrupt__"]),
    }
    state = agent.get_state(THREAD)
    assert [i.id for i in state.interrupts] == [i.id for i in first["__interrupt__"]]
    if decisions is None:
        return stopped, None, saver
    resumed = agent.invoke(Command(resume={"decisions": decisions}), THREAD)
    return stopped, (_value(resumed), snapshot(agent)), saver


ONE_CALL = [ai_tool_calls(("my_tool", {"x": 1}, "call_A")), "done"]

DECISIONS = {
    "approve": [{"type": "approve"}],
    "edit": [{"type": "edit", "edited_action": {"name": "my_tool", "args": {"x": 21}}}],
    "reject_with_message": [{"type": "reject", "message": "not now"}],
    "reject": [{"type": "reject"}],
    "respond": [{"type": "respond", "message": "human says 42"}],
}


@pytest.mark.parametrize("decision", list(DECISIONS))
def test_each_decision_resumes_as_deepagents_does(decision: str) -> None:
    ref, ours = (run_with(impl, ONE_CALL, DECISIONS[decision]) for impl in IMPLS)
    assert ours[0] == ref[0]
    assert ours[1] == ref[1]
    found = first_difference(dump(ref[2]), dump(ours[2]))
    assert found is None, found


def test_parallel_calls_are_reviewed_together_and_rejections_come_first() -> None:
    script = [
        ai_tool_calls(("my_tool", {"x": 1}, "c1"), ("ls", {"path": "/"}, "c2"), ("my_tool", {"x": 3}, "c3")),
        "done",
    ]
    decisions = [{"type": "approve"}, {"type": "reject", "message": "no"}]
    ref, ours = (run_with(impl, script, decisions) for impl in IMPLS)
    assert ours[0] == ref[0]
    assert ours[1] == ref[1]


@pytest.mark.parametrize(
    "decisions",
    [
        pytest.param([], id="too_few"),
        pytest.param([{"type": "approve"}, {"type": "approve"}], id="too_many"),
    ],
)
def test_a_bad_resume_raises_deepagents_error(decisions: list[Any]) -> None:
    errors = []
    for impl in IMPLS:
        with pytest.raises(Exception) as info:
            run_with(impl, ONE_CALL, decisions)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_a_decision_the_config_does_not_allow_raises_deepagents_error() -> None:
    errors = []
    for impl in IMPLS:
        agent = impl.create_deep_agent(
            model=ScriptedChatModel(ONE_CALL),
            tools=[my_tool],
            checkpointer=InMemorySaver(),
            interrupt_on={"my_tool": {"allowed_decisions": ["approve", "reject"], "description": "Please check"}},
        )
        first = agent.invoke({"messages": [("user", "go")]}, THREAD)
        errors.append(interrupts(first["__interrupt__"]))
        edit = {"type": "edit", "edited_action": {"name": "my_tool", "args": {"x": 2}}}
        with pytest.raises(Exception) as info:
            agent.invoke(Command(resume={"decisions": [edit]}), THREAD)
        errors.append((type(info.value), str(info.value)))
    assert errors[:2] == errors[2:]


def test_an_empty_allowed_decisions_is_refused_at_creation() -> None:
    errors = []
    for impl in IMPLS:
        with pytest.raises(ValueError) as info:
            impl.create_deep_agent(
                model=ScriptedChatModel([]), tools=[my_tool], interrupt_on={"my_tool": {"allowed_decisions": []}}
            )
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_without_a_checkpointer_the_interrupt_is_returned_and_resuming_raises() -> None:
    out = []
    for impl in IMPLS:
        agent = impl.create_deep_agent(
            model=ScriptedChatModel(ONE_CALL), tools=[my_tool], interrupt_on={"my_tool": True}
        )
        first = agent.invoke({"messages": [("user", "go")]})
        with pytest.raises(RuntimeError) as info:
            agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}))
        out.append((sorted(first), interrupts(first["__interrupt__"]), _value(first["messages"]), str(info.value)))
    assert out[0] == out[1]


@pytest.mark.parametrize("modes", [["updates"], ["values"], ["updates", "values"]], ids="+".join)
def test_streams_end_with_the_interrupt(modes: list[str]) -> None:
    out = []
    for impl in IMPLS:
        agent = impl.create_deep_agent(
            model=ScriptedChatModel(ONE_CALL),
            tools=[my_tool],
            checkpointer=InMemorySaver(),
            interrupt_on={"my_tool": True},
        )
        chunks = []
        for chunk in agent.stream(
            {"messages": [("user", "go")]}, THREAD, stream_mode=modes if len(modes) > 1 else modes[0]
        ):
            data = chunk[1] if len(modes) > 1 else chunk
            if isinstance(data, dict) and "__interrupt__" in data:
                data = {**data, "__interrupt__": interrupts(data["__interrupt__"])}
            chunks.append(_value(data))
        resumed = [_value(c) for c in agent.stream(Command(resume={"decisions": [{"type": "approve"}]}), THREAD)]
        out.append((chunks, resumed))
    assert out[0] == out[1]


def test_v2_and_async_runs() -> None:
    async def run(impl: Any) -> Any:
        agent = impl.create_deep_agent(
            model=ScriptedChatModel(ONE_CALL),
            tools=[my_tool],
            checkpointer=InMemorySaver(),
            interrupt_on={"my_tool": True},
        )
        first = await agent.ainvoke({"messages": [("user", "go")]}, THREAD, version="v2")
        resumed = await agent.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), THREAD, version="v2")
        return (_value(first.value), interrupts(first.interrupts), _value(resumed.value), resumed.interrupts)

    ref, ours = (asyncio.run(run(impl)) for impl in IMPLS)
    assert ours == ref


def test_a_gated_call_inside_a_subagent_interrupts_the_parent() -> None:
    script = [
        ai_tool_calls(("task", {"description": "do it", "subagent_type": "general-purpose"}, "call_T")),
        ai_tool_calls(("my_tool", {"x": 5}, "call_S")),
        "sub done",
        "done",
    ]
    out = []
    for impl in IMPLS:
        agent = impl.create_deep_agent(
            model=ScriptedChatModel(script),
            tools=[my_tool],
            checkpointer=InMemorySaver(),
            interrupt_on={"my_tool": True},
        )
        first = agent.invoke({"messages": [("user", "go")]}, THREAD)
        out.append((interrupts(first["__interrupt__"]), agent.get_state(THREAD).next))
    assert out[0] == out[1]
    # Resuming it: tests/test_subagent_resume.py.


def test_interrupt_called_by_a_tool_pauses_and_returns_the_answer() -> None:
    from langchain_core.tools import tool
    from langgraph.types import interrupt

    @tool
    def ask(question: str) -> str:
        """Ask a human."""
        return f"human said {interrupt({'question': question})}"

    out = []
    for impl in IMPLS:
        saver = InMemorySaver()
        model = ScriptedChatModel([ai_tool_calls(("ask", {"question": "ok?"}, "call_Q")), "done"])
        agent = impl.create_deep_agent(model=model, tools=[ask], checkpointer=saver)
        first = agent.invoke({"messages": [("user", "go")]}, THREAD)
        paused = (interrupts(first["__interrupt__"]), agent.get_state(THREAD).next)
        resumed = agent.invoke(Command(resume="yes"), THREAD)
        out.append((paused, _value(resumed), snapshot(agent), dump(saver)))
    assert out[0][:3] == out[1][:3]
    found = first_difference(out[0][3], out[1][3])
    assert found is None, found


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(("write_file", {"file_path": "/secret/a.txt", "content": "s"}), id="write_gated"),
        pytest.param(("write_file", {"file_path": "/open/a.txt", "content": "o"}), id="write_open"),
        pytest.param(("ls", {}), id="ls_everything"),
        pytest.param(("glob", {"pattern": "/secret/*", "path": "/open"}), id="glob_pattern"),
        pytest.param(("read_file", {"file_path": "/secret/public/x"}), id="denied_first"),
    ],
)
def test_interrupt_mode_file_rules_gate_calls_as_deepagents_does(call: tuple[str, dict]) -> None:
    from deepagents.middleware.filesystem import FilesystemPermission as RefPermission
    from deepagents_rs.middleware.filesystem import FilesystemPermission

    out = []
    for impl, permission in ((deepagents, RefPermission), (deepagents_rs, FilesystemPermission)):
        rules = [
            permission(operations=["read", "write"], paths=["/secret/public/**"], mode="deny"),
            permission(operations=["read", "write"], paths=["/secret/**"], mode="interrupt"),
        ]
        agent = impl.create_deep_agent(
            model=ScriptedChatModel([ai_tool_calls((call[0], call[1], "call_F")), "done"]),
            checkpointer=InMemorySaver(),
            permissions=rules,
        )
        first = agent.invoke({"messages": [("user", "go")]}, THREAD)
        row = [interrupts(first.get("__interrupt__", [])), _value(first["messages"]), _value(first.get("files"))]
        if first.get("__interrupt__"):
            resumed = agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), THREAD)
            row += [_value(resumed["messages"]), _value(resumed.get("files"))]
        out.append(row)
    assert out[0] == out[1]


@pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")
@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_fork_with_an_empty_interrupt_on_runs_without_the_parents_gate(mode: str) -> None:
    # deepagents builds a fork's gate from its own `interrupt_on`: an empty one makes none,
    # so the call the parent's gate would stop runs (the parent's own calls stay gated).
    script = [
        ai_tool_calls(("task", {"description": "do it", "subagent_type": "helper"}, "call_T")),
        ai_tool_calls(("my_tool", {"x": 5}, "call_S")),
        "fork done",
        ai_tool_calls(("my_tool", {"x": 6}, "call_P")),
        "done",
    ]
    out = []
    for impl in IMPLS:
        agent = impl.create_deep_agent(
            model=ScriptedChatModel(script),
            tools=[my_tool],
            checkpointer=InMemorySaver(),
            interrupt_on={"my_tool": True},
            subagents=[{"name": "helper", "description": "Helps.", "mode": "fork", "interrupt_on": {}}],
        )
        inp = {"messages": [("user", "go")]}
        first = agent.invoke(inp, THREAD) if mode == "invoke" else asyncio.run(agent.ainvoke(inp, THREAD))
        stopped = interrupts(first["__interrupt__"])
        resumed = agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), THREAD)
        out.append((stopped, _value(resumed)))
    assert out[0] == out[1]
    stopped, resumed = out[0]
    assert [a["name"] for s in stopped for a in s[0]["action_requests"]] == ["my_tool"]
    assert stopped[0][0]["action_requests"][0]["args"] == {"x": 6}
    assert [m[1] for m in resumed["messages"] if m[0] == "tool"] == ["fork done", "result=12"]
