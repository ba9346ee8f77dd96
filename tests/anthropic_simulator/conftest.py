"""The simulated Anthropic server, one per test: with the real cache minimum, and with a small one."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The simulators live in tests/, one folder up; make them importable however pytest roots the run.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.anthropic import SimAnthropic

# --------------------------------------------------------------------------- helpers


@pytest.fixture
def sim() -> Iterator[SimAnthropic]:
    with SimAnthropic() as s:
        yield s


@pytest.fixture
def small_sim() -> Iterator[SimAnthropic]:
    """A simulator whose cache minimum is small enough for compact test prompts."""
    with SimAnthropic(min_cache_tokens=50) as s:
        yield s
