"""Parity: a tool given as a dict counts toward the summarization trigger as the dict is
given (LangChain's counter dumps it as it is), not in the tool-object form LangChain gives a
tool object (a title per parameter): a dict tool with many parameters moves the step where
the agent summarizes, and the two packages summarize at the same step."""

from __future__ import annotations

import json
from typing import Any

import deepagents.middleware.summarization  # noqa: F401 - `own` reads it off the package
import deepagents_rs.middleware.summarization  # noqa: F401
import pytest

from .test_summarization import calls_then, compare, lookup, own, run_both, summary_calls

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")

#: Each parameter's title would add some 20 characters in the tool-object form.
_PROPERTIES = {f"field_number_{i}": {"type": "string"} for i in range(150)}
FUNCTION_DICT = {
    "type": "function",
    "function": {
        "name": "remote",
        "description": "A remote tool.",
        "parameters": {"type": "object", "properties": _PROPERTIES},
    },
}
BARE_DICT = {
    "name": "remote",
    "description": "A remote tool.",
    "parameters": {"type": "object", "properties": _PROPERTIES},
}


@pytest.mark.parametrize("spec", [FUNCTION_DICT, BARE_DICT], ids=["function", "bare"])
@pytest.mark.parametrize("max_input", [9000, 10000, 11000])
def test_a_dict_tool_counts_as_given_toward_the_trigger(spec: dict, max_input: int) -> None:
    runs = run_both(calls_then(8, "done"), ["go"], profile={"max_input_tokens": max_input}, tools=[lookup, spec])
    compare(runs)
    assert len(summary_calls(runs[1])) == len(summary_calls(runs[0]))


def _sizes(messages: Any, *, tools: Any = None) -> int:
    """Tokens as the characters of the messages and of the tools as handed over (a dict as
    it is, an object by its name)."""
    handed = sum(len(json.dumps(t)) if isinstance(t, dict) else len(t.name) for t in tools or ())
    return sum(len(str(m.content)) for m in messages) // 4 + handed // 4


def test_a_users_counter_is_handed_the_dict_as_given() -> None:
    middleware = own(trigger=("tokens", 6000), keep=("messages", 3), token_counter=_sizes)
    runs = run_both(calls_then(10, "done"), ["go"], middleware_factory=middleware, tools=[lookup, FUNCTION_DICT])
    compare(runs)
    assert summary_calls(runs[1]), "no summary was made"
