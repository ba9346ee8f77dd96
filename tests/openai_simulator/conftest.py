"""The simulated OpenAI server and an official ``openai`` SDK client on it, one of each per test."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest
from sim.openai import (
    SimOpenAI,
)


@pytest.fixture
def sim() -> Iterator[SimOpenAI]:
    with SimOpenAI() as s:
        yield s


@pytest.fixture
def client(sim: SimOpenAI) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=sim.base_url, api_key="sk-test", max_retries=0) as c:
        yield c
