"""The objects the core makes for a plain tool call's config in one call each: a tool run's id
(``_core._run_id``, ``src/python/run_ids.rs``) as LangChain's ``uuid7()`` makes it, and
LangGraph's frozen records (``_core.SlotRecords``, ``src/python/frozen_records.rs``) as their
classes' constructors make them.
"""

from __future__ import annotations

import dataclasses
import uuid

import pytest
from deepagents_rs import _core
from deepagents_rs._frozen_records import Records
from langchain_core.utils.uuid import uuid7
from langgraph.runtime import ExecutionInfo, Runtime


def test_a_run_id_is_a_uuid_as_langchains_uuid7_makes_it() -> None:
    ids = [_core._run_id() for _ in range(2000)]
    theirs = uuid7()
    for made in ids[:3]:
        assert type(made) is uuid.UUID
        assert (made.version, made.variant, made.is_safe) == (theirs.version, theirs.variant, theirs.is_safe)
        # Usable as any UUID: equal to its text's, hashed alike, immutable.
        assert uuid.UUID(str(made)) == made and hash(uuid.UUID(str(made))) == hash(made)
        with pytest.raises(TypeError):
            made.int = 0  # type: ignore[misc]
    # In order of making and all different; their first 48 bits the time in milliseconds
    # since 1970, as LangChain's (made after them, its own no earlier).
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert 0 <= (theirs.int >> 80) - (ids[-1].int >> 80) < 60_000


def test_records_are_made_as_their_constructor_makes_them() -> None:
    info = Records(
        ExecutionInfo,
        ("checkpoint_id", "checkpoint_ns", "task_id", "thread_id", "run_id", "node_first_attempt_time"),
    ).maker
    assert type(info) is _core.SlotRecords
    values = ("cp", "tools:1", "task", "thread", None, 12.5)
    made = info(*values)
    fields = dict(
        zip(
            ("checkpoint_id", "checkpoint_ns", "task_id", "thread_id", "run_id", "node_first_attempt_time"),
            values,
            strict=True,
        )
    )
    expected = ExecutionInfo(**fields)
    assert type(made) is ExecutionInfo and made == expected
    assert dataclasses.asdict(made) == dataclasses.asdict(expected)
    # The fields not given take their defaults.
    runtime = Records(Runtime, ("context", "store", "execution_info", "control")).maker
    made_runtime = runtime({"user": 1}, None, made, None)
    assert made_runtime == Runtime(context={"user": 1}, store=None, execution_info=expected, control=None)
    # Still frozen, and given the wrong number of values it says so.
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.task_id = "other"  # type: ignore[misc]
    with pytest.raises(TypeError, match="expected 6 field values, got 5"):
        info(*values[:5])
