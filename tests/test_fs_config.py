"""File-tool settings deepagents_rs does not implement yet raise a clear error at
``create_deep_agent`` instead of being ignored; the ones it does are accepted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import deepagents_rs
from deepagents_rs.middleware.filesystem import FilesystemMiddleware
from fake_models import ScriptedChatModel


def _create(**kwargs):
    return deepagents_rs.create_deep_agent(model=ScriptedChatModel([]), **kwargs)


@pytest.mark.parametrize("limit", [None, 0, 1_000, 50_000])
def test_every_human_message_limit_is_accepted(limit) -> None:
    # What each one does is compared with deepagents in tests/parity/test_human_eviction.py.
    _create(middleware=[FilesystemMiddleware(human_message_token_limit_before_evict=limit)])
