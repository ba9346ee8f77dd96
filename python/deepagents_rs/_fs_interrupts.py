"""Interrupt-mode ``FilesystemPermission`` rules as deepagents turns them into
human-in-the-loop entries: one per file tool a rule can gate, all four decisions allowed, and
a per-call ``when`` that fires where the rules send the call to a human (decided in Rust,
``_core.FsInterrupts``). The file tools themselves let such calls through; only ``deny``
refuses."""

from __future__ import annotations

from typing import Any

from ._core import FsInterrupts

#: deepagents offers the reviewer every decision for a generated entry.
_DECISIONS = ["approve", "edit", "reject", "respond"]


def rule_tuples(permissions: Any) -> list[tuple[list[str], list[str], str]]:
    """`FilesystemPermission` rules as the core takes them: `(operations, paths, mode)`."""
    return [(list(r.operations), list(r.paths), r.mode) for r in permissions or ()]


def interrupt_on_from_permissions(permissions: Any, backend: Any) -> dict[str, Any]:
    """The generated entries, by tool name (empty without interrupt rules)."""
    rules = rule_tuples(permissions)
    if not any(mode == "interrupt" for _, _, mode in rules):
        return {}
    from langchain.agents.middleware import InterruptOnConfig

    check = FsInterrupts(rules)
    resolve = resolver(backend)
    return {
        tool: InterruptOnConfig(allowed_decisions=list(_DECISIONS), when=_when(check, tool, resolve))
        for tool in check.tools()
    }


def merged(generated: dict[str, Any], user: dict[str, Any] | None) -> dict[str, Any] | None:
    """The generated entries under the user's: the user's entry wins per tool."""
    if not generated and not user:
        return None
    return {**generated, **(user or {})}


def _when(check: FsInterrupts, tool: str, resolve: Any) -> Any:
    def when(request: Any) -> bool:
        return check.fires(tool, request.tool_call.get("args", {}), resolve)

    return when


def resolver(backend: Any) -> Any:
    """Where a path leads through symlinks, for a backend over a real filesystem (deepagents
    checks the path and its target); ``None`` for one without links."""
    from ._backend_adapter import _real_path
    from .backends.composite import CompositeBackend
    from .backends.filesystem import FilesystemBackend

    parts = [backend]
    if isinstance(backend, CompositeBackend):
        parts = [backend.default, *backend.routes.values()]
    if not any(isinstance(b, FilesystemBackend) for b in parts):
        return None

    def resolve(path: str) -> str | None:
        try:
            return _real_path(backend, path)
        except (ValueError, OSError, RuntimeError):
            # Not resolvable (outside the root, a symlink loop): nothing to check.
            return None

    return resolve
