"""Plain function tools called without ``BaseTool.invoke``'s bookkeeping.

``BaseTool.invoke`` costs a few hundred microseconds a call before the function runs: it
builds a callback manager, starts and ends a tool run, inspects the function's signature
twice, and patches the config. When nothing can observe that bookkeeping (no callback
handler at all: none passed, none of the tool's, no tracing, no verbose), a
``StructuredTool`` over a plain function gives the same result when its input is validated
and its function called as ``run`` does it: LangChain's own ``_to_args_and_kwargs`` (the
schema's validation), the function in a context holding the tool's config (so
``get_config()``, ``get_stream_writer()`` and ``get_runtime()`` work inside it), and the
result formatted by LangChain's ``_format_output`` (a plain ``str`` result handed back as it is:
see ``_formatted``). Exceptions propagate unchanged, as
``run`` re-raises them when the tool handles none of them. A coroutine function tool under
``ainvoke`` likewise (``arun``: the input validated, then the coroutine awaited as a task in
a context holding the tool's config).

What differs, and cannot be seen without a handler: no tool run is started; the
``callbacks`` of the config a tool reads with ``get_config()`` is the (empty) manager, under
a run id of its own as a tool run's child manager would be.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import os
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from . import _python_private
from ._direct_args import ArgsPlan, args_and_kwargs

#: A direct call's function and its tool's arguments plan (``None``: LangChain's method).
Direct = tuple[Callable[..., Any], ArgsPlan | None]

#: What ``call_direct`` returns, having run nothing, when a callback handler would see the call.
FALLBACK = object()


def direct_function(tool: Any, injects_state: bool, asynchronous: bool = False) -> Callable[..., Any] | None:
    """The function ``tool.invoke`` (``tool.ainvoke`` when ``asynchronous``: the tool's
    coroutine function) would end up calling, when the direct path gives the same result;
    ``None`` when the tool needs ``invoke`` (another tool class, injected arguments,
    artifacts, error handlers, or a function that takes callbacks or a config)."""
    from langchain_core.tools import StructuredTool

    if type(tool) is not StructuredTool or injects_state:
        return None
    func = tool.coroutine if asynchronous else tool.func
    if func is None or tool.response_format != "content":
        return None
    if tool.handle_tool_error or tool.handle_validation_error:
        return None
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return None
    if "callbacks" in params or "run_manager" in params:
        return None
    try:
        from deepagents_rs._langchain_private import _get_runnable_config_param
    except ModuleNotFoundError:  # pragma: no cover - no LangChain: keep invoke
        return None
    if _get_runnable_config_param(func) is not None:
        return None
    return func


#: LangChain's names a direct call uses, by module.
_LANGCHAIN_NAMES = {
    "langchain_core.callbacks": ("AsyncCallbackManager", "BaseCallbackManager", "CallbackManager"),
    "langchain_core.globals": ("get_debug",),
    "langchain_core.runnables.config": ("ensure_config", "set_config_context", "var_child_runnable_config"),
    "langchain_core.runnables.utils": ("coro_with_context",),
    "langchain_core.tracers.context": ("tracing_v2_callback_var",),
    "langchain_core.utils.env": ("env_var_is_set",),
    "langsmith.run_helpers": ("get_tracing_context",),
    "langsmith.utils": ("tracing_is_enabled",),
}


@functools.cache
def _langchain() -> SimpleNamespace:
    """LangChain's names a direct call uses (``_LANGCHAIN_NAMES``, two private ones and
    ``uuid7``), imported on the first call (not at start-up) and looked up once: an import
    statement costs a few microseconds each call."""
    import importlib

    # LangChain's private names come through the module that checks them (first).
    from deepagents_rs._langchain_private import _configure_hooks, _format_output, _merge_metadata_dicts

    names = {
        name: getattr(importlib.import_module(module), name)
        for module, module_names in _LANGCHAIN_NAMES.items()
        for name in module_names
    }
    names.update(_configure_hooks=_configure_hooks, _format_output=_format_output, merge_metadata=_merge_metadata_dicts)
    # Python's private dict of the environment, checked once here (`quiet_context` reads it).
    _python_private.environ_data()
    try:
        from langchain_core.utils.uuid import uuid7
    except ImportError:  # pragma: no cover - an older LangChain: its run ids are uuid4
        from uuid import uuid4 as uuid7
    return SimpleNamespace(**names, uuid7=uuid7)


def run_id() -> Any:
    return _langchain().uuid7()


def _child_config(tool: Any, config: dict | None, manager_type: type) -> dict | None:
    """The config the tool's function runs with, as its tool run's child config would be;
    ``None`` when a callback handler would see the run."""
    lc = _langchain()
    # The given callbacks kept out of the copy: `ensure_config` would copy them too, and
    # they are only read below (a manager made from them replaces them; `configure` copies
    # what it takes). Left in, a context's callbacks would lose to them, as here.
    callbacks = config.get("callbacks") if config else None
    if callbacks is not None:
        config = {**config, "callbacks": None}
    # A copy: what is set below is the tool's own.
    config = lc.ensure_config(config)
    if callbacks is None:
        callbacks = config.get("callbacks")
    if _unheard(lc, callbacks, tool):
        manager = _quiet_child_manager(lc, manager_type, callbacks, config, tool)
    else:
        manager = configured(manager_type, callbacks, config, tool)
        if manager.handlers or manager.inheritable_handlers:
            return None
        _as_child(manager)
    # The id the tool's run would have: a tool reading `get_config()` sees a manager under a
    # run of its own, as under `invoke` (no handler sees that run, so none is started).
    manager.parent_run_id = lc.uuid7()
    # `patch_config(config, callbacks=manager)`, on the copy made above (it would copy the
    # config again): new callbacks, and no run name or id, which were the node run's.
    config["callbacks"] = manager
    config.pop("run_name", None)
    config.pop("run_id", None)
    return config


def configured(manager_type: type, callbacks: Any, config: dict, tool: Any) -> Any:
    """The manager LangChain's ``configure`` makes for the tool's run, as ``BaseTool.run``
    asks for it."""
    return manager_type.configure(
        callbacks,
        tool.callbacks,
        tool.verbose,
        config.get("tags"),
        tool.tags,
        config.get("metadata"),
        tool.metadata,
    )


def _no_handlers(lc: SimpleNamespace, callbacks: Any) -> bool:
    """``callbacks`` (a config's or a tool's) brings no handler."""
    if isinstance(callbacks, lc.BaseCallbackManager):
        return not (callbacks.handlers or callbacks.inheritable_handlers)
    return not callbacks


def _unheard(lc: SimpleNamespace, callbacks: Any, tool: Any) -> bool:
    """LangChain's ``CallbackManager.configure`` would give the tool's run no handler: none
    in ``callbacks`` or the tool's, no verbose or debug output, no LangSmith tracing (by
    environment, ``tracing_v2_enabled``, ``tracing_context`` or a traced parent), no
    configure hook set (``collect_runs``, or one created by its environment variable), no
    v1 tracing variable (configure raises for it) and no tags of a tracing context. What it
    reads is read at every call, so a tracer entered around ``invoke`` (the call runs in a
    copy of the caller's context) or set in the environment is seen as ``configure`` sees
    it; this only skips building, then dropping, a manager of no handler: ``configure``
    cost a third of a direct call."""
    if not (_no_handlers(lc, callbacks) and _no_handlers(lc, tool.callbacks)):
        return False
    return not tool.verbose and quiet_context(lc)


def quiet_context(lc: SimpleNamespace) -> bool:
    """``_unheard``'s checks of the context and the environment: no debug output, LangSmith
    tracing, configure hook or v1 tracing variable, and no tags of a tracing context."""
    if lc.get_debug() or lc.tracing_v2_callback_var.get() is not None:
        return False
    # `os.environ`'s own dict (`_python_private`, checked at the first call); none where
    # `os.environ` was replaced by an object of another kind (LangChain's function then).
    environ = getattr(os.environ, "_data", None)
    for var, _inheritable, handler_class, env_var in lc._configure_hooks:
        if var.get() is not None or (
            handler_class is not None and env_var is not None and _env_set(lc, environ, env_var)
        ):
            return False
    v1 = _V1_KEYS or _v1_keys()
    if (environ is None or v1[0] in environ or v1[1] in environ) and (
        lc.env_var_is_set("LANGCHAIN_TRACING") or lc.env_var_is_set("LANGCHAIN_HANDLER")
    ):
        return False
    context = lc.get_tracing_context()
    return not (context["tags"] or lc.tracing_is_enabled(context))


#: Environment variables' names as ``os.environ`` keeps them (`_env_set`).
_ENCODED: dict[str, Any] = {}
#: The v1 tracing variables' names so (`_v1_keys`), looked for at every call.
_V1_KEYS: tuple | None = None


def _v1_keys() -> tuple:
    global _V1_KEYS
    _V1_KEYS = (os.environ.encodekey("LANGCHAIN_TRACING"), os.environ.encodekey("LANGCHAIN_HANDLER"))
    return _V1_KEYS


def _env_set(lc: SimpleNamespace, environ: Any, name: str) -> bool:
    """LangChain's ``env_var_is_set(name)``, answered without it when the variable is absent
    (every call of a run that nobody traces): a look-up in ``environ``, ``os.environ``'s own
    dict (`_python_private`), where ``os.environ``'s mapping methods cost some 40 bytecodes a
    name in Python."""
    if environ is None:
        return lc.env_var_is_set(name)
    key = _ENCODED.get(name)
    if key is None:
        key = _ENCODED[name] = os.environ.encodekey(name)
    return key in environ and lc.env_var_is_set(name)


def _as_child(manager: Any) -> Any:
    """A tool run's child manager made from the run's own ``manager``: the inherited tags and
    metadata only (set on it: nothing else holds it, and a copy would be one more per call)."""
    manager.tags, manager.metadata = list(manager.inheritable_tags), dict(manager.inheritable_metadata)
    return manager


def _quiet_child_manager(lc: SimpleNamespace, manager_type: type, callbacks: Any, config: dict, tool: Any) -> Any:
    """``_as_child(_quiet_manager(...))``, made at once when neither the tool nor the config
    has tags and the tool has no metadata (a plain tool in a run, every step): the child keeps
    only the inherited parts, so the own tags and metadata ``_quiet_manager`` merges (an
    import and two copies) would be dropped again."""
    if tool.tags or tool.metadata or config.get("tags"):
        return _as_child(_quiet_manager(lc, manager_type, callbacks, config, tool))
    if isinstance(callbacks, lc.BaseCallbackManager):
        tags, metadata = callbacks.inheritable_tags.copy(), callbacks.inheritable_metadata.copy()
    else:
        tags, metadata = [], {}
    if inherited := config.get("metadata"):
        # What `add_metadata` does to the inheritable metadata (`lc_versions` merged).
        metadata = lc.merge_metadata(metadata, inherited)
    return manager_type(
        handlers=[], tags=list(tags), inheritable_tags=tags, metadata=dict(metadata), inheritable_metadata=metadata
    )


def _quiet_manager(lc: SimpleNamespace, manager_type: type, callbacks: Any, config: dict, tool: Any) -> Any:
    """What ``configure`` makes when ``_unheard``: the given manager's tags and metadata
    (none from a list of callbacks, which holds no handler here), then the config's as
    inherited and the tool's as its own, added by the manager's own methods in
    ``configure``'s order (a tool's tag drops an inherited one of the same name)."""
    if isinstance(callbacks, lc.BaseCallbackManager):
        manager = manager_type(
            handlers=[],
            tags=callbacks.tags.copy(),
            inheritable_tags=callbacks.inheritable_tags.copy(),
            metadata=callbacks.metadata.copy(),
            inheritable_metadata=callbacks.inheritable_metadata.copy(),
        )
    else:
        manager = manager_type(handlers=[])
    # Empty ones skipped: adding nothing changes nothing (a merge of no metadata costs an
    # import and two copies).
    if tags := config.get("tags"):
        manager.add_tags(tags)
    if tool.tags:
        manager.add_tags(tool.tags, inherit=False)
    if metadata := config.get("metadata"):
        manager.add_metadata(metadata)
    if tool.metadata:
        manager.add_metadata(tool.metadata, inherit=False)
    return manager


def call_direct(tool: Any, direct: Direct, args: dict, tool_call_id: str, config: dict | None) -> Any:
    """The call's ``ToolMessage`` as ``tool.invoke`` makes it, or ``FALLBACK`` (nothing run)
    when a callback handler would see the call. ``direct``: the function ``direct_function``
    found and the tool's ``_direct_args`` plan."""
    func, plan = direct
    lc = _langchain()
    child = _child_config(tool, config, lc.CallbackManager)
    if child is None:
        return FALLBACK
    # `set_config_context(child)` as it is with no handler: a copy of the context with the
    # config set in it. Its other work (the tracing context of a LangChain tracer among the
    # handlers, and resetting both in the copy afterwards, which nothing runs in again) has
    # nothing to do here, and cost a fifth of the call (a generator, two imports, four
    # `Context.run`s) while holding the GIL every run's tool calls wait for.
    context = contextvars.copy_context()
    context.run(lc.var_child_runnable_config.set, child)
    positional, keywords = args_and_kwargs(tool, plan, args, tool_call_id)
    response = context.run(func, *positional, **keywords)
    return _formatted(lc, response, tool_call_id, tool.name)


async def acall_direct(tool: Any, direct: Direct, args: dict, tool_call_id: str, config: dict | None) -> Any:
    """``call_direct`` for ``tool.ainvoke``: the input validated first, then the coroutine
    awaited as a task in a context holding the config (as ``BaseTool.arun`` runs it)."""
    func, plan = direct
    lc = _langchain()
    child = _child_config(tool, config, lc.AsyncCallbackManager)
    if child is None:
        return FALLBACK
    positional, keywords = args_and_kwargs(tool, plan, args, tool_call_id)
    with lc.set_config_context(child) as context:
        response = await lc.coro_with_context(func(*positional, **keywords), context)
    return _formatted(lc, response, tool_call_id, tool.name)


def _formatted(lc: SimpleNamespace, response: Any, tool_call_id: str, name: str) -> Any:
    """LangChain's ``_format_output`` of the response, except a plain ``str``: that would be
    a ``ToolMessage`` holding it as given (status ``success``, no artifact), which the adapter
    only takes apart again, and the str itself gives the adapter the same parts."""
    if type(response) is str:
        return response
    return lc._format_output(response, None, tool_call_id, name, "success")
