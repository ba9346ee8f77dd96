"""Parity: the typing names deepagents' middleware modules define for their users, side by
side: `SkillSource` and `SkillsStateUpdate` (skills), `TriggerClause` and
`CompactConversationSchema` (summarization). Same kind of object, same keys (required and
optional alike), same JSON schema where it is a model."""

from __future__ import annotations

import importlib
import typing

import pytest

ROOTS = ("deepagents", "deepagents_rs")


def _typed_dict(cls: type) -> tuple:
    hints = typing.get_type_hints(cls)
    return sorted(hints), sorted(cls.__required_keys__), sorted(cls.__optional_keys__), cls.__total__


@pytest.mark.parametrize(("module", "name"), [("skills", "SkillsStateUpdate"), ("summarization", "TriggerClause")])
def test_typed_dicts(module: str, name: str) -> None:
    ref, ours = (getattr(importlib.import_module(f"{root}.middleware.{module}"), name) for root in ROOTS)
    assert typing.is_typeddict(ours)
    assert _typed_dict(ours) == _typed_dict(ref)


def test_skill_source() -> None:
    ref, ours = (importlib.import_module(f"{root}.middleware.skills").SkillSource for root in ROOTS)
    assert typing.get_args(ours) == typing.get_args(ref) == (str, tuple[str, str])


def test_compact_conversation_schema() -> None:
    ref, ours = (
        importlib.import_module(f"{root}.middleware.summarization").CompactConversationSchema for root in ROOTS
    )
    ours_schema, ref_schema = ours.model_json_schema(), ref.model_json_schema()
    ours_schema.pop("description", None)
    ref_schema.pop("description", None)
    assert ours_schema == ref_schema
    assert ours().model_dump() == {}
