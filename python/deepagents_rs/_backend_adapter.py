"""The file tools' configuration and backend, as the Rust core takes them.

``fs_config`` turns a backend, the agent's permissions and an optional user
``FilesystemMiddleware`` into the plain dict the core builds its ``FilesystemMiddleware``
entry from. The default ``StateBackend`` is handled natively (the files never leave Rust);
any other backend is wrapped in a ``BackendAdapter`` whose ``call``/``acall`` the core calls
back for each operation, with the run's files available to a ``StateBackend`` inside it
through ``deepagents_rs._files_context``.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import inspect
import logging
import re
import sys
from collections.abc import Iterator
from typing import Any

from ._files_context import FilesContext, use_files
from ._run_context import context_of
from .backends.composite import CompositeBackend, _route_for_path
from .backends.protocol import (
    BackendProtocol,
    GlobResult,
    GrepResult,
    LsResult,
    _method_accepts_max_count,
    _supports_delete,
    execute_accepts_timeout,
)
from .backends.state import StateBackend
from .backends.utils import validate_path


def _is_loaded_instance(obj: Any, module: str, name: str) -> bool:
    """``isinstance(obj, module.name)`` without importing ``module``: when it is not
    loaded, nothing can be an instance of its class (the disk and sandbox backends' modules
    load subprocess, shutil and pathlib, which an agent on the state backend never needs)."""
    kind = getattr(sys.modules.get(module), name, None)
    return kind is not None and isinstance(obj, kind)


def _is_disk(backend: Any) -> bool:
    return _is_loaded_instance(backend, "deepagents_rs.backends.filesystem", "FilesystemBackend")


def _is_sandbox(backend: Any) -> bool:
    return _is_loaded_instance(backend, "deepagents_rs.backends.sandbox", "BaseSandbox")


logger = logging.getLogger(__name__)


def _rules(permissions: Any) -> list[tuple[list[str], list[str], str]]:
    rules = []
    for rule in permissions or ():
        # An interrupt rule lets the call through here; the human-in-the-loop entry
        # generated for it (`_fs_interrupts`) gates it.
        rules.append((list(rule.operations), list(rule.paths), rule.mode))
    return rules


@contextlib.contextmanager
def _graph_runtime(store: Any, context: Any = None) -> Iterator[None]:
    """LangGraph's runtime as a backend looks it up (``get_store()``, ``get_runtime()``):
    a ``StoreBackend`` without its own store uses the agent's ``store=``, and a namespace
    factory reads the run's ``context``."""
    from langchain_core.runnables.config import var_child_runnable_config
    from langgraph.runtime import Runtime

    from deepagents_rs._langgraph_private import CONF, CONFIG_KEY_RUNTIME

    config = dict(var_child_runnable_config.get() or {})
    conf = config.get(CONF) or {}
    # A runtime the caller set (LangGraph server's, with its `server_info`) keeps its other
    # fields: a namespace factory may read them.
    outer = conf.get(CONFIG_KEY_RUNTIME)
    runtime = (
        dataclasses.replace(outer, context=context, store=store)
        if isinstance(outer, Runtime)
        else Runtime(context=context, store=store)
    )
    config[CONF] = {**conf, CONFIG_KEY_RUNTIME: runtime}
    token = var_child_runnable_config.set(config)
    try:
        yield
    finally:
        var_child_runnable_config.reset(token)


def fs_config(
    backend: Any, permissions: Any, middleware: Any | None = None, store: Any = None, descriptions: Any = None
) -> dict[str, Any]:
    """The core's ``FilesystemMiddleware`` configuration.

    ``middleware`` is a user ``FilesystemMiddleware`` replacing the default one; its backend
    and settings win, and the agent's permissions apply when it has none of its own.
    ``descriptions`` are the default one's tool descriptions (a harness profile's overrides).
    """
    from .middleware.filesystem import FilesystemMiddleware

    if middleware is None:
        middleware = FilesystemMiddleware(
            backend=backend, permissions=permissions, custom_tool_descriptions=descriptions
        )
    mw = middleware
    rules = mw._permissions if mw._permissions else (permissions or [])
    be = mw.backend
    return {
        "backend": backend_arg(be, store),
        "rules": _rules(rules),
        "custom_descriptions": dict(mw._custom_tool_descriptions or {}),
        "system_prompt": mw._custom_system_prompt,
        "token_limit": mw._tool_token_limit_before_evict,
        "grep_max_count": mw._grep_max_count,
        "max_execute_timeout": mw._max_execute_timeout,
        "enabled": sorted(mw._enabled_tools) if mw._enabled_tools is not None else None,
        "large_tool_results_prefix": mw._large_tool_results_prefix,
        "human_message_token_limit": mw._human_message_token_limit_before_evict or None,
        "conversation_history_prefix": mw._conversation_history_prefix,
        # Off (None) unless asked for, and turned off by the face where blobs would land
        # in the state.
        "blobs_prefix": mw._blobs_prefix if mw._offload_binary_content else None,
        "video": mw._video_enabled,
    }


