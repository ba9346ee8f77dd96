"""Shared by the parity tests of the notes LangGraph's runner adds to a failing task's error
(``test_node_error_notes.py``, ``test_task_error_notes.py``): the run that raises, through
each API, and the notes read back as (task name, task id) pairs."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

#: One note: "During task with name '<node>' and id '<task id>'" (a hook's node is dotted).
NOTE = re.compile(r"During task with name '([\w.]+)' and id '([0-9a-f-]{36})'")


def run_error(agent: Any, api: str, payload: Any, config: Any) -> BaseException:
    """The `RuntimeError` `agent`'s run raises through `api`: ``invoke``, ``stream`` (updates
    and values) or ``ainvoke``."""
    with pytest.raises(RuntimeError) as info:
        if api == "invoke":
            agent.invoke(payload, config)
        elif api == "stream":
            list(agent.stream(payload, config, stream_mode=["updates", "values"]))
        else:
            asyncio.run(agent.ainvoke(payload, config))
    return info.value


def task_notes(exc: BaseException, label: str) -> list[tuple[str, str]]:
    """`exc`'s notes as (task name, task id), innermost first; each must be a task's note."""
    notes = list(getattr(exc, "__notes__", ()))
    found = [NOTE.fullmatch(note) for note in notes]
    assert found and all(found), (label, notes)
    return [(m.group(1), m.group(2)) for m in found if m]
