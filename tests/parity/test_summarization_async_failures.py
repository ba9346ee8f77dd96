"""Parity: under ``awrap_model_call`` deepagents writes the history and asks for the summary
together (``asyncio.gather``), so when both fail the run raises whichever failed first. Which
one that is is set here by the replaced steps themselves: each fails at once or after a
pause. The exception (type and text), the steps that ran and the summary calls the model got
are compared with deepagents.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain.agents.middleware.types import ModelRequest
from langchain_core.messages import AIMessage

from .test_summarization import masked
from .test_summarization_face import _conversation
from .test_summarization_steps import _both, model_request

PAUSE = 0.3


async def _fail(pause: float | None, exc: Exception) -> None:
    """Raise ``exc`` without yielding to the loop (``None``), after a zero-length yield
    (``0``), or after ``pause`` seconds."""
    if pause is not None:
        await asyncio.sleep(pause)
    raise exc


def _run_failing(mw: Any, history_pause: float | None, summary_pause: float | None) -> Any:
    calls: list[str] = []

    async def aoffload(backend: Any, msgs: list, session_id: str) -> str | None:
        calls.append("offload started")
        await _fail(history_pause, ConnectionError("history store unreachable"))
        return None

    async def asummary(msgs: list) -> str:
        calls.append("summary started")
        await _fail(summary_pause, RuntimeError("summary model down"))
        return ""

    mw._aoffload_to_backend = aoffload
    mw._acreate_summary = asummary

    async def answer(request: ModelRequest) -> AIMessage:
        return AIMessage("reply", id="r")

    try:
        asyncio.run(mw.awrap_model_call(model_request(mw, _conversation(4)), answer))
    except Exception as exc:  # noqa: BLE001 - compared below
        return type(exc).__name__, str(exc), calls, masked(mw.model.summaries)
    return "no error", calls


CASES = {
    "both at once: the history, started first": (None, None),
    "both after a zero yield: the history, started first": (0, 0),
    "the history at once, the summary later": (None, PAUSE),
    "the summary at once, the history later": (PAUSE, None),
    "the summary after a yield, the history later": (PAUSE, 0),
}


@pytest.mark.parametrize("pauses", CASES.values(), ids=CASES.keys())
def test_the_first_of_two_failures_is_raised(tmp_path: Path, pauses: tuple[Any, Any]) -> None:
    seen = _both(lambda mw, _impl: _run_failing(mw, *pauses), tmp_path)
    assert seen["deepagents_rs"] == seen["deepagents"]
    assert seen["deepagents"][0] != "no error"
