"""Shared fixtures: the simulated Anthropic and OpenAI servers, wired in through the environment exactly
as a user would point the SDK at a proxy."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from sim.anthropic import SimAnthropic
from sim.openai import SimOpenAI


@pytest.fixture
def sim(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimAnthropic]:
    with SimAnthropic(min_cache_tokens=64) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
        yield server


@pytest.fixture
def openai_sim(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimOpenAI]:
    """The simulated OpenAI API (both its APIs), as ``openai:`` models reach it."""
    with SimOpenAI() as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        yield server
