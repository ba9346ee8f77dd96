"""`deepagents.middleware._fs_interrupt`: interrupt-mode `FilesystemPermission` rules as
`HumanInTheLoopMiddleware` entries, and the per-call `when` predicate behind each.

Which calls a rule sends to a human is decided in the Rust core (`_core.FsInterrupts`), the
same rules deepagents_rs agents apply (`deepagents_rs._fs_interrupts`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from .._core import FsInterrupts
from .._fs_interrupts import interrupt_on_from_permissions, resolver, rule_tuples

if TYPE_CHECKING:
    from ..backends.protocol import BackendProtocol
    from .filesystem import FilesystemOperation, FilesystemPermission

    PermissionRules = list[FilesystemPermission]

__all__ = ["ToolScope"]

ToolScope = Literal["exact", "bulk"]
"""How far a file tool's path argument reaches: `"exact"` that one path (`read_file`,
`write_file`, `edit_file`), `"bulk"` a search root and anything under it (`ls`, `glob`,
`grep`, `delete`)."""


def _make_fs_when_predicate(
    rules: PermissionRules,
    operation: FilesystemOperation,
    path_arg_name: str,
    scope: ToolScope,
    pattern_arg_name: str | None = None,
    backend: BackendProtocol | None = None,
) -> Callable[[Any], bool]:
    """The `when` predicate of a file tool whose `path_arg_name` argument names the path
    it works on (`scope` `"exact"`) or searches under (any other scope).

    An exact call fires when the first rule matching its path (or, with `backend`, the
    path a symlink leads to) is an interrupt rule and no deny rule comes first. A bulk
    call fires when its search tree could overlap an interrupt rule's literal root, when
    it names no path at all, or when its `pattern_arg_name` argument (`glob`'s pattern)
    reaches such a root by itself.
    """
    check = FsInterrupts(rule_tuples(rules))
    subtree = scope != "exact"
    resolve = resolver(backend)
    # A bulk call reads its arguments only when some interrupt rule covers the operation.
    reads_args = not subtree or any(r.mode == "interrupt" and operation in r.operations and r.paths for r in rules)
    names = [path_arg_name] if pattern_arg_name is None else [path_arg_name, pattern_arg_name]

    def when(request: Any) -> bool:
        args = request.tool_call.get("args", {})
        if reads_args and not isinstance(args, dict):
            # Read as deepagents reads them: `.get` on what is there (arguments that are no
            # mapping raise `AttributeError`).
            args = {name: args.get(name) for name in names}
        return check.fires_as(operation, path_arg_name, subtree, pattern_arg_name, args, resolve)

    return when


def _build_interrupt_on_from_permissions(
    rules: PermissionRules,
    backend: BackendProtocol | None = None,
) -> dict[str, Any]:
    """The `interrupt_on` entries interrupt-mode `rules` generate: one per file tool some
    rule's operation covers, every decision allowed, each with its `when` predicate
    (empty without interrupt rules). With `backend`, a path's symlink target is checked too."""
    return interrupt_on_from_permissions(rules, backend)
