"""Parity: the names of ``deepagents.middleware.summarization`` beyond the package's exports:
the class's own name (shown in reprs and in Python's argument errors), LangChain's class
under deepagents' alias, and the ``SummarizationDefaults`` and ``SummarizationState`` types."""

from __future__ import annotations

import importlib
import typing

import pytest

IMPLS = ("deepagents", "deepagents_rs")


def _module(impl: str):
    return importlib.import_module(f"{impl}.middleware.summarization")


def test_the_class_is_named_as_deepagents_names_it() -> None:
    ref, rs = (_module(impl).SummarizationMiddleware for impl in IMPLS)
    assert rs.__name__ == ref.__name__ == "_DeepAgentsSummarizationMiddleware"
    assert rs is importlib.import_module("deepagents_rs.middleware").SummarizationMiddleware


def test_a_missing_argument_is_reported_with_that_name() -> None:
    messages = []
    for impl in IMPLS:
        with pytest.raises(TypeError) as caught:
            _module(impl).SummarizationMiddleware(model="openai:gpt-4o")
        messages.append(str(caught.value))
    assert messages[1] == messages[0]


def test_langchains_class_under_deepagents_alias() -> None:
    from langchain.agents.middleware.summarization import SummarizationMiddleware

    assert _module("deepagents_rs").LCSummarizationMiddleware is _module("deepagents").LCSummarizationMiddleware
    assert _module("deepagents_rs").LCSummarizationMiddleware is SummarizationMiddleware


@pytest.mark.parametrize("name", ["SummarizationDefaults", "SummarizationState"])
def test_the_state_and_defaults_types_have_deepagents_fields(name: str) -> None:
    ref, rs = (getattr(_module(impl), name) for impl in IMPLS)
    ref_hints, rs_hints = (typing.get_type_hints(t, include_extras=True) for t in (ref, rs))
    assert list(rs_hints) == list(ref_hints)
    assert [str(h) for h in rs_hints.values()] == [
        str(h).replace("deepagents.", "deepagents_rs.") for h in ref_hints.values()
    ]
