"""The harness's asserts get pytest's detailed diffs; known middleware gaps are strict xfails."""

from pathlib import Path

import pytest

pytest.register_assert_rewrite("parity.harness")

_GAPS_FILE = Path(__file__).with_name("middleware_gaps.txt")
_GAPS = {line.strip() for line in _GAPS_FILE.read_text().splitlines() if line.strip() and not line.startswith("#")}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name == "test_middleware.py" and item.name in _GAPS:
            item.add_marker(
                pytest.mark.xfail(strict=True, reason="known gap of deepagents_rs (tests/parity/middleware_gaps.txt)")
            )
