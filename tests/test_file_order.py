"""The order tests/conftest.py deals test files in: the longest files first (as listed), then
the others by their number of tests, most first; each file's tests in their own order."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import conftest
import pytest


def _items(*spec: tuple[Path, int]) -> list[Any]:
    """Fake collected items: ``n`` tests of each file, in the order given."""
    return [SimpleNamespace(path=path, name=f"{path.name}:{i}") for path, n in spec for i in range(n)]


def test_listed_files_first_then_most_tests_first(monkeypatch: pytest.MonkeyPatch) -> None:
    tests = conftest.TESTS
    monkeypatch.setattr(conftest, "LONGEST_FILES", ("test_threads.py", "parity/test_run_task_ids.py"))
    few, many, same = tests / "test_a.py", tests / "test_b.py", tests / "test_c.py"
    threads, task_ids = tests / "test_threads.py", tests / "parity" / "test_run_task_ids.py"
    items = _items((few, 1), (task_ids, 2), (many, 3), (threads, 1), (same, 1))
    conftest.pytest_collection_modifyitems(None, items)  # type: ignore[arg-type]
    assert [item.name for item in items] == [
        "test_threads.py:0",
        "test_run_task_ids.py:0",
        "test_run_task_ids.py:1",
        "test_b.py:0",
        "test_b.py:1",
        "test_b.py:2",
        "test_a.py:0",  # a tie with test_c.py: collection order
        "test_c.py:0",
    ]


def test_a_listed_file_that_does_not_exist_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "LONGEST_FILES", ("test_threads.py", "test_gone.py"))
    with pytest.raises(pytest.UsageError, match="test_gone.py"):
        conftest.pytest_collection_modifyitems(None, [])  # type: ignore[arg-type]