def _takes_max_count(method: Any) -> bool:
    return method is not None and "max_count" in inspect.signature(method).parameters


def _composite_behaviour() -> tuple[tuple[str, Any], ...]:
    return tuple(
        (name, member)
        for name, member in vars(CompositeBackend).items()
        if not name.startswith("__") and (callable(member) or isinstance(member, (property, staticmethod, classmethod)))
    )


# What a subclass would have to override to change how a composite routes or merges.
_COMPOSITE_BEHAVIOUR = _composite_behaviour()


def _routed_in_core(backend: Any) -> bool:
    """A ``CompositeBackend``, or a subclass overriding none of its methods (a constructor of
    its own, added attributes or methods the core never calls): the core routes it from its
    ``default`` and routes. A subclass that overrides a method is called back instead."""
    cls = type(backend)
    if cls is CompositeBackend:
        return True
    return isinstance(backend, CompositeBackend) and all(
        inspect.getattr_static(cls, name, None) is member for name, member in _COMPOSITE_BEHAVIOUR
    )


def backend_arg(backend: Any, store: Any = None, *, any_object: bool = False) -> Any:
    """A backend as the core takes it: ``"state"`` for a plain ``StateBackend`` (native), a
    ``("composite", ...)`` tuple for a ``CompositeBackend`` whose behaviour is the class's own
    (routed and merged in the core, each route taken the same way), else a
    ``BackendAdapter`` calling it back. ``any_object``: no check that it is no backend
    factory (deepagents' summarization only calls its methods, and reports their failures)."""
    if _routed_in_core(backend):
        return _composite_arg(backend, store, _host_roots(backend), {})
    if type(backend) is StateBackend:
        return "state"
    return BackendAdapter(backend, store, any_object=any_object)


def arg_uses_state(arg: Any) -> bool:
    """Whether a backend argument (``backend_arg``) keeps files in the run's state."""
    if isinstance(arg, str):
        return arg == "state"
    if isinstance(arg, tuple):
        return arg_uses_state(arg[1]) or any(arg_uses_state(b) for _, b in arg[2])
    return arg.uses_state


def _composite_arg(backend: CompositeBackend, store: Any, roots: list[str], memo: dict[int, Any]) -> tuple:
    """``("composite", default, sorted routes, routes as given, supports_execution,
    execute_accepts_timeout, route_prompt)``; one argument per backend object (``memo``), so a
    backend serving several routes stays one backend. A route's host paths are scrubbed
    with every root of the composite, as the composite's own messages were."""

    def arg(b: Any) -> Any:
        if id(b) not in memo:
            if type(b) is StateBackend:
                memo[id(b)] = "state"
            elif _routed_in_core(b):
                memo[id(b)] = _composite_arg(b, store, roots, memo)
            else:
                memo[id(b)] = BackendAdapter(b, store, roots=roots)
        return memo[id(b)]

    execution = _supports_execution(backend)
    return (
        "composite",
        arg(backend.default),
        [(prefix, arg(b)) for prefix, b in backend.sorted_routes],
        [(prefix, arg(b)) for prefix, b in backend.routes.items()],
        execution,
        execution and execute_accepts_timeout(type(backend.default)),
        _route_prompt(backend) if execution else "",
    )


def _uses_state(backend: Any) -> bool:
    if isinstance(backend, StateBackend):
        return True
    if isinstance(backend, CompositeBackend):
        return _uses_state(backend.default) or any(_uses_state(b) for _, b in backend.sorted_routes)
    return False


def _touches_disk(backend: Any) -> bool:
    if _is_disk(backend):
        return True
    if isinstance(backend, CompositeBackend):
        return _touches_disk(backend.default) or any(_touches_disk(b) for _, b in backend.sorted_routes)
    return False


def _host_roots(backend: Any) -> list[str]:
    if _is_disk(backend):
        return [str(backend.cwd)]
    if isinstance(backend, CompositeBackend):
        return [r for b in [backend.default, *(b for _, b in backend.sorted_routes)] for r in _host_roots(b)]
    return []


