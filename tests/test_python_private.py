"""``deepagents_rs._python_private``: the private dict of ``os.environ`` a plain tool call reads
is checked in one place, and a Python without it fails there, loudly.

* on this Python it is ``os.environ``'s own dict, following what is set and unset;
* an ``os.environ`` that keeps its variables otherwise (no ``_data``, or a dict that is not
  the environment) makes ``environ_data`` raise one ``ImportError`` naming the Python, and so
  a direct tool call's first look-up of LangChain's names (``_direct_tools._langchain``).
"""

from __future__ import annotations

import os
import platform
from collections.abc import Iterator

import pytest
from deepagents_rs import _direct_tools, _python_private


def test_it_is_os_environs_own_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _python_private.environ_data()
    assert data is os.environ._data  # type: ignore[attr-defined]
    key = os.environ.encodekey("DEEPAGENTS_RS_PRIVATE_PROBE")  # type: ignore[attr-defined]
    assert key not in data
    monkeypatch.setenv("DEEPAGENTS_RS_PRIVATE_PROBE", "1")
    assert key in data
    monkeypatch.delenv("DEEPAGENTS_RS_PRIVATE_PROBE")
    assert key not in data


class _OtherEnviron(dict):
    """An ``os.environ`` of another layout: a mapping with no ``_data``."""

    def encodekey(self, name: str) -> str:
        return name


class _StaleEnviron(_OtherEnviron):
    """One whose ``_data`` is not what it reads (a variable missing from it)."""

    def __init__(self, variables: dict[str, str]) -> None:
        super().__init__(variables)
        self._data = {k: v for k, v in list(variables.items())[1:]}


@pytest.fixture
def cleared() -> Iterator[None]:
    """`_direct_tools._langchain`'s names looked up again (it checks the dict once)."""
    _direct_tools._langchain.cache_clear()
    yield
    _direct_tools._langchain.cache_clear()


@pytest.mark.parametrize("environ", [_OtherEnviron, _StaleEnviron], ids=["no _data", "not the environment"])
def test_another_layout_fails_loudly_in_one_place(
    monkeypatch: pytest.MonkeyPatch,
    cleared: None,
    environ: type,
) -> None:
    monkeypatch.setattr(os, "environ", environ({"PATH": "/bin", "HOME": "/root"}))
    with pytest.raises(ImportError, match=r"os\.environ\._data") as raised:
        _python_private.environ_data()
    assert f"{platform.python_implementation()} {platform.python_version()}" in str(raised.value)
    with pytest.raises(ImportError, match=r"os\.environ\._data"):
        _direct_tools._langchain()
