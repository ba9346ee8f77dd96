"""Calling backend objects directly (no agent) on ``deepagents`` and ``deepagents_rs`` alike.

A scenario is a function ``scenario(a, call)``: ``a`` is ``fs_support.api(impl)`` (plus the
implementation's ``sandbox``/``composite`` modules), ``call(obj, "grep", ...)`` runs the
sync method or, in ``"async"`` mode, its ``a``-prefixed coroutine. ``run_both`` runs the
scenario once per implementation and ``same`` asserts both produced the same ``view``.

``view`` turns result dataclasses into plain, comparable data: the class name plus its
fields; exceptions become ``("raised", class name, message)``; ISO timestamps in file data
become ``"<timestamp>"``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
from collections.abc import Callable
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from .fs_support import api

IMPLS = ("deepagents", "deepagents_rs")
CALL_MODES = ("sync", "async")

Call = Callable[..., Any]
Scenario = Callable[[SimpleNamespace, Call], Any]


def impl_api(impl: str) -> SimpleNamespace:
    """``fs_support.api`` plus the modules the direct scenarios reach into."""
    a = api(impl)
    a.sandbox = importlib.import_module(f"{impl}.backends.sandbox")
    a.composite = importlib.import_module(f"{impl}.backends.composite")
    a.P = a.protocol
    return a


def caller(mode: str) -> Call:
    def call(obj: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        if mode == "sync":
            return getattr(obj, name)(*args, **kwargs)
        return asyncio.run(getattr(obj, f"a{name}")(*args, **kwargs))

    return call


def _is_timestamp(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def view(value: Any) -> Any:
    """Plain data for comparing one implementation's result with the other's."""
    if isinstance(value, BaseException):
        return ("raised", type(value).__name__, str(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: view(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"<type>": type(value).__name__, **fields}
    if isinstance(value, dict):
        return {
            k: "<timestamp>" if k in ("created_at", "modified_at") and _is_timestamp(v) else view(v)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [view(v) for v in value]
    return value


def attempt(fn: Callable[[], Any]) -> Any:
    """``fn()``, or the exception it raised (so one step's failure is compared, not fatal)."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - compared by the caller
        return exc


def run_ops(backend: Any, mode: str, ops: list[tuple[Any, ...]]) -> list[Any]:
    """``(method, *args[, kwargs dict])`` each in turn; each result (or exception) viewed."""
    call = caller(mode)
    results = []
    for method, *args in ops:
        kwargs = args.pop() if args and isinstance(args[-1], dict) else {}
        results.append(view(attempt(lambda m=method, a=args, k=kwargs: call(backend, m, *a, **k))))
    return results


def run_both(scenario: Scenario, mode: str = "sync") -> dict[str, Any]:
    """``{impl: view(scenario(api, call))}``; an exception out of the scenario is its view."""
    return {impl: view(attempt(lambda impl=impl: scenario(impl_api(impl), caller(mode)))) for impl in IMPLS}


def same(scenario: Scenario, mode: str = "sync", *, raises: bool = False) -> Any:
    """Both implementations give the same view; returns deepagents' view.

    Unless ``raises``, the scenario must complete on deepagents (a scenario that breaks on
    both sides alike would otherwise compare equal).
    """
    out = run_both(scenario, mode)
    ref = out["deepagents"]
    is_raise = isinstance(ref, tuple) and ref[:1] == ("raised",)
    assert is_raise == raises, f"deepagents: {ref!r}"
    assert out["deepagents_rs"] == ref, _differences(ref, out["deepagents_rs"])
    return ref


def _differences(ref: Any, rs: Any, where: str = "") -> str:
    """Where two views part, down to the innermost differing dict entries."""
    if isinstance(ref, dict) and isinstance(rs, dict):
        parts = [
            _differences(ref.get(k, "<absent>"), rs.get(k, "<absent>"), f"{where}[{k!r}]")
            for k in {**ref, **rs}
            if ref.get(k, "<absent>") != rs.get(k, "<absent>")
        ]
        return "\n".join(parts)
    return f"{where}:\n  deepagents    {ref!r}\n  deepagents_rs {rs!r}"


def paths(result_view: dict[str, Any], key: str) -> list[str] | None:
    """The ``path`` of each item of a viewed ``LsResult``/``GlobResult``/``GrepResult`` list."""
    items = result_view[key]
    return None if items is None else [item["path"] for item in items]