def _real_path(backend: Any, path: str) -> str:
    """deepagents' ``_resolve_real_path``: where a path leads on disk, as a virtual path."""
    if isinstance(backend, CompositeBackend):
        from .backends.composite import _route_for_path

        routed, routed_path, prefix = _route_for_path(
            default=backend.default, sorted_routes=backend.sorted_routes, path=path
        )
        resolved = _real_path(routed, routed_path)
        return resolved if prefix is None else validate_path(prefix.rstrip("/") + resolved)
    if _is_disk(backend):
        return validate_path(backend._real_path(path))
    return path


def _route_prompt(backend: Any) -> str:
    from .middleware.filesystem import _route_host_path_prompt

    return _route_host_path_prompt(backend)


def _supports_execution(backend: Any) -> bool:
    from .middleware.filesystem import supports_execution

    return supports_execution(backend)


def _executor(backend: Any) -> Any:
    return backend.default if isinstance(backend, CompositeBackend) else backend


def _capture_executor(backend: Any, capture_path: str) -> Any:
    """deepagents' ``_resolve_capture``: the sandbox that may capture ``execute`` output at
    ``capture_path`` itself, or ``None``. Only a ``BaseSandbox`` guarantees that ``execute``
    and ``read_file`` see the same files, and a composite's capture path must fall through to
    its default (the executing) backend unchanged."""
    if isinstance(backend, CompositeBackend):
        default = backend.default
        if not _is_sandbox(default):
            return None
        routed, _path, prefix = _route_for_path(default=default, sorted_routes=backend.sorted_routes, path=capture_path)
        return default if prefix is None and routed is default else None
    return backend if _is_sandbox(backend) else None


#: The operations whose disk errors become error results, and how the tool shows them
#: (read/ls/grep results get the tool's own `Error: ` prefix; the others are shown as is).
_REPORTED = {
    "ls": "{}",
    "read": "{}",
    "grep": "{}",
    "write": "Error: {}",
    "edit": "Error: {}",
    "delete": "Error: {}",
}

_ASYNC = {
    name: f"a{name}" for name in ("ls", "read", "write", "edit", "delete", "glob", "grep", "execute", "download_files")
}

#: The arguments deepagents' tools pass positionally, by operation (the rest go by keyword), e.g.
#: ``backend.read(path, offset=offset, limit=limit)``: a backend overriding a method may name its
#: parameters differently (``def read(self, path, *, offset=0, limit=100)``).
_POSITIONAL = {
    "ls": ("path",),
    "read": ("file_path",),
    "write": ("file_path", "content"),
    "edit": ("file_path", "old_string", "new_string"),
    "delete": ("file_path",),
    "glob": ("pattern",),
    "grep": ("pattern",),
    "execute": ("command",),
    "download_files": ("paths",),
}


#: The blob store's operations (``offload_binary_content``; summarization's media offload
#: uploads through ``upload_blobs`` too), by the core's name: the backend
#: method, and what is logged when the backend fails. Bytes cross as base64; a failure is
#: logged and answered ``None`` (deepagents keeps the payloads inline, or shows the blobs as
#: unavailable), never raised.
_BLOB_OPS = {
    "upload_blobs": ("upload_files", "Failed to offload binary read_file content; keeping it inline"),
    "download_blobs": ("download_files", "Failed to load offloaded read_file content"),
}


def _blob_arg(op: str, args: dict[str, Any]) -> list:
    if op == "upload_blobs":
        return [(path, base64.b64decode(payload)) for path, payload in args["files"]]
    return list(args["paths"])


def _blob_out(op: str, result: Any) -> list:
    if op == "upload_blobs":
        return [r.error for r in result]
    return [
        base64.b64encode(r.content).decode("ascii") if r.error is None and r.content is not None else None
        for r in result
    ]


def _legacy_grep(result: Any) -> Any:
    if isinstance(result, str):
        return GrepResult(error=result)
    return GrepResult(matches=result) if isinstance(result, list) else result


#: What older backends return instead of a result object (a bare list, an error string), as
#: deepagents reads it.
_LEGACY = {
    "ls": lambda r: LsResult(entries=r) if isinstance(r, list) else r,
    "glob": lambda r: GlobResult(matches=r) if isinstance(r, list) else r,
    "grep": _legacy_grep,
}


