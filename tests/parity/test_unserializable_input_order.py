"""Two input values a saver cannot serialize: the error names the first in the caller's order,
side by side with deepagents (LangGraph writes an input's keys in the order given, and the
saver fails on the first it cannot take).

The keys are declared by a middleware's ``state_schema`` or by ``create_deep_agent``'s
``state_schema=``; each order is run, so whichever order the declared keys have, one case
gives them in the other.
"""

from __future__ import annotations

import threading
from typing import Any, NotRequired

import deepagents
import deepagents_rs
import pytest
from fake_models import ScriptedChatModel
from langchain.agents.middleware import AgentMiddleware, AgentState
from langgraph.checkpoint.memory import InMemorySaver


class _TwoKeys(AgentState):
    alpha: NotRequired[Any]
    beta: NotRequired[Any]


class _Declares(AgentMiddleware):
    state_schema = _TwoKeys


#: A value of each key no saver serializes, each of its own type (the error names it).
_VALUES = {"alpha": threading.Lock, "beta": threading.Event}


def _error(module: Any, declared_by: str, order: tuple[str, ...]) -> str:
    kwargs: dict[str, Any] = (
        {"middleware": [_Declares()]} if declared_by == "middleware" else {"state_schema": _TwoKeys}
    )
    agent = module.create_deep_agent(model=ScriptedChatModel(["done"]), checkpointer=InMemorySaver(), **kwargs)
    payload: dict[str, Any] = {"messages": [("user", "go")]}
    payload.update((key, _VALUES[key]()) for key in order)
    with pytest.raises(TypeError) as caught:
        agent.invoke(payload, {"configurable": {"thread_id": "t"}})
    return str(caught.value)


@pytest.mark.parametrize("order", [("alpha", "beta"), ("beta", "alpha")], ids=["alpha_first", "beta_first"])
@pytest.mark.parametrize("declared_by", ["middleware", "state_schema"])
def test_first_unserializable_key_reported(declared_by: str, order: tuple[str, ...]) -> None:
    theirs = _error(deepagents, declared_by, order)
    ours = _error(deepagents_rs, declared_by, order)
    first = type(_VALUES[order[0]]()).__name__
    assert theirs.endswith(first), theirs
    assert ours == theirs
