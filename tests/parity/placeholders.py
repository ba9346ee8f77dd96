"""Numbered placeholders for the ids a run makes up: uuids, ``lc_run--`` ids, and (for the
stream tests) ``name:<uuid>`` namespaces, each rewritten in order of first appearance so two
implementations' records compare equal when they point at the same things."""

from __future__ import annotations

import re
import uuid
from typing import Any

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


UUID_RE = re.compile(_UUID)


_LC_RUN_RE = re.compile(rf"lc_run--({_UUID})")


_NAMESPACE_RE = re.compile(rf"(\w+):({_UUID})")


class Placeholders:
    """Rewrites ``lc_run--`` ids and uuids in order of first appearance (one counter).

    With ``namespaces`` (the stream tests), a whole string ``name:<uuid>`` is a namespace and
    numbered on a counter of its own; the callback tests see no namespaces and keep one counter.
    """

    def __init__(self, *, namespaces: bool = True) -> None:
        self.namespaces: dict[str, int] | None = {} if namespaces else None
        self.ids: dict[str, int] = {}

    @staticmethod
    def _number(table: dict[str, int], raw: str) -> int:
        return table.setdefault(raw.lower(), len(table) + 1)

    def string(self, s: str) -> str:
        if self.namespaces is not None:
            m = _NAMESPACE_RE.fullmatch(s)
            if m:
                return f"{m[1]}:#{self._number(self.namespaces, m[2])}"
        s = _LC_RUN_RE.sub(lambda m: f"lc_run--#{self._number(self.ids, m[1])}", s)

        def bare(m: re.Match[str]) -> str:
            version = uuid.UUID(m[0]).version
            return f"uuid{version or 'x'}#{self._number(self.ids, m[0])}"

        return UUID_RE.sub(bare, s)

    def __call__(self, obj: Any) -> Any:
        if isinstance(obj, str):
            return self.string(obj)
        if isinstance(obj, dict):
            return {self(k): self(v) for k, v in obj.items()}
        if isinstance(obj, tuple):
            return tuple(self(v) for v in obj)
        if isinstance(obj, list):
            return [self(v) for v in obj]
        return obj
