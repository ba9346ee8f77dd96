"""Glob matching shared by the backends, with the semantics deepagents gets from wcmatch
(``BRACE | GLOBSTAR``: wildcards skip dot-names, ``**`` is a whole segment, braces expand),
implemented in the Rust core (``deepagents_rs._core.GlobMatcher``)."""

from __future__ import annotations

from collections.abc import Callable

from ._core import GlobMatcher
from ._core import globmatch as _globmatch


def compile_glob(pattern: str) -> Callable[[str], bool]:
    """A predicate matching a (relative, POSIX) path against ``pattern``.

    Raises:
        ValueError: the pattern cannot be compiled (a brace expansion past 1000
            alternatives, as wcmatch refuses it).
    """
    return GlobMatcher(pattern)


def globmatch(path: str, pattern: str) -> bool:
    """Whether ``path`` matches ``pattern`` (a pattern that cannot compile matches nothing)."""
    return _globmatch(path, pattern)