class BackendAdapter:
    """A ``BackendProtocol`` object as the core calls it: one operation per call, its result
    as a plain dict, and the files update a ``StateBackend`` inside it queued."""

    def __init__(
        self, backend: Any, store: Any = None, *, roots: list[str] | None = None, any_object: bool = False
    ) -> None:
        if not any_object and callable(backend) and not isinstance(backend, BackendProtocol):
            # Imported here: the middleware package loads LangChain, which a backend never needs.
            from .middleware._filesystem_texts import BACKEND_FACTORY_REMOVED

            raise TypeError(BACKEND_FACTORY_REMOVED)
        self.backend = backend
        self.store = store
        self.uses_state = _uses_state(backend)
        self.touches_disk = _touches_disk(backend)
        # An object that is no `BackendProtocol` (a summarization's) may have no `delete`.
        self.supports_delete = hasattr(type(backend), "delete") and _supports_delete(backend)
        self.supports_execution = _supports_execution(backend)
        self.execute_accepts_timeout = self.supports_execution and execute_accepts_timeout(type(_executor(backend)))
        self.route_prompt = _route_prompt(backend) if self.supports_execution else ""
        # Longest first, so a nested root is scrubbed before the root that contains it.
        in_composite = roots is not None
        roots = _host_roots(backend) if roots is None else roots
        self._roots = sorted({r.rstrip("/") for r in roots if r.rstrip("/")}, key=len, reverse=True)
        # A duck-typed backend may lack the search methods (deepagents only calls what it
        # uses): a call to one fails then, as with deepagents, not the setup.
        self._grep_takes_max_count = _takes_max_count(getattr(backend, "grep", None))
        self._agrep_takes_max_count = _takes_max_count(getattr(backend, "agrep", None))
        if in_composite and not (self._grep_takes_max_count and self._agrep_takes_max_count):
            # Inside a composite, deepagents' rule for a backend's `max_count` (by name or
            # through `**kwargs`); the composite caps what comes back.
            self._grep_takes_max_count = _method_accepts_max_count(type(backend), "grep")
            self._agrep_takes_max_count = _method_accepts_max_count(type(backend), "agrep")

    def real_path(self, path: str) -> str:
        return _real_path(self.backend, path)

    def _args(self, op: str, args: dict[str, Any], method: str) -> tuple[Any, list[Any], dict[str, Any]]:
        target = self.backend if op != "execute" else _executor(self.backend)
        args = dict(args)
        if op == "grep" and not (self._agrep_takes_max_count if method.startswith("a") else self._grep_takes_max_count):
            args.pop("max_count", None)
        if op == "execute" and args.get("timeout") is None:
            args.pop("timeout", None)
        positional = [args.pop(name) for name in _POSITIONAL[op]]
        return getattr(target, method), positional, args

    def scrub(self, text: str) -> str:
        """A message without host paths: a disk root's own prefix is dropped (a virtual root
        shows as ``/``), and any other path under a root's top directory (a symlink target
        outside the root) becomes ``<outside root>``."""
        for root in self._roots:
            text = text.replace(root, "")
        for top in {"/" + r.strip("/").split("/")[0] for r in self._roots}:
            text = re.sub(re.escape(top) + r"(?:/[^\s:'\"]*)?", "<outside root>", text)
        return text

    def _failed(self, op: str, exc: Exception) -> Any:
        """An exception from the backend: ``glob`` reports it (deepagents' ``glob failed``),
        every other operation raises it, its message scrubbed of host paths."""
        message = self.scrub(str(exc))
        if op == "glob":
            return {"failed": message}, None
        if op == "execute" and isinstance(exc, (ValueError, NotImplementedError)):
            # deepagents' execute tool reports these instead of raising.
            prefix = "Invalid parameter." if isinstance(exc, ValueError) else "Execution not available."
            return {"output": "", "failed": f"Error: {prefix} {message}"}, None
        if self.touches_disk and isinstance(exc, (ValueError, OSError)) and op in _REPORTED:
            # deepagents lets these escape the run (a symlink out of the root, a NUL byte),
            # with host paths in the message; here the call fails and the run goes on.
            return {"error": _REPORTED[op].format(message)}, None
        if message != str(exc):
            exc.args = (message,)
        raise exc

    @staticmethod
    def _out(result: Any, ctx: FilesContext | None, op: str = "") -> tuple[Any, Any]:
        if op in _LEGACY:
            result = _LEGACY[op](result)
        if isinstance(result, list):
            # `download_files`: the core takes text, decoded as deepagents' readers decode
            # it (a `UnicodeDecodeError` is theirs too).
            data: Any = [
                {"content": r.content.decode("utf-8") if r.content is not None else None, "error": r.error}
                for r in result
            ]
        else:
            data = dataclasses.asdict(result) if dataclasses.is_dataclass(result) else result
        return data, (ctx.updates() or None) if ctx is not None else None

    def _scope(self, ctx: FilesContext | None, config: Any = None) -> contextlib.ExitStack:
        stack = contextlib.ExitStack()
        if ctx is not None:
            stack.enter_context(use_files(ctx))
        context = context_of(config)
        if self.store is not None or context is not None:
            stack.enter_context(_graph_runtime(self.store, context))
        return stack

    def _capture(self, op: str, args: dict[str, Any]) -> tuple[Any, dict[str, Any]] | None:
        """For ``execute`` with a capture path: the sandbox capturing at source and the
        ``execute_with_offload`` arguments, or ``None`` for a plain ``execute``."""
        if op != "execute":
            return None
        path, max_inline = args.pop("capture_path", None), args.pop("max_inline_bytes", None)
        executor = _capture_executor(self.backend, path) if path is not None else None
        if executor is None:
            return None
        kwargs = {"max_inline_bytes": max_inline}
        if args.get("timeout") is not None:
            kwargs["timeout"] = args["timeout"]
        return executor, {"command": args["command"], "capture_path": path, **kwargs}

    @staticmethod
    def _offload_out(result: Any) -> dict[str, Any]:
        out = dataclasses.asdict(result.response)
        out["offloaded"] = result.offloaded
        out["preview_has_truncation_marker"] = result.preview_has_truncation_marker
        return out

    def _blob_failed(self, op: str, exc: Exception, args: dict[str, Any]) -> tuple[Any, Any]:
        media = [path for path, _ in args.get("files", ()) if "/conversation_history/media/" in path]
        if op == "upload_blobs" and media:
            # Summarization's media offload: the block becomes a failed placeholder.
            logger.warning("Failed to upload media %s to backend: %s: %s", media[0], type(exc).__name__, exc)
        else:
            logger.warning(_BLOB_OPS[op][1], exc_info=exc)
        return None, None

    def call(self, op: str, args: dict[str, Any], files: dict[str, Any] | None, config: Any = None) -> tuple[Any, Any]:
        if op in _BLOB_OPS:
            ctx = FilesContext(files or {}) if self.uses_state else None
            try:
                with self._scope(ctx, config):
                    result = getattr(self.backend, _BLOB_OPS[op][0])(_blob_arg(op, args))
            except Exception as exc:  # noqa: BLE001 - offloading is best-effort, as in deepagents
                return self._blob_failed(op, exc, args)
            return _blob_out(op, result), (ctx.updates() or None) if ctx is not None else None
        capture = self._capture(op, args)
        if capture is not None:
            executor, kwargs = capture
            try:
                return self._offload_out(executor.execute_with_offload(**kwargs)), None
            except Exception as exc:  # noqa: BLE001 - re-raised or reported, scrubbed
                return self._failed(op, exc)
        fn, positional, kwargs = self._args(op, args, op)
        ctx = FilesContext(files or {}) if self.uses_state else None
        try:
            with self._scope(ctx, config):
                return self._out(fn(*positional, **kwargs), ctx, op)
        except Exception as exc:  # noqa: BLE001 - re-raised or reported, scrubbed
            return self._failed(op, exc)

    async def acall(
        self, op: str, args: dict[str, Any], files: dict[str, Any] | None, config: Any = None
    ) -> tuple[Any, Any]:
        if op in _BLOB_OPS:
            ctx = FilesContext(files or {}) if self.uses_state else None
            try:
                with self._scope(ctx, config):
                    result = await getattr(self.backend, "a" + _BLOB_OPS[op][0])(_blob_arg(op, args))
            except Exception as exc:  # noqa: BLE001 - offloading is best-effort, as in deepagents
                return self._blob_failed(op, exc, args)
            return _blob_out(op, result), (ctx.updates() or None) if ctx is not None else None
        capture = self._capture(op, args)
        if capture is not None:
            executor, kwargs = capture
            try:
                return self._offload_out(await executor.aexecute_with_offload(**kwargs)), None
            except Exception as exc:  # noqa: BLE001 - re-raised or reported, scrubbed
                return self._failed(op, exc)
        fn, positional, kwargs = self._args(op, args, _ASYNC[op])
        ctx = FilesContext(files or {}) if self.uses_state else None
        try:
            with self._scope(ctx, config):
                return self._out(await fn(*positional, **kwargs), ctx, op)
        except Exception as exc:  # noqa: BLE001 - re-raised or reported, scrubbed
            return self._failed(op, exc)
