"""`_langsmith_tracing`: LangSmith's ``tracing_is_enabled()`` answer, read without calling it,
is LangSmith's own in every state it reads (a ``tracing_context`` switch, a parent run tree,
``langsmith.configure``'s global switch, the environment), changed between two questions as
between two runs; and a LangSmith whose functions are not the ones the reading follows is
asked itself."""

from __future__ import annotations

import contextvars
from collections.abc import Iterator

import langsmith
import pytest
from deepagents_rs import _langsmith_tracing
from langsmith import utils
from langsmith.run_helpers import tracing_context
from langsmith.run_trees import RunTree

_NAMES = ("LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING")


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """No tracing variable set, LangSmith's cache of them emptied, no global switch; all
    restored after."""
    for name in _NAMES:
        monkeypatch.delenv(name, raising=False)
    utils.get_env_var.cache_clear()
    langsmith.configure(enabled=None)
    yield monkeypatch
    langsmith.configure(enabled=None)
    utils.get_env_var.cache_clear()


def _both() -> tuple:
    return _langsmith_tracing.tracing_is_enabled(), utils.tracing_is_enabled()


def _same() -> object:
    ours, theirs = _both()
    assert ours == theirs and type(ours) is type(theirs)
    return ours


def test_the_installed_langsmith_is_read_directly() -> None:
    assert _langsmith_tracing.reader() is _langsmith_tracing._read


def test_each_state_gives_langsmiths_answer(clean: pytest.MonkeyPatch) -> None:
    assert _same() is False
    # The environment, as LangSmith reads it: through its cache (set, then the cache emptied,
    # as between two processes), and unset again.
    clean.setenv("LANGSMITH_TRACING", "true")
    assert _same() is False  # LangSmith's cache still holds the unset answer
    utils.get_env_var.cache_clear()
    assert _same() is True
    clean.setenv("LANGSMITH_TRACING_V2", "false")
    utils.get_env_var.cache_clear()
    assert _same() is False  # TRACING_V2 first
    clean.setenv("LANGSMITH_TRACING_V2", "true")
    utils.get_env_var.cache_clear()
    # `tracing_context` overrides the environment, and a parent run tree, both ways.
    with tracing_context(enabled=False):
        assert _same() is False
        with tracing_context(parent=RunTree(name="outer", run_type="chain")):
            assert _same() is False
    with tracing_context(enabled="local"):
        assert _same() == "local"
    for name in _NAMES:
        clean.delenv(name, raising=False)
    utils.get_env_var.cache_clear()
    parent = RunTree(name="outer", run_type="chain")
    with tracing_context(parent=parent):
        assert _same() is True
    # The global switch, over the environment: `configure` sets the `tracing_context` switch
    # of its own context too, so it is read alone in another (a new thread's, empty).
    langsmith.configure(enabled=True)
    assert _same() is True
    assert contextvars.Context().run(_same) is True
    clean.setenv("LANGSMITH_TRACING", "true")
    utils.get_env_var.cache_clear()
    langsmith.configure(enabled=False)
    assert contextvars.Context().run(_same) is False

    def under_parent() -> object:
        with tracing_context(parent=parent):
            return _same()

    assert contextvars.Context().run(under_parent) is True  # a parent run before the switch
    langsmith.configure(enabled=None)
    assert contextvars.Context().run(_same) is True


def test_a_changed_langsmith_is_asked_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    fingerprint = dict(_langsmith_tracing._FINGERPRINT)
    names, consts = fingerprint["langsmith.utils.tracing_is_enabled"]
    fingerprint["langsmith.utils.tracing_is_enabled"] = (names, (*consts, "another"))
    monkeypatch.setattr(_langsmith_tracing, "_FINGERPRINT", fingerprint)
    _langsmith_tracing.reader.cache_clear()
    try:
        assert _langsmith_tracing.reader() is utils.tracing_is_enabled
    finally:
        _langsmith_tracing.reader.cache_clear()
