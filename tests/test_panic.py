"""A panic in Rust reaches Python as a RuntimeError (not pyo3's PanicException, which is a
BaseException), and the module and its agents keep working after it."""

from __future__ import annotations

import pytest
from deepagents_rs import _core, create_deep_agent
from fake_models import ScriptedChatModel


def test_panic_is_a_runtime_error_and_leaves_agents_working() -> None:
    agent = create_deep_agent(model=ScriptedChatModel(["first", "second"]))
    assert agent.invoke({"messages": [("user", "hi")]})["messages"][-1].content == "first"
    with pytest.raises(RuntimeError, match="internal error in deepagents_rs.*boom") as info:
        _core._panic_for_tests("boom")
    assert type(info.value) is RuntimeError
    assert agent.invoke({"messages": [("user", "again")]})["messages"][-1].content == "second"
