"""Shared fixtures: the simulated Anthropic and OpenAI servers, wired in through the environment exactly
as a user would point the SDK at a proxy."""

from __future__ import annotations

import gc
import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from sim.anthropic import SimAnthropic
from sim.openai import SimOpenAI

# Bytecode caches are written even where the environment forbids them (PYTHONDONTWRITEBYTECODE,
# set on the CI machines): each interpreter the tests start (bad-input places, killed runs,
# import probes) then imports deepagents_rs and the test helpers from bytecode instead of
# compiling them again (2.3 -> 1.8 s of CPU each, load 6-9). No test depends on the setting
# (benches/startup.py sets its own).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# The tests' own pytest plugins (modules in tests/), and pytester for the tests of them.
pytest_plugins = ["xfail_tracebacks", "pytester"]


#: The test files that take longest (their share of a whole run's test time, `--durations=0`,
#: 2026-12-06, 8,772 tests), longest first. The suite runs them first: `--dist loadfile` gives
#: a file whole to one worker, and xdist's own order (most tests first) dealt these, which have
#: few but slow tests, last (test_run_task_ids at 91% of the run, 3.9% of its time), so one
#: worker idled while the other finished them. The rest keep xdist's order.
LONGEST_FILES = (
    "test_fs_security.py",
    "test_threads.py",
    "parity/test_run_task_ids.py",
    "test_bad_input.py",
    "test_subagent_resume.py",
    "parity/test_resume_side_by_side.py",
    "parity/test_async_subagents.py",
    "parity/test_system_turns_openai_wire.py",
    "parity/test_files_tools.py",
    "parity/test_sandbox_local.py",
    "parity/test_provider_strategy.py",
    "parity/test_stream.py",
    "test_direct_writer.py",
    "parity/test_tool_goto_branches.py",
    "test_langgraph_server.py",
    "parity/test_harness_profiles.py",
    "parity/test_permission_delete.py",
)
TESTS = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files in the order described at `LONGEST_FILES`, each file's tests in their own order
    (`pyproject.toml` turns xdist's reordering off: this is it, with the longest files first)."""
    if missing := [name for name in LONGEST_FILES if not (TESTS / name).is_file()]:
        raise pytest.UsageError(f"conftest.LONGEST_FILES names files that do not exist: {missing}")
    by_file: dict[Path, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(item.path, []).append(item)
    rank = {TESTS / name: i for i, name in enumerate(LONGEST_FILES)}
    # Listed files by rank, then the others by their number of tests, most first (xdist's
    # order); sorted() keeps ties in collection order.
    files = sorted(by_file, key=lambda path: (rank.get(path, len(rank)), -len(by_file[path])))
    items[:] = [item for path in files for item in by_file[path]]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Once every test module is imported, what exists so far (the modules of deepagents,
    LangChain, LangGraph and the tests, the collected items) is moved out of the cyclic
    collector's sight (``gc.freeze``). A full collection then walks only what the tests
    made: the ``gc.collect()`` calls below and in tests, and the collector's own full passes,
    took seconds each in a whole suite's heap (after each OpenAI test: ~6 s under load; 16
    collections in test_run_task_ids.py: ~50 s). Frozen objects are still reference-counted;
    only cycles among them that become garbage later are kept."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _no_openai_http_client_across_tests() -> Iterator[None]:
    """langchain_openai caches its httpx clients per base URL for the whole process. A test
    whose ``ChatOpenAI`` ran under ``asyncio.run`` leaves connections bound to that (then
    closed) loop in the cached async client; a later test whose simulated server got the same
    port reused them ("Event loop is closed" on the deepagents side), or had them collected
    in the middle of its run ("unclosed transport"). So the cache is emptied after each test
    that filled it, and what it held is collected here, quietly."""
    yield
    utils = sys.modules.get("langchain_openai.chat_models._client_utils")
    cached = getattr(utils, "_cached_async_httpx_client", None)
    if cached is None or cached.cache_info().currsize == 0:
        return
    cached.cache_clear()
    utils._cached_sync_httpx_client.cache_clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


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
