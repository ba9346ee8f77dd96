"""An exact comparator of two values, for the bad-input tests: same types all the way down, floats by
``repr`` (NaN equals NaN, ``-0.0`` differs from ``0.0``), dict keys in order, messages field by field
(ids aside); ``diff`` names the first place where they differ."""

from __future__ import annotations

import datetime
import decimal
import reprlib
import uuid
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

# ---------------------------------------------------------------------------------------------
# The exact comparator


_ATOMIC = (
    str,
    bytes,
    bytearray,
    int,
    float,
    complex,
    bool,
    type(None),
    datetime.datetime,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    decimal.Decimal,
    uuid.UUID,
)

_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60
_short.maxlevel = 4


def short(value: Any) -> str:
    try:
        return _short.repr(value)
    except Exception as exc:  # noqa: BLE001 - only for messages
        return f"<unreprable {type(value).__name__}: {type(exc).__name__}>"


@dataclass(frozen=True)
class _Path:
    parent: _Path | None
    step: str

    def render(self) -> str:
        steps: list[str] = []
        node: _Path | None = self
        while node is not None:
            steps.append(node.step)
            node = node.parent
        steps.reverse()
        if len(steps) > 12:
            steps = [*steps[:6], f"...({len(steps) - 10} more)...", *steps[-4:]]
        return "".join(steps)


def diff(a: Any, b: Any, where: str = "") -> str | None:
    """``None`` when ``a`` and ``b`` are identical values of identical types, else where and how
    they first differ. Iterative, so values nested 20,000 deep compare fine."""
    stack: list[tuple[_Path, Any, Any]] = [(_Path(None, where), a, b)]
    while stack:
        path, x, y = stack.pop()
        if x is y:
            continue
        if type(x) is not type(y):
            return f"{path.render()}: type {type(x).__name__} != {type(y).__name__} ({short(x)} vs {short(y)})"
        if isinstance(x, _ATOMIC):
            if repr(x) != repr(y):
                return f"{path.render()}: {short(x)} != {short(y)}"
        elif isinstance(x, dict):
            if len(x) != len(y):
                return f"{path.render()}: dict keys {short(list(x))} != {short(list(y))}"
            for i, ((kx, vx), (ky, vy)) in enumerate(zip(x.items(), y.items(), strict=True)):
                if type(kx) is not type(ky) or repr(kx) != repr(ky):
                    if set(map(repr, x)) == set(map(repr, y)):
                        return f"{path.render()}: key order {short(list(x))} != {short(list(y))}"
                    return f"{path.render()}: key #{i} {short(kx)} != {short(ky)}"
                stack.append((_Path(path, f"[{short(kx)}]"), vx, vy))
        elif isinstance(x, (list, tuple)):
            if len(x) != len(y):
                return f"{path.render()}: length {len(x)} != {len(y)} ({short(x)} vs {short(y)})"
            stack.extend((_Path(path, f"[{i}]"), vx, vy) for i, (vx, vy) in enumerate(zip(x, y, strict=True)))
        elif isinstance(x, (set, frozenset)):
            unmatched = list(y)
            for item in x:
                match = next((k for k, other in enumerate(unmatched) if diff(item, other) is None), None)
                if match is None:
                    return f"{path.render()}: {short(x)} != {short(y)}"
                unmatched.pop(match)
            if unmatched:
                return f"{path.render()}: {short(x)} != {short(y)}"
        elif isinstance(x, BaseModel):
            skip = ("id",) if isinstance(x, BaseMessage) else ()
            for name in type(x).model_fields:
                if name not in skip:
                    stack.append((_Path(path, f".{name}"), getattr(x, name, None), getattr(y, name, None)))
            stack.append((_Path(path, ".<extra>"), x.model_extra or {}, y.model_extra or {}))
        elif hasattr(x, "__dict__"):
            stack.append((_Path(path, ".__dict__"), vars(x), vars(y)))
        else:
            try:
                same = bool(x == y)
            except Exception:  # noqa: BLE001 - incomparable means different
                same = False
            if not same:
                return f"{path.render()}: {short(x)} != {short(y)}"
    return None
