"""deepagents' filters of filesystem results by `FilesystemPermission` rules, and the deny
rules a delete runs into, as `deepagents.middleware.filesystem` names them.

The rules' first-match decision is `_check_fs_permission`; a path's symlink target comes
from the backend as the core resolves it (`_backend_adapter._real_path`); which deny
patterns reach into a deleted subtree is the core's (`_core.files_delete_deny_patterns`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._core import files_delete_deny_patterns
from .._fs_interrupts import rule_tuples

if TYPE_CHECKING:
    from ..backends.protocol import BackendProtocol
    from .filesystem import FilesystemOperation, FilesystemPermission

    PermissionRules = list[FilesystemPermission]


def _find_delete_deny_patterns(
    rules: PermissionRules,
    target: str,
    *,
    has_descendants: bool = True,
) -> list[str]:
    """The deny-write patterns that block deleting `target` (empty: the delete may go on).

    With `has_descendants` every deny-write pattern that could match `target` or
    anything under it blocks, whatever the rule order; for a confirmed plain file
    (`False`) the first rule matching `target` decides, as for `write_file`.
    """
    return files_delete_deny_patterns(rule_tuples(rules), target, has_descendants)


def _denied(
    rules: PermissionRules,
    operation: FilesystemOperation,
    backend: BackendProtocol | None,
) -> Callable[[str], bool]:
    """Whether a path is denied: by a deny rule, or, with `backend`, because its symlink
    target is denied or cannot be resolved. Answers are kept per path (a listing repeats
    directories)."""
    from .._backend_adapter import _real_path
    from .filesystem import _check_fs_permission

    if not rules:
        return lambda _path: False
    seen: dict[str, bool] = {}

    def decide(path: str) -> bool:
        if _check_fs_permission(rules, operation, path) == "deny":
            return True
        if backend is None:
            return False
        try:
            real = _real_path(backend, path)
        except (ValueError, OSError, RuntimeError):
            return True
        return _check_fs_permission(rules, operation, real) == "deny"

    def denied(path: str) -> bool:
        if path not in seen:
            seen[path] = decide(path)
        return seen[path]

    return denied


def _filter_paths_by_permission(
    rules: PermissionRules,
    operation: FilesystemOperation,
    paths: list[str],
    *,
    backend: BackendProtocol | None = None,
) -> list[str]:
    """`paths` without the denied ones. Interrupt-mode paths stay: the human approved the
    call before it ran. With `backend`, each path's symlink target is checked too."""
    if not rules:
        return paths
    denied = _denied(rules, operation, backend)
    return [path for path in paths if not denied(path)]


def _apply_permissions_to_glob_results(
    rules: PermissionRules,
    matches: list[Any],
    *,
    backend: BackendProtocol | None = None,
) -> list[str]:
    """The paths of the glob `matches` (`FileInfo` dicts) a read is not denied."""
    denied = _denied(rules, "read", backend)
    paths = [info.get("path", "") for info in matches]
    return [path for path in paths if not denied(path)]
