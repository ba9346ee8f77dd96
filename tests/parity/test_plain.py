"""Parity: plain answers, input message forms and system prompts (no tools).

Normalizations are those of ``harness`` (see its docstring).
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from .harness import MODES, assert_parity, id_shapes, run_both

# deepagents (LangGraph's ensure_message_ids with deepagents' own reducer) gives a uuid4 to
# input message objects and dicts, but leaves messages coerced from a str or a tuple with
# id=None; the id shapes compared by the harness catch any difference.
INPUTS = {
    "role-dicts": {"messages": [{"role": "user", "content": "hi"}]},
    "single-dict": {"messages": {"role": "user", "content": "hi"}},
    "human-message": {"messages": [HumanMessage("hi")]},
    "single-human-message": {"messages": HumanMessage("hi")},
    "history": {
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "answer"},
            HumanMessage("second"),
        ]
    },
    "tuples": {"messages": [("user", "hi")]},
    "bare-string": {"messages": "hi"},
    "str-in-list": {"messages": ["hi"]},
    "mixed": {"messages": ["first", {"role": "assistant", "content": "ok"}, ("user", "third")]},
}

USER = {"messages": [{"role": "user", "content": "hi"}]}

SYSTEM_PROMPTS = {
    "none": None,
    "str": "You are terse.",
    "system-message": SystemMessage("You are terse."),
    "system-blocks": SystemMessage(
        content=[{"type": "text", "text": "Block prompt.", "cache_control": {"type": "ephemeral"}}]
    ),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("inp", INPUTS.values(), ids=INPUTS.keys())
def test_plain_answer_input_forms(inp, mode):
    both = run_both(["hello"], None, inp, mode=mode)
    ref = assert_parity(both)
    assert ref["messages"][-1].content == "hello"
    assert isinstance(ref["messages"][-1], AIMessage)
    assert len(both.rs.calls) == 1


@pytest.mark.parametrize("mode", MODES)
def test_input_message_objects_get_their_ids_in_place(mode):
    """deepagents writes the new id into the caller's HumanMessage; so does deepagents_rs."""
    both = run_both(["hello"], None, {"messages": [HumanMessage("hi")]}, mode=mode)
    assert_parity(both)
    ref_msg, rs_msg = both.ref.input["messages"][0], both.rs.input["messages"][0]
    assert id_shapes([rs_msg]) == id_shapes([ref_msg]) == ["uuid4"]
    assert rs_msg.id == both.rs.unwrap()["messages"][0].id


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("system_prompt", SYSTEM_PROMPTS.values(), ids=SYSTEM_PROMPTS.keys())
def test_plain_answer_system_prompt(system_prompt, mode):
    both = run_both(
        ["hello"], None, {"messages": [{"role": "user", "content": "hi"}]}, mode=mode, system_prompt=system_prompt
    )
    assert_parity(both)
    sent = both.rs.calls[0].messages[0]
    assert isinstance(sent, SystemMessage)
    expected = "" if system_prompt is None else getattr(system_prompt, "content", system_prompt)
    assert sent.content == expected


@pytest.mark.parametrize("mode", MODES)
def test_structured_ai_content_round_trips(mode):
    reply = AIMessage(content=[{"type": "text", "text": "block answer"}], response_metadata={"stop_reason": "end_turn"})
    both = run_both([reply], None, {"messages": [{"role": "user", "content": "hi"}]}, mode=mode)
    ref = assert_parity(both)
    assert ref["messages"][-1].content == [{"type": "text", "text": "block answer"}]


@pytest.mark.parametrize("mode", MODES)
def test_name_sets_ai_message_names(mode):
    from .harness import ai_tool_calls

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    both = run_both([ai_tool_calls(("add", {"a": 1, "b": 2})), "done"], [add], USER, mode=mode, name="helper")
    ref = assert_parity(both)
    assert [m.name for m in ref["messages"] if isinstance(m, AIMessage)] == ["helper", "helper"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", [None, ""], ids=["none", "empty"])
def test_no_name(name, mode):
    both = run_both(["done"], None, USER, mode=mode, name=name)
    ref = assert_parity(both)
    assert ref["messages"][-1].name is None


@pytest.mark.parametrize("mode", MODES)
def test_name_overrides_model_chosen_name(mode):
    both = run_both([AIMessage(content="x", name="model-chose")], None, USER, mode=mode, name="helper")
    assert_parity(both)
