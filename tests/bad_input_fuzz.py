"""The fuzz side of ``test_bad_input``: a hypothesis test of one implementation, run in a child
interpreter of its own (``fuzz_main``)."""

from __future__ import annotations

import importlib
import traceback
from typing import Any

from bad_input_cases import ExtraStateMiddleware, _hi_block, make_probe
from exact_diff import diff
from fake_models import ScriptedChatModel
from langchain_core.messages import AIMessage, HumanMessage

# ---------------------------------------------------------------------------------------------
# Fuzzing one implementation with hypothesis


def fuzz_main(impl: str = "deepagents_rs", max_examples: int = 60) -> int:
    """Generated values in six places of one run must all come back exactly as given.

    Run in a child of its own; exits non-zero (hypothesis prints the falsifying example) when
    one does not."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    module = importlib.import_module(impl)
    chars = st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr))
    text = st.lists(chars, max_size=6).map("".join)
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=-(2**100), max_value=2**100),
        st.floats(),
        st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0]),
        text,
        st.binary(max_size=6),
        st.datetimes(),
        st.decimals(allow_nan=False),
    )
    values = st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.lists(inner, max_size=3).map(tuple),
            st.dictionaries(text, inner, max_size=4),
        ),
        max_leaves=16,
    )

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    @given(
        human_kwargs=values,
        block_extra=values,
        reply_kwargs=values,
        tool_arg=values,
        file_entry=values,
        state_value=values,
    )
    def check(human_kwargs, block_extra, reply_kwargs, tool_arg, file_entry, state_value):
        rec: list[Any] = []
        reply = AIMessage(
            content="",
            additional_kwargs={"v": reply_kwargs},
            tool_calls=[{"name": "probe", "args": {"x": tool_arg}, "id": "call_x", "type": "tool_call"}],
        )
        model = ScriptedChatModel([reply, "done"])
        agent = module.create_deep_agent(model=model, tools=[make_probe(rec)], middleware=[ExtraStateMiddleware()])
        human = HumanMessage(content=_hi_block(block_extra), additional_kwargs={"v": human_kwargs})
        result = agent.invoke({"messages": [human], "files": {"/f": file_entry}, "extra": state_value})
        first, ai = result["messages"][0], result["messages"][1]
        checks = [
            ("human additional_kwargs", human_kwargs, first.additional_kwargs.get("v")),
            ("content block extra", block_extra, first.content[0].get("extra")),
            ("what the model got", block_extra, model.calls[0].messages[-1].content[0].get("extra")),
            ("reply additional_kwargs", reply_kwargs, ai.additional_kwargs.get("v")),
            ("reply tool-call args", tool_arg, ai.tool_calls[0]["args"].get("x")),
            ("what the tool got", [tool_arg], rec),
            ("file entry", file_entry, result["files"].get("/f")),
            ("state key", state_value, result.get("extra")),
        ]
        for name, given_value, got in checks:
            found = diff(given_value, got, name)
            assert found is None, found

    try:
        check()
    except Exception:  # noqa: BLE001 - the child reports and exits 1
        traceback.print_exc()
        return 1
    print("fuzz ok", flush=True)
    return 0
