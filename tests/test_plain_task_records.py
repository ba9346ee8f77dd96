"""A plain step's task and the frozen records it carries (its runtime's ``ExecutionInfo`` and
``Runtime``, the node's ``Command``) are made by `_frozen_records`, not by their dataclass
``__init__``: some 60 bytecodes a record, four records a task, every step. That they are the
records LangGraph's ``prepare_next_tasks`` makes is `test_direct_writer`'s
``test_the_plain_steps_tasks_are_langgraphs``; here, that no ``__init__`` runs for them."""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

import deepagents_rs
import pytest
from fake_models import ScriptedChatModel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import ExecutionInfo, Runtime
from langgraph.types import Command, PregelExecutableTask
from thread_support import THREAD, my_tool, script

#: Our modules that make these records for a plain step.
OURS = ("_plain_tasks.py", "_thread_feed.py")


def test_a_plain_steps_records_run_no_init(monkeypatch: pytest.MonkeyPatch) -> None:
    inits: Counter = Counter()
    for cls in (PregelExecutableTask, ExecutionInfo, Runtime, Command):
        init = cls.__init__

        def counted(self: Any, *args: Any, _init: Any = init, _cls: type = cls, **kwargs: Any) -> None:
            caller = sys._getframe(1).f_code.co_filename
            inits[_cls.__name__, caller.endswith(OURS)] += 1
            _init(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", counted)
    agent = deepagents_rs.create_deep_agent(
        model=ScriptedChatModel(script()), tools=[my_tool], checkpointer=InMemorySaver()
    )
    agent.invoke({"messages": [("user", "go")]}, THREAD)
    out = agent.invoke({"messages": [("user", "again")]}, THREAD)
    assert out["messages"][-1].type == "ai"
    assert {k: n for k, n in inits.items() if k[1]} == {}
