"""``deepagents_rs.middleware.filesystem``'s tool-description constants equal deepagents 0.7.32's.

The Rust core offers its own copies (``src/middleware/filesystem/texts.rs``, checked by
``test_fs_texts.py``); these are the module constants deepagents exports for import.
"""

from __future__ import annotations

import deepagents.middleware.filesystem as reference
import deepagents_rs.middleware.filesystem as ported
import pytest

NAMES = [
    "LIST_FILES_TOOL_DESCRIPTION",
    "READ_FILE_TOOL_DESCRIPTION",
    "READ_FILE_VIDEO_TOOL_DESCRIPTION",
    "EDIT_FILE_TOOL_DESCRIPTION",
    "WRITE_FILE_TOOL_DESCRIPTION",
    "DELETE_TOOL_DESCRIPTION",
    "GLOB_TOOL_DESCRIPTION",
    "GREP_TOOL_DESCRIPTION",
    "EXECUTE_TOOL_DESCRIPTION",
]


@pytest.mark.parametrize("name", NAMES)
def test_constant_matches_deepagents(name: str) -> None:
    assert getattr(ported, name) == getattr(reference, name)


def test_constants_are_exported() -> None:
    assert set(NAMES) <= set(ported.__all__)
