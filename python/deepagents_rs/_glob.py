"""Glob matching shared by the backends (wcmatch ``BRACE | GLOBSTAR`` semantics).

Every glob use in ``deepagents_rs`` routes through this module. It is currently
implemented on top of ``wcmatch`` (imported lazily); the Rust core will take
this over and replace both functions with ``deepagents_rs._core`` functions of
the same signatures and the same exception behaviour.
"""

from __future__ import annotations

from collections.abc import Callable


def compile_glob(pattern: str) -> Callable[[str], bool]:
    """Compile `pattern` and return a predicate matching a (relative, POSIX) path.

    Semantics of `wcmatch.glob.compile(pattern, flags=BRACE | GLOBSTAR).match`.

    Raises:
        Exception: whatever the matcher raises for a refused pattern (e.g.
            wcmatch's private `PatternLimitException` when brace expansion goes
            past its limit). Callers catch broadly.
    """
    import wcmatch.glob as wcglob

    compiled = wcglob.compile(pattern, flags=wcglob.BRACE | wcglob.GLOBSTAR)

    def match(path: str) -> bool:
        return bool(compiled.match(path))

    return match


def globmatch(path: str, pattern: str) -> bool:
    """Return whether `path` matches `pattern` (`wcmatch.glob.globmatch` with `BRACE | GLOBSTAR`)."""
    import wcmatch.glob as wcglob

    return bool(wcglob.globmatch(path, pattern, flags=wcglob.BRACE | wcglob.GLOBSTAR))
