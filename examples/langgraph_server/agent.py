"""A deep agent served by LangGraph's own server (``langgraph dev``, LangGraph Platform).

``langgraph.json`` points the server at ``agent`` below: the object ``create_deep_agent``
returns is a LangGraph compiled graph to the server, run by deepagents_rs' Rust loop.
``build`` takes the ``create_deep_agent`` to use, so the same agent can be built by
deepagents too and served beside it (the project's server test does).
"""

from __future__ import annotations

import os

import deepagents_rs
from langchain_core.tools import tool

MODEL = os.environ.get("EXAMPLE_MODEL", "anthropic:claude-sonnet-4-6")
SYSTEM_PROMPT = "You are a careful assistant. Keep notes in files when asked."


@tool
def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


def build(create_deep_agent):
    # Tools whose calls wait for a human: the server surfaces them as interrupts, and a
    # client resumes the run with `Command(resume=...)`.
    return create_deep_agent(
        model=MODEL,
        tools=[word_count],
        system_prompt=SYSTEM_PROMPT,
        interrupt_on={"edit_file": True},
    )


agent = build(deepagents_rs.create_deep_agent)
