"""Parity: whole runs summarizing at each form of ``trigger`` and ``keep`` deepagents takes
(a tuple, a dict of conditions, a list of tuples; messages, tokens, a fraction of the
model's window), under ``invoke`` and ``ainvoke``: the same requests to the model, summary
prompts, files and state as deepagents."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from . import test_summarization_media as media
from .test_summarization import calls_then, compare

FORMS = {
    "tuple messages": {"trigger": ("messages", 6), "keep": ("messages", 2)},
    "tuple tokens": {"trigger": ("tokens", 3000), "keep": ("tokens", 800)},
    "tuple fraction": {"trigger": ("fraction", 0.3), "keep": ("fraction", 0.05)},
    "dict": {"trigger": {"messages": 8, "tokens": 2500}, "keep": ("messages", 3)},
    "list": {"trigger": [("messages", 40), ("tokens", 2500)], "keep": ("messages", 2)},
    "list of fraction and messages": {"trigger": [("fraction", 0.9), ("messages", 7)], "keep": ("messages", 4)},
}


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_each_trigger_form_summarizes_where_deepagents_does(form: dict[str, Any], mode: str) -> None:
    runs = media.run_media(
        [*calls_then(6, AIMessage("done")), *calls_then(3, AIMessage("done again"), ids="d")],
        [[HumanMessage("start")], [HumanMessage("again")]],
        mode=mode,
        middleware=media.own(lambda a: a.backends.StateBackend(), **form),
        checkpointer=True,
        profile={"max_input_tokens": 10_000},
    )
    compare(runs, state=True)
    ref, rs = runs
    assert ref.model.summaries, "the scenario summarizes"
    assert len(rs.model.summaries) == len(ref.model.summaries)
    assert not any(isinstance(r, Exception) for r in (*ref.results, *rs.results))
