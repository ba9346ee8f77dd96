"""Whether LangSmith traces a run started here: ``langsmith.utils.tracing_is_enabled()``'s
answer, read from what it reads, in its order.

Every ``invoke`` asks (`_callbacks.tracing_enabled`). LangSmith's function runs two import
statements, builds ``get_tracing_context()``'s dict of nine context variables to read one of
them, and calls through two ``get_current_run_tree`` wrappers: some 130 bytecodes and an
import's C work each run, on the thread every run's Python shares. What it reads is, in
order: the ``tracing_context(enabled=...)`` variable, the current run tree (a parent run
traces its children), ``langsmith.configure``'s global switch, then the ``TRACING_V2`` /
``TRACING`` environment variables through its own cached ``get_env_var``. Read here the
same way (the module attributes looked up at each call, as LangSmith looks them up), the
answer is the same whatever changed between runs.

Only while LangSmith's three functions are the ones this reading follows: each one's names
and constants (`_FINGERPRINT`) are compared once; a LangSmith whose functions differ is asked
itself. ``tests/test_langsmith_tracing.py`` checks that the installed LangSmith takes this
path and gets LangSmith's answer in each case.
"""

from __future__ import annotations

import functools
import types
from typing import Any

#: The names and constants (docstrings left out) of the LangSmith functions the reading
#: follows, by ``module.qualname``: LangSmith 0.15's.
_FINGERPRINT = {
    "langsmith.utils.tracing_is_enabled": (
        (
            "langsmith._internal._context",
            "_internal",
            "_context",
            "langsmith.run_helpers",
            "get_current_run_tree",
            "get_tracing_context",
            "_GLOBAL_TRACING_ENABLED",
            "get_env_var",
        ),
        (
            0,
            None,
            ("get_current_run_tree", "get_tracing_context"),
            "enabled",
            True,
            "TRACING_V2",
            "TRACING",
            "",
            ("default",),
            "true",
        ),
    ),
    "langsmith.run_helpers.get_tracing_context": (
        (
            "_context",
            "get_current_run_tree",
            "_PROJECT_NAME",
            "get",
            "_ADDRESS",
            "_TAGS",
            "_METADATA",
            "_TRACING_ENABLED",
            "_CLIENT",
            "run_trees",
            "_REPLICAS",
            "_DISTRIBUTED_PARENT_ID",
            "_CONTEXT_KEYS",
            "items",
            "pop",
        ),
        (
            None,
            (
                "parent",
                "project_name",
                "address",
                "tags",
                "metadata",
                "enabled",
                "client",
                "replicas",
                "distributed_parent_id",
            ),
            "parent_ref",
            "parent",
        ),
    ),
    "langsmith._internal._context.get_current_run_tree": (("_PARENT_RUN_TREE_REF", "get"), (None,)),
}


def _fingerprint(function: Any) -> tuple:
    """A function's names and constants: its docstring (its first constant) and nested code
    objects left out."""
    code = function.__code__
    consts = code.co_consts
    if function.__doc__ is not None and consts and consts[0] == function.__doc__:
        consts = consts[1:]
    return code.co_names, tuple(c for c in consts if not isinstance(c, types.CodeType))


#: LangSmith's modules `_read` looks in (set by `reader`).
_context: Any = None
_utils: Any = None


@functools.cache
def reader() -> Any:
    """What answers ``tracing_is_enabled()``: `_read` while LangSmith's functions are the ones
    it follows, else LangSmith's own; ``False``'s maker without LangSmith. Imported at the
    first run (not at start-up) and kept."""
    global _context, _utils
    try:
        import langsmith._internal._context as context
        from langsmith import run_helpers, utils
    except ImportError:
        return bool
    functions = {
        "langsmith.utils.tracing_is_enabled": utils.tracing_is_enabled,
        "langsmith.run_helpers.get_tracing_context": run_helpers.get_tracing_context,
        "langsmith._internal._context.get_current_run_tree": context.get_current_run_tree,
    }
    if run_helpers._context is not context or any(
        _fingerprint(function) != _FINGERPRINT[name] for name, function in functions.items()
    ):
        return utils.tracing_is_enabled
    _context, _utils = context, utils
    return _read


def tracing_is_enabled() -> Any:
    """``langsmith.utils.tracing_is_enabled()`` (``False`` without LangSmith)."""
    return reader()()


def _read() -> Any:
    """``tracing_is_enabled()``, read as LangSmith reads it (the module attributes looked up at
    each call, as it looks them up)."""
    context = _context
    # `tracing_context(enabled=...)` first: it can turn tracing off inside a traced run.
    enabled = context._TRACING_ENABLED.get()
    if enabled is not None:
        return enabled
    # Inside a run tree (held by a weak reference: None once collected).
    parent = context._PARENT_RUN_TREE_REF.get()
    if parent is not None and parent():
        return True
    enabled = context._GLOBAL_TRACING_ENABLED
    if enabled is not None:
        return enabled
    get_env_var = _utils.get_env_var
    return get_env_var("TRACING_V2", default=get_env_var("TRACING", default="")) == "true"
