"""Subagents through both implementations: the ``task`` tool, isolated and fork modes,
compiled subagents, validation errors, parallel calls and the fork's recursion refusal.

The subagents use the parent's model (one ScriptedChatModel per implementation), so the
recorded calls interleave parent and child calls in execution order and are compared as a
whole by ``assert_parity``. The ``task`` tool itself is compared byte for byte here.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import deepagents
import deepagents_rs
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import tool

from .harness import FS_TOOLS, MODES, ai_tool_calls, assert_parity, run_both

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

USER = {"messages": [{"role": "user", "content": "please help"}]}


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def task(description: str, subagent_type: str, call_id: str = "t1") -> tuple:
    return ("task", {"description": description, "subagent_type": subagent_type}, call_id)


def _task_tool(calls: list) -> dict:
    (tool,) = [t for t in calls[0].tools if t["function"]["name"] == "task"]
    return tool


def _assert_same_task_tool(both) -> None:
    assert _task_tool(both.rs.calls) == _task_tool(both.ref.calls)


@pytest.mark.parametrize("mode", MODES)
def test_isolated_subagent(mode: str) -> None:
    subagents = [{"name": "reviewer", "description": "Reviews work.", "system_prompt": "You review."}]
    script = [
        ai_tool_calls(task("check the plan", "reviewer")),
        ai_tool_calls(("lookup", {"key": "plan"}, "c1")),
        "looks fine\n\n",
        "the reviewer says it looks fine",
    ]
    both = run_both(script, [lookup], USER, mode=mode, subagents=subagents)
    ref = assert_parity(both)
    _assert_same_task_tool(both)
    child_first = both.rs.calls[1].messages
    assert [m.type for m in child_first] == ["system", "human"]
    assert child_first[0].content == "You review." and child_first[1].content == "check the plan"
    tool_msg = ref["messages"][2]
    assert (tool_msg.type, tool_msg.name, tool_msg.content) == ("tool", "task", "looks fine")


@pytest.mark.parametrize("mode", MODES)
def test_default_general_purpose_subagent(mode: str) -> None:
    script = [ai_tool_calls(task("research it", "general-purpose")), "found it", "done"]
    both = run_both(script, [lookup], USER, mode=mode)
    assert_parity(both)
    _assert_same_task_tool(both)
    system = both.rs.calls[1].messages[0]
    assert system.content == deepagents_rs._core.DEFAULT_SUBAGENT_PROMPT
    # The child sees the filesystem tools and the parent's user tools, and no task tool.
    assert both.rs.calls[1].tool_names == [*FS_TOOLS, "lookup"]


@pytest.mark.parametrize("mode", MODES)
def test_fork_continues_the_parent_conversation(mode: str) -> None:
    subagents = [{"name": "fixer", "description": "Fixes what was diagnosed.", "mode": "fork"}]
    script = [
        ai_tool_calls(("lookup", {"key": "bug"}, "c1")),
        # The task call comes with a parallel lookup: the fork sees neither.
        ai_tool_calls(("lookup", {"key": "more"}, "c2"), task("fix the bug", "fixer"), content="Delegating."),
        "fixed it",
        "all fixed",
    ]
    both = run_both(script, [lookup], USER, mode=mode, subagents=subagents)
    ref = assert_parity(both)
    _assert_same_task_tool(both)
    # The fork's request: the parent's history minus the delegating turn, plus the task.
    parent_last, fork_first = both.rs.calls[1], both.rs.calls[2]
    assert fork_first.messages[:-1] == parent_last.messages
    assert isinstance(fork_first.messages[-1], HumanMessage)
    assert fork_first.messages[-1].content.startswith("[The messages above are a prior conversation")
    assert fork_first.tools == parent_last.tools
    results = [(m.name, m.content) for m in ref["messages"][-3:-1]]
    assert results == [("lookup", "value of more"), ("task", "fixed it")]


@pytest.mark.parametrize("mode", MODES)
def test_parallel_task_calls_return_in_call_order(mode: str) -> None:
    from fake_models import ScriptedChatModel

    outcomes = []
    for impl in (deepagents, deepagents_rs):
        slow_model = ScriptedChatModel(["slow answer", "slow answer"])
        fast_model = ScriptedChatModel(["fast answer"])
        subagents = [
            {"name": "slow", "description": "Slow.", "model": slow_model},
            {"name": "fast", "description": "Fast.", "model": fast_model},
        ]
        parent = ScriptedChatModel(
            [ai_tool_calls(task("one", "slow", "t1"), task("two", "fast", "t2"), task("three", "slow", "t3")), "done"]
        )
        agent = impl.create_deep_agent(model=parent, tools=[lookup], subagents=subagents)
        inp = {"messages": [("user", "go")]}
        result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
        outcomes.append([(m.tool_call_id, m.content) for m in result["messages"] if m.type == "tool"])
        assert len(slow_model.calls) == 2 and len(fast_model.calls) == 1
    assert outcomes[0] == outcomes[1] == [("t1", "slow answer"), ("t2", "fast answer"), ("t3", "slow answer")]


@pytest.mark.parametrize("mode", MODES)
def test_fork_cannot_delegate_further(mode: str) -> None:
    subagents = [{"name": "fixer", "description": "Fixes.", "mode": "fork"}]
    script = [
        ai_tool_calls(task("fix", "fixer")),
        ai_tool_calls(task("delegate again", "general-purpose", "t9")),
        "did it myself",
        "done",
    ]
    both = run_both(script, [lookup], USER, mode=mode, subagents=subagents)
    assert_parity(both)
    refusal = both.rs.calls[2].messages[-1]
    assert refusal.type == "tool" and refusal.status == "success"
    assert refusal.content.startswith("You are a subagent and cannot delegate to another subagent.")


@pytest.mark.parametrize(
    "args",
    [
        {"description": "x", "subagent_type": "nobody"},
        {"description": "x", "subagent_type": "general-purpose", "prompt": "the real task"},
        {"subagent_type": "general-purpose"},
        {"description": 3, "subagent_type": "general-purpose"},
    ],
    ids=["unknown-type", "unexpected-key", "missing-description", "wrong-type"],
)
def test_bad_task_calls_are_tool_results(args: dict) -> None:
    script = [ai_tool_calls(("task", args, "t1")), "ok"]
    both = run_both(script, [lookup], USER, subagents=[{"name": "a", "description": "A."}])
    ref = assert_parity(both)
    result = ref["messages"][2]
    assert result.type == "tool" and result.tool_call_id == "t1"


class _Compiled:
    """A minimal CompiledSubAgent runnable: answers with the count of messages it saw."""

    def __init__(self, files: dict | None = None) -> None:
        self.seen: list[Any] = []
        self.files = files
        # deepagents needs a LangChain Runnable (it calls with_config); ours takes any object
        # with invoke/ainvoke, so both get the same RunnableLambda.
        self.runnable = RunnableLambda(self._answer)

    def _answer(self, state: dict) -> dict:
        self.seen.append(state)
        out: dict[str, Any] = {
            "messages": [*state["messages"], AIMessage(content=f"saw {len(state['messages'])} messages")]
        }
        if self.files is not None:
            out["files"] = self.files
        return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sub_mode", ["isolated", "fork"])
def test_compiled_subagent(mode: str, sub_mode: str) -> None:
    outcomes = {}
    for impl in (deepagents, deepagents_rs):
        from fake_models import ScriptedChatModel

        runnable = _Compiled(files={"/notes.md": {"content": "n", "encoding": "utf-8"}})
        model = ScriptedChatModel([ai_tool_calls(task("count", "counter")), "done"])
        agent = impl.create_deep_agent(
            model=model,
            subagents=[{"name": "counter", "description": "Counts.", "runnable": runnable.runnable, "mode": sub_mode}],
        )
        inp = {"messages": [{"role": "user", "content": "please help"}]}
        result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
        seen = runnable.seen[0]["messages"]
        outcomes[impl.__name__] = ([m.type for m in seen], result["messages"][2].content, result["files"])
    assert outcomes["deepagents_rs"] == outcomes["deepagents"]


def test_compiled_subagent_without_messages_raises_like_deepagents() -> None:
    bad = RunnableLambda(lambda state: {"answer": 1})

    errors = []
    for impl in (deepagents, deepagents_rs):
        from fake_models import ScriptedChatModel

        model = ScriptedChatModel([ai_tool_calls(task("x", "bad")), "done"])
        agent = impl.create_deep_agent(model=model, subagents=[{"name": "bad", "description": "B.", "runnable": bad}])
        with pytest.raises(ValueError) as info:
            agent.invoke({"messages": [("user", "hi")]})
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize(
    "subagents",
    [
        [{"name": "a", "description": "A.", "mode": "sideways"}],
        [{"name": "a", "description": "A."}, {"name": "a", "description": "again"}],
        [{"name": "a", "description": "A.", "mode": "fork", "skills": ["/skills/"]}],
    ],
    ids=["invalid-mode", "duplicate-name", "fork-with-skills"],
)
def test_validation_errors_match(subagents: list) -> None:
    from fake_models import ScriptedChatModel

    messages = []
    for impl in (deepagents, deepagents_rs):
        with pytest.raises(ValueError) as info:
            impl.create_deep_agent(model=ScriptedChatModel([]), subagents=subagents)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_missing_description_is_a_key_error_in_both() -> None:
    from fake_models import ScriptedChatModel

    for impl in (deepagents, deepagents_rs):
        with pytest.raises(KeyError, match="description"):
            impl.create_deep_agent(model=ScriptedChatModel([]), subagents=[{"name": "a"}])


def test_user_general_purpose_replaces_the_default_in_place() -> None:
    from fake_models import ScriptedChatModel

    subagents = [{"name": "a", "description": "A."}, {"name": "general-purpose", "description": "Mine."}]
    tools = []
    for impl in (deepagents, deepagents_rs):
        model = ScriptedChatModel(["ok"])
        impl.create_deep_agent(model=model, subagents=subagents).invoke({"messages": [("user", "hi")]})
        tools.append(_task_tool(model.calls))
    assert tools[0] == tools[1]
    assert "- a: A.\n- general-purpose: Mine." in tools[1]["function"]["description"]


def test_fork_emits_the_same_beta_warning() -> None:
    from fake_models import ScriptedChatModel

    caught = []
    for impl in (deepagents, deepagents_rs):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            impl.create_deep_agent(
                model=ScriptedChatModel([]), subagents=[{"name": "f", "description": "F.", "mode": "fork"}]
            )
        caught.append(sorted({(x.category, str(x.message)) for x in w}))
    assert caught[0] == caught[1]


@pytest.mark.parametrize("mode", MODES)
def test_parallel_task_calls_run_concurrently(mode: str) -> None:
    """Each subagent's tool waits for the other's: only concurrent subagents get past it."""
    import threading

    from fake_models import ScriptedChatModel

    barrier = threading.Barrier(2, timeout=10)

    def meet(who: str) -> str:
        """Wait for the other subagent."""
        barrier.wait()
        return f"{who} met"

    subagents = [
        {
            "name": name,
            "description": f"{name}.",
            "tools": [meet],
            "model": ScriptedChatModel([ai_tool_calls(("meet", {"who": name}, f"m-{name}")), f"{name} done"]),
        }
        for name in ("left", "right")
    ]
    parent = ScriptedChatModel([ai_tool_calls(task("a", "left", "t1"), task("b", "right", "t2")), "both done"])
    agent = deepagents_rs.create_deep_agent(model=parent, subagents=subagents)
    inp = {"messages": [("user", "go")]}
    result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
    assert [m.content for m in result["messages"] if m.type == "tool"] == ["left done", "right done"]


def test_spec_types_match_deepagents() -> None:
    from deepagents.middleware import subagents as ref
    from deepagents_rs.middleware import subagents as ours

    for name in ("SubAgent", "CompiledSubAgent"):
        theirs, mine = getattr(ref, name), getattr(ours, name)
        assert mine.__required_keys__ == theirs.__required_keys__
        assert mine.__optional_keys__ == theirs.__optional_keys__
    assert ours.DEFAULT_SUBAGENT_PROMPT == ref.DEFAULT_SUBAGENT_PROMPT
    assert ours.DEFAULT_GENERAL_PURPOSE_DESCRIPTION == ref.DEFAULT_GENERAL_PURPOSE_DESCRIPTION
    assert deepagents_rs.SubAgent is ours.SubAgent and deepagents_rs.CompiledSubAgent is ours.CompiledSubAgent


def _ordered_pair(second_done: Any) -> tuple[Any, Any]:
    """Two tools: the first returns only once the second has run."""

    def wait_for_second() -> str:
        """Wait for the other subagent."""
        assert second_done.wait(10), "subagents did not run concurrently"
        return "waited"

    def finish() -> str:
        """Finish quickly."""
        second_done.set()
        return "finished"

    return wait_for_second, finish


@pytest.mark.parametrize("mode", MODES)
def test_task_results_keep_call_order_when_the_first_finishes_last(mode: str) -> None:
    """The first subagent's tool waits until the second's has run: results still come back
    in call order, not completion order."""
    import threading

    from fake_models import ScriptedChatModel

    outcomes = []
    for impl in (deepagents, deepagents_rs):
        wait_for_second, finish = _ordered_pair(threading.Event())

        subagents = [
            {
                "name": "first",
                "description": "First.",
                "tools": [wait_for_second],
                "model": ScriptedChatModel([ai_tool_calls(("wait_for_second", {}, "w1")), "first done"]),
            },
            {
                "name": "second",
                "description": "Second.",
                "tools": [finish],
                "model": ScriptedChatModel([ai_tool_calls(("finish", {}, "f1")), "second done"]),
            },
        ]
        parent = ScriptedChatModel([ai_tool_calls(task("a", "first", "t1"), task("b", "second", "t2")), "both done"])
        agent = impl.create_deep_agent(model=parent, subagents=subagents)
        inp = {"messages": [("user", "go")]}
        result = agent.invoke(inp) if mode == "invoke" else asyncio.run(agent.ainvoke(inp))
        outcomes.append([(m.tool_call_id, m.content) for m in result["messages"] if m.type == "tool"])
    assert outcomes[0] == outcomes[1] == [("t1", "first done"), ("t2", "second done")]


@pytest.mark.parametrize("mode", MODES)
def test_compiled_subagent_gets_the_callers_config(mode: str) -> None:
    from fake_models import ScriptedChatModel

    seen = []
    for impl in (deepagents, deepagents_rs):

        def record(state: dict, config: Any) -> dict:
            seen.append((config["configurable"].get("user_id"), config["configurable"].get("ls_agent_type")))
            return {"messages": [*state["messages"], AIMessage(content="ok")]}

        model = ScriptedChatModel([ai_tool_calls(task("x", "rec")), "done"])
        agent = impl.create_deep_agent(
            model=model, subagents=[{"name": "rec", "description": "R.", "runnable": RunnableLambda(record)}]
        )
        config = {"configurable": {"user_id": "u1"}}
        inp = {"messages": [("user", "go")]}
        agent.invoke(inp, config) if mode == "invoke" else asyncio.run(agent.ainvoke(inp, config))
    assert seen[0] == seen[1] == ("u1", "subagent")


@tool
def whoami(config: RunnableConfig) -> str:
    """Say who the caller is."""
    return str(config["configurable"].get("user_id"))


@pytest.mark.parametrize("mode", MODES)
def test_tools_get_the_callers_config(mode: str) -> None:
    both = run_both(
        [ai_tool_calls(("whoami", {}, "c1")), "ok"],
        [whoami],
        USER,
        mode=mode,
        config={"configurable": {"user_id": "u7"}},
    )
    ref = assert_parity(both)
    assert ref["messages"][2].content == "u7"


def test_dynamic_subagent_response_format() -> None:
    from pydantic import BaseModel

    class Out(BaseModel):
        """The answer."""

        answer: str

    script = [ai_tool_calls(task("x", "rev")), ai_tool_calls(("Out", {"answer": "a"}, "s1")), "done"]
    config = {"configurable": {"__deepagents_subagent_response_format": Out}}
    both = run_both(script, [lookup], USER, config=config, subagents=[{"name": "rev", "description": "d"}])
    ref = assert_parity(both)
    assert ref["messages"][2].content == '{"answer":"a"}'


def test_dynamic_response_format_is_refused_for_compiled_subagents() -> None:
    from pydantic import BaseModel

    class Out(BaseModel):
        """The answer."""

        answer: str

    compiled = RunnableLambda(lambda s: {"messages": [AIMessage(content="x")]})
    both = run_both(
        [ai_tool_calls(task("x", "c")), "done"],
        None,
        USER,
        config={"configurable": {"__deepagents_subagent_response_format": Out}},
        subagents=[{"name": "c", "description": "C.", "runnable": compiled}],
    )
    assert_parity(both)
    assert "dynamic schemas require a raw SubAgent spec" in str(both.rs.error)


def test_subagent_tools_none_means_no_user_tools() -> None:
    script = [ai_tool_calls(task("x", "rev")), "child", "done"]
    both = run_both(script, [lookup], USER, subagents=[{"name": "rev", "description": "d", "tools": None}])
    assert_parity(both)
    assert both.rs.calls[1].tool_names == list(FS_TOOLS)


def test_compiled_subagent_dict_messages_give_an_empty_result() -> None:
    compiled = RunnableLambda(lambda s: {"messages": [{"role": "assistant", "content": "dict answer"}]})
    both = run_both(
        [ai_tool_calls(task("x", "c")), "done"],
        None,
        USER,
        subagents=[{"name": "c", "description": "C.", "runnable": compiled}],
    )
    ref = assert_parity(both)
    assert ref["messages"][2].content == ""


def test_task_usage_survives_a_second_turn() -> None:
    from fake_models import ScriptedChatModel

    usage = {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}
    child = ScriptedChatModel([AIMessage("child", usage_metadata=usage)])
    parent = ScriptedChatModel([ai_tool_calls(task("x", "s")), "done"])
    first = deepagents_rs.create_deep_agent(
        model=parent, subagents=[{"name": "s", "description": "S.", "model": child}]
    ).invoke(USER)
    task_result = first["messages"][2]
    assert task_result.response_metadata["usage_metadata"]["total_tokens"] == 12
    again = deepagents_rs.create_deep_agent(model=ScriptedChatModel(["again"])).invoke(
        {"messages": [*first["messages"], ("user", "more")]}
    )
    assert again["messages"][2].response_metadata == task_result.response_metadata


def test_input_message_metadata_reaches_the_model_as_in_deepagents() -> None:
    inp = {"messages": [HumanMessage("hi", response_metadata={"r": 3}, additional_kwargs={"k": 1})]}
    both = run_both(["ok"], None, inp)
    assert_parity(both)
    sent = both.rs.calls[0].messages[1]
    assert (sent.response_metadata, sent.additional_kwargs) == ({"r": 3}, {"k": 1})


def test_a_runnable_without_invoke_is_refused_at_create_time() -> None:
    from fake_models import ScriptedChatModel

    with pytest.raises(TypeError, match="runnable"):
        deepagents_rs.create_deep_agent(
            model=ScriptedChatModel([]), subagents=[{"name": "a", "description": "d", "runnable": 3}]
        )
