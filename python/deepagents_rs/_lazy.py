"""Names a module resolves on first use (PEP 562), so ``import deepagents_rs`` loads no
LangChain or LangGraph module: the classes whose bases are LangChain's or LangGraph's are
defined in modules imported only when one of them is asked for."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(namespace: dict[str, Any], names: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list]]:
    """A module's ``__getattr__`` and ``__dir__`` for ``names`` (each name to the module,
    relative to the package, that defines it). A resolved name is kept in the module's
    namespace: later lookups, ``from m import X`` and ``typing.get_type_hints`` find it
    there without another call."""
    module = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        source = names.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source, namespace["__package__"]), name)
        namespace[name] = value
        return value

    def __dir__() -> list:
        return sorted({*namespace, *names})

    return __getattr__, __dir__
